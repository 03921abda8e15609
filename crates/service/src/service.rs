//! [`Service`]: what one daemon holds across calls (its backends, the states and roots it
//! handed out, the lanes and input lock, id counters, desktop frames) and its settings
//! ([`ServiceConfig`]), with the look-ups every tool makes (a backend by name, the browser, the
//! screen). Running a call is `lib.rs`'s (`Service::call`) and `enforce.rs`'s; what the tools
//! do with a service is theirs.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use uidriver_core::{Backend, Error, ErrorCode, InputLock, Lanes, RootRegistry, StateStore};

use crate::files::FileAccess;
use crate::frames::Frames;
use crate::ids_file;
use crate::listings::RecentListings;
use crate::policy::Policy;
use crate::shown::Shown;

/// Settings of a service.
#[derive(Clone, Debug)]
pub struct ServiceConfig {
    /// States kept (default 128).
    pub state_capacity: usize,
    /// Where id counters persist (None: no persistence, for tests).
    pub id_file: Option<PathBuf>,
    /// Whether `evaluate_browser` may run scripts in pages.
    pub allow_evaluate: bool,
    /// Default deadline of one observation.
    pub observe_timeout: Duration,
    /// Default deadline of one `act_ui` call (steps + successor observation).
    pub act_timeout: Duration,
    /// Largest image sent to a model (never enlarged).
    pub image_max: (u32, u32),
    /// Node lines in a first view.
    pub outline_lines: usize,
    /// The policy every call is checked against (`uidriver daemon --policy`); callers may
    /// bring their own on top ([`Service::call_as`]).
    pub policy: Option<Arc<Policy>>,
    /// The file roots of a call whose caller gives none (`files.rs`): by default this
    /// process's working directory.
    pub files: FileAccess,
}

impl Default for ServiceConfig {
    fn default() -> Self {
        ServiceConfig {
            state_capacity: uidriver_core::store::DEFAULT_CAPACITY,
            id_file: None,
            allow_evaluate: false,
            observe_timeout: Duration::from_secs(8),
            act_timeout: Duration::from_secs(30),
            image_max: (1366, 768),
            outline_lines: 150,
            policy: None,
            files: FileAccess::working_dir("the uidriver daemon"),
        }
    }
}

impl ServiceConfig {
    /// The same settings with `files` as the roots of calls that bring none.
    pub fn with_files(mut self, files: FileAccess) -> Self {
        self.files = files;
        self
    }
}

/// The stateful service behind every transport.
pub struct Service {
    /// The running backends.
    pub(crate) backends: Vec<Arc<dyn Backend>>,
    /// Backends that failed to start, and why.
    pub(crate) unavailable: Vec<(String, Error)>,
    /// The states handed out.
    pub(crate) store: StateStore,
    /// The roots handed out.
    pub(crate) roots: RootRegistry,
    /// One lane per resource, with its epoch.
    pub(crate) lanes: Lanes,
    /// Held by physical input.
    pub(crate) input: InputLock,
    ids: Mutex<ids_file::IdFile>,
    /// The desktop frames `desktop_screenshot` took.
    pub(crate) frames: Mutex<Frames>,
    /// The settings.
    pub(crate) config: ServiceConfig,
    /// The last state of each root each viewer was shown.
    pub(crate) shown: Shown,
    /// The app's roots as the latest successor looks listed them.
    pub(crate) listings: RecentListings,
}

impl Service {
    /// A service over `backends`; `unavailable` names backends that failed to start and why
    /// (calls that need them answer `backend_unavailable` with that reason).
    pub fn new(
        backends: Vec<Arc<dyn Backend>>,
        unavailable: Vec<(String, Error)>,
        config: ServiceConfig,
    ) -> Self {
        let (ids, first) = ids_file::IdFile::open(config.id_file.clone());
        Service {
            backends,
            unavailable,
            store: StateStore::new(config.state_capacity, first.state),
            roots: RootRegistry::new(first.root),
            lanes: Lanes::new(),
            input: InputLock::new(),
            ids: Mutex::new(ids),
            frames: Mutex::new(Frames::default()),
            config,
            shown: Shown::default(),
            listings: RecentListings::default(),
        }
    }

    /// The policy every call is checked against, when the service has one.
    pub fn policy(&self) -> Option<&Policy> {
        self.config.policy.as_deref()
    }

    /// The backends that failed to start, with the reason.
    pub fn unavailable(&self) -> &[(String, Error)] {
        &self.unavailable
    }

    /// Stops what the backends started (browsers it launched).
    pub async fn shutdown(&self) {
        for b in &self.backends {
            if let Some(br) = b.browser() {
                br.shutdown().await;
            }
        }
    }

    pub(crate) fn backend_named(&self, name: &str) -> Result<&Arc<dyn Backend>, Error> {
        if let Some(b) = self.backends.iter().find(|b| b.name() == name) {
            return Ok(b);
        }
        Err(self.unavailable_error(name))
    }

    fn unavailable_error(&self, name: &str) -> Error {
        match self.unavailable.iter().find(|(n, _)| n == name) {
            Some((_, e)) => e.clone(),
            None => Error::new(
                ErrorCode::BackendUnavailable,
                format!("the {name} backend is not running in this daemon"),
            ),
        }
    }

    /// `backend_unavailable` for a capability (`what`: "a screen", "a browser") that no running
    /// backend offers: the start error of the backend that failed when one did (it would have
    /// been the one), or all of them, or that none offers it.
    fn missing(&self, what: &str) -> Error {
        match self.unavailable.as_slice() {
            [(_, e)] => e.clone(),
            [] => Error::new(
                ErrorCode::BackendUnavailable,
                format!("no backend running in this daemon offers {what}"),
            ),
            failed => {
                let why: Vec<String> = failed
                    .iter()
                    .map(|(n, e)| format!("{n}: {}", e.message))
                    .collect();
                Error::new(
                    ErrorCode::BackendUnavailable,
                    format!(
                        "no running backend offers {what}; these did not start: {}",
                        why.join("; ")
                    ),
                )
                .with_hint("Run `uidriver doctor` to see what is missing.")
            }
        }
    }

    /// The first running backend that drives browsers.
    pub(crate) fn browser(&self) -> Result<&dyn uidriver_core::BrowserControl, Error> {
        self.backends
            .iter()
            .find_map(|b| b.browser())
            .ok_or_else(|| self.missing("a browser"))
    }

    /// The first running backend that owns a screen.
    pub(crate) fn screen(&self) -> Result<&dyn uidriver_core::ScreenControl, Error> {
        self.backends
            .iter()
            .find_map(|b| b.screen())
            .ok_or_else(|| self.missing("a screen"))
    }

    pub(crate) fn persist_ids(&self) {
        let mut ids = self.ids.lock().unwrap_or_else(|p| p.into_inner());
        ids.ensure(self.store.next_id(), self.roots.next_id());
    }
}
