//! Checking what a step did: a live reading of the target before and after (states, name,
//! text, value), and the application's own events in between — nothing else.
//!
//! # What counts as evidence
//! `DoAction` answering `true` is delivery, not proof: at-spi2-atk replies before it runs the
//! action and GTK applies clicks from an idle callback, so the effect lands a few milliseconds
//! *after* the reply (GTK 4: up to ~250 ms under load). So every check polls, woken by the
//! app's events and bounded by [`SETTLE`]:
//!
//! 1. **The target itself** (strong): a read-back equals what was asked (`setText`,
//!    `setValue`, `check`), or a meaningful state flips or the name changes (`press` on a
//!    toggle, `expand`), or the element or its application is gone (a dialog's OK closed it).
//! 2. **The application reacted** (weak, `event`): after the input the app emitted a content,
//!    structure or state event (text inserted, children added, a window created), and it had
//!    been quiet for 150 ms before the input (the step waits up to 500 ms for that), so the
//!    event is ours. An app that never quiets (an animation, a clock) cannot give this
//!    evidence; a slow periodic one (1 Hz) can still fool it now and then — that is why it is
//!    the weak kind. Focus and window-activation events never
//!    count: physical input causes those by itself. A press on a plain button (calculator
//!    keys) can only be verified this way, and the detail names what changed.
//! 3. **Nothing observable changed**: the step is `unknown`, never `worked` and never replayed.
//!    An `expect` postcondition (the service's) is the strong check for such steps.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::landing::Scope;
use tokio::sync::broadcast;
use uidriver_core::State;

use crate::atspi::connection::Caller;
use crate::atspi::events::{Event, Events};
use crate::atspi::{accessible, state as st, Obj, States};
use crate::error::LinuxError;

/// How long a step waits for its effect to show. GTK 3 applies most changes synchronously or
/// from the next idle (≤ 5 ms measured); a GTK 4 button activated through accessibility shows
/// its pressed look for 250 ms before it emits `clicked` (gnome-calculator keys: first event
/// 258–343 ms after `DoAction` on this shared 2-core machine).
pub(crate) const SETTLE: Duration = Duration::from_millis(500);
/// Once something changed, how long the app must stay quiet before the step ends (the rest of
/// a burst belongs to this step, not the next one). GTK 3 sends a toggle's events within ~1 ms
/// of each other; 25 ms leaves a wide margin and costs every step that much once.
pub(crate) const QUIET: Duration = Duration::from_millis(25);
/// How long the app must be quiet after the element's own change was read back before the
/// step ends: the rest of that change's burst (a toggle's label, a related state) comes within
/// a few milliseconds of it; later effects are the successor look's and `expect`'s to see.
pub(crate) const AFTERMATH: Duration = Duration::from_millis(3);

/// What the caller of an act whose last step deferred its aftermath ([`Watch::settle`]) waits
/// for, beside its look: until [`AFTERMATH`] after the effect was read back. `Some(true)` when
/// the app sent nothing since; else the rest of the burst waited out (quiet for [`AFTERMATH`],
/// at most [`QUIET`]), accounted to the act, and `Some(false)`. `None`: nothing deferred.
pub(crate) async fn settle_deferred(events: &Events, bus: &str) -> Option<bool> {
    let confirmed = events.take_deferred(bus)?;
    super::precise::sleep_until(confirmed + AFTERMATH).await;
    if !events.active_since(bus, confirmed) {
        return Some(true);
    }
    let cap = Instant::now() + QUIET;
    loop {
        let quiet_from = events
            .last_change(bus)
            .map_or(confirmed, |t| t.max(confirmed));
        let until = (quiet_from + AFTERMATH).min(cap);
        if Instant::now() >= until {
            break;
        }
        super::precise::sleep_until(until).await;
    }
    events.account(bus);
    Some(false)
}

/// How many objects named by focus events a watch remembers.
const FOCUS_OBJECTS: usize = 8;
/// Before sending, the app must have been quiet (no events our steps did not cause) this long,
/// or its events cannot be told from ours.
const QUIET_BEFORE: Duration = Duration::from_millis(150);
/// Before sending, the app must also have been quiet this long after the events our own earlier
/// steps caused: the tail of an earlier step's reaction is that step's (nautilus renames its
/// floating status label over 200 ms after a click selected a file; a Pause pressed next was
/// `worked` from it).
const OWN_TAIL: Duration = Duration::from_millis(400);
/// How long a step waits for that quiet (an app still busy starting up, say); after this the
/// step goes ahead and the app's events do not count as evidence.
const WAIT_FOR_QUIET: Duration = Duration::from_millis(500);
/// Poll period when no event wakes the check (some changes emit none).
const TICK: Duration = Duration::from_millis(50);

/// `fut`'s output, or `Err(())` once `until` passes first (timed by [`super::precise::sleep_until`]).
async fn within<T>(until: Instant, fut: impl std::future::Future<Output = T>) -> Result<T, ()> {
    tokio::select! {
        biased;
        v = fut => Ok(v),
        () = super::precise::sleep_until(until) => Err(()),
    }
}

/// State flags a step can change on purpose (focus and hover flags excluded).
const MEANINGFUL: &[(u32, &str)] = &[
    (st::CHECKED, "checked"),
    (st::PRESSED, "pressed"),
    (st::EXPANDED, "expanded"),
    (st::SELECTED, "selected"),
    (st::INDETERMINATE, "mixed"),
    (st::SENSITIVE, "sensitive"),
    (st::SHOWING, "showing"),
];

/// Milliseconds for a detail: one decimal below 10 ms (GTK 3 often answers in under 1 ms).
pub(crate) fn millis(d: Duration) -> String {
    if d < Duration::from_millis(10) {
        format!("{:.1}", d.as_secs_f64() * 1000.0)
    } else {
        d.as_millis().to_string()
    }
}

/// The index of a live object in a state, when the state has it.
pub(crate) fn index_of(state: &State, o: &Obj) -> Option<usize> {
    let handle = o.to_string();
    state.snapshot.nodes.iter().position(|n| n.handle == handle)
}

/// An element of a state in a verification detail: `@e14 button "Save"`.
pub(crate) fn element_words(state: &State, i: usize) -> String {
    let n = &state.snapshot.nodes[i];
    let mut d = format!("{} {}", state.ref_of(i), n.role);
    if let Some(name) = n.name.text() {
        d.push_str(&format!(" {}", uidriver_core::outline::quote(name, 40)));
    }
    d
}

/// A live reading of one element.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Reading {
    pub states: States,
    pub name: String,
}

/// Reads states and name; `Ok(None)` when the element (or its app) is gone.
pub(crate) async fn read(c: &Caller, o: &Obj) -> Result<Option<Reading>, LinuxError> {
    let (states, name) = tokio::join!(accessible::states(c, o), accessible::name(c, o));
    match (states, name) {
        (Ok(states), Ok(name)) => Ok(Some(Reading { states, name })),
        (Err(e), _) | (_, Err(e)) if e.is_gone() => Ok(None),
        (Err(e), _) | (_, Err(e)) => Err(e),
    }
}

/// What differs that lasts: a push button held down (`pressed` set on a button that was not
/// pressed) is the press on its way, not its effect: Qt's Press action animates a click,
/// holding the button down about 100 ms before it clicks (a dialog's Cancel closes it then).
pub(crate) fn lasting_difference(
    before: &Reading,
    after: &Reading,
    push_button: bool,
) -> Option<String> {
    if push_button && !before.states.has(st::PRESSED) && after.states.has(st::PRESSED) {
        let mut held = after.clone();
        held.states = crate::atspi::States(after.states.0 & !(1u64 << st::PRESSED));
        return difference(before, &held);
    }
    difference(before, after)
}

/// What differs between two readings, in words (`checked: no → yes`), or `None`.
pub(crate) fn difference(before: &Reading, after: &Reading) -> Option<String> {
    let mut parts = Vec::new();
    for (bit, word) in MEANINGFUL {
        let (b, a) = (before.states.has(*bit), after.states.has(*bit));
        if b != a {
            parts.push(format!("{word}: {} → {}", yes(b), yes(a)));
        }
    }
    if before.name != after.name {
        parts.push("its name changed".into());
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// Object paths of the base state whose events are churn: hidden nodes and layout containers.
pub(crate) fn churn_paths(state: &State) -> HashSet<String> {
    use uidriver_core::{Role, StateFlag};
    state
        .snapshot
        .nodes
        .iter()
        .filter(|n| {
            n.has_state(StateFlag::Hidden)
                || matches!(
                    n.role,
                    Role::Pane | Role::ScrollPane | Role::SplitPane | Role::Separator
                )
        })
        .filter_map(|n| n.handle.rsplit_once(':').map(|(_, p)| p.to_string()))
        .collect()
}

/// The application's events during one step.
pub(crate) struct Watch<'a> {
    events: &'a Events,
    rx: broadcast::Receiver<Event>,
    bus: String,
    /// When the step started (before any input).
    pub started: Instant,
    /// The app was already sending unexplained events: its events prove nothing about ours.
    pub busy: bool,
    /// Reaction events seen so far.
    pub seen: Vec<Event>,
    /// Events were missed (the receiver lagged): something happened, unknown what.
    pub lagged: bool,
    /// Focus moves inside the app (not reactions; keyboard navigation's only effect).
    pub focus_moves: usize,
    /// Objects a focus event named during the step, newest first (Calc's cell editor, made
    /// as the first key lands, is in no state yet: this is where the keys went).
    pub focus_objects: Vec<Obj>,
    /// When the checked effect was first seen, counted from [`Watch::started`].
    pub seen_after: Option<Duration>,
    /// Raised when the app announced a new top-level window (so the act waits until the
    /// window manager lists it, and the service's root changes include it).
    opened: Option<&'a AtomicBool>,
    /// Object paths the base state knows; a reaction from any other object means the app is
    /// building something new (a dialog's widgets before its `window:create`).
    known: Option<&'a HashSet<String>>,
    /// Objects whose events are churn, not an effect a person would see: hidden in the base
    /// state, or layout containers (see [`churn_paths`]).
    churn: Option<&'a HashSet<String>>,
    /// Reactions from those objects, which prove nothing about the step.
    pub churned: usize,
    /// A reaction came from an object the base state does not know.
    pub new_objects: bool,
    /// The app announced a new top-level window during this step.
    pub new_window: bool,
    /// The batch's last step, whose caller waits out its aftermath beside its successor look
    /// ([`Watch::settle`]).
    defer: bool,
}

impl<'a> Watch<'a> {
    /// Starts listening before anything is sent. When the app is sending events of its own
    /// (starting up, animating, a clock), waits up to [`WAIT_FOR_QUIET`] for a quiet moment
    /// first; an app that never quiets is marked busy and its events prove nothing.
    pub(crate) async fn start(
        events: &'a Events,
        bus: &str,
        opened: Option<&'a AtomicBool>,
        known: Option<&'a HashSet<String>>,
        batch_started: Option<Instant>,
    ) -> Watch<'a> {
        // Within a batch (`batch_started`), the quiet waited for includes the events of its own
        // earlier steps ([`OWN_TAIL`]): the tail of an earlier step's reaction (Thunar's status
        // bar renamed after a click selected a file) is that step's, and must have arrived before
        // this step listens. Events from before the batch (an earlier call's, already judged)
        // are not waited for: a call's first step goes at once. Only events no step explained
        // make the app busy.
        let t0 = Instant::now();
        let busy = loop {
            let now = Instant::now();
            let since = now.checked_sub(QUIET_BEFORE).unwrap_or(now);
            let tail = batch_started.map(|b| now.checked_sub(OWN_TAIL).unwrap_or(now).max(b));
            if !events.busy_since(bus, since) && tail.is_none_or(|t| !events.active_since(bus, t)) {
                break false;
            }
            if now.duration_since(t0) >= WAIT_FOR_QUIET {
                break events.busy_since(bus, since);
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        };
        // Subscribed only now: what the app sent while we waited is not ours to judge.
        let rx = events.subscribe();
        Watch {
            events,
            rx,
            bus: bus.to_string(),
            started: Instant::now(),
            busy,
            seen: Vec::new(),
            lagged: false,
            focus_moves: 0,
            focus_objects: Vec::new(),
            seen_after: None,
            opened,
            known,
            churn: None,
            churned: 0,
            new_objects: false,
            new_window: false,
            defer: false,
        }
    }

    /// The step is the batch's last and its caller settles after it (`defer_settle`).
    pub(crate) fn deferring(mut self, defer: bool) -> Self {
        self.defer = defer;
        self
    }

    /// Events from `churn`'s objects stop counting as the app's reaction (their content
    /// changing, children excepted).
    pub(crate) fn ignoring(mut self, churn: &'a HashSet<String>) -> Self {
        self.churn = Some(churn);
        self
    }

    /// Waits until a reaction event from the app arrives (true) or `until` passes (false).
    pub(crate) async fn next(&mut self, until: Instant) -> bool {
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            match within(until, self.rx.recv()).await {
                Err(()) => return false,
                Ok(Ok(ev)) if *ev.sender == *self.bus => {
                    // A hidden menu item's state or a pane's property changing is no effect a
                    // person would see (a mis-aimed click was `worked` on one); children
                    // added or removed, or a hidden object coming into view, are.
                    if ev.is_reaction()
                        && &*ev.member != "ChildrenChanged"
                        && !(&*ev.member == "StateChanged"
                            && matches!(&*ev.detail, "showing" | "visible"))
                        && self.churn.is_some_and(|c| c.contains(&*ev.path))
                    {
                        self.churned += 1;
                        continue;
                    }
                    if ev.is_reaction() {
                        // at-spi2-atk: `window:create` when a toplevel shows, and
                        // `children-changed:add` on the application's root object.
                        let new_window = (ev.class == "Window" && &*ev.member == "Create")
                            || (&*ev.member == "ChildrenChanged"
                                && ev.detail.starts_with("add")
                                && &*ev.path == crate::atspi::ROOT_PATH);
                        if new_window {
                            self.new_window = true;
                            if let Some(f) = self.opened {
                                f.store(true, Ordering::Relaxed);
                            }
                        }
                        if self.known.is_some_and(|k| !k.contains(&*ev.path)) {
                            self.new_objects = true;
                        }
                        self.seen.push(ev);
                        return true;
                    }
                    if ev.class == "Focus"
                        || (&*ev.member == "StateChanged" && &*ev.detail == "focused")
                    {
                        self.focus_moves += 1;
                        let o = Obj::new(&*ev.sender, &*ev.path);
                        self.focus_objects.retain(|k| *k != o);
                        self.focus_objects.insert(0, o);
                        self.focus_objects.truncate(FOCUS_OBJECTS);
                    }
                }
                Ok(Ok(_)) => {}
                Ok(Err(broadcast::error::RecvError::Lagged(_))) => {
                    self.lagged = true;
                    return true;
                }
                Ok(Err(broadcast::error::RecvError::Closed)) => return false,
            }
        }
    }

    /// Polls `check` (woken by events, else every [`TICK`]) until it answers or `budget` ends.
    pub(crate) async fn until<T, F, Fut>(&mut self, budget: Duration, mut check: F) -> Option<T>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Option<T>>,
    {
        let end = Instant::now() + budget;
        loop {
            if let Some(v) = check().await {
                self.seen_after = Some(self.started.elapsed());
                return Some(v);
            }
            let now = Instant::now();
            if now >= end {
                return None;
            }
            self.next(end.min(now + TICK)).await;
        }
    }

    /// After a reaction from objects the state did not know (the app is building a dialog),
    /// waits up to [`SETTLE`] for the app to announce the window, so its root is listed with
    /// this step's root changes. GTK 3 builds a file chooser for ~150 ms before
    /// `window:create`, with gaps between its bursts.
    pub(crate) async fn await_window_if_building(&mut self) {
        if !self.new_objects || self.new_window || self.busy {
            return;
        }
        let end = Instant::now() + SETTLE;
        while !self.new_window && self.next(end).await {}
        if self.new_window {
            self.quiet(SETTLE).await;
        }
    }

    /// Waits for the rest of a burst: returns once the app was quiet for [`QUIET`] (or `cap`).
    pub(crate) async fn quiet(&mut self, cap: Duration) {
        self.quiet_for(QUIET, cap).await;
    }

    /// The end of a step whose effect was (`confirmed`) or was not read back: the rest of the
    /// burst, [`AFTERMATH`] of quiet after a confirmed effect, else [`QUIET`]; at most
    /// [`QUIET`] either way.
    ///
    /// The last step of a batch whose caller looks at the successor at once and then settles
    /// (`ActRequest::defer_settle`) leaves a confirmed effect's aftermath to that call
    /// ([`settle_deferred`]), which waits it out beside the look: the step's evidence is its
    /// read-back either way, and the look stands only if the app stayed quiet.
    pub(crate) async fn settle(&mut self, confirmed: bool) {
        if confirmed {
            self.aftermath(QUIET, true).await;
        } else {
            self.quiet_for(QUIET, QUIET).await;
        }
    }

    /// The rest of a read-back effect's burst: [`AFTERMATH`] of quiet (at most `cap`), or, for
    /// the batch's last step whose caller settles after it (and `may_defer`: the step judges
    /// nothing by the events still to come), noted for [`settle_deferred`] instead.
    pub(crate) async fn aftermath(&mut self, cap: Duration, may_defer: bool) {
        if may_defer && self.defer && !self.busy && !self.new_window {
            self.events.defer_settle(&self.bus, Instant::now());
            return;
        }
        self.quiet_for(AFTERMATH, cap).await;
    }

    /// Returns once the app was quiet for `window` (or `cap`).
    pub(crate) async fn quiet_for(&mut self, window: Duration, cap: Duration) {
        let end = Instant::now() + cap;
        loop {
            let now = Instant::now();
            if now >= end || !self.next(end.min(now + window)).await {
                return;
            }
        }
    }

    /// ` (after 3 ms)`: how long the effect took to show, when it was seen.
    pub(crate) fn after(&self) -> String {
        self.seen_after
            .map(|d| format!(" (after {} ms)", millis(d)))
            .unwrap_or_default()
    }

    /// Whether the app reacted in a way that can be attributed to this step.
    pub(crate) fn reacted(&self) -> bool {
        !self.busy && (!self.seen.is_empty() || self.lagged)
    }

    /// Whether a reaction so far is the element's of `scope` (see `landing.rs`): its own or
    /// its descendants' events, its list's selection, a new window or new objects.
    pub(crate) fn reacted_in(&self, scope: &Scope) -> bool {
        !self.busy
            && (self.new_window || self.new_objects || self.seen.iter().any(|e| scope.holds(e)))
    }

    /// Whether the focus moved to `scope`'s element or into it during the step.
    pub(crate) fn focused_in(&self, scope: &Scope) -> bool {
        self.focus_objects.iter().any(|o| scope.contains(o))
    }

    /// The reaction in words, with refs of the state where the source is one of its elements:
    /// `TextChanged (insert) on @e14 text "GtkSourceView" after 12 ms`.
    pub(crate) fn describe(&self, state: &State) -> String {
        self.describe_first(state, None)
    }

    /// [`Watch::describe`], `scope`'s reactions first.
    pub(crate) fn describe_first(&self, state: &State, scope: Option<&Scope>) -> String {
        if self.seen.is_empty() {
            return "events were missed (the app sent a burst)".into();
        }
        let mut events: Vec<&Event> = self.seen.iter().collect();
        if let Some(s) = scope {
            events.sort_by_key(|e| !s.holds(e));
        }
        // The same event again (GTK 3 repeats a check box's `checked`) is said once.
        let mut said = HashSet::new();
        events
            .retain(|e| said.insert((e.class, e.member.clone(), e.detail.clone(), e.path.clone())));
        let mut parts = Vec::new();
        for ev in events.iter().take(3) {
            let mut s = match ev.class {
                "Window" => format!("window {}", ev.member.to_lowercase()),
                _ if ev.detail.is_empty() => ev.member.to_string(),
                _ => format!("{} ({})", ev.member, ev.detail),
            };
            if let Some(i) = index_of(state, &Obj::new(&*ev.sender, &*ev.path)) {
                s.push_str(&format!(" on {}", element_words(state, i)));
            }
            parts.push(s);
        }
        let first = self.seen[0].at.saturating_duration_since(self.started);
        let more = events.len().saturating_sub(parts.len());
        let mut out = format!(
            "the app reacted: {} (first after {} ms)",
            parts.join("; "),
            millis(first)
        );
        if more > 0 {
            out.push_str(&format!(" and {more} more"));
        }
        out
    }

    /// Why events cannot count, when the app was busy before the step.
    pub(crate) fn busy_note(&self) -> Option<&'static str> {
        self.busy.then_some(
            "the app was already sending events before this step, so its events cannot be attributed to it",
        )
    }
}

impl Drop for Watch<'_> {
    fn drop(&mut self) {
        // Everything the app sent until now is explained by this step; the next step's
        // busy check starts from here.
        self.events.account(&self.bus);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_deferred_aftermath_stands_when_the_app_stayed_quiet() {
        let events = Events::detached();
        assert_eq!(
            settle_deferred(&events, ":1.5").await,
            None,
            "nothing deferred"
        );
        let t0 = Instant::now();
        events.defer_settle(":1.5", t0);
        assert_eq!(settle_deferred(&events, ":1.5").await, Some(true));
        assert!(t0.elapsed() >= AFTERMATH, "waited out the quiet window");
        assert_eq!(settle_deferred(&events, ":1.5").await, None, "taken once");
    }

    #[tokio::test]
    async fn a_deferred_aftermath_with_a_later_change_waits_for_quiet_and_accounts_it() {
        let events = Events::detached();
        let t0 = Instant::now();
        events.defer_settle(":1.5", t0);
        events.note_change(":1.5");
        let changed = Instant::now();
        assert!(events.busy_since(":1.5", t0), "an unexplained change");
        assert_eq!(settle_deferred(&events, ":1.5").await, Some(false));
        assert!(
            changed.elapsed() >= AFTERMATH,
            "quiet for the window after the change"
        );
        assert!(
            !events.busy_since(":1.5", t0),
            "the change is the act's now"
        );
        // Another app's changes are not this one's.
        events.defer_settle(":1.5", Instant::now());
        events.note_change(":1.9");
        assert_eq!(settle_deferred(&events, ":1.5").await, Some(true));
    }

    fn reading(bits: &[u32], name: &str) -> Reading {
        Reading {
            states: States(bits.iter().fold(0u64, |a, b| a | (1 << b))),
            name: name.into(),
        }
    }

    #[test]
    fn only_meaningful_changes_count_as_an_effect() {
        let before = reading(&[st::SENSITIVE, st::SHOWING], "OK");
        // Focus comes with physical input by itself: not an effect.
        assert_eq!(
            difference(
                &before,
                &reading(&[st::SENSITIVE, st::SHOWING, st::FOCUSED], "OK")
            ),
            None
        );
        assert_eq!(
            difference(
                &before,
                &reading(&[st::SENSITIVE, st::SHOWING, st::CHECKED], "OK")
            )
            .as_deref(),
            Some("checked: no → yes")
        );
        assert_eq!(
            difference(&before, &reading(&[st::SENSITIVE, st::SHOWING], "Done")).as_deref(),
            Some("its name changed")
        );
    }
}
