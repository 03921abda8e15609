//! A deterministic in-memory backend for tests of core and the crates above it. It is compiled
//! only with the `testing` feature, which only dev-dependencies enable: it is never a shipped
//! tool backend.
//!
//! Apps are little trees whose buttons do things: `Increment` bumps a `Count: N` label, `Close`
//! closes the root, `Open dialog` adds a modal dialog root; asking a root whose title starts
//! with `*` to close (`close_root`) opens a "Save changes?" dialog instead. Every delivery is
//! logged with a timestamp so tests can prove what was (or was not) sent, and when.

use crate::{DeliveryMethod, GroundingMethod, VerificationMethod};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use async_trait::async_trait;

use crate::action::{set_files_unsupported, Step, Target};
use crate::backend::{ActRequest, Backend, Deadline, ObserveRequest};
use crate::error::{Error, ErrorCode, Result};
use crate::model::{Bounds, Evidence, Node, ResourceKey, RootInfo, RootKind, Snapshot, TextSlice};
use crate::outcome::{Delivery, StepReport};
use crate::vocab::{CapSet, Capability, Role, StateFlag, StateSet};

/// One node of a test app.
#[derive(Clone, Debug)]
pub struct MemNode {
    /// Role.
    pub role: Role,
    /// Name.
    pub name: String,
    /// Value.
    pub value: Option<String>,
    /// States.
    pub states: StateSet,
    /// Children indices.
    pub children: Vec<usize>,
}

impl MemNode {
    /// A node without children.
    pub fn new(role: Role, name: &str) -> Self {
        MemNode {
            role,
            name: name.into(),
            value: None,
            states: StateSet::EMPTY,
            children: vec![],
        }
    }
}

struct MemRoot {
    info: RootInfo,
    nodes: Vec<MemNode>,
    closed: bool,
}

/// A record of input that reached a test app.
#[derive(Clone, Debug)]
pub struct Delivered {
    /// The root's key.
    pub root: String,
    /// The step name.
    pub action: String,
    /// When it started.
    pub start: Instant,
    /// When it finished.
    pub end: Instant,
}

/// The in-memory backend.
pub struct MemoryBackend {
    roots: Mutex<Vec<MemRoot>>,
    /// Every delivery, in order.
    pub deliveries: Mutex<Vec<Delivered>>,
    /// Every backend method called, by name (to prove invalid input never reaches a backend).
    pub calls: Mutex<Vec<&'static str>>,
    act_delay: Mutex<Duration>,
    observe_delay: Mutex<Duration>,
    corrupt: Mutex<bool>,
}

fn info(key: &str, app: &str, pid: u32, kind: RootKind, title: &str) -> RootInfo {
    RootInfo {
        key: key.into(),
        backend: "memory".into(),
        kind,
        app: app.into(),
        pid: Some(pid),
        title: title.into(),
        focused: false,
        modal: kind == RootKind::Dialog,
        bounds: Some(Bounds::new(0, 0, 400, 300)),
        resource: ResourceKey::new(format!("desktop-pid:{}", pid)),
        stacking: Some(pid),
        has_tree: true,
        hidden: false,
        window_id: Some(pid as u64 * 16),
        url: None,
    }
}

/// A root of this backend (pid-based lane, 400x300 at the origin); give it to
/// [`MemoryBackend::add_root`].
pub fn mem_root(key: &str, app: &str, pid: u32, kind: RootKind, title: &str) -> RootInfo {
    info(key, app, pid, kind, title)
}

/// A state of `snapshot` alone (state 1 of root 1, no image, no previous state), for tests
/// of what backends read off a state.
pub fn state_of(snapshot: Snapshot) -> crate::State {
    crate::State::build(crate::NewState {
        id: crate::StateId::new(1).expect("id"),
        root: crate::RootRef::new(1).expect("ref"),
        root_info: info("w1", "app", 1, RootKind::Window, "App"),
        epoch: 0,
        snapshot,
        image: None,
        ocr: Vec::new(),
        previous: None,
        successor: false,
    })
}

/// Builds a flat app: a window with the given children.
pub fn app_nodes(title: &str, children: Vec<MemNode>) -> Vec<MemNode> {
    let mut win = MemNode::new(Role::Window, title);
    win.children = (1..=children.len()).collect();
    let mut v = vec![win];
    v.extend(children);
    v
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Default for MemoryBackend {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryBackend {
    /// No roots.
    pub fn new() -> Self {
        MemoryBackend {
            roots: Mutex::new(vec![]),
            deliveries: Mutex::new(vec![]),
            calls: Mutex::new(vec![]),
            act_delay: Mutex::new(Duration::ZERO),
            observe_delay: Mutex::new(Duration::ZERO),
            corrupt: Mutex::new(false),
        }
    }

    /// Two apps: "Counter" (pid 100) and "Editor" (pid 200).
    pub fn sample() -> Self {
        let b = MemoryBackend::new();
        let mut text = MemNode::new(Role::Text, "Notes");
        text.value = Some(String::new());
        text.states = StateSet::EMPTY
            .with(StateFlag::Editable)
            .with(StateFlag::Focusable);
        b.add_root(
            info("mem:counter", "Counter", 100, RootKind::Window, "Counter"),
            app_nodes(
                "Counter",
                vec![
                    MemNode::new(Role::Button, "Increment"),
                    MemNode::new(Role::Label, "Count: 0"),
                    text,
                    MemNode::new(Role::CheckBox, "Enabled"),
                    MemNode::new(Role::Button, "Open dialog"),
                    MemNode::new(Role::Button, "Close"),
                ],
            ),
        );
        b.add_root(
            info("mem:editor", "Editor", 200, RootKind::Window, "Editor"),
            app_nodes(
                "Editor",
                vec![
                    MemNode::new(Role::Button, "Save"),
                    MemNode::new(Role::Label, "Saved: no"),
                ],
            ),
        );
        b
    }

    /// An app with `n` nodes in nested groups (for cached-query benchmarks).
    pub fn big(n: usize) -> Self {
        let b = MemoryBackend::new();
        let mut nodes = vec![MemNode::new(Role::Window, "Big")];
        let mut i = 1;
        while nodes.len() < n {
            let g = nodes.len();
            let mut group = MemNode::new(Role::Group, &format!("Group {i}"));
            nodes.push(group.clone());
            for k in 0..9 {
                if nodes.len() >= n {
                    break;
                }
                let role = if k % 3 == 0 {
                    Role::Button
                } else {
                    Role::Label
                };
                group.children.push(nodes.len());
                nodes.push(MemNode::new(role, &format!("Item {i}.{k} alpha beta")));
            }
            nodes[g] = group;
            nodes[0].children.push(g);
            i += 1;
        }
        b.add_root(info("mem:big", "Big", 300, RootKind::Window, "Big"), nodes);
        b
    }

    /// Adds a root.
    pub fn add_root(&self, info: RootInfo, nodes: Vec<MemNode>) {
        lock(&self.roots).push(MemRoot {
            info,
            nodes,
            closed: false,
        });
    }

    /// Makes every act take this long (to show lanes overlapping or not).
    pub fn set_act_delay(&self, d: Duration) {
        *lock(&self.act_delay) = d;
    }

    /// Makes every observation take this long (to simulate an unresponsive app).
    pub fn set_observe_delay(&self, d: Duration) {
        *lock(&self.observe_delay) = d;
    }

    /// Makes the next observation return a tree whose links disagree (a buggy backend).
    pub fn corrupt_next_observation(&self) {
        *lock(&self.corrupt) = true;
    }

    /// How many backend methods ran.
    pub fn call_count(&self) -> usize {
        lock(&self.calls).len()
    }

    fn record(&self, what: &'static str) {
        lock(&self.calls).push(what);
    }

    /// Closes a root as if its window went away.
    pub fn close(&self, key: &str) {
        for r in lock(&self.roots).iter_mut() {
            if r.info.key == key {
                r.closed = true;
            }
        }
    }

    /// Changes a node's name from outside (an app updating itself).
    pub fn rename(&self, key: &str, index: usize, name: &str) {
        for r in lock(&self.roots).iter_mut() {
            if r.info.key == key {
                r.nodes[index].name = name.into();
            }
        }
    }

    /// Changes a root's page URL from outside (a page navigating by itself).
    pub fn set_url(&self, key: &str, url: &str) {
        for r in lock(&self.roots).iter_mut() {
            if r.info.key == key {
                r.info.url = Some(url.into());
            }
        }
    }

    fn snapshot(root: &MemRoot) -> Snapshot {
        let mut nodes: Vec<Node> = Vec::with_capacity(root.nodes.len());
        // Pre-order with parent links; memory trees are already stored parent-first.
        let mut map = vec![usize::MAX; root.nodes.len()];
        let mut stack = vec![(0usize, None::<usize>)];
        while let Some((i, parent)) = stack.pop() {
            let m = &root.nodes[i];
            let idx = nodes.len();
            map[i] = idx;
            let mut caps = CapSet::EMPTY.with(Capability::Click);
            match m.role {
                Role::Button => caps.insert(Capability::Press),
                Role::CheckBox => caps.insert(Capability::Toggle),
                Role::Text => {
                    caps.insert(Capability::SetText);
                    caps.insert(Capability::TypeText);
                    caps.insert(Capability::ReadText);
                }
                _ => {}
            }
            nodes.push(Node {
                role: m.role,
                native_role: m.role.as_str().into(),
                name: Evidence::from_text(m.name.clone()),
                value: m.value.clone().map(Evidence::Known).unwrap_or_default(),
                states: Evidence::Known(m.states),
                caps,
                bounds: Some(Bounds::new(10, 10 + idx as i32 * 20, 100, 18)),
                handle: format!("{}:{i}", root.info.key),
                text_len: m.value.as_ref().map(|v| v.chars().count() as u32),
                parent,
                ..Node::default()
            });
            if let Some(p) = parent {
                nodes[p].children.push(idx);
            }
            for &c in m.children.iter().rev() {
                stack.push((c, Some(idx)));
            }
        }
        Snapshot {
            nodes,
            complete: true,
            ..Snapshot::default()
        }
    }

    fn with_root<T>(&self, key: &str, f: impl FnOnce(&mut MemRoot) -> Result<T>) -> Result<T> {
        let mut roots = lock(&self.roots);
        let r = roots
            .iter_mut()
            .find(|r| r.info.key == key && !r.closed)
            .ok_or_else(|| Error::new(ErrorCode::TargetClosed, "the window is gone"))?;
        f(r)
    }
}

fn mem_index(handle: &str) -> Option<usize> {
    handle.rsplit(':').next()?.parse().ok()
}

#[async_trait]
impl Backend for MemoryBackend {
    fn name(&self) -> &'static str {
        "memory"
    }

    async fn list_roots(&self, _deadline: Deadline) -> Result<Vec<RootInfo>> {
        self.record("list_roots");
        Ok(lock(&self.roots)
            .iter()
            .filter(|r| !r.closed)
            .map(|r| r.info.clone())
            .collect())
    }

    /// A root whose title starts with `*` (an editor's mark for unsaved work) stays open and
    /// a modal "Save changes?" dialog of its app appears, as a text editor answers a close
    /// request; any other root closes.
    async fn close_root(&self, root: &RootInfo, _deadline: Deadline) -> Result<()> {
        self.record("close_root");
        let unsaved = root.title.starts_with('*');
        let mut roots = lock(&self.roots);
        let Some(r) = roots
            .iter_mut()
            .find(|r| r.info.key == root.key && !r.closed)
        else {
            return Err(Error::new(ErrorCode::TargetClosed, "the root is gone"));
        };
        if !unsaved {
            r.closed = true;
            return Ok(());
        }
        let pid = r.info.pid.unwrap_or(0);
        let key = format!("{}:save", root.key);
        if !roots.iter().any(|r| r.info.key == key && !r.closed) {
            let nodes = app_nodes(
                "Save changes?",
                vec![
                    MemNode::new(Role::Button, "Don't Save"),
                    MemNode::new(Role::Button, "Save"),
                ],
            );
            let info = info(&key, &root.app, pid, RootKind::Dialog, "Save changes?");
            roots.push(MemRoot {
                info,
                nodes,
                closed: false,
            });
        }
        Ok(())
    }

    async fn observe(
        &self,
        root: &RootInfo,
        _req: &ObserveRequest,
        _d: Deadline,
    ) -> Result<Snapshot> {
        self.record("observe");
        let delay = *lock(&self.observe_delay);
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        let corrupt = std::mem::take(&mut *lock(&self.corrupt));
        self.with_root(&root.key, |r| {
            let mut s = Self::snapshot(r);
            if corrupt && s.nodes.len() > 1 {
                s.nodes[1].parent = Some(s.nodes.len() + 5);
            }
            Ok(s)
        })
    }

    async fn act(&self, req: ActRequest<'_>, deadline: Deadline) -> Result<Vec<StepReport>> {
        self.record("act");
        let driver = MemoryDriver {
            backend: self,
            req: &req,
            delay: *lock(&self.act_delay),
        };
        Ok(crate::batch::run_batch(&driver, req.steps, req.headless, deadline).await)
    }

    async fn read_text(
        &self,
        root: &RootInfo,
        node: &Node,
        start: u32,
        end: u32,
        _d: Deadline,
    ) -> Result<TextSlice> {
        self.record("read_text");
        let i = mem_index(&node.handle).ok_or_else(|| Error::internal("bad handle"))?;
        self.with_root(&root.key, |r| {
            let v = r.nodes[i].value.clone().unwrap_or_default();
            Ok(TextSlice::of(&v, start, end))
        })
    }
}

/// Runs `run` on every kept input of the fuzz target `target`: the seeds in
/// `fuzz/corpus/<target>/` and the inputs that once crashed it in `fuzz/regressions/<target>/`
/// (`docs/FUZZING.md`). `manifest_dir` is the calling crate's `CARGO_MANIFEST_DIR`. Returns how
/// many inputs ran; a missing directory counts none.
///
/// # Panics
/// When an input cannot be read, or `run` panics on one (the file is named on stderr first).
pub fn replay_kept_inputs(manifest_dir: &str, target: &str, run: fn(&[u8])) -> usize {
    let fuzz = std::path::Path::new(manifest_dir).join("../../fuzz");
    let mut n = 0;
    for dir in ["corpus", "regressions"] {
        let Ok(entries) = std::fs::read_dir(fuzz.join(dir).join(target)) else {
            continue;
        };
        for e in entries.flatten() {
            let data = std::fs::read(e.path())
                .unwrap_or_else(|err| panic!("reading {}: {err}", e.path().display()));
            eprintln!("replaying {}", e.path().display());
            run(&data);
            n += 1;
        }
    }
    n
}

/// The memory backend's part of a batch: each step applied to the in-memory tree.
struct MemoryDriver<'a> {
    backend: &'a MemoryBackend,
    req: &'a ActRequest<'a>,
    delay: Duration,
}

#[async_trait]
impl crate::batch::StepDriver for MemoryDriver<'_> {
    /// Pointer and key injection are what `headless` forbids; the rest is semantic here.
    fn needs_foreground(&self, step: &Step) -> bool {
        matches!(
            step,
            Step::Keypress(..)
                | Step::Click { .. }
                | Step::Drag { .. }
                | Step::MoveMouse(_)
                | Step::Hover(_)
        )
    }

    async fn perform(&self, rep: &mut StepReport, step: &Step) {
        if let Step::SetFiles(..) = step {
            rep.error = Some(set_files_unsupported("the memory backend"));
            return;
        }
        let (this, req, delay) = (self.backend, self.req, self.delay);
        let target = match step
            .refs()
            .first()
            .map(|r| req.state.resolve(*r))
            .transpose()
        {
            Ok(t) => t,
            Err(e) => {
                rep.error = Some(e);
                return;
            }
        };
        let handle = target.map(|i| req.state.snapshot.nodes[i].handle.clone());
        let start = Instant::now();
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        let key = req.root.key.clone();
        let result = this.with_root(&key, |r| {
            let idx = handle.as_deref().and_then(mem_index);
            let node_name = idx.map(|i| r.nodes[i].name.clone()).unwrap_or_default();
            match step {
                Step::Press(_)
                | Step::Click {
                    target: Target::Ref(_),
                    ..
                } => match node_name.as_str() {
                    "Increment" => {
                        if let Some(l) = r.nodes.iter_mut().find(|n| n.name.starts_with("Count: "))
                        {
                            let n: u64 = l.name[7..].parse().unwrap_or(0);
                            l.name = format!("Count: {}", n + 1);
                        }
                        Ok(Some(true))
                    }
                    "Close" => {
                        r.closed = true;
                        Ok(None)
                    }
                    "Save" => {
                        if let Some(l) = r.nodes.iter_mut().find(|n| n.name.starts_with("Saved: "))
                        {
                            l.name = "Saved: yes".into();
                        }
                        Ok(Some(true))
                    }
                    _ => Ok(None),
                },
                // Text goes only into editable nodes, as on every real backend (a label
                // refuses it, and nothing is sent).
                Step::SetText(..) | Step::TypeText(..)
                    if idx.is_some_and(|i| !r.nodes[i].states.contains(StateFlag::Editable)) =>
                {
                    Err(Error::unsupported(format!(
                        "the element is not editable: the memory backend cannot {}",
                        step.name()
                    )))
                }
                Step::SetText(_, t) => {
                    if let Some(i) = idx {
                        r.nodes[i].value = Some(t.clone());
                    }
                    Ok(Some(true))
                }
                Step::TypeText(_, t) => {
                    if let Some(i) = idx {
                        r.nodes[i].value.get_or_insert_with(String::new).push_str(t);
                    }
                    Ok(Some(true))
                }
                Step::Check(_) | Step::Uncheck(_) => {
                    if let Some(i) = idx {
                        if matches!(step, Step::Check(_)) {
                            r.nodes[i].states.insert(StateFlag::Checked)
                        } else {
                            r.nodes[i].states.remove(StateFlag::Checked)
                        }
                    }
                    Ok(Some(true))
                }
                Step::Focus(_) | Step::Keypress(..) => Ok(None),
                other => Err(Error::unsupported(format!(
                    "the memory backend cannot {}",
                    other.name()
                ))),
            }
        });
        let open_dialog = handle
            .as_deref()
            .and_then(mem_index)
            .and_then(|i| {
                this.with_root(&key, |r| Ok(r.nodes[i].name == "Open dialog"))
                    .ok()
            })
            .unwrap_or(false);
        if open_dialog {
            let pid = req.root.pid.unwrap_or(0);
            let mut dlg = info(
                &format!("{key}:dialog"),
                &req.root.app,
                pid,
                RootKind::Dialog,
                "Confirm",
            );
            dlg.focused = true;
            this.add_root(
                dlg,
                app_nodes("Confirm", vec![MemNode::new(Role::Button, "OK")]),
            );
        }
        lock(&this.deliveries).push(Delivered {
            root: key.clone(),
            action: step.name().into(),
            start,
            end: Instant::now(),
        });
        rep.grounding.method = if target.is_some() {
            GroundingMethod::Ref
        } else {
            GroundingMethod::Focus
        };
        rep.grounding.r#ref = step.refs().first().copied();
        rep.delivery.method = DeliveryMethod::SemanticAction;
        rep.delivery.delivered = Delivery::Delivered;
        match result {
            Ok(v) => {
                rep.verification.method = if v.is_some() {
                    VerificationMethod::ReadBack
                } else {
                    VerificationMethod::None
                };
                rep.verification.passed = v.or(open_dialog.then_some(true));
            }
            Err(e) if e.code == ErrorCode::NotSupported => {
                rep.delivery.delivered = Delivery::NotDelivered;
                rep.delivery.method = DeliveryMethod::None;
                rep.error = Some(e);
            }
            Err(e) => rep.error = Some(e.delivered(Delivery::Delivered)),
        }
    }
}
