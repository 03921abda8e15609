//! Semantic observation of one root: the cached tree first (`Cache.GetItems`, one call), a
//! concurrent walk wherever the cache is incomplete, then per-node details (text, values,
//! actions; extents when pixels need them) for showing nodes only, all inside the caller's
//! deadline.
//!
//! Why this shape (measured on this machine, at-spi2-core 2.46): `GetItems` returns an app's
//! tree in one round trip (2–11 ms for 9–562 items) where a libatspi walk takes 1–140 ms, but it
//! omits children of `MANAGES_DESCENDANTS` containers, is empty on Qt, partial on GTK4, can hold
//! stale items, and files some objects under another parent than the live tree (GTK3 caches a
//! menu under its button while the window lists it; LibreOffice keeps old parent links, in the
//! cache and live, after it rebuilds a window); GTK3 gives no index in parent for ~70% of items.
//! So cached children are added at once; a showing node's children are re-read with one
//! `GetChildren` (order, membership, and where a misplaced child really hangs) unless the cache
//! has them all in order; a node that loses a child to another node's live list is re-read
//! too, its cached list being wrong; hidden subtrees are taken from the cache when their child
//! counts agree, and everything else is walked with up to 64 calls in flight. The app's main loop is the bottleneck (each call costs
//! it 30–50 µs), so calls are sent while the rest is still being planned, and facts that never
//! change for an object (role, interfaces, action names) are remembered across looks
//! (`details::Memo`). A stopped app is detected by a short ping sent just ahead of the big call;
//! an app that exits mid-walk surfaces as `Gone` (→ `target_closed`). Mapping into core's
//! vocabulary is `mapping.rs`; choosing the root is `roots.rs`.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use futures_util::future::{join_all, BoxFuture};
use futures_util::stream::{FuturesUnordered, StreamExt};
use futures_util::FutureExt;
use tracing::debug;
use uidriver_core::{Deadline, Node, ObserveRequest, Snapshot, Timings, Truncation};

use crate::atspi::accessible::PropReads;
use crate::atspi::cache::{self, CacheItem};
use crate::atspi::connection::{A11yBus, Caller};
use crate::atspi::{accessible, component, state, Ifaces, Obj, States};
use crate::details::{details, Details, Memo};
use crate::error::LinuxError;
use crate::mapping::{self, role};
use crate::origin::Placement;
use crate::roots::Toolkit;

mod gtk4;
mod table;
mod tree;

mod gtk2;
use gtk4::{
    gtk4_showing, judges_gtk4_screen, unshow_gtk4_boxes, unshow_gtk4_covered, unshow_gtk4_slivers,
};
use tree::{add_children, assemble, reorder, scrolled_away, Reordered};

/// Nodes planned between two sends of the calls planned so far.
const SEND_EVERY: usize = 16;

/// Children fetched per batch in a container that manages its descendants.
const MANAGED_BATCH: usize = 32;

/// Knobs of one observation.
#[derive(Clone, Debug)]
pub(crate) struct Limits {
    /// Timeout of one ordinary call.
    pub per_call: Duration,
    /// Timeout of the responsiveness ping sent before anything big.
    pub ping: Duration,
    /// How long the ping may wait for a busy app ([`patience`]): `ping` unless the caller gave
    /// a longer budget than the default look.
    pub patience: Duration,
    /// Calls in flight.
    pub in_flight: usize,
    /// Depth below which nodes are not expanded (unnamed wrappers do not count).
    pub max_depth: usize,
}

/// What to observe.
pub(crate) struct Scope<'a> {
    /// The bus.
    pub bus: &'a A11yBus,
    /// The node whose subtree is observed (a window, or a region's node).
    pub root: Obj,
    /// The app's toolkit (extents and text quirks).
    pub toolkit: Toolkit,
    /// Where the root's window-relative (0, 0) is on screen (`origin.rs`), when its extents
    /// are window-relative and it could be placed.
    pub origin: Option<(i32, i32)>,
    /// Whether its extents are window-relative (GTK 4; every toolkit on Wayland): without an
    /// origin they cannot be placed.
    pub relative: bool,
    /// Knobs.
    pub limits: &'a Limits,
    /// Facts remembered across observations.
    pub memo: &'a Memo,
    /// The mapped popup windows (override-redirect), read for GTK 2 only: its open menus.
    pub popups: Vec<uidriver_core::Bounds>,
}

impl Scope<'_> {
    /// How the toolkit's rectangles are placed on screen.
    fn placement(&self) -> Placement {
        if self.relative {
            Placement::Window(self.origin)
        } else {
            Placement::Screen
        }
    }
}

/// A node's identity and accessible facts (from the cache or from calls).
#[derive(Clone, Debug)]
struct Described {
    obj: Obj,
    role: u32,
    states: States,
    ifaces: Ifaces,
    name: String,
    description: String,
    child_count: i32,
    /// `AccessibleId`, when read (walked nodes; the cache does not carry it).
    accessible_id: Option<String>,
}

impl From<&CacheItem> for Described {
    fn from(i: &CacheItem) -> Self {
        Described {
            obj: i.obj.clone(),
            role: i.role,
            states: i.states,
            ifaces: i.ifaces,
            name: mapping::clean_name(i.name.clone()),
            description: i.description.clone(),
            child_count: i.child_count,
            accessible_id: None,
        }
    }
}

struct Raw {
    d: Described,
    parent: Option<usize>,
    children: Vec<usize>,
    depth: usize,
    details: Option<Details>,
    truncated: Option<Truncation>,
}

/// Children found for one node.
struct Kids {
    kids: Vec<Described>,
    /// Children deliberately not described (offscreen rows of a managed container, or beyond
    /// the cap) and why.
    skipped: Option<(u32, &'static str)>,
}

enum Done {
    /// Children read live (all, or those the cache lacked), with the live order to put them in
    /// when it is known (a child already placed under another parent moves here, see
    /// `reorder`); a managed container's showing rows come without one.
    Children(usize, Option<Vec<Obj>>, Result<Kids, LinuxError>),
    /// The live child order of a node whose cached children were already added.
    Order(usize, Result<Vec<Obj>, LinuxError>),
    Details(usize, Result<Details, LinuxError>),
    /// A managed table's visible cells, read by row and column, the note naming its window,
    /// and the cell sought by its address when it is off screen.
    Table(usize, Result<table::Cells, LinuxError>),
}

/// The cache, indexed.
#[derive(Default)]
struct CacheIndex {
    by_path: HashMap<String, CacheItem>,
    /// Children paths by parent path, ordered by index in parent (then cache order).
    kids: HashMap<String, Vec<String>>,
    /// Parents whose children all carry distinct indices (their order is known).
    ordered: HashSet<String>,
}

impl CacheIndex {
    fn build(bus: &str, items: Vec<CacheItem>) -> CacheIndex {
        let mut idx = CacheIndex::default();
        let mut kids: HashMap<String, Vec<(i32, usize, String)>> = HashMap::new();
        for (n, it) in items.into_iter().enumerate() {
            if it.obj.bus != bus {
                continue;
            }
            if let Some(p) = &it.parent {
                if p.bus == bus && p.path != it.obj.path {
                    kids.entry(p.path.clone()).or_default().push((
                        it.index,
                        n,
                        it.obj.path.clone(),
                    ));
                }
            }
            idx.by_path.insert(it.obj.path.clone(), it);
        }
        for (parent, mut list) in kids {
            let mut seen = HashSet::new();
            let ordered = list.iter().all(|(i, _, _)| *i >= 0 && seen.insert(*i));
            list.sort_by_key(|(i, n, _)| (if *i < 0 { i32::MAX } else { *i }, *n));
            if ordered {
                idx.ordered.insert(parent.clone());
            }
            idx.kids
                .insert(parent, list.into_iter().map(|(_, _, p)| p).collect());
        }
        idx
    }
}

/// The budget of the default look (`observe_ui` without `timeoutMs`).
pub(crate) const DEFAULT_LOOK: Duration = Duration::from_secs(8);

/// How long a call that tells a busy app from a hung one may wait: `short` while no more than
/// the default look's budget is left (a hung app fails fast), else half of what is left (the
/// other half reads the app), never less than `short`. A stopped app never answers: `short`.
pub(crate) fn patience(short: Duration, deadline: Deadline, stopped: bool) -> Duration {
    let left = deadline.remaining();
    if stopped || left <= DEFAULT_LOOK {
        short
    } else {
        (left / 2).max(short)
    }
}

/// Observes the subtree of `scope.root`.
pub(crate) async fn observe(
    scope: Scope<'_>,
    req: &ObserveRequest,
    deadline: Deadline,
) -> Result<Snapshot, LinuxError> {
    let t0 = Instant::now();
    let lim = scope.limits;
    let c = scope.bus.caller(deadline, lim.per_call, lim.in_flight);
    let mut phases: Vec<(&str, f64)> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let (root_role, index) = first_look(&c, &scope, deadline, &mut phases, &mut notes).await?;
    let cached = index.by_path.len();
    let env = Env {
        c,
        known: Known {
            cache: &index,
            memo: scope.memo,
            reads: scope.toolkit.prop_reads(),
        },
        scope: &scope,
        req,
    };
    let mut walk = Walk::start(&env, root_role).await?;
    walk.run(&env, deadline).await?;
    phases.push(("walk", walk.walk_done));
    phases.push(("details", walk.details_done.max(walk.walk_done)));
    let describe_ms = ms(t0);
    if walk.walked > 0 && cached > 0 {
        // How the look was read is the backend's business, not the agent's: a debug event,
        // not a note every observation would carry.
        debug!(
            cached,
            walked = walk.walked,
            "cache items; nodes' children read live"
        );
    }
    if scope.toolkit == Toolkit::Gtk4 {
        unshow_gtk4_boxes(&mut walk.nodes);
        unshow_gtk4_covered(&env.c, &mut walk.nodes, scope.origin).await;
        unshow_gtk4_slivers(&env.c, &mut walk.nodes, scope.origin).await;
    }
    if scope.toolkit == Toolkit::Gtk2 && !scope.popups.is_empty() {
        let lent = gtk2::show_open_menu_items(&env.c, &mut walk.nodes, &scope.popups).await;
        walk.read_details(&env, &lent).await;
    }
    let (out, complete) = walk.finish(&mut notes);
    let mut timings = Timings {
        total_ms: ms(t0),
        describe_ms,
        calls: env.c.calls(),
        ..Timings::default()
    };
    for (k, v) in phases {
        timings.phases.insert(k.to_string(), v);
    }
    Ok(Snapshot {
        nodes: out,
        complete,
        timings,
        notes,
    })
}

/// The responsiveness ping and the cache, in one round trip: the root's role and the cache
/// indexed (empty when the app has none or it did not answer in time).
async fn first_look(
    c: &Caller,
    scope: &Scope<'_>,
    deadline: Deadline,
    phases: &mut Vec<(&'static str, f64)>,
    notes: &mut Vec<String>,
) -> Result<(u32, CacheIndex), LinuxError> {
    let t0 = Instant::now();
    // A stopped app never answers: a small call with a short timeout (500 ms) finds out. It
    // runs alongside the cache call rather than before it (one round trip less for every
    // look); when the ping fails first, the cache call is dropped unanswered.
    // The cache call gets most of the time but not all: if it is too slow (a huge tree), the
    // walk still has time to return something.
    let items_timeout = deadline.remaining().mul_f64(0.6);
    let ping = c.call_within::<_, u32>(
        scope.limits.patience,
        &scope.root.bus,
        &scope.root.path,
        "org.a11y.atspi.Accessible",
        "GetRole",
        &(),
    );
    let items = cache::get_items(c, &scope.root.bus, items_timeout);
    tokio::pin!(ping, items);
    // Biased: the ping is polled, so sent, first. The app answers in arrival order, and a ping
    // queued behind a long GetItems (a huge tree) would time out on a healthy app.
    let (root_role, items) = tokio::select! {
        biased;
        p = &mut ping => {
            let role = p?;
            phases.push(("ping", ms(t0)));
            (role, items.await)
        }
        i = &mut items => {
            let role = ping.await?;
            phases.push(("ping", ms(t0)));
            (role, i)
        }
    };
    let waited = t0.elapsed();
    if waited > scope.limits.ping {
        notes.push(format!(
            "the app was busy: it answered after {} ms (the budget allowed up to {} ms)",
            waited.as_millis(),
            scope.limits.patience.as_millis()
        ));
    }
    let index = match items {
        Ok(items) => CacheIndex::build(&scope.root.bus, items),
        Err(e) if e.is_gone() => return Err(e),
        Err(e) if e.is_unresponsive() => {
            notes.push(format!(
                "the cache did not answer within {items_timeout:?}: walked the tree"
            ));
            CacheIndex::default()
        }
        Err(LinuxError::Deadline(w)) => return Err(LinuxError::Deadline(w)),
        Err(e) => {
            debug!(error = %e, "no cache; walking");
            notes.push("no accessibility cache: walked the tree".into());
            CacheIndex::default()
        }
    };
    phases.push(("getitems", ms(t0)));
    Ok((root_role, index))
}

/// What every call of a walk shares; the futures in flight borrow it.
struct Env<'a> {
    c: Caller,
    known: Known<'a>,
    scope: &'a Scope<'a>,
    req: &'a ObserveRequest,
}

/// The calls in flight: each answers one node's children, child order or details.
type Pending<'f> = FuturesUnordered<BoxFuture<'f, Done>>;

/// One walk of a subtree: the nodes found so far, what is planned and what is awaited. Each
/// node is planned once ([`Walk::plan_node`]: its details asked for, its children taken from
/// the cache or asked for), and each answer is taken in as it arrives ([`Walk::on_done`]).
struct Walk {
    nodes: Vec<Raw>,
    /// Where each object (by handle: a socket's live children live on another app's bus,
    /// where paths repeat) sits in `nodes`: placed once, under the first parent that lists it
    /// (live order may move it later, see `reorder`).
    placed: HashMap<String, usize>,
    to_plan: Vec<usize>,
    /// Nodes whose children are the app's own live answer, not the cache's word: a child they
    /// list stays with them when another node's list names it too.
    confirmed: HashSet<usize>,
    waiting_kids: HashSet<usize>,
    waiting_details: HashSet<usize>,
    /// Nodes whose children were read live.
    walked: usize,
    /// An error that ends the look (the app exited, the root vanished).
    fatal: Option<LinuxError>,
    /// Why the walk stopped early (deadline, unresponsive).
    cut: Option<&'static str>,
    t_walk: Instant,
    walk_done: f64,
    details_done: f64,
    /// What the walk tells the model (a table's visible window).
    notes: Vec<String>,
    /// Objects whose details are read although not showing (a cell sought by its address).
    sought: HashSet<Obj>,
}

impl Walk {
    /// The walk's first node: the observed root, from the cache or described by calls.
    async fn start(env: &Env<'_>, root_role: u32) -> Result<Walk, LinuxError> {
        let t_walk = Instant::now();
        let scope = env.scope;
        let mut root = match env.known.cache.by_path.get(&scope.root.path) {
            Some(i) => Described::from(i),
            None => describe(&env.c, scope.root.clone(), Some(root_role), &env.known).await?,
        };
        if scope.toolkit == Toolkit::Gtk4 {
            // The observed node is on screen by assumption (a window, or a region a state
            // showed).
            gtk4_showing(&mut root.states, true);
        }
        Ok(Walk {
            nodes: vec![Raw {
                d: root,
                parent: None,
                children: Vec::new(),
                depth: 0,
                details: None,
                truncated: None,
            }],
            placed: HashMap::from([(scope.root.to_string(), 0)]),
            to_plan: vec![0],
            confirmed: HashSet::new(),
            waiting_kids: HashSet::new(),
            waiting_details: HashSet::new(),
            walked: 0,
            fatal: None,
            cut: None,
            t_walk,
            walk_done: 0.0,
            details_done: 0.0,
            notes: Vec::new(),
            sought: HashSet::new(),
        })
    }

    /// Plans and takes in answers until nothing is awaited, the app fails, or the deadline
    /// (less a little time to assemble the snapshot) comes.
    async fn run<'f>(&mut self, env: &'f Env<'f>, deadline: Deadline) -> Result<(), LinuxError> {
        let stop_at = deadline
            .instant()
            .checked_sub(Duration::from_millis(15))
            .unwrap_or_else(|| deadline.instant());
        let mut pending: Pending<'f> = FuturesUnordered::new();
        loop {
            self.plan(env, &mut pending);
            if self.fatal.is_some() || self.cut.is_some() {
                break;
            }
            let next = tokio::select! {
                next = pending.next() => next,
                _ = tokio::time::sleep_until(stop_at.into()) => {
                    self.cut = Some("deadline");
                    break;
                }
            };
            let Some(done) = next else { break };
            self.on_done(env, done, &mut pending);
        }
        drop(pending);
        if self.cut.is_some() && self.walk_done == 0.0 {
            self.walk_done = ms(self.t_walk);
        }
        match self.fatal.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Reads the details of `nodes` (lent `SHOWING` after the walk), all at once.
    async fn read_details(&mut self, env: &Env<'_>, nodes: &[usize]) {
        let (c, scope) = (&env.c, env.scope);
        let reads = nodes.iter().map(|&n| {
            let d = &self.nodes[n].d;
            details(
                c,
                &d.obj,
                d.role,
                d.states,
                d.ifaces,
                d.name.trim().is_empty(),
                scope.toolkit,
                scope.placement(),
                scope.memo,
                env.req.bounds,
            )
        });
        let read = futures_util::future::join_all(reads).await;
        for (&n, r) in nodes.iter().zip(read) {
            if let Ok(d) = r {
                self.nodes[n].details = Some(d);
            }
        }
    }

    /// Plans every node waiting to be planned.
    fn plan<'f>(&mut self, env: &'f Env<'f>, pending: &mut Pending<'f>) {
        let mut planned = 0usize;
        while let Some(n) = self.to_plan.pop() {
            planned += 1;
            if planned == SEND_EVERY {
                planned = 0;
                // Planning a cached tree of a few hundred nodes takes our CPU longer than the
                // app takes to answer: send what is planned so far (a call goes out on its
                // first poll) so the app works meanwhile. A call that already finished goes
                // back in as a ready result.
                if let Some(Some(done)) = pending.next().now_or_never() {
                    pending.push(futures_util::future::ready(done).boxed());
                }
            }
            self.plan_node(env, n, pending);
        }
    }

    /// Asks for a node's details when it shows, and for its children as [`plan`] decides.
    fn plan_node<'f>(&mut self, env: &'f Env<'f>, n: usize, pending: &mut Pending<'f>) {
        let (c, scope, req) = (&env.c, env.scope, env.req);
        let d = &self.nodes[n].d;
        let wanted = d.states.has(state::SHOWING) || self.sought.contains(&d.obj);
        let gtk4_box = scope.toolkit == Toolkit::Gtk4 && judges_gtk4_screen(&self.nodes, n);
        if wanted && !is_bare_wrapper(d) {
            let (obj, role_n, states, ifaces, no_name) = (
                d.obj.clone(),
                d.role,
                d.states,
                d.ifaces,
                d.name.trim().is_empty(),
            );
            self.waiting_details.insert(n);
            let (tk, placement, memo) = (scope.toolkit, scope.placement(), scope.memo);
            // Rectangles cost a call each: read them when asked, and always for the root and
            // for surfaces that only pixels describe (what decides a visual look).
            let want_bounds = req.bounds || n == 0 || mapping::is_pixel_surface(role_n) || gtk4_box;
            pending.push(
                async move {
                    let d = details(
                        c,
                        &obj,
                        role_n,
                        states,
                        ifaces,
                        no_name,
                        tk,
                        placement,
                        memo,
                        want_bounds,
                    );
                    Done::Details(n, d.await)
                }
                .boxed(),
            );
        }
        if self.nodes[n].depth >= scope.limits.max_depth && d.child_count != 0 {
            let skipped = u32::try_from(d.child_count).ok();
            self.nodes[n].truncated = Some(Truncation {
                skipped,
                reason: "depth".into(),
            });
            return;
        }
        // The observed node itself is always read, shown or not (an app object has no SHOWING
        // state).
        let index = env.known.cache;
        let away = scrolled_away(&self.nodes, n);
        let p = match plan(&self.nodes[n].d, index, away) {
            Plan::Hidden if n == 0 => Plan::Call { managed: false },
            p => p,
        };
        let reorder = matches!(p, Plan::Reorder(_));
        match p {
            Plan::Leaf => {}
            Plan::Hidden => {
                self.nodes[n].truncated = Some(Truncation {
                    skipped: u32::try_from(self.nodes[n].d.child_count).ok(),
                    reason: "hidden".into(),
                });
            }
            Plan::Cached(paths) | Plan::Reorder(paths) => {
                let kids = paths
                    .iter()
                    .filter_map(|p| index.by_path.get(p))
                    .map(Described::from)
                    .collect();
                let elsewhere = self.add(
                    env,
                    n,
                    Kids {
                        kids,
                        skipped: None,
                    },
                );
                if elsewhere > 0 && !reorder && self.shows(n) {
                    // The cache files here a child already placed under another parent: its
                    // word on this node's children is wrong, ask the app.
                    self.ask_children(env, n, false, pending);
                } else if reorder {
                    // The cache lists children out of order here: ask for the order.
                    self.walked += 1;
                    self.waiting_kids.insert(n);
                    let obj = self.nodes[n].d.obj.clone();
                    pending.push(
                        async move { Done::Order(n, accessible::children(c, &obj).await) }.boxed(),
                    );
                }
            }
            Plan::Call { managed } => self.ask_children(env, n, managed, pending),
        }
    }

    /// Asks the app for node `n`'s children (a managed container's showing rows only).
    fn ask_children<'f>(
        &mut self,
        env: &'f Env<'f>,
        n: usize,
        managed: bool,
        pending: &mut Pending<'f>,
    ) {
        let (c, req) = (&env.c, env.req);
        self.walked += 1;
        self.waiting_kids.insert(n);
        let obj = self.nodes[n].d.obj.clone();
        let count = self.nodes[n].d.child_count;
        let is_table = self.nodes[n].d.ifaces.has(Ifaces::TABLE);
        let name = self.nodes[n].d.name.clone();
        let known = &env.known;
        let max_children = req.max_children;
        let seek = req.seek.clone();
        pending.push(
            async move {
                // The cache gives a container that manages its descendants no child count
                // (-1 from at-spi2-atk): ask the app, so a list of 48 rows is not taken for a
                // sheet of 2^31 cells.
                let count = match count {
                    n if n >= 0 || !managed => n,
                    _ => match accessible::props(c, &obj, known.reads).await {
                        Ok(p) => p.child_count,
                        Err(e) if e.is_app_gone() || e.is_unresponsive() => {
                            return Done::Children(n, None, Err(e))
                        }
                        Err(_) => -1,
                    },
                };
                // A table whose children fit under the cap lists them all in one call
                // (headers and all), read whole and searchable; only one too big to read
                // (Calc's 2^31 cells, a list of 5,000 rows) is read over its visible window.
                let big = count < 0 || count as usize > max_children;
                if managed && is_table && big {
                    let r =
                        table::visible_cells(c, &obj, &name, max_children, seek.as_deref(), known)
                            .await;
                    if let Some(r) = r {
                        return Done::Table(n, r);
                    }
                }
                if managed {
                    let r = managed_children(c, &obj, count, max_children, known).await;
                    return Done::Children(n, None, r);
                }
                match children(c, &obj, known).await {
                    Ok((live, kids)) => Done::Children(n, Some(live), Ok(kids)),
                    Err(e) => Done::Children(n, None, Err(e)),
                }
            }
            .boxed(),
        );
    }

    /// Whether node `n` is on screen, or content scrolled out of its document's view.
    fn shows(&self, n: usize) -> bool {
        self.nodes[n].d.states.has(state::SHOWING) || scrolled_away(&self.nodes, n)
    }

    /// Adds children to `n`; returns how many were left out because they are placed already.
    fn add(&mut self, env: &Env<'_>, n: usize, kids: Kids) -> usize {
        add_children(
            &mut self.nodes,
            n,
            kids,
            env.req,
            &mut self.placed,
            &mut self.to_plan,
            env.scope.toolkit,
        )
    }

    /// Takes in one answer.
    fn on_done<'f>(&mut self, env: &'f Env<'f>, done: Done, pending: &mut Pending<'f>) {
        match done {
            Done::Children(n, live, r) => self.on_children(env, n, live, r, pending),
            Done::Table(n, r) => {
                let r = r.map(|cells| {
                    self.notes.push(cells.note);
                    self.sought.extend(cells.sought);
                    cells.kids
                });
                self.on_children(env, n, None, r, pending)
            }
            Done::Order(n, r) => self.on_order(env, n, r, pending),
            Done::Details(n, r) => {
                self.waiting_details.remove(&n);
                match r {
                    Ok(d) => self.nodes[n].details = Some(d),
                    Err(e) if e.is_unresponsive() => self.cut = Some("unresponsive"),
                    Err(e) if e.is_app_gone() => self.fatal = Some(e),
                    Err(_) => {}
                }
                if self.waiting_details.is_empty() {
                    self.details_done = ms(self.t_walk);
                }
            }
        }
    }

    /// Asks the app for the children of showing nodes that lost a child to another node's live
    /// list: they had them from the cache, whose word on them is now known to be wrong
    /// (LibreOffice rebuilds a window and keeps old parent links, in the cache and live). A
    /// hidden node keeps what the cache gave it: live, a closed GTK3 menu lists no items.
    fn relist<'f>(&mut self, env: &'f Env<'f>, robbed: Vec<usize>, pending: &mut Pending<'f>) {
        for p in robbed {
            if !self.waiting_kids.contains(&p) && !self.confirmed.contains(&p) && self.shows(p) {
                let managed = self.nodes[p].d.states.has(state::MANAGES_DESCENDANTS);
                self.ask_children(env, p, managed, pending);
            }
        }
    }

    fn on_children<'f>(
        &mut self,
        env: &'f Env<'f>,
        n: usize,
        live: Option<Vec<Obj>>,
        r: Result<Kids, LinuxError>,
        pending: &mut Pending<'f>,
    ) {
        self.waiting_kids.remove(&n);
        match r {
            Ok(kids) => {
                self.add(env, n, kids);
                self.confirmed.insert(n);
                if let Some(live) = live {
                    // Whatever could not be described stays out.
                    let r = reorder(&mut self.nodes, n, &live, &self.placed, &self.confirmed);
                    self.relist(env, r.robbed, pending);
                }
                if self.waiting_kids.is_empty() {
                    self.walk_done = ms(self.t_walk);
                }
            }
            Err(e) if e.is_unresponsive() => self.cut = Some("unresponsive"),
            Err(LinuxError::Deadline(_)) => self.cut = Some("deadline"),
            Err(e) if e.is_app_gone() || n == 0 => self.fatal = Some(e),
            Err(e) => {
                // This node vanished or refused: keep it, say so.
                debug!(error = %e, "children unreadable");
                self.nodes[n].truncated = Some(Truncation {
                    skipped: u32::try_from(self.nodes[n].d.child_count).ok(),
                    reason: "error".into(),
                });
            }
        }
    }

    fn on_order<'f>(
        &mut self,
        env: &'f Env<'f>,
        n: usize,
        r: Result<Vec<Obj>, LinuxError>,
        pending: &mut Pending<'f>,
    ) {
        self.waiting_kids.remove(&n);
        match r {
            Ok(live) => {
                self.confirmed.insert(n);
                let Reordered { missing, robbed } =
                    reorder(&mut self.nodes, n, &live, &self.placed, &self.confirmed);
                self.relist(env, robbed, pending);
                if !missing.is_empty() {
                    // Children the cache did not have: describe them, then put them in place.
                    self.waiting_kids.insert(n);
                    let (c, known) = (&env.c, &env.known);
                    pending.push(
                        async move {
                            let described =
                                join_all(missing.into_iter().map(|o| describe_cached(c, o, known)))
                                    .await;
                            Done::Children(n, Some(live), collect_kids(described))
                        }
                        .boxed(),
                    );
                } else if self.waiting_kids.is_empty() {
                    self.walk_done = ms(self.t_walk);
                }
            }
            Err(e) if e.is_unresponsive() => self.cut = Some("unresponsive"),
            Err(LinuxError::Deadline(_)) => self.cut = Some("deadline"),
            Err(e) if e.is_app_gone() => self.fatal = Some(e),
            // The cached children stay, in cache order; if the cache did not have them all,
            // say the rest is missing.
            Err(e) => {
                debug!(error = %e, "child order unreadable");
                let have = self.nodes[n].children.len();
                if usize::try_from(self.nodes[n].d.child_count) != Ok(have) {
                    self.nodes[n].truncated = Some(Truncation {
                        skipped: u32::try_from(self.nodes[n].d.child_count)
                            .ok()
                            .map(|c| c.saturating_sub(have as u32)),
                        reason: "error".into(),
                    });
                }
            }
        }
    }

    /// The nodes in pre-order, and whether every showing node in the tree was described:
    /// subtrees left out because they are hidden or offscreen (and said so) do not count
    /// against it, nor do cached items the live tree dropped.
    fn finish(mut self, notes: &mut Vec<String>) -> (Vec<Node>, bool) {
        notes.append(&mut self.notes);
        if let Some(reason) = self.cut {
            for &n in &self.waiting_kids {
                self.nodes[n].truncated = Some(Truncation {
                    skipped: u32::try_from(self.nodes[n].d.child_count).ok(),
                    reason: reason.into(),
                });
            }
            notes.push(format!(
                "stopped early ({reason}): {} subtrees and details of {} nodes not read",
                self.waiting_kids.len(),
                self.waiting_details.len()
            ));
        }
        let out = assemble(self.nodes);
        // Complete only when no node the outline shows was cut: a truncation line ("✂ 21
        // children off screen") under a `complete` header contradicted itself. A hidden
        // node's truncation (a closed menu not read) is not shown and does not count.
        let complete = self.cut.is_none()
            && out
                .iter()
                .all(|n| n.truncated.is_none() || n.has_state(uidriver_core::StateFlag::Hidden));
        (out, complete)
    }
}

fn ms(t: Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 1000.0 * 100.0).round() / 100.0
}

enum Plan {
    /// No children.
    Leaf,
    /// The cache has the children in order.
    Cached(Vec<String>),
    /// The cache has the children but not their order (GTK3), or only some of them: add them
    /// now, so their subtrees and details start at once, and fix the order (and describe what
    /// the cache lacked) when `GetChildren` answers. Waiting for the answer first would chain one
    /// round trip per tree level.
    Reorder(Vec<String>),
    /// The cache is incomplete here: read the children live.
    Call { managed: bool },
    /// Hidden and not cached: not read (marked truncated, reason `hidden`).
    Hidden,
}

/// `away`: the node is content scrolled out of its document's view, read as if it showed (see
/// [`scrolled_away`]).
fn plan(d: &Described, index: &CacheIndex, away: bool) -> Plan {
    if d.states.has(state::MANAGES_DESCENDANTS) {
        return Plan::Call { managed: true };
    }
    let cached = index.kids.get(&d.obj.path);
    let n_cached = cached.map_or(0, Vec::len);
    if d.child_count == 0 && n_cached == 0 {
        return Plan::Leaf;
    }
    let counts_agree = d.child_count >= 0 && n_cached == d.child_count as usize;
    let in_cache = index.by_path.contains_key(&d.obj.path);
    // Showing nodes need their order (GTK3 omits indices) unless the cache carries it.
    let order_known = index.ordered.contains(&d.obj.path) || n_cached <= 1;
    let showing = d.states.has(state::SHOWING) || away;
    if !showing {
        // Hidden subtrees come from the cache as far as it goes (GTK3 gives closed menus a
        // child count of -1 but caches their items: search finds "Save As" in a closed File
        // menu). What the cache lacks (a stack page never shown) is left for expand_ui:
        // walking it costs five calls a node for nothing on screen.
        return match cached {
            Some(k) if in_cache && (counts_agree || d.child_count < 0) => Plan::Cached(k.clone()),
            _ => Plan::Hidden,
        };
    }
    match (in_cache && counts_agree, order_known) {
        (true, true) => Plan::Cached(cached.cloned().unwrap_or_default()),
        (true, false) => Plan::Reorder(cached.cloned().unwrap_or_default()),
        // Some children cached, others not (a GTK3 window whose popover was never shown): the
        // cached ones start now; the live list fixes the order and brings the rest.
        (false, _) if in_cache && n_cached > 0 => {
            Plan::Reorder(cached.cloned().unwrap_or_default())
        }
        (false, _) => Plan::Call { managed: false },
    }
}

/// A showing wrapper an agent never targets: an unnamed panel, filler or section with no
/// actions, text or value that cannot take focus. 20–40% of showing nodes in GTK3 and Chromium
/// trees; their details (extents, ids) are not read, which saves a call each.
fn is_bare_wrapper(d: &Described) -> bool {
    is_wrapper(d)
        && d.description.trim().is_empty()
        && !d.states.has(state::FOCUSABLE)
        && !d.ifaces.has(Ifaces::ACTION)
        && !d.ifaces.has(Ifaces::VALUE)
        && !d.ifaces.has(Ifaces::EDITABLE_TEXT)
}

/// Unnamed containers do not count against the depth budget (Chromium nests divs 20 deep).
fn is_wrapper(d: &Described) -> bool {
    d.name.trim().is_empty() && matches!(d.role, role::PANEL | role::FILLER | role::SECTION)
}

/// What is known about objects without asking the app: this look's cache and what earlier
/// looks learned that never changes.
struct Known<'a> {
    cache: &'a CacheIndex,
    memo: &'a Memo,
    /// How the app answers property reads (its toolkit's rule).
    reads: PropReads,
}

/// Describes an object by calls (4 in parallel): role, states, interfaces, properties. Role and
/// interfaces are remembered after the first look (see [`Memo`]), so a repeated look costs two.
async fn describe(
    c: &Caller,
    obj: Obj,
    role_hint: Option<u32>,
    known: &Known<'_>,
) -> Result<Described, LinuxError> {
    let memo = known.memo;
    let key = obj.to_string();
    let role_f = async {
        if let Some(r) = role_hint.or_else(|| memo.role(&key)) {
            return Ok(r);
        }
        let epoch = memo.role_epoch();
        let r = accessible::role(c, &obj).await?;
        memo.remember_role(key.clone(), r, epoch);
        Ok::<_, LinuxError>(r)
    };
    let ifaces_f = async {
        if let Some(i) = memo.interfaces(&key) {
            return Ok(i);
        }
        let i = accessible::interfaces(c, &obj).await?;
        memo.remember_interfaces(key.clone(), i);
        Ok::<_, LinuxError>(i)
    };
    let (r, s, i, p) = tokio::join!(
        role_f,
        accessible::states(c, &obj),
        ifaces_f,
        accessible::props(c, &obj, known.reads)
    );
    let p = p?;
    Ok(Described {
        role: r?,
        states: s?,
        ifaces: i?,
        name: mapping::clean_name(p.name),
        description: p.description,
        child_count: p.child_count,
        accessible_id: Some(p.accessible_id).filter(|s| !s.is_empty()),
        obj,
    })
}

async fn describe_cached(c: &Caller, obj: Obj, known: &Known<'_>) -> Result<Described, LinuxError> {
    match known.cache.by_path.get(&obj.path) {
        Some(i) if i.obj.bus == obj.bus => Ok(Described::from(i)),
        _ => describe(c, obj, None, known).await,
    }
}

/// All children of an ordinary node: their live order, and their descriptions (those not in
/// the cache described by calls).
async fn children(
    c: &Caller,
    obj: &Obj,
    known: &Known<'_>,
) -> Result<(Vec<Obj>, Kids), LinuxError> {
    let refs = accessible::children(c, obj).await?;
    let described = join_all(refs.iter().cloned().map(|r| describe_cached(c, r, known))).await;
    Ok((refs, collect_kids(described)?))
}

/// Keeps described children; one that vanished meanwhile or refuses is dropped, a stopped or
/// exited app fails the whole read.
fn collect_kids(described: Vec<Result<Described, LinuxError>>) -> Result<Kids, LinuxError> {
    let mut kids = Vec::with_capacity(described.len());
    for d in described {
        match d {
            Ok(d) => kids.push(d),
            Err(e) if e.is_gone() && !e.is_app_gone() => {}
            Err(LinuxError::Unsupported { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(Kids {
        kids,
        skipped: None,
    })
}

/// Showing children of a container that manages its descendants (GTK3 tree views and tables
/// create an accessible per cell on demand, so `GetChildren` on 10,000 rows would build 10,000
/// objects). Reads children by index in batches from the first visible one, keeps the showing
/// ones, stops after the visible run or at `max_children` read.
async fn managed_children(
    c: &Caller,
    obj: &Obj,
    count: i32,
    max_children: usize,
    known: &Known<'_>,
) -> Result<Kids, LinuxError> {
    let count = if count >= 0 {
        count as usize
    } else {
        accessible::props(c, obj, known.reads)
            .await?
            .child_count
            .max(0) as usize
    };
    if count == 0 {
        return Ok(Kids {
            kids: Vec::new(),
            skipped: None,
        });
    }
    if count <= max_children {
        // Small enough to list in one call: every child is kept, the ones off screen as
        // hidden (Qt clears `SHOWING` on rows scrolled out of a list; GTK 3 keeps it on every
        // cell), so nothing is left unread and a search reaches them all. Leaving them out
        // said "expand_ui reads them" while expand_ui applied the same filter.
        let (_, all) = children(c, obj, known).await?;
        return Ok(all);
    }
    let start = first_visible_index(c, obj).await.unwrap_or(0);
    let mut kids = Vec::new();
    let mut read = 0usize;
    let mut i = start;
    let mut seen_showing = false;
    while i < count && read < max_children {
        let end = (i + MANAGED_BATCH)
            .min(count)
            .min(i + (max_children - read));
        let batch = join_all((i..end).map(|k| async move {
            match accessible::child_at(c, obj, k as i32).await? {
                Some(o) => describe_cached(c, o, known).await.map(Some),
                None => Ok(None),
            }
        }))
        .await;
        read += end - i;
        i = end;
        let mut showing_here = false;
        for d in batch {
            match d {
                Ok(Some(d)) if d.states.has(state::SHOWING) => {
                    showing_here = true;
                    kids.push(d);
                }
                Ok(_) => {}
                Err(e) if e.is_gone() && !e.is_app_gone() => {}
                Err(e) => return Err(e),
            }
        }
        if showing_here {
            seen_showing = true;
        } else if seen_showing {
            break;
        }
    }
    let skipped = (count - kids.len()) as u32;
    Ok(Kids {
        kids,
        skipped: (skipped > 0).then_some((
            skipped,
            if read >= max_children && i < count {
                "cap"
            } else {
                "offscreen"
            },
        )),
    })
}

/// Index of the child at the top of a managed container's visible area (hit-test a point a
/// little inside its box), so a list scrolled to row 5,000 is read from there.
async fn first_visible_index(c: &Caller, obj: &Obj) -> Option<usize> {
    let (x, y, w, h) = component::extents(c, obj, component::COORD_SCREEN)
        .await
        .ok()?;
    for dy in [h / 8, h / 4, h / 2] {
        let hit = component::accessible_at_point(
            c,
            obj,
            x + w / 3,
            y + dy.max(2),
            component::COORD_SCREEN,
        )
        .await
        .ok()??;
        let i = accessible::index_in_parent(c, &hit).await.ok()?;
        if i >= 0 {
            return Some((i as usize).saturating_sub(MANAGED_BATCH));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidriver_core::{Bounds, StateFlag};

    /// Adds `kids` under `parent` as a GTK3 look with the default limits does.
    fn attach(
        nodes: &mut Vec<Raw>,
        placed: &mut HashMap<String, usize>,
        parent: usize,
        kids: Vec<Described>,
    ) -> usize {
        let kids = Kids {
            kids,
            skipped: None,
        };
        let req = ObserveRequest::default();
        add_children(
            nodes,
            parent,
            kids,
            &req,
            placed,
            &mut Vec::new(),
            Toolkit::Gtk3,
        )
    }

    /// Issue 11: GTK4 widgets it keeps visible but does not show (0×0, or outside the window)
    /// and everything below them are hidden; the observed window and what it shows are not.
    #[test]
    fn gtk4_widgets_without_area_or_outside_the_window_are_not_showing() {
        let node = |path: &str, parent: Option<usize>, kids: Vec<usize>, b: Option<Bounds>| {
            let showing = (1 << state::SHOWING) | (1 << state::VISIBLE);
            let mut n = raw(
                path,
                role::PANEL,
                showing,
                Ifaces::default(),
                (parent, kids),
            );
            n.details = b.map(|b| Details {
                bounds: Some(b),
                bounds_read: true,
                empty: !b.is_visible(),
                ..Details::default()
            });
            n
        };
        let mut nodes = vec![
            node(
                "/w",
                None,
                vec![1, 2, 4],
                Some(Bounds::new(100, 100, 600, 400)),
            ),
            node("/on", Some(0), vec![], Some(Bounds::new(110, 110, 50, 20))),
            node(
                "/bar",
                Some(0),
                vec![3],
                Some(Bounds::new(100, 147, 600, 0)),
            ),
            node(
                "/bar/label",
                Some(2),
                vec![],
                Some(Bounds::new(100, 147, 80, 16)),
            ),
            node(
                "/away",
                Some(0),
                vec![],
                Some(Bounds::new(900, 100, 50, 20)),
            ),
        ];
        unshow_gtk4_boxes(&mut nodes);
        let showing: Vec<bool> = nodes
            .iter()
            .map(|n| n.d.states.has(state::SHOWING))
            .collect();
        assert_eq!(showing, [true, true, false, false, false]);
    }

    /// Issue 11 (the calculator's look, 8.8 → 24.5 ms when every GTK4 rectangle was read):
    /// only layout containers are judged by their own rectangle, and not a sole child of an
    /// element that has one; a stack page under its rectangle-less `GtkStackPage` is.
    #[test]
    fn gtk4_rectangles_are_read_for_layout_containers_only() {
        let node = |role: u32, parent: Option<usize>, kids: Vec<usize>, component: bool| {
            let ifaces = if component {
                Ifaces::COMPONENT
            } else {
                Ifaces::default()
            };
            raw("/n", role, 1 << state::VISIBLE, ifaces, (parent, kids))
        };
        const BUTTON: u32 = 43;
        let nodes = vec![
            node(role::FRAME, None, vec![1], true),
            node(role::PANEL, Some(0), vec![2, 3, 5], true),
            node(role::LABEL, Some(1), vec![], true),
            node(BUTTON, Some(1), vec![4], true),
            node(role::PANEL, Some(3), vec![], true),
            node(role::PANEL, Some(1), vec![6], false),
            node(role::PANEL, Some(5), vec![7], true),
            node(role::PANEL, Some(6), vec![8], true),
            node(role::LABEL, Some(7), vec![], true),
        ];
        let judged: Vec<bool> = (0..nodes.len())
            .map(|n| judges_gtk4_screen(&nodes, n))
            .collect();
        // 1: the frame's sole child; 3: a button; 5: a `GtkStackPage` among its siblings
        // (it has no rectangle to read); 6: the page under it; 7: the page's sole child.
        assert_eq!(
            judged,
            [false, false, false, false, false, true, true, false, false]
        );
    }

    /// A node of a test tree: `role`, `states` and `ifaces` at `path`, under `parent`.
    fn raw(
        path: &str,
        role: u32,
        states: u64,
        ifaces: Ifaces,
        tree: (Option<usize>, Vec<usize>),
    ) -> Raw {
        let (parent, children) = tree;
        Raw {
            d: Described {
                obj: Obj::new(":1.9", path),
                role,
                states: States(states),
                ifaces,
                name: String::new(),
                description: String::new(),
                child_count: children.len() as i32,
                accessible_id: None,
            },
            parent,
            children,
            depth: 0,
            details: None,
            truncated: None,
        }
    }

    /// The observed node, alone.
    fn root(d: Described) -> Raw {
        Raw {
            d,
            parent: None,
            children: Vec::new(),
            depth: 0,
            details: None,
            truncated: None,
        }
    }

    #[test]
    fn visible_content_not_showing_is_scrolled_away_only_inside_a_showing_document() {
        let idx = CacheIndex::build(
            ":1.9",
            vec![
                item("/doc", "/app", 0, 1, true),
                item("/p", "/doc", 0, 1, false),
                item("/t", "/p", 0, 0, false),
            ],
        );
        let visible = |p: &str, role_n: u32| {
            let mut d = Described::from(&idx.by_path[p]);
            d.role = role_n;
            d.states.0 |= 1 << state::VISIBLE;
            d
        };
        let chain = |doc_role: u32| {
            let mut nodes = vec![root(visible("/doc", doc_role))];
            for (i, (p, r)) in [("/p", role::PARAGRAPH), ("/t", role::STATIC)]
                .iter()
                .enumerate()
            {
                let mut raw = root(visible(p, *r));
                raw.parent = Some(i);
                nodes[i].children.push(i + 1);
                nodes.push(raw);
            }
            nodes
        };
        // 95 is document-web: its paragraph and text scrolled away are on the page.
        let web = chain(95);
        assert!(!scrolled_away(&web, 0));
        assert!(scrolled_away(&web, 1) && scrolled_away(&web, 2));
        let nodes = assemble(web);
        assert_eq!(nodes.len(), 3);
        assert!(nodes.iter().all(|n| !n.has_state(StateFlag::Hidden)));
        // The same shape under a panel (a GTK stack page not shown) stays hidden.
        let panel = chain(role::PANEL);
        assert!(!scrolled_away(&panel, 1) && !scrolled_away(&panel, 2));
        // Not visible at all: hidden even inside a document.
        let mut gone = chain(95);
        gone[1].d.states.0 &= !(1 << state::VISIBLE);
        assert!(!scrolled_away(&gone, 1) && !scrolled_away(&gone, 2));
    }

    /// Fails unless assembled nodes make a valid snapshot.
    fn well_formed(out: Vec<Node>) {
        Snapshot {
            nodes: out,
            ..Snapshot::default()
        }
        .check()
        .expect("invariants");
    }

    /// Object paths of assembled nodes, in order.
    fn paths(out: &[Node]) -> Vec<&str> {
        out.iter()
            .map(|n| n.handle.rsplit_once(':').map_or("", |x| x.1))
            .collect()
    }
    use crate::atspi::Ifaces;

    fn item(path: &str, parent: &str, index: i32, child_count: i32, showing: bool) -> CacheItem {
        let mut bits = 1u64 << state::SENSITIVE;
        if showing {
            bits |= 1 << state::SHOWING;
        }
        CacheItem {
            obj: Obj::new(":1.9", path),
            parent: Some(Obj::new(":1.9", parent)),
            index,
            child_count,
            ifaces: Ifaces::COMPONENT,
            name: path.to_string(),
            role: role::PANEL,
            description: String::new(),
            states: States(bits),
        }
    }

    #[test]
    fn cache_index_orders_children_and_knows_when_order_is_missing() {
        let idx = CacheIndex::build(
            ":1.9",
            vec![
                item("/w", "/app", 0, 3, true),
                item("/c", "/w", 2, 0, true),
                item("/a", "/w", 0, 0, true),
                item("/b", "/w", 1, 0, true),
                item("/y", "/h", -1, 0, false),
                item("/x", "/h", -1, 0, false),
            ],
        );
        assert_eq!(idx.kids["/w"], vec!["/a", "/b", "/c"]);
        assert!(idx.ordered.contains("/w"));
        assert!(!idx.ordered.contains("/h"), "GTK3 gives -1: order unknown");
        assert_eq!(
            idx.kids["/h"],
            vec!["/y", "/x"],
            "cache order kept when indices are missing"
        );
    }

    #[test]
    fn plan_trusts_the_cache_only_when_it_is_consistent() {
        let idx = CacheIndex::build(
            ":1.9",
            vec![
                item("/w", "/app", 0, 3, true),
                item("/a", "/w", 0, 0, true),
                item("/b", "/w", 1, 0, true),
                item("/c", "/w", 2, 0, true),
                item("/h", "/app", 1, 2, false),
                item("/x", "/h", -1, 0, false),
                item("/y", "/h", -1, 0, false),
                item("/s", "/app", 2, 2, true),
                item("/s1", "/s", -1, 0, true),
                item("/s2", "/s", -1, 0, true),
                item("/m", "/app", 3, 5, true),
                item("/m1", "/m", 0, 0, true),
            ],
        );
        let d = |p: &str| Described::from(&idx.by_path[p]);
        assert!(matches!(plan(&d("/w"), &idx, false), Plan::Cached(k) if k.len() == 3));
        assert!(matches!(plan(&d("/a"), &idx, false), Plan::Leaf));
        // Hidden, counts agree, order unknown: the cache is good enough.
        assert!(matches!(plan(&d("/h"), &idx, false), Plan::Cached(_)));
        // Showing with unknown order: add the cached children now, fix the order live.
        assert!(matches!(plan(&d("/s"), &idx, false), Plan::Reorder(k) if k.len() == 2));
        // Count says 5, cache has 1: start with the cached one, the live list brings the rest.
        assert!(matches!(plan(&d("/m"), &idx, false), Plan::Reorder(k) if k.len() == 1));
        // Not in the cache at all: read live.
        let mut uncached = d("/m");
        uncached.obj = Obj::new(":1.9", "/elsewhere");
        assert!(matches!(
            plan(&uncached, &idx, false),
            Plan::Call { managed: false }
        ));
        let mut hidden = d("/m");
        hidden.states.0 &= !(1 << state::SHOWING);
        assert!(matches!(plan(&hidden, &idx, false), Plan::Hidden));
        // Scrolled out of a document's view: read as if it showed.
        assert!(!matches!(plan(&hidden, &idx, true), Plan::Hidden));
        let mut managed = d("/w");
        managed.states.0 |= 1 << state::MANAGES_DESCENDANTS;
        assert!(matches!(
            plan(&managed, &idx, false),
            Plan::Call { managed: true }
        ));
    }

    #[test]
    fn assemble_emits_pre_order_and_caps_mark_truncation() {
        let idx = CacheIndex::build(
            ":1.9",
            vec![
                item("/r", "/app", 0, 2, true),
                item("/a", "/r", 0, 1, true),
                item("/b", "/r", 1, 0, true),
                item("/a1", "/a", 0, 0, true),
            ],
        );
        let d = |p: &str| Described::from(&idx.by_path[p]);
        let mut nodes = vec![root(d("/r"))];
        let req = ObserveRequest {
            max_nodes: 4,
            max_children: 10,
            ..ObserveRequest::default()
        };
        let mut placed = HashMap::from([(":1.9:/r".to_string(), 0)]);
        let mut to_plan = Vec::new();
        add_children(
            &mut nodes,
            0,
            Kids {
                kids: vec![d("/a"), d("/b")],
                skipped: None,
            },
            &req,
            &mut placed,
            &mut to_plan,
            Toolkit::Gtk3,
        );
        // Discovery order differs from tree order: /a1 is found after /b.
        add_children(
            &mut nodes,
            1,
            Kids {
                kids: vec![d("/a1"), d("/b")],
                skipped: None,
            },
            &req,
            &mut placed,
            &mut to_plan,
            Toolkit::Gtk3,
        );
        let out = assemble(nodes);
        let paths = paths(&out);
        assert_eq!(
            paths,
            vec!["/r", "/a", "/a1", "/b"],
            "pre-order, duplicates dropped"
        );
        well_formed(out);

        // A cap cuts children and says how many.
        let mut nodes = vec![root(d("/r"))];
        let tight = ObserveRequest {
            max_nodes: 2,
            max_children: 10,
            ..ObserveRequest::default()
        };
        let mut placed = HashMap::from([(":1.9:/r".to_string(), 0)]);
        add_children(
            &mut nodes,
            0,
            Kids {
                kids: vec![d("/a"), d("/b")],
                skipped: None,
            },
            &tight,
            &mut placed,
            &mut to_plan,
            Toolkit::Gtk3,
        );
        assert_eq!(nodes.len(), 2);
        let t = nodes[0].truncated.as_ref().expect("truncated");
        assert_eq!((t.skipped, t.reason.as_str()), (Some(1), "cap"));
    }

    #[test]
    fn reorder_follows_the_live_order_and_reports_new_children() {
        let idx = CacheIndex::build(
            ":1.9",
            vec![
                item("/r", "/app", 0, 3, true),
                item("/b", "/r", -1, 0, true),
                item("/a", "/r", -1, 0, true),
                item("/stale", "/r", -1, 0, true),
            ],
        );
        let d = |p: &str| Described::from(&idx.by_path[p]);
        let mut nodes = vec![root(d("/r"))];
        let mut placed = HashMap::from([(":1.9:/r".to_string(), 0)]);
        let kids = vec![d("/b"), d("/a"), d("/stale")];
        attach(&mut nodes, &mut placed, 0, kids);
        let live = vec![
            Obj::new(":1.9", "/a"),
            Obj::new(":1.9", "/new"),
            Obj::new(":1.9", "/b"),
        ];
        let missing = reorder(&mut nodes, 0, &live, &placed, &HashSet::new()).missing;
        assert_eq!(missing, vec![Obj::new(":1.9", "/new")]);
        let out = assemble(nodes);
        let paths = paths(&out);
        assert_eq!(
            paths,
            vec!["/r", "/a", "/b"],
            "live order; the stale child is unlinked"
        );
        well_formed(out);
    }

    #[test]
    fn a_live_child_cached_under_another_parent_moves_with_its_subtree() {
        // GTK3: the cache puts menu /p (with child /p1) under button /a; the window /r lists /p.
        let idx = CacheIndex::build(
            ":1.9",
            vec![
                item("/r", "/app", 0, 2, true),
                item("/a", "/r", 0, 1, true),
                item("/p", "/a", -1, 1, true),
                item("/p1", "/p", 0, 0, true),
            ],
        );
        let d = |p: &str| Described::from(&idx.by_path[p]);
        let mut nodes = vec![root(d("/r"))];
        let mut placed = HashMap::from([(":1.9:/r".to_string(), 0)]);
        for (parent, kids) in [(0, vec![d("/a")]), (1, vec![d("/p")]), (2, vec![d("/p1")])] {
            attach(&mut nodes, &mut placed, parent, kids);
        }
        let live_r = vec![Obj::new(":1.9", "/a"), Obj::new(":1.9", "/p")];
        let none = HashSet::new();
        let moved = reorder(&mut nodes, 0, &live_r, &placed, &none);
        assert!(moved.missing.is_empty());
        assert_eq!(
            moved.robbed,
            vec![1],
            "the button's cached children were wrong"
        );
        // The button's own live list no longer has it: nothing else moves.
        assert!(reorder(&mut nodes, 1, &[], &placed, &none)
            .missing
            .is_empty());
        // A child can never adopt its ancestor.
        assert!(
            reorder(&mut nodes, 3, &[Obj::new(":1.9", "/r")], &placed, &none)
                .missing
                .is_empty()
        );
        // Another app's object with the same path (a socket's plug) is new, not /a moved.
        let plug = Obj::new(":1.20", "/a");
        assert_eq!(
            reorder(&mut nodes, 3, std::slice::from_ref(&plug), &placed, &none).missing,
            vec![plug]
        );
        // Even from a subtree the live tree dropped, the observed node never moves.
        let dropped = nodes.len();
        nodes.push(root(d("/p1")));
        assert!(reorder(
            &mut nodes,
            dropped,
            &[Obj::new(":1.9", "/r")],
            &placed,
            &none
        )
        .missing
        .is_empty());
        nodes.pop();
        let out = assemble(nodes);
        let paths = paths(&out);
        assert_eq!(paths, vec!["/r", "/a", "/p", "/p1"]);
        assert_eq!(out[2].parent, Some(0), "the menu hangs under the window");
        well_formed(out);
    }

    /// Issue 11 (Impress after a new slide): LibreOffice files its label under a pane that no
    /// longer holds it, in the cache and in the label's `Parent`, while the window lists the
    /// label live. The label moves to the window, the pane is reported robbed (its children are
    /// then asked for), and a later live list that names it again does not take it back.
    #[test]
    fn a_child_two_parents_claim_stays_with_the_first_live_list() {
        let idx = CacheIndex::build(
            ":1.9",
            vec![
                item("/r", "/app", 0, 2, true),
                item("/pane", "/r", 0, 1, true),
                item("/label", "/pane", -1, 0, true),
            ],
        );
        let d = |p: &str| Described::from(&idx.by_path[p]);
        let mut nodes = vec![root(d("/r"))];
        let mut placed = HashMap::from([(":1.9:/r".to_string(), 0)]);
        for (parent, kids) in [(0, vec![d("/pane")]), (1, vec![d("/label")])] {
            attach(&mut nodes, &mut placed, parent, kids);
        }
        let mut confirmed = HashSet::new();
        let live_r = [Obj::new(":1.9", "/pane"), Obj::new(":1.9", "/label")];
        let moved = reorder(&mut nodes, 0, &live_r, &placed, &confirmed);
        assert!(moved.missing.is_empty());
        assert_eq!(
            moved.robbed,
            vec![1],
            "the pane's cached children were wrong"
        );
        confirmed.insert(0);
        // The pane's own live list names the label too: the window's claim holds.
        let again = reorder(
            &mut nodes,
            1,
            &[Obj::new(":1.9", "/label")],
            &placed,
            &confirmed,
        );
        assert!(again.missing.is_empty() && again.robbed.is_empty());
        let out = assemble(nodes);
        assert_eq!(paths(&out), vec!["/r", "/pane", "/label"]);
        assert_eq!(out[2].parent, Some(0), "the label hangs under the window");
        well_formed(out);
    }

    /// A child placed already is left out of a later parent's list, and counted: a cached list
    /// that names it is then asked for live.
    #[test]
    fn adding_a_child_placed_elsewhere_counts_it() {
        let idx = CacheIndex::build(
            ":1.9",
            vec![
                item("/r", "/app", 0, 2, true),
                item("/a", "/r", 0, 1, true),
                item("/b", "/r", 1, 0, true),
            ],
        );
        let d = |p: &str| Described::from(&idx.by_path[p]);
        let mut nodes = vec![root(d("/r"))];
        let mut placed = HashMap::from([(":1.9:/r".to_string(), 0)]);
        assert_eq!(
            attach(&mut nodes, &mut placed, 0, vec![d("/a"), d("/b")]),
            0
        );
        assert_eq!(attach(&mut nodes, &mut placed, 1, vec![d("/b")]), 1);
        assert!(nodes[1].children.is_empty());
    }

    /// Gecko keeps `SHOWING` on the items of a closed menu while the menu says only
    /// `VISIBLE`: nothing inside a node that is not on screen is on screen.
    #[test]
    fn a_showing_item_of_a_closed_menu_is_hidden() {
        const MENU: u32 = 33;
        const MENU_ITEM: u32 = 35;
        let visible = 1 << state::VISIBLE;
        let showing = (1 << state::SHOWING) | visible;
        let nodes = vec![
            raw(
                "/w",
                role::FRAME,
                showing,
                Ifaces::default(),
                (None, vec![1, 3]),
            ),
            raw(
                "/file",
                MENU,
                visible,
                Ifaces::default(),
                (Some(0), vec![2]),
            ),
            raw(
                "/new",
                MENU_ITEM,
                1 << state::SHOWING,
                Ifaces::default(),
                (Some(1), vec![]),
            ),
            raw(
                "/ok",
                MENU_ITEM,
                showing,
                Ifaces::default(),
                (Some(0), vec![4]),
            ),
            // Showing without being visible (Gecko's closed menu under a showing menu bar).
            raw(
                "/stale",
                MENU_ITEM,
                1 << state::SHOWING,
                Ifaces::default(),
                (Some(3), vec![]),
            ),
        ];
        let out = assemble(nodes);
        let hidden: Vec<bool> = out.iter().map(|n| n.has_state(StateFlag::Hidden)).collect();
        assert_eq!(hidden, [false, true, true, false, true]);
    }

    #[test]
    fn gtk4_visible_counts_as_showing_under_a_showing_parent() {
        let mut s = States(1 << state::VISIBLE);
        gtk4_showing(&mut s, false);
        assert!(!s.has(state::SHOWING));
        gtk4_showing(&mut s, true);
        assert!(s.has(state::SHOWING));
    }
}
