//! The X11 CLIPBOARD selection, as text.
//!
//! Reading converts the selection to UTF8_STRING (falling back to STRING) into a property of a
//! private unmapped window, following INCR transfers for large contents. Writing takes ownership
//! with a private window and serves requests from a thread that lives until another client takes
//! the clipboard (SelectionClear) — X11 has no clipboard storage, so the owner must keep
//! answering after the call returns. Each operation uses its own connection so a slow or absent
//! selection owner never blocks the backend's X11 thread.

use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use tracing::debug;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ChangeWindowAttributesAux, ConnectionExt as _, CreateWindowAux, EventMask,
    PropMode, Property, SelectionNotifyEvent, Window, WindowClass, SELECTION_NOTIFY_EVENT,
};
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

use crate::error::LinuxError;

/// Largest text read or written (bytes of UTF-8).
pub const MAX_CLIPBOARD_BYTES: usize = 1 << 20;

x11rb::atom_manager! {
    Atoms: AtomsCookie {
        CLIPBOARD,
        UTF8_STRING,
        TARGETS,
        TEXT,
        INCR,
        UIDRIVER_CLIP,
    }
}

fn xe<E: std::fmt::Display>(e: E) -> LinuxError {
    LinuxError::X11(format!("clipboard: {e}"))
}

fn open(display: &str) -> Result<(RustConnection, Window, Atoms), LinuxError> {
    let (conn, screen) = RustConnection::connect(Some(display)).map_err(xe)?;
    let root = conn.setup().roots[screen].root;
    let atoms = Atoms::new(&conn).map_err(xe)?.reply().map_err(xe)?;
    let win = conn.generate_id().map_err(xe)?;
    conn.create_window(
        0,
        win,
        root,
        -10,
        -10,
        1,
        1,
        0,
        WindowClass::INPUT_ONLY,
        0,
        &CreateWindowAux::new().event_mask(EventMask::PROPERTY_CHANGE),
    )
    .map_err(xe)?;
    conn.flush().map_err(xe)?;
    Ok((conn, win, atoms))
}

fn wait_event(
    conn: &RustConnection,
    until: Instant,
    want: impl Fn(&Event) -> bool,
) -> Result<Event, LinuxError> {
    loop {
        while let Some(ev) = conn.poll_for_event().map_err(xe)? {
            if want(&ev) {
                return Ok(ev);
            }
        }
        if Instant::now() >= until {
            return Err(LinuxError::Deadline(
                "waiting for the clipboard owner".into(),
            ));
        }
        thread::sleep(Duration::from_millis(3));
    }
}

/// Reads the clipboard as text. `Ok(None)` when nobody owns it or the owner offers no text.
pub fn read(display: &str, timeout: Duration) -> Result<Option<String>, LinuxError> {
    let until = Instant::now() + timeout;
    let (conn, win, atoms) = open(display)?;
    let owner = conn
        .get_selection_owner(atoms.CLIPBOARD)
        .map_err(xe)?
        .reply()
        .map_err(xe)?
        .owner;
    if owner == 0 {
        return Ok(None);
    }
    for target in [atoms.UTF8_STRING, AtomEnum::STRING.into()] {
        conn.convert_selection(
            win,
            atoms.CLIPBOARD,
            target,
            atoms.UIDRIVER_CLIP,
            x11rb::CURRENT_TIME,
        )
        .map_err(xe)?;
        conn.flush().map_err(xe)?;
        let ev = wait_event(
            &conn,
            until,
            |e| matches!(e, Event::SelectionNotify(n) if n.requestor == win),
        )?;
        let Event::SelectionNotify(n) = ev else {
            continue;
        };
        if n.property == 0 {
            continue; // this target refused; try the next
        }
        let bytes = read_property(&conn, win, atoms.UIDRIVER_CLIP, &atoms, until)?;
        let _ = conn.destroy_window(win);
        return Ok(Some(String::from_utf8_lossy(&bytes).into_owned()));
    }
    Ok(None)
}

fn read_property(
    conn: &RustConnection,
    win: Window,
    prop: Atom,
    atoms: &Atoms,
    until: Instant,
) -> Result<Vec<u8>, LinuxError> {
    let r = conn
        .get_property(
            true,
            win,
            prop,
            AtomEnum::ANY,
            0,
            (MAX_CLIPBOARD_BYTES / 4 + 1) as u32,
        )
        .map_err(xe)?
        .reply()
        .map_err(xe)?;
    conn.flush().map_err(xe)?;
    if r.type_ != atoms.INCR {
        let mut v = r.value;
        v.truncate(MAX_CLIPBOARD_BYTES);
        return Ok(v);
    }
    // INCR: the owner sends chunks, each after we delete the previous one; empty ends it.
    let mut out = Vec::new();
    loop {
        wait_event(
            conn,
            until,
            |e| matches!(e, Event::PropertyNotify(p) if p.window == win && p.atom == prop && p.state == Property::NEW_VALUE),
        )?;
        let chunk = conn
            .get_property(
                true,
                win,
                prop,
                AtomEnum::ANY,
                0,
                (MAX_CLIPBOARD_BYTES / 4 + 1) as u32,
            )
            .map_err(xe)?
            .reply()
            .map_err(xe)?;
        conn.flush().map_err(xe)?;
        if chunk.value.is_empty() {
            break;
        }
        out.extend_from_slice(&chunk.value);
        if out.len() >= MAX_CLIPBOARD_BYTES {
            out.truncate(MAX_CLIPBOARD_BYTES);
            break;
        }
    }
    Ok(out)
}

/// A clipboard we own; dropping it keeps serving until another client takes the selection.
pub struct Owner {
    stop: mpsc::Sender<()>,
}

impl Owner {
    /// Stops serving now (another write replaces it).
    pub fn release(self) {
        let _ = self.stop.send(());
    }
}

/// Takes the clipboard with `text` and serves it from a thread. Returns once ownership is
/// confirmed.
pub fn write(display: &str, text: String) -> Result<Owner, LinuxError> {
    if text.len() > MAX_CLIPBOARD_BYTES {
        return Err(LinuxError::InvalidArgs(format!(
            "clipboard text is {} bytes; at most {MAX_CLIPBOARD_BYTES}",
            text.len()
        )));
    }
    let (conn, win, atoms) = open(display)?;
    conn.set_selection_owner(win, atoms.CLIPBOARD, x11rb::CURRENT_TIME)
        .map_err(xe)?;
    let owner = conn
        .get_selection_owner(atoms.CLIPBOARD)
        .map_err(xe)?
        .reply()
        .map_err(xe)?
        .owner;
    if owner != win {
        return Err(LinuxError::X11("could not take the clipboard".into()));
    }
    let (stop, stopped) = mpsc::channel::<()>();
    thread::Builder::new()
        .name("uidriver-clipboard".into())
        .spawn(move || serve(conn, win, atoms, text.into_bytes(), stopped))
        .map_err(|e| LinuxError::X11(format!("clipboard thread: {e}")))?;
    Ok(Owner { stop })
}

fn serve(
    conn: RustConnection,
    win: Window,
    atoms: Atoms,
    data: Vec<u8>,
    stopped: mpsc::Receiver<()>,
) {
    loop {
        if stopped.try_recv().is_ok() {
            break;
        }
        let ev = match conn.poll_for_event() {
            Ok(Some(ev)) => ev,
            Ok(None) => {
                thread::sleep(Duration::from_millis(5));
                continue;
            }
            Err(e) => {
                debug!(error = %e, "clipboard connection closed");
                return;
            }
        };
        match ev {
            Event::SelectionClear(_) => {
                debug!("another client took the clipboard");
                break;
            }
            Event::SelectionRequest(req) => {
                let property = if req.property == 0 {
                    req.target
                } else {
                    req.property
                };
                let ok = if req.target == atoms.TARGETS {
                    let targets = [
                        atoms.TARGETS,
                        atoms.UTF8_STRING,
                        atoms.TEXT,
                        AtomEnum::STRING.into(),
                    ];
                    conn.change_property32(
                        PropMode::REPLACE,
                        req.requestor,
                        property,
                        AtomEnum::ATOM,
                        &targets,
                    )
                    .is_ok()
                } else if req.target == atoms.UTF8_STRING
                    || req.target == atoms.TEXT
                    || req.target == u32::from(AtomEnum::STRING)
                {
                    let ty = if req.target == atoms.TEXT {
                        atoms.UTF8_STRING
                    } else {
                        req.target
                    };
                    conn.change_property8(PropMode::REPLACE, req.requestor, property, ty, &data)
                        .is_ok()
                } else {
                    false
                };
                let notify = SelectionNotifyEvent {
                    response_type: SELECTION_NOTIFY_EVENT,
                    sequence: 0,
                    time: req.time,
                    requestor: req.requestor,
                    selection: req.selection,
                    target: req.target,
                    property: if ok { property } else { 0 },
                };
                let _ = conn.send_event(false, req.requestor, EventMask::NO_EVENT, notify);
                let _ = conn.flush();
            }
            _ => {}
        }
    }
    let _ = conn.change_window_attributes(win, &ChangeWindowAttributesAux::new());
    let _ = conn.destroy_window(win);
    let _ = conn.flush();
}
