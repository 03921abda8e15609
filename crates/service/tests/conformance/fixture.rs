//! What every contract test runs against: a [`Fixture`] (a `Service` over one backend and the
//! root of the fixture app, "Conformance"), the [`Backend`] each fixture module implements to
//! start one, and [`run`], which gives a test its own runtime, a fresh fixture, a hard timeout,
//! and the stop of everything the fixture started on every exit path.
//!
//! The fixture app has the same controls on every backend: a button "Increment" that bumps a
//! label "Count: N" (from "Count: 0"), a text field "Note" and a check box "Agree". Where backends differ legitimately (how long an app takes to
//! show a change), the difference lives here or in the backend's module, never in a test body.

use std::any::Any;
use std::future::Future;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use uidriver_service::{Service, ToolResult};

/// Longest a fixture may take to start (a sandbox with its app, a browser with its page).
const START: Duration = Duration::from_secs(60);
/// Longest one test body may take: a hang is a failure, not a stuck run.
const BODY: Duration = Duration::from_secs(60);
/// Longest the fixture app's root may take to be listed once its component is up.
const APPEAR: Duration = Duration::from_secs(10);

/// A service over one backend, and the fixture app's root in it.
pub struct Fixture {
    /// The service under test; every test talks to it through `Service::call` only.
    pub svc: Service,
    /// The fixture app's root ref (`@rN`), as `find_roots` lists it.
    pub root: String,
    /// What the fixture started besides the backend (a sandbox). Declared after `svc`, so it is
    /// dropped after the backend that talks to it.
    _started: Option<Box<dyn Any + Send>>,
}

/// A backend's way of making a fresh fixture, and its lock: tests of one live backend run one
/// at a time (the machines have two cores, and each fixture starts a desktop or a browser).
pub trait Backend {
    /// Serialises the tests of this backend.
    fn serial() -> &'static Mutex<()>;
    /// Starts the backend's components and the fixture app; panics, saying what is missing,
    /// when a component is not installed.
    fn start() -> impl Future<Output = Fixture>;
}

impl Fixture {
    /// A fixture over `svc`, whose root is the one `find_roots` lists titled "Conformance"
    /// (waiting a few seconds for it: a page opened by a script shows up a moment later).
    /// `started` is kept alive until the fixture is dropped.
    pub async fn new(svc: Service, started: Option<Box<dyn Any + Send>>) -> Fixture {
        let t0 = Instant::now();
        let root = loop {
            let r = svc
                .call("find_roots", json!({ "text": "Conformance" }))
                .await;
            assert!(!r.is_error, "find_roots: {}", r.text);
            let found = r.structured["roots"]
                .as_array()
                .and_then(|a| a.iter().find(|x| x["title"] == "Conformance"))
                .and_then(|x| x["ref"].as_str())
                .map(str::to_string);
            match found {
                Some(root) => break root,
                None if t0.elapsed() > APPEAR => panic!("no root titled Conformance: {}", r.text),
                None => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        };
        Fixture {
            svc,
            root,
            _started: started,
        }
    }

    /// Calls a tool.
    pub async fn call(&self, tool: &str, args: Value) -> ToolResult {
        self.svc.call(tool, args).await
    }

    /// Calls a tool that must succeed; its structured result.
    pub async fn ok(&self, tool: &str, args: Value) -> Value {
        let r = self.call(tool, args.clone()).await;
        assert!(!r.is_error, "{tool} {args}:\n{}", r.text);
        r.structured
    }

    /// Observes the fixture's root (semantic mode: the tree only); the result.
    pub async fn observe(&self) -> ToolResult {
        let r = self
            .call(
                "observe_ui",
                json!({ "root": self.root, "mode": "semantic" }),
            )
            .await;
        assert!(!r.is_error, "observe_ui: {}", r.text);
        r
    }

    /// Observes the fixture's root; the new state's id.
    pub async fn state(&self) -> String {
        state_id(&self.observe().await.structured)
    }

    /// The ref of the best match for `text` in `state` (no OCR: the tree must have it).
    pub async fn find(&self, state: &str, text: &str) -> String {
        let r = self
            .ok(
                "search_ui",
                json!({ "stateId": state, "text": text, "ocrFallback": false }),
            )
            .await;
        r["matches"][0]["ref"]
            .as_str()
            .unwrap_or_else(|| panic!("no match for {text:?} in {state}: {r}"))
            .to_string()
    }

    /// Whether `state` has an element whose name is exactly `name`.
    pub async fn has(&self, state: &str, name: &str) -> bool {
        let r = self
            .ok(
                "search_ui",
                json!({ "stateId": state, "text": name, "ocrFallback": false }),
            )
            .await;
        r["matches"]
            .as_array()
            .is_some_and(|m| m.iter().any(|x| x["name"] == name))
    }

    /// Stops what the backend started (browsers), then drops the rest.
    async fn stop(self) {
        self.svc.shutdown().await;
    }
}

/// The `stateId` of a structured result.
pub fn state_id(v: &Value) -> String {
    v["stateId"]
        .as_str()
        .unwrap_or_else(|| panic!("no stateId in {v}"))
        .to_string()
}

/// The error code of a result ("" when it is no error).
pub fn code(r: &ToolResult) -> &str {
    r.structured["error"]["code"].as_str().unwrap_or("")
}

/// Runs one contract test on backend `B`: after the other tests of `B`, on a two-thread
/// runtime of its own, with a fresh fixture, failing past its deadlines. The fixture is
/// dropped on every path (a panic unwinds through the body, a timeout drops it), and its
/// `Drop`s stop what it started, by pid.
pub fn run<B, F, Fut>(name: &str, body: F)
where
    B: Backend,
    F: FnOnce(Fixture) -> Fut,
    Fut: Future<Output = Fixture>,
{
    let _serial = B::serial().lock().unwrap_or_else(|p| p.into_inner());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let f = tokio::time::timeout(START, B::start())
            .await
            .unwrap_or_else(|_| panic!("{name}: the fixture did not start in {START:?}"));
        let f = tokio::time::timeout(BODY, body(f))
            .await
            .unwrap_or_else(|_| panic!("{name}: timed out after {BODY:?}"));
        f.stop().await;
    });
}
