//! One persistent WebSocket to one browser, shared by every page session on it.
//!
//! A writer task owns the sink; one reader task owns the stream and routes each reply to the
//! caller waiting on its id (a oneshot per command) and each event to a broadcast channel that
//! subscribers filter by session. Every command carries a deadline; when the socket closes,
//! every waiting caller gets [`CdpError::Closed`] at once, so nothing hangs on a dead browser.
//! Which commands to send is everyone else's business.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::{SinkExt, StreamExt};
use serde_json::value::RawValue;
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use uidriver_core::Deadline;

use crate::error::{CdpError, CdpResult};
use crate::protocol::{Command, Event, Incoming, ProtocolError, Request};

pub(crate) type Reply = Result<Option<Box<RawValue>>, ProtocolError>;
// A std mutex: it is held only to insert or remove one map entry, never across an await.
pub(crate) type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Reply>>>>;

/// A connection to one browser's DevTools endpoint.
pub struct Client {
    outgoing: mpsc::UnboundedSender<String>,
    pending: Pending,
    next_id: AtomicU64,
    events: broadcast::Sender<Arc<Event>>,
    closed: Arc<AtomicBool>,
    calls: AtomicU64,
}

impl Client {
    /// Connects to a `ws://…/devtools/browser/<id>` URL and starts the reader and writer tasks.
    pub async fn connect(ws_url: &str, deadline: Deadline) -> CdpResult<Client> {
        // getFullAXTree on a large page is tens of MB in one message; the default caps (64 MiB
        // message, 16 MiB frame) would drop the connection.
        let config = WebSocketConfig::default()
            .max_message_size(Some(1 << 30))
            .max_frame_size(Some(1 << 30));
        let connect = tokio_tungstenite::connect_async_with_config(ws_url, Some(config), true);
        let (ws, _) = tokio::time::timeout(deadline.remaining(), connect)
            .await
            .map_err(|_| CdpError::Timeout("WebSocket connect"))??;
        let (mut sink, mut stream) = ws.split();
        let (out_tx, mut out_rx) = mpsc::unbounded_channel::<String>();
        let pending: Pending = Arc::default();
        let (events, _) = broadcast::channel(4096);
        let closed = Arc::new(AtomicBool::new(false));

        tokio::spawn(async move {
            while let Some(text) = out_rx.recv().await {
                if let Err(e) = sink.send(Message::text(text)).await {
                    tracing::debug!(error = %e, "cdp write failed");
                    break;
                }
            }
            let _ = sink.close().await;
        });

        let (p, ev, cl) = (pending.clone(), events.clone(), closed.clone());
        tokio::spawn(async move {
            while let Some(msg) = stream.next().await {
                let text = match msg {
                    Ok(Message::Text(t)) => t,
                    Ok(Message::Close(_)) => break,
                    Ok(_) => continue,
                    Err(e) => {
                        tracing::debug!(error = %e, "cdp read failed");
                        break;
                    }
                };
                route(text.as_str(), &p, &ev);
            }
            cl.store(true, Ordering::SeqCst);
            // Dropping every sender wakes every waiter with Closed.
            p.lock().map(|mut m| m.clear()).ok();
            tracing::debug!("cdp connection closed");
        });

        Ok(Client {
            outgoing: out_tx,
            pending,
            next_id: AtomicU64::new(1),
            events,
            closed,
            calls: AtomicU64::new(0),
        })
    }

    /// Sends a command (to a page session, or to the browser when `session` is None) and waits
    /// for its reply until the deadline.
    pub async fn send<C: Command>(
        &self,
        session: Option<&str>,
        cmd: &C,
        deadline: Deadline,
    ) -> CdpResult<C::Output> {
        let raw = self.send_raw(session, C::METHOD, cmd, deadline).await?;
        serde_json::from_str(raw.as_deref().map(RawValue::get).unwrap_or("{}")).map_err(|source| {
            CdpError::Decode {
                method: C::METHOD,
                source,
            }
        })
    }

    /// Like [`Client::send`] but returns the undecoded result (None when the reply had none).
    pub async fn send_raw<P: serde::Serialize>(
        &self,
        session: Option<&str>,
        method: &'static str,
        params: &P,
        deadline: Deadline,
    ) -> CdpResult<Option<Box<RawValue>>> {
        if self.is_closed() {
            return Err(CdpError::Closed);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.calls.fetch_add(1, Ordering::Relaxed);
        let text = serde_json::to_string(&Request {
            id,
            method,
            params,
            session_id: session,
        })
        .map_err(|source| CdpError::Decode { method, source })?;
        let (tx, rx) = oneshot::channel();
        self.pending
            .lock()
            .map_err(|_| CdpError::Closed)?
            .insert(id, tx);
        if self.outgoing.send(text).is_err() {
            self.forget(id);
            return Err(CdpError::Closed);
        }
        tracing::trace!(id, method, "cdp send");
        match tokio::time::timeout(deadline.remaining(), rx).await {
            Ok(Ok(Ok(v))) => Ok(v),
            Ok(Ok(Err(e))) => Err(CdpError::Protocol {
                method,
                code: e.code,
                message: e.message,
            }),
            Ok(Err(_)) => Err(CdpError::Closed),
            Err(_) => {
                self.forget(id);
                Err(CdpError::Timeout(method))
            }
        }
    }

    fn forget(&self, id: u64) {
        if let Ok(mut m) = self.pending.lock() {
            m.remove(&id);
        }
    }

    /// Subscribes to events (of every session; filter by `session_id`).
    pub fn events(&self) -> broadcast::Receiver<Arc<Event>> {
        self.events.subscribe()
    }

    /// Hands the connection's events (only `session`'s, when given) to `listener` on a task of
    /// its own, subscribed before this returns so no later event is missed. `on_event` answers
    /// whether to go on; the task also ends when the listener is dropped (it is held weakly) or
    /// the connection closes. A receiver that lagged is logged (`what`) and goes on.
    pub(crate) fn listen<T: Send + Sync + 'static>(
        &self,
        session: Option<&str>,
        listener: &Arc<T>,
        what: &'static str,
        on_event: fn(&T, &Event) -> bool,
    ) {
        let mut events = self.events();
        let weak = Arc::downgrade(listener);
        let session = session.map(str::to_string);
        tokio::spawn(async move {
            loop {
                let ev = match events.recv().await {
                    Ok(ev) => ev,
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        tracing::debug!(n, what, "event listener lagged");
                        continue;
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                };
                let Some(l) = weak.upgrade() else { break };
                if session.is_some() && ev.session_id != session {
                    continue;
                }
                if !on_event(&l, &ev) {
                    break;
                }
            }
        });
    }

    /// Whether the socket has closed.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Commands sent so far (for timings).
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }
}

/// Routes one text frame: a reply to its waiter, an event to the subscribers; anything else is
/// dropped (fuzzed: the `cdp_message` target, `docs/FUZZING.md`).
pub(crate) fn route(text: &str, pending: &Pending, events: &broadcast::Sender<Arc<Event>>) {
    let msg: Incoming = match serde_json::from_str(text) {
        Ok(m) => m,
        Err(e) => {
            tracing::debug!(error = %e, "undecodable cdp message");
            return;
        }
    };
    if let Some(id) = msg.id {
        let waiter = pending.lock().ok().and_then(|mut m| m.remove(&id));
        if let Some(tx) = waiter {
            let reply = match msg.error {
                Some(e) => Err(e),
                None => Ok(msg.result),
            };
            let _ = tx.send(reply);
        }
        return;
    }
    if let Some(method) = msg.method {
        // No subscribers is normal; a lagging subscriber notices through RecvError::Lagged.
        let _ = events.send(Arc::new(Event {
            method,
            session_id: msg.session_id,
            params: msg.params,
        }));
    }
}
