//! The forest of roots across backends: listing them all (each backend bounded by the deadline,
//! so one stuck backend cannot stall the others), giving each a stable `@rN`, and pairing a
//! Chromium window seen over AT-SPI/X11 with the same page seen over CDP.

use std::time::Duration;

use futures_util::future::join_all;
use uidriver_core::{Deadline, Error, ErrorCode, RootInfo, RootKind, RootRef, StateId};

use crate::Service;

/// Roots of `after` missing from `before` (opened) and of `before` missing from `after` (gone).
/// Roots opened and gone between two listings; a root a policy denies is not shown as opened.
pub(crate) fn root_changes<'a>(
    before: &'a [Listed],
    after: &'a [Listed],
) -> (Vec<&'a Listed>, Vec<&'a Listed>) {
    let opened = after
        .iter()
        .filter(|l| l.denied.is_none() && !before.iter().any(|b| b.r == l.r))
        .collect();
    let gone = before
        .iter()
        .filter(|b| !after.iter().any(|l| l.r == b.r))
        .collect();
    (opened, gone)
}

/// One listed root.
#[derive(Clone, Debug)]
pub struct Listed {
    /// Its ref.
    pub r: RootRef,
    /// What the backend said.
    pub info: RootInfo,
    /// Another root showing the same surface.
    pub same_as: Option<RootRef>,
    /// Why a policy of the running call denies it (`enforce.rs`); such roots are not shown.
    pub denied: Option<Error>,
}

impl Service {
    /// Lists every backend's roots. Backends that fail or run out of time are reported in the
    /// second value instead of failing the call.
    pub(crate) async fn list_roots(&self, deadline: Deadline) -> (Vec<Listed>, Vec<String>) {
        self.list_roots_of(None, deadline).await
    }

    /// [`Service::list_roots`] of one backend (`Some(name)`) or of all.
    async fn list_roots_of(
        &self,
        backend: Option<&str>,
        deadline: Deadline,
    ) -> (Vec<Listed>, Vec<String>) {
        let asked = self
            .backends
            .iter()
            .filter(|b| backend.is_none_or(|name| b.name() == name));
        let calls = asked.map(|b| async move {
            let r = tokio::time::timeout(deadline.remaining(), b.list_roots(deadline)).await;
            (b.name(), r)
        });
        let mut issues: Vec<String> = self
            .unavailable
            .iter()
            .map(|(n, e)| format!("{n} backend unavailable: {}", e.message))
            .collect();
        let mut all = Vec::new();
        for (name, r) in join_all(calls).await {
            match r {
                Ok(Ok(list)) => all.extend(list),
                Ok(Err(e)) => issues.push(format!("{name}: {e}")),
                Err(_) => issues.push(format!("{name}: listing timed out; its roots are missing")),
            }
        }
        let mut listed: Vec<Listed> = all
            .into_iter()
            .map(|info| Listed {
                r: self.roots.register(info.clone()),
                denied: crate::enforce::denial(&info),
                info,
                same_as: None,
            })
            .collect();
        pair_browser_windows(&mut listed);
        self.persist_ids();
        (listed, issues)
    }

    /// The listed roots of the app showing `info`: of its backend, and of its lane, its
    /// process or a process it started (so pages of one browser count together: a popup of a
    /// page is a root of its app; and a dialog of GIMP's export plug-in, a child process, is a
    /// root of GIMP's).
    pub(crate) async fn app_roots(&self, info: &RootInfo, deadline: Deadline) -> Vec<Listed> {
        // Only its backend is asked: the others' roots are filtered out below anyway, and a
        // slower backend (a browser over CDP) would make every act wait for it.
        let (listed, _) = self.list_roots_of(Some(&info.backend), deadline).await;
        listed
            .into_iter()
            .filter(|l| {
                l.info.backend == info.backend
                    && (l.info.resource == info.resource
                        || info.pid.is_some_and(|app| {
                            l.info.pid.is_some_and(|p| {
                                p == app || uidriver_procfs::is_self_or_ancestor(app, p)
                            })
                        }))
            })
            .collect()
    }

    /// The root named by ref, or the single root matching app/title text; `ambiguous_target`
    /// when several match, `root_not_found` when none does (`backend_unavailable`, naming the
    /// cause, when none does and some backend could not list its roots).
    pub(crate) async fn pick_root(
        &self,
        root: Option<RootRef>,
        app: Option<&str>,
        title: Option<&str>,
        deadline: Deadline,
    ) -> Result<RootRef, Error> {
        match (root, app, title) {
            (Some(r), None, None) => return Ok(r),
            (Some(_), _, _) => {
                return Err(Error::invalid("root", "give root, or app/title, not both"))
            }
            (None, None, None) => {
                return Err(Error::invalid("root", "give root (@rN), or app or title"))
            }
            _ => {}
        }
        let (listed, issues) = self.list_roots(deadline).await;
        let contains = |hay: &str, needle: Option<&str>| {
            needle.is_none_or(|n| hay.to_lowercase().contains(&n.to_lowercase()))
        };
        let (found, denied): (Vec<&Listed>, Vec<&Listed>) = listed
            .iter()
            .filter(|l| {
                !l.info.hidden && contains(&l.info.app, app) && contains(&l.info.title, title)
            })
            .partition(|l| l.denied.is_none());
        match found.as_slice() {
            // Only roots a policy denies match: say so (naming the rule), not "none open".
            [] if !denied.is_empty() => Err(denied[0].denied.clone().unwrap_or_else(|| {
                Error::internal("a denied root without its denial")
            })),
            [one] => Ok(one.r),
            // The root may be open where nothing could be listed: say what is missing rather
            // than send the caller to find_roots, which would list nothing either.
            [] if !issues.is_empty() => Err(Error::new(
                ErrorCode::BackendUnavailable,
                format!(
                    "no listed root matches that app/title, and not every backend could list its roots: {}",
                    issues.join("; ")
                ),
            )),
            [] => Err(Error::new(
                ErrorCode::RootNotFound,
                "no open root matches that app/title",
            )),
            many => Err(Error::new(
                ErrorCode::AmbiguousTarget,
                format!(
                    "{} roots match: {}",
                    many.len(),
                    many.iter()
                        .take(8)
                        .map(|l| format!("{} {:?}", l.r, l.info.title))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
            .with_hint("pass one of these refs as root, or a more specific title")),
        }
    }

    /// What is known about a root; re-lists when the registry has never seen it.
    pub(crate) fn root_info(&self, r: RootRef) -> Result<RootInfo, Error> {
        self.roots.get(r)
    }

    /// The browser page a call names by `root` or by a `state` of it (both: they must agree);
    /// `invalid_args` when it names none or a root that is not a page.
    pub(crate) fn page_root(
        &self,
        root: Option<RootRef>,
        state: Option<StateId>,
    ) -> Result<(RootRef, RootInfo), Error> {
        let r = match (root, state) {
            (Some(r), None) => r,
            (None, Some(s)) => self.store.get(s)?.root,
            (Some(r), Some(s)) => {
                let st = self.store.get(s)?;
                if st.root != r {
                    return Err(Error::invalid(
                        "root",
                        format!("{r} is not the root of {s}"),
                    ));
                }
                r
            }
            (None, None) => return Err(Error::invalid("root", "give root or stateId")),
        };
        let info = self.root_info(r)?;
        if info.kind != RootKind::BrowserPage {
            return Err(Error::invalid("root", format!("{r} is not a browser page")));
        }
        Ok((r, info))
    }

    /// Re-lists roots of the backend owning `info` and returns its current description, or
    /// `target_closed` when it is gone.
    pub(crate) async fn refresh_root(
        &self,
        r: RootRef,
        info: &RootInfo,
        deadline: Deadline,
    ) -> Result<RootInfo, Error> {
        let backend = self.backend_named(&info.backend)?;
        let list = tokio::time::timeout(
            deadline.remaining().min(Duration::from_secs(3)),
            backend.list_roots(deadline.cap(Duration::from_secs(3))),
        )
        .await
        .map_err(|_| Error::new(ErrorCode::Timeout, "listing roots timed out"))??;
        match list.into_iter().find(|i| i.key == info.key) {
            Some(now) => {
                self.roots.register(now.clone());
                Ok(now)
            }
            // A listing cut short by the deadline may have left out an app that did not answer
            // in time: that is no proof the root closed.
            None if deadline.expired() => Err(Error::new(
                ErrorCode::Timeout,
                format!("the deadline passed while listing roots, before {r} was found"),
            )
            .with_hint("Raise timeoutMs.")),
            None => {
                let why = backend
                    .closed_reason(info)
                    .await
                    .map(|w| format!(": {w}"))
                    .unwrap_or_default();
                Err(Error::new(
                    ErrorCode::TargetClosed,
                    format!(
                        "{r} ({} {:?}) no longer exists{why}",
                        info.kind.as_str(),
                        info.title
                    ),
                )
                .with_details(serde_json::json!({ "cause": "closed" })))
            }
        }
    }
}

/// A window (a desktop backend's) and a browser page (a browser backend's) of the same process,
/// the window's title starting with the page's, show one surface (a Chromium window and its
/// page): mark each as the other's `sameAs`.
fn pair_browser_windows(listed: &mut [Listed]) {
    let pages: Vec<(usize, Option<u32>, String)> = listed
        .iter()
        .enumerate()
        .filter(|(_, l)| l.info.kind == RootKind::BrowserPage)
        .map(|(i, l)| (i, l.info.pid, l.info.title.clone()))
        .collect();
    for (pi, ppid, ptitle) in pages {
        if ptitle.is_empty() {
            continue;
        }
        let window = listed.iter().position(|l| {
            l.info.kind != RootKind::BrowserPage
                && l.info.pid.is_some()
                && l.info.pid == ppid
                && l.info.title.starts_with(&ptitle)
        });
        if let Some(wi) = window {
            let (wr, pr) = (listed[wi].r, listed[pi].r);
            listed[wi].same_as = Some(pr);
            listed[pi].same_as = Some(wr);
        }
    }
}

/// Ranks roots for a query: text match on title/app, then focused, modal, front-most.
pub(crate) fn rank(listed: &mut [Listed], text: Option<&str>) {
    let q = text.map(|t| t.trim().to_lowercase());
    let score = |l: &Listed| -> i64 {
        let mut s = 0i64;
        if let Some(q) = &q {
            let t = uidriver_core::search::text_score(&l.info.title, q) as i64;
            let a = uidriver_core::search::text_score(&l.info.app, q) as i64;
            s += t.max(a) * 1000;
        }
        if l.info.focused {
            s += 500;
        }
        if l.info.modal {
            s += 200;
        }
        if l.info.hidden {
            s -= 300;
        }
        s + l.info.stacking.unwrap_or(0) as i64
    };
    listed.sort_by_key(|l| std::cmp::Reverse(score(l)));
}
