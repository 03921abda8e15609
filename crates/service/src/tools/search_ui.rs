//! `search_ui`: ranked matches in a stored state. Cached: it enters a lane only when nothing
//! matched and the state has regions its backend did not read (a sheet's offscreen cells):
//! those are read live, epoch-checked, with the text sought (`ObserveRequest::seek`), into a
//! successor state, before any OCR.
//!
//! [`run`] reads as its phases over a [`SearchCall`] (what was asked, resolved): `resolve` (the
//! state, the scope in it, the query) → `find` (the stored state; while a text matches
//! nothing: its unread regions, then texts read live, then its pixels) → `render` of what was
//! [`Found`] and how.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uidriver_core::outline::describe;
use uidriver_core::search::{self, path_of, search, Query};
use uidriver_core::{Capability, ElementRef, Error, Role, State, StateId, StateSet};

use crate::{Service, ToolResult};

/// Arguments of `search_ui`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Args {
    /// State (sN).
    pub state_id: StateId,
    /// Text (any case; OCR too).
    #[serde(default)]
    pub text: Option<String>,
    /// Only these roles (or one).
    #[serde(default)]
    #[schemars(with = "Option<Vec<Role>>")]
    pub role: Option<OneOrMany<Role>>,
    /// Only elements able to.
    #[serde(default)]
    pub capability: Option<Capability>,
    /// Only inside this (@eN).
    #[serde(default)]
    pub scope_ref: Option<ElementRef>,
    /// Also elements not showing.
    #[serde(default)]
    pub include_hidden: bool,
    /// Most matches (default 20, max 200).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Skip this many (paging).
    #[serde(default)]
    pub offset: Option<usize>,
    /// No text match: OCR, search again.
    #[serde(default = "yes")]
    pub ocr_fallback: bool,
}

fn yes() -> bool {
    true
}

/// One value or a list of them.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum OneOrMany<T> {
    /// One.
    One(T),
    /// Several.
    Many(Vec<T>),
}

impl<T: Clone> OneOrMany<T> {
    fn to_vec(&self) -> Vec<T> {
        match self {
            OneOrMany::One(t) => vec![t.clone()],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

/// One match of `search_ui`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Match {
    /// The element.
    #[serde(rename = "ref")]
    pub target: ElementRef,
    /// Its role.
    pub role: Role,
    /// Its name, when known.
    pub name: Option<String>,
    /// Its value, when known.
    pub value: Option<String>,
    /// Its state tokens.
    pub states: StateSet,
    /// Names of its ancestors, outermost first.
    pub path: String,
    /// Rank score (higher is better).
    pub score: u32,
    /// The field that matched.
    pub field: String,
}

/// The structured result of `search_ui`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Output {
    /// The state searched (the OCR successor when the search read pixels).
    pub state_id: StateId,
    /// This page of matches, best first.
    pub matches: Vec<Match>,
    /// All matches.
    pub total: usize,
    /// The state that matched nothing before the OCR read.
    pub ocr_from: Option<StateId>,
}

/// One `search_ui` call, phase by phase (see the module doc).
pub(crate) async fn run(svc: &Service, a: Args) -> Result<ToolResult, Error> {
    let call = SearchCall::resolve(svc, &a)?;
    let found = call.find(svc).await;
    Ok(call.render(found))
}

/// What was asked, resolved: the state, the query (its scope resolved in the state), and the
/// page of matches wanted.
struct SearchCall {
    state: Arc<State>,
    query: Query,
    /// The scope as the caller named it, resolved again in each successor state.
    scope_ref: Option<ElementRef>,
    ocr_fallback: bool,
    limit: usize,
    offset: usize,
}

/// What the search found, and how far it went for it.
struct Found {
    /// The state searched last: a successor when regions or pixels were read.
    state: Arc<State>,
    /// Every match, best first.
    hits: Vec<search::Match>,
    /// Nothing matched in the first state; its unread regions were read live into the second.
    regions_from: Option<(StateId, StateId)>,
    /// The matches are in text read live.
    read_live: bool,
    /// Elements whose text was not searched (longer than was read, or not read in time).
    unread_text: Vec<ElementRef>,
    /// Nothing matched in this state; its pixels were read (OCR) into `state`.
    ocr_from: Option<StateId>,
}

impl SearchCall {
    /// Something to search for, a page size within bounds, the state, and the scope in it.
    fn resolve(svc: &Service, a: &Args) -> Result<Self, Error> {
        if a.text.as_deref().is_none_or(|t| t.trim().is_empty())
            && a.role.is_none()
            && a.capability.is_none()
        {
            return Err(Error::invalid("text", "give text, role or capability"));
        }
        let limit = a.limit.unwrap_or(20);
        if limit == 0 || limit > 200 {
            return Err(Error::invalid("limit", "expected 1 to 200"));
        }
        let state = svc.store.get(a.state_id)?;
        let scope = a.scope_ref.map(|r| state.resolve(r)).transpose()?;
        let query = Query {
            text: a.text.clone(),
            roles: a.role.as_ref().map(|r| r.to_vec()).unwrap_or_default(),
            capability: a.capability,
            scope,
            include_hidden: a.include_hidden,
        };
        Ok(SearchCall {
            state,
            query,
            scope_ref: a.scope_ref,
            ocr_fallback: a.ocr_fallback,
            limit,
            offset: a.offset.unwrap_or(0),
        })
    }

    /// The query in the stored state; while a text query matches nothing, further: the
    /// state's unread regions read live ([`seek_in_cut_regions`]), then the text of elements a
    /// look holds only the first page of ([`seek_in_texts`]), then, once, its pixels (OCR).
    async fn find(&self, svc: &Service) -> Found {
        let q = &self.query;
        let mut f = Found {
            state: self.state.clone(),
            hits: search(&self.state, q),
            regions_from: None,
            read_live: false,
            unread_text: Vec::new(),
            ocr_from: None,
        };
        let Some(text) = q.text.as_deref() else {
            return f;
        };
        if f.hits.is_empty() {
            let seen = seek_in_cut_regions(svc, &f.state, q, self.scope_ref, text).await;
            if let Some((next, hits)) = seen {
                f.regions_from = Some((f.state.id, next.id));
                f.hits = hits;
                f.state = next;
            }
        }
        // Text a look holds only the first page of (a document body, a long paragraph) is read
        // live, bounded, before pixels: what read_text reads, search finds.
        if f.hits.is_empty() {
            let (hits, left) = seek_in_texts(svc, &f.state, q, text).await;
            f.read_live = !hits.is_empty();
            f.hits = hits;
            f.unread_text = left;
        }
        // Nothing matched a text query and the state has never been read visually: read its
        // pixels once (OCR) and search again in the resulting successor state.
        if f.hits.is_empty() && f.state.image.is_none() && self.ocr_fallback {
            match svc.ocr_successor(&f.state).await {
                Ok(next) => {
                    f.hits = search(&next, q);
                    f.ocr_from = Some(f.state.id);
                    f.state = next;
                }
                Err(e) => tracing::debug!(error = %e, "OCR escalation skipped"),
            }
        }
        f
    }

    /// The result: how far the search went, the count, this page of matches (each with its
    /// path), and what to try when nothing matched.
    fn render(&self, f: Found) -> ToolResult {
        let (state, offset) = (&f.state, self.offset);
        let total = f.hits.len();
        let page: Vec<_> = f.hits.iter().skip(offset).take(self.limit).collect();
        let mut text = how_found(&f);
        text.push_str(&format!("{total} matches in {}", state.id));
        if total > offset + page.len() {
            text.push_str(&format!(
                " (showing {}–{}; offset {} for more)",
                offset + 1,
                offset + page.len(),
                offset + page.len()
            ));
        }
        let mut matches = Vec::new();
        let mut lines = Vec::new();
        for m in page {
            let (line, out) = match_of(state, m);
            lines.push(line);
            matches.push(out);
        }
        // The ancestors every match on the page shares are said once, in the header.
        let paths: Vec<&str> = matches.iter().map(|m| m.path.as_str()).collect();
        let shared = shared_path(&paths);
        if !shared.is_empty() {
            text.push_str(&format!(", all in {shared}"));
        }
        text.push('\n');
        for (line, m) in lines.iter().zip(&matches) {
            text.push_str(line);
            let rest = m.path[shared.len()..].trim_start_matches(PATH_SEP);
            if !rest.is_empty() {
                text.push_str(&format!("  ‹ {rest}"));
            }
            text.push('\n');
        }
        if total == 0 {
            text.push_str("No element matched. Try a shorter text, another role, or observe again in visual mode (OCR).\n");
            if !f.unread_text.is_empty() {
                let refs: Vec<String> = f.unread_text.iter().map(|r| r.to_string()).collect();
                text.push_str(&format!(
                    "Text not searched (longer than was read, or not read in time): {}; read_text reads it.\n",
                    refs.join(", ")
                ));
            }
        }
        let out = Output {
            state_id: state.id,
            matches,
            total,
            ocr_from: f.ocr_from,
        };
        ToolResult::ok(text, &out)
    }
}

/// The lines saying where the matches were found when the stored state had none.
fn how_found(f: &Found) -> String {
    let mut text = String::new();
    if let Some((from, to)) = f.regions_from {
        text.push_str(&format!(
            "nothing matched in {from}; read its unread regions live into the successor state {to}\n"
        ));
    }
    if let Some(from) = f.ocr_from {
        text.push_str(&format!(
            "nothing matched in {from}; read its pixels (OCR) into the successor state {}\n",
            f.state.id
        ));
    }
    if f.read_live {
        text.push_str(&format!(
            "nothing matched the text {} holds; found in the text of these elements, read live (read_text reads it)\n",
            f.state.id
        ));
    }
    text
}

/// What separates the ancestors in a match's path.
const PATH_SEP: &str = " › ";

/// The leading ancestors all of `paths` share (whole ones), when there are two paths or more.
fn shared_path<'a>(paths: &[&'a str]) -> &'a str {
    let Some((first, rest)) = paths.split_first() else {
        return "";
    };
    if rest.is_empty() {
        return "";
    }
    let mut end = 0;
    for (i, _) in first
        .match_indices(PATH_SEP)
        .chain(std::iter::once((first.len(), "")))
    {
        let prefix = &first[..i];
        let shared_by_all = rest
            .iter()
            .all(|p| p.starts_with(prefix) && (p.len() == i || p[i..].starts_with(PATH_SEP)));
        if !shared_by_all {
            break;
        }
        end = i;
    }
    &first[..end]
}

/// One match as its line (`@e3 button "OK"`; the caller adds its path) and as the structured
/// result has it.
fn match_of(state: &State, m: &search::Match) -> (String, Match) {
    let n = &state.snapshot.nodes[m.index];
    let path = path_of(state, m.index);
    let line = format!("{} {}", state.ref_of(m.index), describe(n));
    let out = Match {
        target: state.ref_of(m.index),
        role: n.role,
        name: n.name.known().cloned(),
        value: n.value.known().cloned(),
        states: n.state_set(),
        path,
        score: m.score,
        field: m.field.to_string(),
    };
    (line, out)
}

/// Regions of a state read live at most per search (each a round of calls to the app), and
/// how long they may take together. Qt's closed menus are a region each: "Wrap Lines" in
/// FeatherPad's fifth menu was never reached when four were read.
const MAX_REGIONS: usize = 12;
const REGIONS_BUDGET: std::time::Duration = std::time::Duration::from_secs(3);

/// Reads the regions `state` left unread (truncated nodes within the scope, hidden ones only
/// when the query includes hidden elements), one after another into successor states, asking
/// the backend to reach `text`, until the query matches. The last state read and its matches,
/// or `None` when there was nothing to read or reading failed.
async fn seek_in_cut_regions(
    svc: &Service,
    state: &Arc<State>,
    q: &Query,
    scope: Option<ElementRef>,
    text: &str,
) -> Option<(Arc<State>, Vec<search::Match>)> {
    let scoped: Option<std::collections::HashSet<usize>> =
        q.scope.map(|s| state.subtree(s).into_iter().collect());
    let within = |i: usize| scoped.as_ref().is_none_or(|set| set.contains(&i));
    let cut: Vec<ElementRef> = state
        .snapshot
        .nodes
        .iter()
        .enumerate()
        .filter(|(i, n)| {
            n.truncated
                .as_ref()
                .is_some_and(|t| t.reason != "scroll" && (q.include_hidden || t.reason != "hidden"))
                && within(*i)
        })
        .map(|(i, _)| state.ref_of(i))
        .take(MAX_REGIONS)
        .collect();
    let mut current = None;
    let started = std::time::Instant::now();
    for r in cut {
        if started.elapsed() > REGIONS_BUDGET {
            break;
        }
        let base = current.as_ref().unwrap_or(state);
        let Ok(at) = base.resolve(r) else { continue };
        let next = match svc.read_region(base, at, Some(text)).await {
            Ok(next) => next,
            Err(e) => {
                tracing::debug!(error = %e, "reading an unread region for search_ui failed");
                break;
            }
        };
        let scoped = Query {
            scope: scope.and_then(|s| next.resolve(s).ok()),
            ..q.clone()
        };
        let mut hits = search(&next, &scoped);
        if hits.is_empty() {
            // What the backend reached for the text may lie offscreen (a cell by its address):
            // within the region just read, hidden elements count.
            if let Ok(region) = next.resolve(r) {
                let within_region = Query {
                    scope: Some(region),
                    include_hidden: true,
                    ..q.clone()
                };
                hits = search(&next, &within_region);
            }
        }
        if !hits.is_empty() {
            return Some((next, hits));
        }
        current = Some(next);
    }
    current.map(|s| (s, Vec::new()))
}

/// Elements whose text is read live for a search at most, characters read of each, and how
/// long they may take together.
const MAX_TEXTS: usize = 12;
const TEXT_CHARS: u32 = 16_000;
const TEXTS_BUDGET: std::time::Duration = std::time::Duration::from_secs(2);

/// Searches the text of the elements in scope that advertise `read-text` and hold more than the
/// state has of it (a look reads the first page of a text; a body's own text may be only its
/// children's marks), reading each live, bounded (the first [`TEXT_CHARS`] characters, at most
/// [`MAX_TEXTS`] elements within [`TEXTS_BUDGET`]). The elements whose text holds `text`, and
/// those left unread or read only in part (named in the answer: `read_text` reads them).
async fn seek_in_texts(
    svc: &Service,
    state: &Arc<State>,
    q: &Query,
    text: &str,
) -> (Vec<search::Match>, Vec<ElementRef>) {
    let needle = text.to_lowercase();
    let scoped: Option<std::collections::HashSet<usize>> =
        q.scope.map(|s| state.subtree(s).into_iter().collect());
    let candidates: Vec<usize> = state
        .snapshot
        .nodes
        .iter()
        .enumerate()
        .filter(|(i, n)| {
            let held = n.value.known().map_or(0, |v| v.chars().count() as u32);
            n.caps.contains(Capability::ReadText)
                && !crate::secrets::is_secret(n)
                && (q.include_hidden || !n.has_state(uidriver_core::StateFlag::Hidden))
                && (q.roles.is_empty() || q.roles.contains(&n.role))
                && n.text_len.is_none_or(|l| l > held)
                && scoped.as_ref().is_none_or(|set| set.contains(i))
        })
        .map(|(i, _)| i)
        .collect();
    if candidates.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let Ok(backend) = svc.backend_named(&state.root_info.backend) else {
        return (Vec::new(), Vec::new());
    };
    let started = std::time::Instant::now();
    let mut hits = Vec::new();
    let mut left = Vec::new();
    for (k, &i) in candidates.iter().enumerate() {
        let node = &state.snapshot.nodes[i];
        let remaining = TEXTS_BUDGET.saturating_sub(started.elapsed());
        if k >= MAX_TEXTS || remaining.is_zero() {
            left.push(state.ref_of(i));
            continue;
        }
        let deadline = uidriver_core::Deadline::after(remaining);
        let read = {
            let _guard = svc.lanes.enter(&state.root_info.resource).await;
            backend
                .read_text(&state.root_info, node, 0, TEXT_CHARS, deadline)
                .await
        };
        match read {
            Ok(slice) => {
                if slice.text.to_lowercase().contains(&needle) {
                    hits.push(search::Match {
                        index: i,
                        score: 1,
                        field: "text",
                    });
                } else if slice.end < slice.total {
                    left.push(state.ref_of(i));
                }
            }
            Err(_) => left.push(state.ref_of(i)),
        }
    }
    (hits, left)
}

#[cfg(test)]
mod tests {
    use super::shared_path;

    #[test]
    fn the_shared_path_is_whole_ancestors_shared_by_two_matches_or_more() {
        let a = r#"pane "Doc" › document "Slides View""#;
        let b = r#"pane "Doc" › document "Slides""#;
        let c = r#"pane "Doc""#;
        assert_eq!(shared_path(&[a, a]), a);
        assert_eq!(shared_path(&[a, b]), r#"pane "Doc""#);
        assert_eq!(shared_path(&[a, c, b]), c);
        assert_eq!(shared_path(&[a]), "", "one match keeps its own path");
        assert_eq!(shared_path(&[a, ""]), "");
        assert_eq!(
            shared_path(&[r#"pane "Do""#, c]),
            "",
            "not a part of a name"
        );
    }
}
