//! Running action steps on a page, each with evidence: how the target was grounded (ref or
//! point), how input was delivered (`cdp-input` for real pointer and key events through
//! `Input.dispatch*Event`, `cdp-dom` for DOM-level changes), and how the effect was verified
//! (the element received the event, a read-back of its value or state, or the document
//! being replaced). The batch is core's `run_batch`; this file is the page's step driver:
//! grounding, hit-testing and the pointer steps. Text, value and state steps are `edit.rs`;
//! recording verdicts, and the probe counting the events that reach the page, `verify.rs`.
//!
//! Pointer steps never click blind: the element is scrolled into view, its centre is hit-tested
//! with `DOM.getNodeForLocation`, and when something else covers it the step is refused before
//! any input is sent (`press` may instead activate the element through the DOM, which reaches
//! the right element and says so).
//!
//! CDP input is delivered to the renderer, not the OS: it moves no OS pointer, takes no OS
//! focus and cannot reach another application, so every step is allowed under the `headless`
//! policy, and the process-wide physical input lock is not taken (browser lanes run in
//! parallel with desktop input).

use std::sync::Arc;
use std::time::Duration;
use uidriver_core::{DeliveryMethod, GroundingMethod, VerificationMethod};

use async_trait::async_trait;
use serde_json::{json, Value};
use uidriver_core::action::{Button, Point};
use uidriver_core::{
    run_batch, ActRequest, Deadline, Delivery, ElementRef, Error, ErrorCode, Result, Step,
    StepDriver, StepReport, Target,
};

use crate::error::{maybe_delivered, CdpError};
use crate::extract::{parse_handle, Viewport};
use crate::input::{click_events, mouse_move, wheel};
use crate::page::{Page, WALKER_JS};
use crate::protocol::{CallArgument, GetNodeForLocation, ResolveNode};
use crate::verify::{self, verify};

/// Runs the steps of one act call on one page.
pub async fn run(
    page: &Page,
    headless: bool,
    req: &ActRequest<'_>,
    deadline: Deadline,
) -> Result<Vec<StepReport>> {
    let vp: [f64; 9] = serde_json::from_value(
        page.eval_value(
            "[innerWidth, innerHeight, scrollX, scrollY, devicePixelRatio, screenX, screenY, outerWidth, outerHeight]",
            deadline,
        )
        .await?,
    )
    .map_err(|e| Error::internal(format!("viewport: {e}")))?;
    let actor = Actor {
        page,
        req,
        vp: Viewport::from_vp(&vp, headless),
        deadline,
    };
    Ok(run_batch(&actor, req.steps, headless, deadline).await)
}

/// An element of the page, addressed for this call.
pub(crate) struct Elem {
    pub(crate) r: ElementRef,
    pub(crate) obj: String,
    /// The cross-origin frame page holding it (`None`: the top page's world).
    pub(crate) frame: Option<Arc<Page>>,
    /// Its document's walker nonce (finds the frame's place in the top viewport).
    nonce: String,
}

impl Elem {
    /// Another element of the same document, by handle.
    pub(crate) fn sibling(&self, obj: String) -> Elem {
        Elem {
            r: self.r,
            obj,
            frame: self.frame.clone(),
            nonce: self.nonce.clone(),
        }
    }
}

/// Where an element can be pointed at.
struct Geom {
    /// Top-viewport CSS pixels.
    x: f64,
    y: f64,
    visible: bool,
    /// Where the element's frame viewport sits in the top viewport ((0, 0) in the top page).
    off: (f64, f64),
}

/// What a hit test found at a point.
enum Hit {
    /// The element (or a descendant, or a label of it).
    Target,
    /// Something else; its short description (`div#overlay.modal`).
    Covered(String),
}

pub(crate) struct Actor<'a> {
    pub(crate) page: &'a Page,
    pub(crate) req: &'a ActRequest<'a>,
    pub(crate) vp: Viewport,
    pub(crate) deadline: Deadline,
}

/// Every step is allowed under `headless`: CDP input reaches the renderer, not the OS.
#[async_trait]
impl StepDriver for Actor<'_> {
    async fn perform(&self, r: &mut StepReport, step: &Step) {
        if let Err(e) = self.dispatch(r, step).await {
            r.error = Some(e);
        }
    }
}

impl Actor<'_> {
    async fn dispatch(&self, r: &mut StepReport, step: &Step) -> Result<()> {
        match step {
            Step::Press(t) => {
                let el = self.element(r, *t).await?;
                self.pointer_click(r, &el, Button::Left, 1, true).await
            }
            Step::Click {
                target,
                button,
                count,
            } => match target {
                Target::Ref(t) => {
                    let el = self.element(r, *t).await?;
                    self.pointer_click(r, &el, *button, *count, false).await
                }
                Target::Point(p) => self.point_click(r, *p, *button, *count).await,
            },
            Step::SetText(t, text) => self.set_text(r, *t, text).await,
            Step::TypeText(t, text) => self.type_text(r, *t, text).await,
            Step::Keypress(t, keys) => self.keypress(r, *t, keys).await,
            Step::Scroll { target, dx, dy } => self.scroll(r, target.as_ref(), *dx, *dy).await,
            Step::Select(t, v) => self.select(r, *t, v).await,
            Step::Check(t) => self.check(r, *t, true).await,
            Step::Uncheck(t) => self.check(r, *t, false).await,
            Step::Expand(t) => self.expand(r, *t, true).await,
            Step::Collapse(t) => self.expand(r, *t, false).await,
            Step::Focus(t) => self.focus(r, *t).await,
            Step::SetValue(t, v) => self.set_value(r, *t, *v).await,
            Step::Drag { path, from, button } => self.drag(r, path, *from, *button).await,
            Step::MoveMouse(t) | Step::Hover(t) => self.hover(r, t).await,
            Step::SetFiles(t, paths) => self.set_files(r, *t, paths).await,
            // The runner sleeps `wait` itself.
            Step::Wait(_) => Ok(()),
        }
    }

    /// Resolves a ref of the base state to a live element.
    pub(crate) async fn element(&self, r: &mut StepReport, t: ElementRef) -> Result<Elem> {
        r.grounding.method = GroundingMethod::Ref;
        r.grounding.r#ref = Some(t);
        let node = self.req.state.node(t)?;
        let (nonce, id) = parse_handle(&node.handle).ok_or_else(|| {
            Error::new(ErrorCode::StaleRef, format!("{t} is not a browser element"))
        })?;
        let frame = self.page.doc_page(nonce);
        let page = frame.as_deref().unwrap_or(self.page);
        let gone = || {
            Error::new(
                ErrorCode::StaleRef,
                format!(
                    "the element of {t} is no longer in the page (removed, or the page navigated)"
                ),
            )
        };
        let obj = match page.element(nonce, id, self.deadline).await {
            Ok(o) => o.ok_or_else(gone)?,
            // A frame that went away (navigated, removed) takes its elements, not the page.
            Err(CdpError::TargetClosed(_) | CdpError::Gone(_)) if frame.is_some() => {
                return Err(gone())
            }
            Err(e) => return Err(e.into()),
        };
        Ok(Elem {
            r: t,
            obj,
            frame,
            nonce: nonce.to_string(),
        })
    }

    /// The page whose world holds `el`.
    pub(crate) fn page_of<'b>(&'b self, el: &'b Elem) -> &'b Page {
        el.frame.as_deref().unwrap_or(self.page)
    }

    pub(crate) async fn call(&self, el: &Elem, f: &str, args: Vec<Value>) -> Result<Value> {
        let args = args
            .into_iter()
            .map(|v| CallArgument {
                value: Some(v),
                object_id: None,
            })
            .collect();
        Ok(self
            .page_of(el)
            .call_on(&el.obj, f, args, self.deadline)
            .await?)
    }

    /// Scrolls the element into view and finds the point to aim at (in viewport pixels).
    async fn geometry(&self, el: &Elem) -> Result<Geom> {
        let v = self.call(el, GEOM_JS, vec![]).await?;
        let g: (f64, f64, bool) =
            serde_json::from_value(v).map_err(|e| Error::internal(format!("geometry: {e}")))?;
        let off = match el.frame {
            None => (0.0, 0.0),
            Some(_) => self
                .page
                .frame_offset(&el.nonce, true, self.deadline)
                .await
                .map_err(|e| match e {
                    CdpError::Gone(m) => Error::new(ErrorCode::StaleRef, m),
                    e => e.into(),
                })?,
        };
        Ok(Geom {
            x: g.0 + off.0,
            y: g.1 + off.1,
            visible: g.2,
            off,
        })
    }

    /// Hit-tests the element's point: in the top page by `DOM.getNodeForLocation`; inside a
    /// cross-origin frame in the frame's own document, and then each frame element on the way
    /// up must itself be what is at the point.
    async fn hit(&self, el: &Elem, g: &Geom) -> Result<Hit> {
        if el.frame.is_none() {
            return self.hit_top(el, g.x, g.y).await;
        }
        let (lx, ly) = (g.x - g.off.0, g.y - g.off.1);
        let v = self
            .call(el, HIT_JS_POINT, vec![json!(lx), json!(ly)])
            .await?;
        if let Hit::Covered(d) = hit_of(v)? {
            return Ok(Hit::Covered(d));
        }
        for o in self.page.owners(&el.nonce) {
            let p = o.page.as_deref().unwrap_or(self.page);
            let off = match &o.page {
                None => (0.0, 0.0),
                Some(_) => {
                    self.page
                        .frame_offset(&o.nonce, false, self.deadline)
                        .await?
                }
            };
            let Some(obj) = p.element(&o.nonce, o.id, self.deadline).await? else {
                return Err(Error::new(
                    ErrorCode::StaleRef,
                    format!("the frame holding {} is no longer in the page", el.r),
                ));
            };
            let args = [g.x - off.0, g.y - off.1].map(|v| CallArgument {
                value: Some(json!(v)),
                object_id: None,
            });
            let v = p
                .call_on(&obj, HIT_JS_POINT, args.into(), self.deadline)
                .await;
            p.release(&obj).await;
            if let Hit::Covered(d) = hit_of(v?)? {
                return Ok(Hit::Covered(d));
            }
        }
        Ok(Hit::Target)
    }

    /// Hit-tests a top-viewport point against an element of the top page.
    async fn hit_top(&self, el: &Elem, x: f64, y: f64) -> Result<Hit> {
        let hit_obj = self.hit_object(x, y).await;
        let v = match hit_obj {
            Some(h) => {
                let arg = CallArgument {
                    value: None,
                    object_id: Some(h.clone()),
                };
                let v = self
                    .page
                    .call_on(&el.obj, HIT_JS, vec![arg], self.deadline)
                    .await;
                self.page.release(&h).await;
                v?
            }
            // The node is in a frame our world cannot hold: hit-test in script instead.
            None => {
                self.call(el, HIT_JS_POINT, vec![json!(x), json!(y)])
                    .await?
            }
        };
        hit_of(v)
    }

    /// The element at a top-viewport point and the page whose world holds it, entering
    /// cross-origin frames (which `DOM.getNodeForLocation` answers with their frame element).
    /// Also the point in that page's viewport.
    async fn point_target(
        &self,
        x: f64,
        y: f64,
    ) -> Option<(Option<Arc<Page>>, String, (f64, f64))> {
        let at = |x: f64, y: f64| format!("({POINT_EL_JS})({x}, {y})");
        let mut h = match self.hit_object(x, y).await {
            Some(h) => h,
            None => {
                self.page
                    .eval_world(&at(x, y), false, self.deadline)
                    .await
                    .ok()?
                    .result
                    .object_id?
            }
        };
        let mut frame: Option<Arc<Page>> = None;
        let (mut lx, mut ly) = (x, y);
        for _ in 0..crate::page::MAX_FRAME_DEPTH {
            let p = frame.as_deref().unwrap_or(self.page);
            let closed = p.call_on(&h, CLOSED_FRAME_JS, vec![], self.deadline).await;
            if closed.ok().and_then(|v| v.as_bool()) != Some(true) {
                break;
            }
            let Ok(Some(fp)) = self.page.frame_page(p, &h, self.deadline).await else {
                break;
            };
            let Ok((ox, oy)) = p.origin_of(&h, false, self.deadline).await else {
                break;
            };
            let inner = fp
                .eval_world(&at(lx - ox, ly - oy), false, self.deadline)
                .await
                .ok()
                .and_then(|e| e.result.object_id);
            let Some(inner) = inner else { break };
            p.release(&h).await;
            (h, lx, ly) = (inner, lx - ox, ly - oy);
            frame = Some(fp);
        }
        Some((frame, h, (lx, ly)))
    }

    /// The object of the node at a point, via `DOM.getNodeForLocation`.
    async fn hit_object(&self, x: f64, y: f64) -> Option<String> {
        let n = self
            .page
            .send(
                &GetNodeForLocation {
                    x: x.round() as i32,
                    y: y.round() as i32,
                    include_user_agent_shadow_dom: false,
                    ignore_pointer_events_none: false,
                },
                self.deadline,
            )
            .await
            .ok()?;
        let ctx = self.page.world_context(self.deadline).await.ok()?;
        let resolved = self
            .page
            .send(
                &ResolveNode {
                    backend_node_id: n.backend_node_id,
                    execution_context_id: Some(ctx),
                },
                self.deadline,
            )
            .await
            .ok()?;
        resolved.object.object_id
    }

    /// The focused element (entering shadow roots and frames, cross-origin ones included) and
    /// the frame page whose world holds it (`None`: the top page); no element when nothing
    /// has focus.
    pub(crate) async fn focused(&self) -> Result<(Option<Arc<Page>>, Option<String>)> {
        // The walker's `deepFocus` (installing the walker first in a world it never ran in).
        let expr = format!(
            "(() => {{ const K = Symbol.for('uidriver'); \
             if (!globalThis[K] || !globalThis[K].deepFocus) {{ {WALKER_JS}; }} \
             return globalThis[K].deepFocus(); }})()"
        );
        let mut frame: Option<Arc<Page>> = None;
        for _ in 0..crate::page::MAX_FRAME_DEPTH {
            let p = frame.as_deref().unwrap_or(self.page);
            let Some(o) = p
                .eval_world(&expr, false, self.deadline)
                .await?
                .result
                .object_id
            else {
                return Ok((frame, None));
            };
            let closed = p
                .call_on(&o, CLOSED_FRAME_JS, vec![], self.deadline)
                .await?;
            if closed.as_bool() != Some(true) {
                return Ok((frame, Some(o)));
            }
            match self.page.frame_page(p, &o, self.deadline).await {
                Ok(Some(fp)) => {
                    p.release(&o).await;
                    frame = Some(fp);
                }
                _ => return Ok((frame, Some(o))),
            }
        }
        Ok((frame, None))
    }

    /// A screen point for the report (the same mapping as node bounds).
    fn screen_point(&self, x: f64, y: f64) -> (i32, i32) {
        let b = self.vp.to_screen(x, y, 0.0, 0.0);
        (b.x, b.y)
    }

    /// A step's point (state image pixels, else viewport pixels) in viewport pixels.
    fn viewport_point(&self, p: Point) -> (f64, f64) {
        match &self.req.state.image {
            Some(img) => {
                let (sx, sy) = img.to_screen(p.x, p.y);
                self.vp.to_viewport(f64::from(sx), f64::from(sy))
            }
            None => (p.x, p.y),
        }
    }

    /// Where pointer events for `el` at `g` go, and at which point there. An element in an
    /// out-of-process frame gets them on its frame's own session, at frame coordinates: sent
    /// to the page, the browser would route them by compositor hit-test data that lags behind
    /// a frame that just loaded or moved, and they could land on the frame element instead.
    fn pointer_route<'b>(&'b self, el: &'b Elem, g: &Geom) -> (&'b Page, f64, f64) {
        self.route(
            el.frame.as_deref(),
            (g.x, g.y),
            (g.x - g.off.0, g.y - g.off.1),
        )
    }

    /// [`Actor::pointer_route`] for a point known in the top viewport (`top`) and in the
    /// viewport of the frame page that holds what is there (`local`).
    fn route<'b>(
        &'b self,
        frame: Option<&'b Page>,
        top: (f64, f64),
        local: (f64, f64),
    ) -> (&'b Page, f64, f64) {
        match frame {
            Some(f) if f.session() != self.page.session() => (f, local.0, local.1),
            _ => (self.page, top.0, top.1),
        }
    }

    async fn send_mouse(
        &self,
        r: &mut StepReport,
        events: Vec<crate::protocol::DispatchMouseEvent>,
    ) -> Result<()> {
        self.send_mouse_to(self.page, r, events).await
    }

    async fn send_mouse_to(
        &self,
        page: &Page,
        r: &mut StepReport,
        events: Vec<crate::protocol::DispatchMouseEvent>,
    ) -> Result<()> {
        r.delivery.method = DeliveryMethod::CdpInput;
        r.delivery.delivered = Delivery::Maybe;
        for ev in &events {
            match page.send(ev, self.deadline).await {
                Ok(_) => {}
                // The input opened a JavaScript dialog: its reply waits for the dialog, so the
                // opening is the answer (the verification reads it, see `verify::click`).
                Err(e) if crate::dialog_state::blocked_by(&e).is_some() => {
                    r.delivery.delivered = Delivery::Delivered;
                    return Ok(());
                }
                Err(e) => return Err(maybe_delivered(e)),
            }
        }
        r.delivery.delivered = Delivery::Delivered;
        Ok(())
    }

    /// Clicks an element with real pointer events after a hit test. With `dom_fallback`
    /// (press), a covered or box-less element is activated through the DOM instead.
    pub(crate) async fn pointer_click(
        &self,
        r: &mut StepReport,
        el: &Elem,
        button: Button,
        count: u8,
        dom_fallback: bool,
    ) -> Result<()> {
        let g = self.geometry(el).await?;
        let events = ["mousedown", "mouseup", "click", "auxclick", "contextmenu"];
        let blocked = if !g.visible {
            Some(format!(
                "{} has no box on screen (hidden or not rendered)",
                el.r
            ))
        } else {
            r.grounding.point = Some(self.screen_point(g.x, g.y));
            match self.hit(el, &g).await? {
                Hit::Target => None,
                Hit::Covered(what) => Some(format!(
                    "{} is covered by {what} at its centre ({:.0}, {:.0} in the viewport)",
                    el.r, g.x, g.y
                )),
            }
        };
        if let Some(why) = blocked {
            if !dom_fallback {
                return Err(Error::unsupported(format!("{why}; nothing was sent")).with_hint(
                    "Close or remove what covers it first (search_ui for the overlay's button), or use press, which activates the element itself through the DOM.",
                ));
            }
            verify::probe(self.page_of(el), &el.obj, &events, self.deadline).await?;
            r.delivery.method = DeliveryMethod::CdpDom;
            r.delivery.delivered = Delivery::Maybe;
            r.delivery.detail = Some(format!(
                "{why}; activated through the DOM (element.click())"
            ));
            let clicked = self.call(el, "function () { this.click(); }", vec![]).await;
            // A click that opened a dialog is answered only once the dialog closed.
            match clicked {
                Err(_) if self.page.dialog().is_some() => {}
                Err(e) => return Err(e.delivered(Delivery::Maybe)),
                Ok(_) => {}
            }
            r.delivery.delivered = Delivery::Delivered;
        } else {
            verify::probe(self.page_of(el), &el.obj, &events, self.deadline).await?;
            let (to, x, y) = self.pointer_route(el, &g);
            self.send_mouse_to(to, r, click_events(x, y, button, count))
                .await?;
        }
        verify::click(r, self.page_of(el), button, count, self.deadline).await
    }

    async fn point_click(
        &self,
        r: &mut StepReport,
        p: Point,
        button: Button,
        count: u8,
    ) -> Result<()> {
        let (x, y) = self.viewport_point(p);
        r.grounding.method = GroundingMethod::Point;
        r.grounding.point = Some(self.screen_point(x, y));
        let (frame, hit, local) = self.point_target(x, y).await.ok_or_else(|| {
            Error::invalid(
                "x",
                "there is no element of the page at that point (outside the viewport?)",
            )
        })?;
        let page = frame.as_deref().unwrap_or(self.page);
        verify::probe(
            page,
            &hit,
            &["mousedown", "mouseup", "click", "auxclick", "contextmenu"],
            self.deadline,
        )
        .await?;
        // Into an out-of-process frame through its own session (see `pointer_route`).
        let (to, x, y) = self.route(frame.as_deref(), (x, y), local);
        let sent = self
            .send_mouse_to(to, r, click_events(x, y, button, count))
            .await;
        page.release(&hit).await;
        sent?;
        verify::click(r, page, button, count, self.deadline).await
    }

    async fn hover(&self, r: &mut StepReport, t: &Target) -> Result<()> {
        match t {
            Target::Ref(t) => {
                let el = self.element(r, *t).await?;
                let g = self.geometry(&el).await?;
                if !g.visible {
                    return Err(Error::unsupported(format!("{} has no box on screen", el.r)));
                }
                r.grounding.point = Some(self.screen_point(g.x, g.y));
                if let Hit::Covered(what) = self.hit(&el, &g).await? {
                    return Err(Error::unsupported(format!(
                        "{} is covered by {what}; nothing was sent",
                        el.r
                    )));
                }
                let (to, x, y) = self.pointer_route(&el, &g);
                self.send_mouse_to(to, r, vec![mouse_move(x, y, 0)]).await?;
                let over = self
                    .call(
                        &el,
                        "function () { return this.matches(':hover'); }",
                        vec![],
                    )
                    .await?;
                verify(
                    r,
                    VerificationMethod::State,
                    over.as_bool() == Some(true),
                    "the pointer is over the element",
                    "the element is not hovered",
                );
            }
            Target::Point(p) => {
                let (x, y) = self.viewport_point(*p);
                r.grounding.method = GroundingMethod::Point;
                r.grounding.point = Some(self.screen_point(x, y));
                self.send_mouse(r, vec![mouse_move(x, y, 0)]).await?;
                // Whatever is at the point should now be under the pointer.
                let over = match self.hit_object(x, y).await {
                    Some(h) => {
                        let v = self
                            .page
                            .call_on(&h, "function () { return this.nodeType === 1 ? this.matches(':hover') : this.parentElement.matches(':hover'); }", vec![], self.deadline)
                            .await;
                        self.page.release(&h).await;
                        v?.as_bool() == Some(true)
                    }
                    None => false,
                };
                verify(
                    r,
                    VerificationMethod::State,
                    over,
                    "the element at the point is hovered",
                    "nothing at the point is hovered",
                );
            }
        }
        Ok(())
    }

    async fn drag(
        &self,
        r: &mut StepReport,
        path: &[Point],
        from: Option<ElementRef>,
        button: Button,
    ) -> Result<()> {
        let mut pts: Vec<(f64, f64)> = path.iter().map(|p| self.viewport_point(*p)).collect();
        let (mut frame, mut off) = (None, (0.0, 0.0));
        if let Some(f) = from {
            let el = self.element(r, f).await?;
            let g = self.geometry(&el).await?;
            pts.insert(0, (g.x, g.y));
            (frame, off) = (el.frame.clone(), g.off);
        } else {
            r.grounding.method = GroundingMethod::Point;
        }
        if let Some(&(x, y)) = pts.first() {
            r.grounding.point = Some(self.screen_point(x, y));
        }
        // A drag that starts inside a frame stays with that frame, as the pointer's capture
        // does: its window counts the events, and into an out-of-process frame they go through
        // the frame's session at its coordinates (see `pointer_route`).
        let probe_page = frame.as_deref().unwrap_or(self.page);
        let (to, sx, sy) = self.route(frame.as_deref(), (0.0, 0.0), (-off.0, -off.1));
        for p in &mut pts {
            *p = (p.0 + sx, p.1 + sy);
        }
        let (Some(&first), Some(&last)) = (pts.first(), pts.last()) else {
            return Err(Error::invalid("path", "a drag needs points"));
        };
        let (name, bit) = crate::input::button(button);
        let mut evs = vec![mouse_move(first.0, first.1, 0)];
        evs.push(crate::protocol::DispatchMouseEvent {
            kind: "mousePressed",
            x: first.0,
            y: first.1,
            button: name,
            buttons: bit,
            click_count: 1,
            ..Default::default()
        });
        // Intermediate moves so drag handlers see motion, not a jump.
        for w in pts.windows(2) {
            let ((x0, y0), (x1, y1)) = (w[0], w[1]);
            for k in 1..=5 {
                let t = f64::from(k) / 5.0;
                evs.push(mouse_move(x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, bit));
            }
        }
        evs.push(crate::protocol::DispatchMouseEvent {
            kind: "mouseReleased",
            x: last.0,
            y: last.1,
            button: name,
            click_count: 1,
            ..Default::default()
        });
        // Count what the page receives (on the window, so it does not matter what is dragged).
        let win = probe_page
            .eval_world("window", false, self.deadline)
            .await?
            .result
            .object_id;
        if let Some(w) = &win {
            verify::probe(
                probe_page,
                w,
                &["mousedown", "mousemove", "mouseup"],
                self.deadline,
            )
            .await?;
        }
        self.send_mouse_to(to, r, evs).await?;
        if let Some(seen) = verify::counted(r, probe_page, self.deadline).await? {
            let n = |k: &str| seen.get(k).and_then(Value::as_u64).unwrap_or(0);
            // Evidence that the whole gesture reached the page; its effect (what moved
            // where) is for the next observation to show.
            let ok = n("mousedown") >= 1 && n("mousemove") >= 1 && n("mouseup") >= 1;
            verify(
                r,
                VerificationMethod::State,
                ok,
                "the page received press, moves and release",
                "the page did not receive the whole gesture",
            );
        }
        Ok(())
    }

    async fn scroll(
        &self,
        r: &mut StepReport,
        target: Option<&Target>,
        dx: i32,
        dy: i32,
    ) -> Result<()> {
        let (obj, x, y, own, frame, local) = match target {
            Some(Target::Ref(t)) => {
                let el = self.element(r, *t).await?;
                let g = self.geometry(&el).await?;
                let local = (g.x - g.off.0, g.y - g.off.1);
                (el.obj, g.x, g.y, true, el.frame, local)
            }
            Some(Target::Point(p)) => {
                let (x, y) = self.viewport_point(*p);
                r.grounding.method = GroundingMethod::Point;
                let (f, o, local) = self
                    .point_target(x, y)
                    .await
                    .ok_or_else(|| Error::invalid("x", "no element of the page at that point"))?;
                (o, x, y, false, f, local)
            }
            None => {
                r.grounding.method = GroundingMethod::Focus;
                let (vw, vh) = self.vp_size().await?;
                let (w, h) = (vw / 2.0, vh / 2.0);
                let o = self
                    .hit_object(w, h)
                    .await
                    .ok_or_else(|| Error::internal("nothing at the viewport centre"))?;
                (o, w, h, false, None, (w, h))
            }
        };
        let page = frame.as_deref().unwrap_or(self.page);
        r.grounding.point = Some(self.screen_point(x, y));
        let before = page
            .call_on(&obj, SCROLL_STATE_JS, vec![], self.deadline)
            .await?;
        let (to, sx, sy) = self.route(frame.as_deref(), (x, y), local);
        self.send_mouse_to(to, r, vec![mouse_move(sx, sy, 0), wheel(sx, sy, dx, dy)])
            .await?;
        // Wheel scrolling is applied asynchronously (and may animate): poll briefly.
        let mut after = before.clone();
        for _ in 0..40 {
            tokio::time::sleep(Duration::from_millis(25)).await;
            after = page
                .call_on(&obj, SCROLL_STATE_JS, vec![], self.deadline)
                .await?;
            if after != before {
                tokio::time::sleep(Duration::from_millis(50)).await;
                break;
            }
        }
        if !own {
            page.release(&obj).await;
        }
        verify(
            r,
            VerificationMethod::ReadBack,
            after != before,
            "the scroll position changed",
            "nothing scrolled (already at the end?)",
        );
        Ok(())
    }

    async fn vp_size(&self) -> Result<(f64, f64)> {
        let v = self
            .page
            .eval_value("[innerWidth, innerHeight]", self.deadline)
            .await?;
        serde_json::from_value(v).map_err(|e| Error::internal(format!("viewport: {e}")))
    }
}

/// Decodes a hit-test script's `[is it the target, what it is]`.
fn hit_of(v: Value) -> Result<Hit> {
    let (ok, desc): (bool, String) =
        serde_json::from_value(v).map_err(|e| Error::internal(format!("hit test: {e}")))?;
    Ok(if ok { Hit::Target } else { Hit::Covered(desc) })
}

pub(crate) fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// Scrolls into view when needed; returns [x, y, visible] of the point to aim at (the centre
/// of the first line box of an inline element that wraps), in top-viewport pixels.
const GEOM_JS: &str = include_str!("js/geom.js");

/// `this` is the target, `hit` the node at the point: [is it the target, what it is].
const HIT_JS: &str = include_str!("js/hit.js");

/// The same test by `elementFromPoint`, descending into same-origin frames.
const HIT_JS_POINT: &str = include_str!("js/hit_point.js");

/// The element at a viewport point of this world's document, descending into same-origin
/// frames.
const POINT_EL_JS: &str = include_str!("js/point_el.js");

/// Whether `this` is a frame element whose document this world cannot enter.
const CLOSED_FRAME_JS: &str = include_str!("js/closed_frame.js");

/// Scroll offsets of the element, its ancestors (across frames) and the window.
const SCROLL_STATE_JS: &str = include_str!("js/scroll_state.js");
