//! The formatting of a range of text, for `read_text`: AT-SPI's attribute runs
//! (`Text.GetAttributeRun`), kept where they say bold, italic, underline or strikethrough. A
//! toolkit that has no runs (or refuses the call) gives none: the text is still read.

use std::collections::HashMap;

use uidriver_core::TextStyle;

use crate::atspi::connection::Caller;
use crate::atspi::{text, Obj};

/// Most runs asked for one range: a bound on the calls (a page of text has a few).
const MAX_RUNS: usize = 200;

/// The styled runs of `start..end` of `o`'s text, clipped to the range.
pub(crate) async fn read(c: &Caller, o: &Obj, start: u32, end: u32) -> Vec<TextStyle> {
    let mut out: Vec<TextStyle> = Vec::new();
    let mut at = start as i32;
    for _ in 0..MAX_RUNS {
        if at >= end as i32 {
            break;
        }
        let Ok((attrs, s, e)) = text::attribute_run(c, o, at).await else {
            break;
        };
        // A run must move forward; a toolkit answering an empty or backward run ends the walk.
        if e <= at {
            break;
        }
        let style = styles_of(&attrs);
        if !style.is_empty() {
            let (s, e) = ((s.max(start as i32)) as u32, (e.min(end as i32)) as u32);
            match out.last_mut() {
                Some(last) if last.end == s && last.style == style => last.end = e,
                _ => out.push(TextStyle {
                    start: s,
                    end: e,
                    style,
                }),
            }
        }
        at = e;
    }
    out
}

/// The styles an attribute set says, in a fixed order.
fn styles_of(attrs: &HashMap<String, String>) -> Vec<String> {
    let mut out = Vec::new();
    let get = |k: &str| attrs.get(k).map(|v| v.trim().to_ascii_lowercase());
    let bold = match get("weight") {
        Some(w) => w == "bold" || w.parse::<u32>().is_ok_and(|n| n >= 600),
        None => false,
    };
    if bold {
        out.push("bold".to_string());
    }
    if get("style").is_some_and(|s| s == "italic" || s == "oblique") {
        out.push("italic".to_string());
    }
    if get("underline").is_some_and(|u| !u.is_empty() && u != "none" && u != "false") {
        out.push("underline".to_string());
    }
    if get("strikethrough").is_some_and(|s| s == "true") {
        out.push("strikethrough".to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn styles_are_read_from_the_attribute_names_toolkits_use() {
        assert_eq!(styles_of(&attrs(&[("weight", "700")])), ["bold"]);
        assert_eq!(
            styles_of(&attrs(&[("weight", "400")])),
            Vec::<String>::new()
        );
        assert_eq!(
            styles_of(&attrs(&[
                ("weight", "bold"),
                ("style", "italic"),
                ("underline", "single")
            ])),
            ["bold", "italic", "underline"]
        );
        assert_eq!(
            styles_of(&attrs(&[("underline", "none"), ("strikethrough", "true")])),
            ["strikethrough"]
        );
    }
}
