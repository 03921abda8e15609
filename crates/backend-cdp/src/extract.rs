//! Observation of a page: runs the walker (`walker.js`) in our isolated world and turns its
//! compact rows into a core [`Snapshot`] with screen bounds, closed-vocabulary roles, states and
//! capabilities. Also owns the mapping between CSS viewport pixels and screen pixels, so
//! acting converts coordinates exactly as observing reported them.
//!
//! Why a walker and not the accessibility tree: on `std/vec/struct.Vec.html` (16k elements)
//! `Accessibility.getFullAXTree` returns 62k nodes as 20 MB of JSON in 1.3–4 s and
//! `DOMSnapshot.captureSnapshot` 5 MB in 0.3–2.7 s, while the walker computes what we need in
//! the page and ships ~1 MB (see `bench/cdp/README.md` for the measured table).

use std::sync::Arc;
use std::time::Instant;

use serde::Deserialize;
use uidriver_core::{
    Bounds, CapSet, Capability, Deadline, Evidence, Node, NumericValue, Role, Snapshot, StateFlag,
    StateSet, Timings, Truncation,
};

use crate::error::{CdpError, CdpResult};
use crate::page::{FrameDoc, Page, MAX_FRAME_DEPTH, WALKER_JS};

/// State bits of the walker, in bit order (mirrors `S_*` in `walker.js`).
const STATE_BITS: &[StateFlag] = &[
    StateFlag::Focused,
    StateFlag::Focusable,
    StateFlag::Editable,
    StateFlag::MultiLine,
    StateFlag::ReadOnly,
    StateFlag::Checked,
    StateFlag::Mixed,
    StateFlag::Pressed,
    StateFlag::Selected,
    StateFlag::Selectable,
    StateFlag::Expanded,
    StateFlag::Collapsed,
    StateFlag::Disabled,
    StateFlag::Hidden,
    StateFlag::Modal,
    StateFlag::Password,
    StateFlag::Required,
    StateFlag::Invalid,
    StateFlag::Busy,
    StateFlag::MultiSelectable,
];

/// Capability bits of the walker, in bit order (mirrors `C_*` in `walker.js`).
const CAP_BITS: &[Capability] = &[
    Capability::Press,
    Capability::Toggle,
    Capability::Select,
    Capability::SetText,
    Capability::TypeText,
    Capability::SetValue,
    Capability::Expand,
    Capability::Scroll,
    Capability::Focus,
    Capability::ReadText,
    Capability::Click,
];

/// How CSS pixels of the page's top viewport map to screen pixels: `screen = origin + css * scale`.
///
/// Headless pages have no screen: their origin is 0 and bounds are viewport pixels.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Viewport {
    /// Screen x of the viewport's left edge.
    pub origin_x: f64,
    /// Screen y of the viewport's top edge.
    pub origin_y: f64,
    /// Screen pixels per CSS pixel.
    pub scale: f64,
    /// Document scroll offset (for telling "scrolled away" from "placed off the page").
    pub scroll: (f64, f64),
}

impl Viewport {
    /// From the walker's `vp` array: [innerW, innerH, scrollX, scrollY, dpr, screenX, screenY,
    /// outerW, outerH].
    pub fn from_vp(vp: &[f64; 9], headless: bool) -> Viewport {
        let [inner_w, inner_h, sx, sy, dpr, screen_x, screen_y, outer_w, outer_h] = *vp;
        let scale = if dpr > 0.0 { dpr } else { 1.0 };
        if headless {
            return Viewport {
                origin_x: 0.0,
                origin_y: 0.0,
                scale: 1.0,
                scroll: (sx, sy),
            };
        }
        // Chromium's frame has equal side and bottom borders (zero on most window managers);
        // everything else above the viewport is tab strip and toolbar.
        let side = ((outer_w - inner_w * scale) / 2.0).max(0.0);
        let top = (outer_h - inner_h * scale - side).max(0.0);
        Viewport {
            origin_x: screen_x + side,
            origin_y: screen_y + top,
            scale,
            scroll: (sx, sy),
        }
    }

    /// The mapping of a frame whose viewport sits at `off` (CSS pixels) in this one; the
    /// scroll offset is the frame's own (from its walk).
    fn shifted(self, off: (f64, f64), out: &WalkOut) -> Viewport {
        let vp = out.vp.unwrap_or_default();
        Viewport {
            origin_x: self.origin_x + off.0 * self.scale,
            origin_y: self.origin_y + off.1 * self.scale,
            scale: self.scale,
            scroll: (vp[2], vp[3]),
        }
    }

    /// A viewport rectangle in screen pixels.
    pub fn to_screen(self, x: f64, y: f64, w: f64, h: f64) -> Bounds {
        Bounds::new(
            (self.origin_x + x * self.scale).round() as i32,
            (self.origin_y + y * self.scale).round() as i32,
            (w * self.scale).round() as i32,
            (h * self.scale).round() as i32,
        )
    }

    /// A screen point in viewport CSS pixels.
    pub fn to_viewport(self, x: f64, y: f64) -> (f64, f64) {
        (
            (x - self.origin_x) / self.scale,
            (y - self.origin_y) / self.scale,
        )
    }
}

/// One walker row (see the header of `walker.js`).
type Row = (
    String,                   // handle id within the document
    i64,                      // parent index, -1 for the first row
    String,                   // role (wire name)
    String,                   // tag
    String,                   // name
    Option<String>,           // value
    u32,                      // state bits
    u32,                      // capability bits
    f64,                      // x
    f64,                      // y
    f64,                      // w
    f64,                      // h
    String,                   // DOM id
    u64,                      // text length, 0 when not measured
    String,                   // description
    Option<[Option<f64>; 4]>, // numeric: current, min, max, step
);

/// The walker's output (one JSON text).
#[derive(Deserialize)]
pub(crate) struct WalkOut {
    #[serde(default)]
    gone: bool,
    #[serde(default)]
    nonce: String,
    #[serde(default)]
    ms: f64,
    #[serde(default)]
    pub(crate) vp: Option<[f64; 9]>,
    #[serde(default)]
    nodes: Vec<Row>,
    #[serde(default)]
    trunc: Vec<(usize, String)>,
}

/// A node handle: `cdp:<document nonce>:<element id>` (text runs append `.<n>`).
pub fn handle(nonce: &str, id: &str) -> String {
    format!("cdp:{nonce}:{id}")
}

/// Splits a handle into the document nonce and the element id (text runs resolve to their
/// element). None when it is not ours.
pub fn parse_handle(h: &str) -> Option<(&str, u64)> {
    let rest = h.strip_prefix("cdp:")?;
    let (nonce, id) = rest.split_once(':')?;
    let id = id.split('.').next()?.parse().ok()?;
    Some((nonce, id))
}

/// Observes a page (or, with `root`, the subtree of one element of it), cross-origin frames
/// included (each read as a document of its own, see `page/frames.rs`).
pub async fn observe(
    top: &Page,
    headless: bool,
    root: Option<(&str, u64)>,
    max_nodes: usize,
    deadline: Deadline,
) -> CdpResult<Snapshot> {
    let t0 = Instant::now();
    let calls0 = top.calls();
    // A subtree inside a frame is walked in that frame's world.
    let frame = root.and_then(|(n, _)| top.doc_page(n));
    let page = frame.as_deref().unwrap_or(top);
    let (out, walk_ms) = walk(page, root, max_nodes, deadline).await?;
    let t_eval = t0.elapsed();
    let (top_vp, base) = match (&frame, root) {
        (Some(_), Some((nonce, _))) => (
            viewport(top, headless, deadline).await?,
            top.frame_offset(nonce, false, deadline).await?,
        ),
        _ => (
            Viewport::from_vp(&out.vp.unwrap_or_default(), headless),
            (0.0, 0.0),
        ),
    };
    let vp = top_vp.shifted(base, &out);
    let mut snap = build(&out, &vp);
    let mut frames_ms = 0.0;
    let owner = frame.clone();
    if snap.nodes.iter().any(cross_origin) {
        let t = Instant::now();
        snap = read_frames(top, snap, owner, base, &top_vp, max_nodes, deadline).await;
        frames_ms = t.elapsed().as_secs_f64() * 1000.0;
    }
    summarize(&mut snap);
    let total = t0.elapsed();
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
    snap.timings = Timings {
        total_ms: ms(total),
        describe_ms: ms(t_eval) + frames_ms,
        calls: (top.calls() - calls0) as u32,
        phases: [
            ("walk".to_string(), walk_ms),
            ("transfer".to_string(), (ms(t_eval) - walk_ms).max(0.0)),
            ("frames".to_string(), frames_ms),
            (
                "build".to_string(),
                (ms(total - t_eval) - frames_ms).max(0.0),
            ),
        ]
        .into_iter()
        .collect(),
    };
    Ok(snap)
}

/// Runs the walker in `page`'s world; the output and the time it spent in the page.
async fn walk(
    page: &Page,
    root: Option<(&str, u64)>,
    max_nodes: usize,
    deadline: Deadline,
) -> CdpResult<(WalkOut, f64)> {
    let (nonce_want, root_id) = match root {
        Some((n, id)) => (Some(n), id),
        None => (None, 0),
    };
    let expr = format!("({WALKER_JS})({{max: {max_nodes}, root: {root_id}}})");
    let v = page.eval_value(&expr, deadline).await?;
    let text = v
        .as_str()
        .ok_or_else(|| CdpError::PageScript("the walker returned no text".into()))?;
    let out: WalkOut = serde_json::from_str(text).map_err(|source| CdpError::Decode {
        method: "walker",
        source,
    })?;
    if out.gone || nonce_want.is_some_and(|n| n != out.nonce) {
        return Err(CdpError::Gone(
            "the element is no longer in the page".into(),
        ));
    }
    let ms = out.ms;
    Ok((out, ms))
}

/// The top viewport's mapping, read on its own (when a walk started inside a frame).
pub(crate) async fn viewport(
    page: &Page,
    headless: bool,
    deadline: Deadline,
) -> CdpResult<Viewport> {
    let v = page
        .eval_value(
            "[innerWidth, innerHeight, scrollX, scrollY, devicePixelRatio, screenX, screenY, outerWidth, outerHeight]",
            deadline,
        )
        .await?;
    let vp: [f64; 9] = serde_json::from_value(v).map_err(|source| CdpError::Decode {
        method: "viewport",
        source,
    })?;
    Ok(Viewport::from_vp(&vp, headless))
}

pub(crate) fn cross_origin(n: &Node) -> bool {
    n.truncated
        .as_ref()
        .is_some_and(|t| t.reason.starts_with("cross-origin"))
}

/// A cross-origin frame owner still to read: its node, the page holding it (`None`: the top
/// page), where that page's viewport sits in the top one, and how deep it is.
struct Pending {
    node: usize,
    in_page: Option<Arc<Page>>,
    offset: (f64, f64),
    depth: usize,
}

/// Reads the cross-origin frames of `snap` (and theirs, to [`MAX_FRAME_DEPTH`]) and grafts
/// each under its owner node. The frames of one level are read at once, each with an equal
/// share of the nodes left and at most half of the time left: a page of many embeds costs
/// about its slowest frame, and a frame whose renderer hangs costs that half once, the rest of
/// the page still returned with it marked. A frame that cannot be read keeps its truncation,
/// saying why.
async fn read_frames(
    top: &Page,
    mut snap: Snapshot,
    in_page: Option<Arc<Page>>,
    offset: (f64, f64),
    top_vp: &Viewport,
    max_nodes: usize,
    deadline: Deadline,
) -> Snapshot {
    let mut level: Vec<Pending> = (0..snap.nodes.len())
        .filter(|&i| cross_origin(&snap.nodes[i]))
        .map(|node| Pending {
            node,
            in_page: in_page.clone(),
            offset,
            depth: 1,
        })
        .collect();
    while !level.is_empty() {
        let room = max_nodes.saturating_sub(snap.nodes.len());
        if room == 0 {
            break;
        }
        let share = (room / level.len()).max(1);
        let frame_deadline = deadline.cap(deadline.remaining() / 2);
        let owners: Vec<Option<(String, u64)>> = level
            .iter()
            .map(|p| parse_handle(&snap.nodes[p.node].handle).map(|(n, id)| (n.to_string(), id)))
            .collect();
        let reads = level.iter().zip(&owners).map(|(p, owner)| async move {
            match owner {
                Some((nonce, id)) => {
                    read_frame(top, p, (nonce, *id), top_vp, share, frame_deadline).await
                }
                None => Ok(None),
            }
        });
        let results = futures_util::future::join_all(reads).await;
        let mut next = Vec::new();
        for (p, r) in level.into_iter().zip(results) {
            match r {
                Ok(Some((frame_page, off, child))) => {
                    let base = snap.nodes.len();
                    graft(&mut snap, p.node, child);
                    if p.depth < MAX_FRAME_DEPTH {
                        next.extend(
                            (base..snap.nodes.len())
                                .filter(|&i| cross_origin(&snap.nodes[i]))
                                .map(|i| Pending {
                                    node: i,
                                    in_page: Some(frame_page.clone()),
                                    offset: off,
                                    depth: p.depth + 1,
                                }),
                        );
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    if let Some(t) = snap.nodes[p.node].truncated.as_mut() {
                        t.reason = format!("cross-origin frame: could not be read ({e})");
                    }
                }
            }
        }
        level = next;
    }
    snap.into_preorder()
}

/// Reads one cross-origin frame: the one shown by `owner` (document nonce, element id) in the
/// page of `p`.
async fn read_frame(
    top: &Page,
    p: &Pending,
    (nonce, id): (&str, u64),
    top_vp: &Viewport,
    budget: usize,
    deadline: Deadline,
) -> CdpResult<Option<(Arc<Page>, (f64, f64), Snapshot)>> {
    let (owner_page, owner_offset) = (p.in_page.as_deref().unwrap_or(top), p.offset);
    let Some(obj) = owner_page.element(nonce, id, deadline).await? else {
        return Ok(None);
    };
    let found = async {
        let frame = top.frame_page(owner_page, &obj, deadline).await?;
        let origin = owner_page.origin_of(&obj, false, deadline).await?;
        Ok::<_, CdpError>(frame.map(|f| (f, origin)))
    }
    .await;
    owner_page.release(&obj).await;
    let Some((frame, origin)) = found? else {
        return Ok(None);
    };
    let (out, _) = walk(&frame, None, budget, deadline).await?;
    top.note_doc(
        &out.nonce,
        FrameDoc {
            page: frame.clone(),
            owner: (nonce.to_string(), id),
        },
    );
    let off = (owner_offset.0 + origin.0, owner_offset.1 + origin.1);
    let child = frame_document(&out, &top_vp.shifted(off, &out))?;
    Ok(Some((frame, off, child)))
}

/// The snapshot of a frame's walk, to graft under its owner. The walk is the frame's data: a
/// document that gave no rows is an error (the owner keeps its truncation, saying so), never
/// an index into nothing.
pub(crate) fn frame_document(out: &WalkOut, vp: &Viewport) -> CdpResult<Snapshot> {
    let mut child = build(out, vp);
    let Some(doc) = child.nodes.first_mut() else {
        return Err(CdpError::PageScript(
            "the frame's document gave no nodes".into(),
        ));
    };
    // The frame's document is not the page's focus unless something in it is.
    if let Evidence::Known(s) = &mut doc.states {
        s.remove(StateFlag::Focused);
    }
    Ok(child)
}

/// Appends `child` under node `owner` (the caller restores pre-order). An empty `child` or an
/// `owner` outside `snap` changes nothing.
pub(crate) fn graft(snap: &mut Snapshot, owner: usize, child: Snapshot) {
    if child.nodes.is_empty() || owner >= snap.nodes.len() {
        return;
    }
    let base = snap.nodes.len();
    for mut n in child.nodes {
        n.parent = Some(n.parent.map_or(owner, |p| p + base));
        for c in &mut n.children {
            *c += base;
        }
        snap.nodes.push(n);
    }
    snap.nodes[owner].children.push(base);
    snap.nodes[owner].truncated = None;
}

/// Sets `complete` and the notes from the truncations left in the tree.
fn summarize(snap: &mut Snapshot) {
    let frames = snap.nodes.iter().filter(|n| cross_origin(n)).count();
    let capped = snap
        .nodes
        .iter()
        .any(|n| n.truncated.as_ref().is_some_and(|t| t.reason == "cap"));
    snap.complete = snap.nodes.iter().all(|n| n.truncated.is_none());
    if frames > 0 {
        snap.notes
            .push(format!("{frames} cross-origin frame(s) not read"));
    }
    if capped {
        snap.notes
            .push(format!("stopped at {} nodes (max_nodes)", snap.nodes.len()));
    }
}

/// The page's snapshot from the walker's rows.
pub(crate) fn build(out: &WalkOut, vp: &Viewport) -> Snapshot {
    let n = out.nodes.len();
    let mut nodes: Vec<Node> = Vec::with_capacity(n);
    for (i, r) in out.nodes.iter().enumerate() {
        let parent = usize::try_from(r.1).ok().filter(|p| *p < i);
        let states: StateSet = STATE_BITS
            .iter()
            .enumerate()
            .filter(|(b, _)| r.6 & (1 << b) != 0)
            .map(|(_, f)| *f)
            .collect();
        let caps: CapSet = CAP_BITS
            .iter()
            .enumerate()
            .filter(|(b, _)| r.7 & (1 << b) != 0)
            .map(|(_, c)| *c)
            .collect();
        let numeric = r.15.and_then(|[cur, min, max, step]| {
            Some(NumericValue {
                current: cur?,
                min: min.filter(|v| v.is_finite())?,
                max: max.filter(|v| v.is_finite())?,
                step: step.filter(|v| v.is_finite()).unwrap_or(0.0),
            })
        });
        let bounds = (r.10 > 0.0 && r.11 > 0.0).then(|| vp.to_screen(r.8, r.9, r.10, r.11));
        nodes.push(Node {
            role: Role::from_wire(&r.2).unwrap_or(Role::Unknown),
            native_role: r.3.clone(),
            name: Evidence::from_text(r.4.clone()),
            description: Evidence::from_text(r.14.clone()),
            value: match &r.5 {
                Some(v) => Evidence::Known(v.clone()),
                None => Evidence::Absent,
            },
            numeric,
            text_len: (r.13 > 0).then(|| u32::try_from(r.13).unwrap_or(u32::MAX)),
            states: Evidence::Known(states),
            caps,
            actions: Vec::new(),
            bounds,
            native_id: (!r.12.is_empty()).then(|| r.12.clone()),
            handle: handle(&out.nonce, &r.0),
            visual_text: None,
            parent,
            children: Vec::new(),
            truncated: None,
        });
        if let Some(p) = parent {
            nodes[p].children.push(i);
        }
    }
    for (i, reason) in &out.trunc {
        if let Some(node) = nodes.get_mut(*i) {
            node.truncated = Some(Truncation {
                skipped: None,
                reason: reason.clone(),
            });
        }
    }
    mark_unrendered(&mut nodes, vp);
    Snapshot {
        nodes,
        complete: false,
        timings: Timings::default(),
        notes: Vec::new(),
    }
}

/// Marks nodes hidden that have no area (or sit entirely left of / above the page, like skip
/// links at `left: -9999px`) and have no showing descendant; drops `click` from boxless nodes.
/// Scrolled-away content is not hidden: scrolling reaches it.
fn mark_unrendered(nodes: &mut [Node], vp: &Viewport) {
    let n = nodes.len();
    let mut shows = vec![false; n];
    // Children come after parents (pre-order), so a reverse sweep sees descendants first.
    for i in (0..n).rev() {
        let node = &nodes[i];
        let hidden = node.has_state(StateFlag::Hidden);
        let own = !hidden
            && node.bounds.is_some_and(|b| {
                let (sx, sy) = (vp.scroll.0 * vp.scale, vp.scroll.1 * vp.scale);
                let right = b.x as f64 + b.width as f64 + sx - vp.origin_x;
                let bottom = b.y as f64 + b.height as f64 + sy - vp.origin_y;
                right > 0.0 && bottom > 0.0
            });
        let kids = node.children.iter().any(|&c| shows[c]);
        shows[i] = own || (!hidden && kids);
        if !shows[i] && !hidden && i != 0 {
            if let Evidence::Known(s) = &mut nodes[i].states {
                s.insert(StateFlag::Hidden);
            }
        }
        if nodes[i].bounds.is_none() {
            nodes[i].caps.remove(Capability::Click);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_round_trip() {
        assert_eq!(parse_handle(&handle("ab12", "42")), Some(("ab12", 42)));
        assert_eq!(parse_handle("cdp:ab12:42.3"), Some(("ab12", 42)));
        assert_eq!(parse_handle("atspi:x"), None);
        assert_eq!(parse_handle("cdp:ab12:x"), None);
    }

    #[test]
    fn headed_viewport_maps_both_ways() {
        // Window at (100, 50), 1280x800 outer, 1280x715 inner: 85 px of toolbar.
        let vp = Viewport::from_vp(
            &[1280.0, 715.0, 0.0, 0.0, 1.0, 100.0, 50.0, 1280.0, 800.0],
            false,
        );
        assert_eq!(
            vp.to_screen(10.0, 20.0, 30.0, 40.0),
            Bounds::new(110, 155, 30, 40)
        );
        assert_eq!(vp.to_viewport(110.0, 155.0), (10.0, 20.0));
        let headless = Viewport::from_vp(
            &[1280.0, 715.0, 0.0, 0.0, 1.0, 100.0, 50.0, 1280.0, 800.0],
            true,
        );
        assert_eq!(
            headless.to_screen(10.0, 20.0, 30.0, 40.0),
            Bounds::new(10, 20, 30, 40)
        );
    }

    #[test]
    fn builds_tree_and_hides_empty_boxes() {
        let json = r##"{"nonce":"n1","ms":1,"vp":[800,600,0,0,1,0,0,800,600],
          "nodes":[["1",-1,"document","#document","T",null,0,1152,0,0,800,600,"",0,"",null],
                   ["2",0,"link","a","Go",null,2,1281,10,10,50,20,"go",0,"/x",null],
                   ["3",0,"pane","div","",null,0,1024,0,0,0,0,"",0,"",null],
                   ["4",0,"slider","input","Vol","5",0,1056,0,40,100,10,"",0,"",[5,0,10,1]]],
          "trunc":[]}"##;
        let out: WalkOut = serde_json::from_str(json).unwrap();
        let vp = Viewport::from_vp(&out.vp.unwrap(), true);
        let s = build(&out, &vp);
        s.check().unwrap();
        assert_eq!(s.nodes[0].children, vec![1, 2, 3]);
        assert_eq!(s.nodes[1].role, Role::Link);
        assert!(s.nodes[1].caps.contains(Capability::Press));
        assert_eq!(s.nodes[1].native_id.as_deref(), Some("go"));
        assert!(s.nodes[2].has_state(StateFlag::Hidden));
        assert!(!s.nodes[2].caps.contains(Capability::Click));
        assert_eq!(s.nodes[3].numeric.unwrap().max, 10.0);
        assert_eq!(s.nodes[1].handle, "cdp:n1:2");
    }

    /// Issue 14: a frame whose walk returned no rows panicked indexing `child.nodes[0]`.
    #[test]
    fn a_frame_walk_without_nodes_is_an_error_not_a_panic() {
        let out: WalkOut = serde_json::from_str(r#"{"nonce":"f1","nodes":[]}"#).unwrap();
        let vp = Viewport::from_vp(&[0.0; 9], true);
        assert!(matches!(
            frame_document(&out, &vp),
            Err(CdpError::PageScript(_))
        ));
        // And grafting an empty document under an owner leaves the page as it was.
        let json = r##"{"nonce":"n1","nodes":[["1",-1,"document","#document","T",null,0,0,0,0,8,6,"",0,"",null]]}"##;
        let top: WalkOut = serde_json::from_str(json).unwrap();
        let mut snap = build(&top, &vp);
        graft(&mut snap, 0, Snapshot::default());
        graft(&mut snap, 7, build(&top, &vp));
        assert_eq!(snap.nodes.len(), 1);
        snap.into_preorder().check().unwrap();
    }
}
