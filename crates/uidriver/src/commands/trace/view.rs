//! `uidriver trace view ID -o FILE.html`: one trace as a single self-contained HTML file (no
//! script, no external resource: screenshots are inlined as data URIs), so it can be mailed,
//! attached to a bug, or opened offline. A timeline of chips coloured by outcome links to each
//! call's section: its arguments, the text the model read (diff lines coloured), the
//! screenshots before and after an act, and what the trace could not keep.

use std::fmt::Write as _;
use std::path::Path;

use base64::Engine;
use uidriver_transports::trace::{Call, Trace};

use super::super::exit;

pub fn run(id: &str, output: &Path) -> u8 {
    let t = match super::read("view", id) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let html = render(&t);
    // The page holds what the session saw and typed: owner-only, like the trace.
    if let Err(e) = uidriver_service::private::write(output, html.as_bytes()) {
        eprintln!(
            "uidriver trace view: cannot write {}: {e}",
            output.display()
        );
        return exit::UNAVAILABLE;
    }
    super::super::say(&format!(
        "wrote {} ({} calls of trace {})",
        output.display(),
        t.calls.len(),
        t.header.id
    ));
    exit::OK
}

/// `&`, `<`, `>` and quotes escaped for text and attribute values.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The CSS class of an outcome: green for worked/ok, red for didnt and errors, amber unknown.
fn class_of(c: &Call) -> &'static str {
    match c.outcome.as_str() {
        "worked" | "ok" => "ok",
        "unknown" => "unknown",
        _ if !c.is_error && c.outcome != "didnt" => "ok",
        _ => "bad",
    }
}

const STYLE: &str = "body{font:14px/1.4 sans-serif;margin:0;background:#f6f7f9;color:#1d2330}\
header{background:#1d2330;color:#fff;padding:16px 24px}h1{font-size:20px;margin:0 0 4px}\
.timeline{display:flex;flex-wrap:wrap;gap:4px;padding:12px 24px;background:#e4e7ee}\
.chip{display:inline-block;min-width:90px;padding:6px 8px;border-radius:4px;color:#fff;\
text-decoration:none;font-size:12px}.ok{background:#2e7d32}.bad{background:#c62828}\
.unknown{background:#ef8f00}section{background:#fff;margin:16px 24px;padding:12px 16px;\
border-radius:6px;box-shadow:0 1px 2px #0002}h2{font-size:16px;margin:0 0 8px}\
pre{background:#f0f2f5;padding:8px;overflow-x:auto;white-space:pre-wrap;margin:4px 0}\
.add{color:#1b5e20;background:#e8f5e9}.del{color:#b71c1c;background:#ffebee}\
.upd{color:#6d4c00;background:#fff8e1}.shots{display:flex;gap:12px;flex-wrap:wrap}\
figure{margin:0}figure img{max-width:560px;border:1px solid #ccd}.note{color:#8a4b00}";

/// The whole page.
pub fn render(t: &Trace) -> String {
    let h = &t.header;
    let client = h.client.as_ref().map_or_else(
        || "unknown client".into(),
        |c| format!("{} {}", c.name, c.version),
    );
    let mut s = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>uidriver trace {id}</title><style>{STYLE}</style></head><body>\n\
         <header><h1>uidriver trace {id}</h1><div>{started} · {client} over {transport} · \
         {n} calls · uidriver {v}</div></header>\n<nav class=\"timeline\">",
        id = esc(&h.id),
        started = esc(&h.started),
        client = esc(&client),
        transport = esc(&h.transport),
        n = t.calls.len(),
        v = esc(&h.uidriver),
    );
    for c in &t.calls {
        let _ = write!(
            s,
            "<a class=\"chip {cls}\" href=\"#c{seq}\">#{seq} {tool}<br>{outcome} · {ms} ms</a>",
            cls = class_of(c),
            seq = c.seq,
            tool = esc(&c.tool),
            outcome = esc(&c.outcome),
            ms = c.ms,
        );
    }
    s.push_str("</nav>\n");
    for c in &t.calls {
        s.push_str(&section(t, c));
    }
    s.push_str("</body></html>\n");
    s
}

/// One call's section.
fn section(t: &Trace, c: &Call) -> String {
    let mut s = format!(
        "<section id=\"c{seq}\"><h2><span class=\"chip {cls}\">{outcome}</span> #{seq} {tool} \
         · {started} · {ms} ms</h2>\n",
        seq = c.seq,
        cls = class_of(c),
        outcome = esc(&c.outcome),
        tool = esc(&c.tool),
        started = esc(&c.started),
        ms = c.ms,
    );
    if let Some(r) = &c.root {
        let _ = writeln!(
            s,
            "<div>root {} {} “{}” ({})</div>",
            esc(&r.r),
            esc(&r.kind),
            esc(&r.title),
            esc(&r.app)
        );
    }
    let args = serde_json::to_string_pretty(&c.args).unwrap_or_default();
    let _ = writeln!(s, "<div>arguments</div><pre>{}</pre>", esc(&args));
    for target in &c.targets {
        let _ = writeln!(
            s,
            "<div>{} = {} “{}” in {}{}</div>",
            esc(&target.r),
            esc(&target.role),
            esc(target.name.as_deref().unwrap_or("")),
            esc(target.path.as_deref().unwrap_or("?")),
            if target.secret {
                " (password field)"
            } else {
                ""
            }
        );
    }
    let _ = writeln!(s, "<div>result</div><pre>{}</pre>", text_with_diff(&c.text));
    let shots: Vec<(&str, &String)> = [("before", &c.before), ("after", &c.after)]
        .into_iter()
        .filter_map(|(w, f)| f.as_ref().map(|f| (w, f)))
        .collect();
    if !shots.is_empty() {
        s.push_str("<div class=\"shots\">");
        for (when, file) in shots {
            match std::fs::read(t.dir.join(file)) {
                Ok(png) => {
                    let _ = write!(
                        s,
                        "<figure><figcaption>{when}</figcaption><img alt=\"{when}\" \
                         src=\"data:image/png;base64,{}\"></figure>",
                        base64::engine::general_purpose::STANDARD.encode(png)
                    );
                }
                Err(e) => {
                    let _ = write!(
                        s,
                        "<div class=\"note\">{when}: {}</div>",
                        esc(&e.to_string())
                    );
                }
            }
        }
        s.push_str("</div>\n");
    }
    for n in &c.notes {
        let _ = writeln!(s, "<div class=\"note\">{}</div>", esc(n));
    }
    s.push_str("</section>\n");
    s
}

/// The result text, escaped, with the diff's `+`, `-` and `~` lines marked.
fn text_with_diff(text: &str) -> String {
    let mut s = String::new();
    for line in text.lines() {
        let cls = match line.trim_start().get(..2) {
            Some("+ ") => Some("add"),
            Some("- ") => Some("del"),
            Some("~ ") => Some("upd"),
            _ => None,
        };
        match cls {
            Some(c) => {
                let _ = writeln!(s, "<span class=\"{c}\">{}</span>", esc(line));
            }
            None => {
                s.push_str(&esc(line));
                s.push('\n');
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_diff_lines_marked() {
        let s = text_with_diff("state s2\n+ @e5 button \"<b>\"\n- @e6 label\nplain & more");
        assert!(s.contains("<span class=\"add\">+ @e5 button &quot;&lt;b&gt;&quot;</span>"));
        assert!(s.contains("<span class=\"del\">- @e6 label</span>"));
        assert!(s.contains("plain &amp; more"));
    }
}
