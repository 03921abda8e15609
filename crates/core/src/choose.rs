//! Choosing one option of a list by the label a caller wrote: the rule every backend's
//! `select` follows. People (and models) write "Excel 2007-365" for "Excel 2007–365", "save as"
//! for "Save As…", "Word" for "Word 2007-365 (.docx)"; the rule accepts those when exactly one
//! option fits, and an answer that fits nothing lists what there is.

use crate::error::Error;

/// How a label was matched (for the step's evidence).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fit {
    /// Character for character.
    Exact,
    /// Equal once case, spaces, dashes, quotes and ellipses are folded.
    Folded,
    /// The only option whose folded label starts with the folded request.
    Prefix,
}

/// Folds what people type differently: case, runs of white space, dash and quote variants,
/// "…" against "...", and a trailing ellipsis or colon ("Save As…", "Name:").
pub fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for ch in s.trim().chars() {
        let ch = match ch {
            '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{fe63}' | '\u{ff0d}' => '-',
            '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{201b}' | '\u{2032}' => '\'',
            '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{201f}' | '\u{2033}' => '"',
            '\u{a0}' | '\u{2007}' | '\u{202f}' => ' ',
            c => c,
        };
        if ch.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        if ch == '\u{2026}' {
            out.push_str("...");
        } else {
            out.extend(ch.to_lowercase());
        }
    }
    while out.ends_with("...") || out.ends_with(':') {
        let cut = if out.ends_with("...") { 3 } else { 1 };
        out.truncate(out.len() - cut);
        out.truncate(out.trim_end().len());
    }
    out
}

/// The option `want` names among `labels`: exact, then folded, then a unique folded prefix.
/// Several options fitting at the first level that any fits is `ambiguous_target`; none is
/// `invalid_args` listing the options (at most 30, then how many more).
pub fn pick(labels: &[&str], want: &str, what: &str) -> Result<(usize, Fit), Error> {
    let exact: Vec<usize> = (0..labels.len()).filter(|&i| labels[i] == want).collect();
    let w = fold(want);
    let folded: Vec<usize> = (0..labels.len())
        .filter(|&i| fold(labels[i]) == w)
        .collect();
    let prefix: Vec<usize> = if w.is_empty() {
        Vec::new()
    } else {
        (0..labels.len())
            .filter(|&i| fold(labels[i]).starts_with(&w))
            .collect()
    };
    for (found, fit) in [
        (exact, Fit::Exact),
        (folded, Fit::Folded),
        (prefix, Fit::Prefix),
    ] {
        match found.as_slice() {
            [] => continue,
            [i] => return Ok((*i, fit)),
            many => {
                return Err(Error::new(
                    crate::ErrorCode::AmbiguousTarget,
                    format!(
                        "{} options of {what} fit {want:?}: {}",
                        many.len(),
                        list(many.iter().map(|&i| labels[i]))
                    ),
                ))
            }
        }
    }
    Err(Error::invalid(
        "value",
        format!(
            "{what} has no option {want:?}; its {} options are: {}",
            labels.len(),
            list(labels.iter().copied())
        ),
    ))
}

fn list<'a>(labels: impl Iterator<Item = &'a str>) -> String {
    let all: Vec<&str> = labels.collect();
    let shown: Vec<String> = all.iter().take(30).map(|l| format!("{l:?}")).collect();
    let more = all.len().saturating_sub(30);
    if more > 0 {
        format!("{}, and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORMATS: &[&str] = &[
        "ODF Spreadsheet (.ods)",
        "Excel 2007–365 (.xlsx)",
        "Excel 97–2003 (.xls)",
        "Text CSV (.csv)",
    ];

    #[test]
    fn dashes_case_and_spaces_fold() {
        assert_eq!(
            pick(FORMATS, "Excel 2007-365 (.xlsx)", "@e4").unwrap(),
            (1, Fit::Folded)
        );
        assert_eq!(
            pick(FORMATS, "  text   csv (.CSV) ", "@e4").unwrap(),
            (3, Fit::Folded)
        );
        assert_eq!(
            pick(&["Save As…", "Save"], "save as...", "@e1").unwrap(),
            (0, Fit::Folded)
        );
        assert_eq!(pick(&["Name:"], "name", "@e1").unwrap(), (0, Fit::Folded));
    }

    #[test]
    fn exact_wins_then_a_unique_prefix() {
        assert_eq!(
            pick(&["Save", "Save As…"], "Save", "@e1").unwrap(),
            (0, Fit::Exact)
        );
        assert_eq!(pick(FORMATS, "text", "@e4").unwrap(), (3, Fit::Prefix));
        let e = pick(FORMATS, "Excel", "@e4").unwrap_err();
        assert_eq!(e.code, crate::ErrorCode::AmbiguousTarget);
        assert!(e.message.contains("Excel 97–2003"), "{}", e.message);
    }

    #[test]
    fn a_miss_lists_the_options() {
        let e = pick(FORMATS, "PDF", "@e4").unwrap_err();
        assert_eq!(e.code, crate::ErrorCode::InvalidArgs);
        for l in FORMATS {
            assert!(e.message.contains(l), "{}", e.message);
        }
        let many: Vec<String> = (0..40).map(|i| format!("item {i}")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        let e = pick(&refs, "zzz", "@e9").unwrap_err();
        assert!(e.message.ends_with("and 10 more"), "{}", e.message);
        assert!(pick(&[], "", "@e9").is_err());
    }
}
