//! The tool registry: every tool once, with its description and a JSON schema derived from its
//! argument type, and the dispatch from a tool name to its file. MCP's tool list, the CLI's
//! `tools` command and `docs/TOOLS.md` all come from [`TOOLS`]. The registry knows the tools;
//! a tool knows neither the registry nor another tool (what they share is in `render.rs`,
//! `look.rs`, `forest.rs` and `file_out.rs`), and what sits below the tools learns of the
//! registry only what it is handed (`call.rs`: whether a call only reads, see
//! [`ToolName::read_only`]). The names are [`ToolName`]'s (`tool_names.rs`): one entry each.

mod act_ui;
mod browser;
mod browser_log;
mod close_root;
mod desktop;
mod expand_ui;
mod find_roots;
mod inspect_ui;
mod observe_ui;
mod read_text;
mod save_browser_state;
mod save_pdf;
mod search_ui;
mod wait_for;

use serde_json::Value;
use uidriver_core::Error;

use crate::schema::{input, output};
use crate::{decode, Service, ToolName, ToolResult};

/// One tool: name, title, description, what it may change, and the schemas of its arguments
/// and of its structured result.
pub struct ToolDef {
    /// Its name (one registry entry per [`ToolName`]).
    pub name: ToolName,
    /// A short human title (hosts show it instead of the name).
    pub title: &'static str,
    /// What it does and when to use it.
    pub description: &'static str,
    /// What calling it may do to the desktop or the web (MCP tool annotations).
    pub hints: Hints,
    /// JSON Schema of the arguments (an object schema; unknown fields are rejected).
    pub schema: fn() -> Value,
    /// JSON Schema of the structured result of a successful call, generated from the type that
    /// builds it (error results carry `{error}` instead).
    pub output_schema: fn() -> Value,
}

/// MCP tool annotations: hints a host uses to ask the user before a call that changes things.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Hints {
    /// Changes nothing outside uidriver's own store of states.
    pub read_only: bool,
    /// May destroy or overwrite something (close a window, submit a form, leave a page).
    pub destructive: bool,
    /// Reaches the open web (browser pages).
    pub open_world: bool,
}

/// Changes a web page (leaves it, runs script in it).
const WEB_WRITE: Hints = Hints {
    read_only: false,
    destructive: true,
    open_world: true,
};
/// Observes; changes nothing.
const READ: Hints = Hints {
    read_only: true,
    destructive: false,
    open_world: false,
};
/// Sends input that may do anything the user could.
const WRITE: Hints = Hints {
    read_only: false,
    destructive: true,
    open_world: false,
};

impl Hints {
    /// One line for the docs: what a call may do.
    pub fn describe(&self) -> String {
        let mut s = if self.read_only {
            "Read-only.".to_string()
        } else if self.destructive {
            "Changes things and may destroy data (hosts should ask first).".to_string()
        } else {
            "Changes things, additively.".to_string()
        };
        if self.open_world {
            s.push_str(" Reaches the open web.");
        }
        s
    }
}

impl ToolDef {
    /// The MCP `annotations` object.
    pub fn annotations(&self) -> Value {
        let h = self.hints;
        let mut a =
            serde_json::json!({ "readOnlyHint": h.read_only, "openWorldHint": h.open_world });
        if !h.read_only {
            a["destructiveHint"] = Value::Bool(h.destructive);
        }
        a
    }

    /// The tool as MCP's `tools/list` carries it (also `uidriver tools --json`).
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "name": self.name.as_str(),
            "title": self.title,
            "description": self.description,
            "inputSchema": (self.schema)(),
            "outputSchema": (self.output_schema)(),
            "annotations": self.annotations(),
        })
    }
}

/// Every tool uidriver serves.
pub static TOOLS: &[ToolDef] = &[
    ToolDef {
        name: ToolName::FindRoots,
        title: "Find windows and pages",
        description: "Windows, dialogs, menus, popovers, pages as roots (@rN), best first. Start here.",
        hints: READ,
        schema: input::<find_roots::Args>,
        output_schema: output::<find_roots::Output>,
    },
    ToolDef {
        name: ToolName::ObserveUi,
        title: "Observe a window or page",
        description: "A new state (sN) of a root: folded outline with refs (@eN), or changes since this session saw it; search/expand/inspect rather than re-observe.",
        hints: READ,
        schema: input::<observe_ui::Args>,
        output_schema: output::<observe_ui::Output>,
    },
    ToolDef {
        name: ToolName::SearchUi,
        title: "Search a state",
        description: "Ranked matches in a stored state (no live look) by text, role, capability.",
        hints: READ,
        schema: input::<search_ui::Args>,
        output_schema: output::<search_ui::Output>,
    },
    ToolDef {
        name: ToolName::ExpandUi,
        title: "Unfold part of a state",
        description: "Unfold an element's subtree in a stored state; a region not fully read (✂) is read live into a new state.",
        hints: READ,
        schema: input::<expand_ui::Args>,
        output_schema: output::<expand_ui::Output>,
    },
    ToolDef {
        name: ToolName::InspectUi,
        title: "Inspect an element",
        description: "All fields of one element in a stored state (states, actions, bounds, ids, unread text).",
        hints: READ,
        schema: input::<inspect_ui::Args>,
        output_schema: output::<inspect_ui::Output>,
    },
    ToolDef {
        name: ToolName::ActUi,
        title: "Act on elements",
        description: "Run 1-20 steps on a state, stopping at the first failure. Reports each step's outcome and evidence, the successor (diff), root changes.",
        hints: WRITE,
        schema: input::<act_ui::Args>,
        output_schema: output::<act_ui::Output>,
    },
    ToolDef {
        name: ToolName::ReadText,
        title: "Read an element's text",
        description: "Read a character range of an element's text (long texts, cut values).",
        hints: READ,
        schema: input::<read_text::Args>,
        output_schema: output::<read_text::Output>,
    },
    ToolDef {
        name: ToolName::WaitFor,
        title: "Wait for a condition",
        description: "Wait until text, a role or a value appears (gone: disappears) in a root, or a download ends.",
        hints: READ,
        schema: input::<wait_for::Args>,
        output_schema: output::<wait_for::Output>,
    },
    ToolDef {
        name: ToolName::CloseRoot,
        title: "Close a window or page",
        description: "Ask a window or page to close (never kills); says if it went or which root asks first.",
        hints: WRITE,
        schema: input::<close_root::Args>,
        output_schema: output::<close_root::Output>,
    },
    ToolDef {
        name: ToolName::LaunchBrowser,
        title: "Launch or attach a browser",
        description: "Start Chromium (private profile) or attach to a CDP endpoint; its pages are roots.",
        hints: Hints {
            read_only: false,
            destructive: false,
            open_world: true,
        },
        schema: input::<browser::LaunchArgs>,
        output_schema: output::<browser::LaunchOutput>,
    },
    ToolDef {
        name: ToolName::NavigateBrowser,
        title: "Navigate a page",
        description: "Load a URL (or new tab), back, forward or reload; waits for load; a new state (older go stale).",
        hints: WEB_WRITE,
        schema: input::<browser::NavigateArgs>,
        output_schema: output::<observe_ui::Output>,
    },
    ToolDef {
        name: ToolName::EvaluateBrowser,
        title: "Run JavaScript in a page",
        description: "Run JavaScript in a page; gives its JSON value (max 64 KiB). Needs --allow-evaluate.",
        hints: WEB_WRITE,
        schema: input::<browser::EvaluateArgs>,
        output_schema: output::<browser::EvaluateOutput>,
    },
    ToolDef {
        name: ToolName::SavePdf,
        title: "Save as PDF",
        description: "Print a page to a PDF file (never replaces one unless overwrite).",
        hints: Hints {
            read_only: false,
            destructive: false,
            open_world: false,
        },
        schema: input::<save_pdf::Args>,
        output_schema: output::<save_pdf::Output>,
    },
    ToolDef {
        name: ToolName::BrowserLog,
        title: "Read a page log",
        description: "A page's console messages, uncaught errors or requests (status, size, ms) after seq since.",
        hints: Hints {
            read_only: true,
            destructive: false,
            open_world: true,
        },
        schema: input::<browser_log::Args>,
        output_schema: output::<browser_log::Output>,
    },
    ToolDef {
        name: ToolName::SaveBrowserState,
        title: "Save cookies and storage",
        description: "Save cookies and local/session storage to a JSON file (for launch_browser storageState).",
        hints: Hints {
            read_only: false,
            destructive: false,
            open_world: false,
        },
        schema: input::<save_browser_state::Args>,
        output_schema: output::<save_browser_state::Output>,
    },
    ToolDef {
        name: ToolName::DesktopScreenshot,
        title: "Screenshot the desktop",
        description: "Screen image (fit to 1366x768) as frame fN, optionally OCR'd; for apps without accessibility.",
        hints: READ,
        schema: input::<desktop::ScreenshotArgs>,
        output_schema: output::<desktop::ScreenshotOutput>,
    },
    ToolDef {
        name: ToolName::DesktopInput,
        title: "Raw desktop input",
        description: "Raw input at pixels of a desktop_screenshot frame, activateApp, clipboard (untrusted text); then a new screenshot.",
        hints: WRITE,
        schema: input::<desktop::InputArgs>,
        output_schema: output::<desktop::InputOutput>,
    },
];

/// The tool reference as Markdown (what `docs/TOOLS.md` contains): each tool's description and
/// a table of its arguments from its schema.
pub fn tools_markdown() -> String {
    let mut s = String::new();
    for t in TOOLS {
        s.push_str(&format!(
            "## `{}`: {}\n\n{}\n\n{}\n\n",
            t.name,
            t.title,
            t.description,
            t.hints.describe()
        ));
        let schema = (t.schema)();
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        if let Some(props) = schema["properties"].as_object() {
            if !props.is_empty() {
                s.push_str(
                    "| argument | type | required | description |\n| --- | --- | --- | --- |\n",
                );
                for (name, p) in props {
                    let ty = type_of(p);
                    let desc = p["description"]
                        .as_str()
                        .unwrap_or("")
                        .replace('\n', " ")
                        .replace('|', "\\|");
                    let req = if required.contains(&name.as_str()) {
                        "yes"
                    } else {
                        ""
                    };
                    s.push_str(&format!("| `{name}` | {ty} | {req} | {desc} |\n"));
                }
                s.push('\n');
            }
        }
        if let Some(props) = (t.output_schema)()["properties"].as_object() {
            let fields: Vec<String> = props.keys().map(|k| format!("`{k}`")).collect();
            s.push_str(&format!("Result fields: {}.\n\n", fields.join(", ")));
        }
    }
    s.push_str("## Action steps (`act_ui.actions[]`)\n\n| action | fields besides `action` | what it does |\n| --- | --- | --- |\n");
    for a in uidriver_core::ActionKind::ALL {
        let list: Vec<String> = a.fields().iter().map(|f| format!("`{f}`")).collect();
        s.push_str(&format!("| `{a}` | {} | {} |\n", list.join(", "), a.doc()));
    }
    s
}

fn type_of(p: &Value) -> String {
    if let Some(c) = p["const"].as_str() {
        return format!("`{c}`");
    }
    if let Some(e) = p["enum"].as_array() {
        return e
            .iter()
            .filter_map(|v| v.as_str())
            .map(|v| format!("`{v}`"))
            .collect::<Vec<_>>()
            .join(" \\| ");
    }

    if let Some(t) = p["type"].as_str() {
        if t == "array" {
            return format!("array of {}", type_of(&p["items"]));
        }
        return t.to_string();
    }
    if let Some(t) = p["type"].as_array() {
        let names: Vec<&str> = t
            .iter()
            .filter_map(|v| v.as_str())
            .filter(|s| *s != "null")
            .collect();
        if !names.is_empty() {
            return names.join(" or ");
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alts) = p[key].as_array() {
            let names: Vec<String> = alts.iter().map(type_of).filter(|t| t != "null").collect();
            return names.join(if names.iter().all(|n| n.starts_with('`')) {
                " \\| "
            } else {
                " or "
            });
        }
    }
    if p.get("pattern").is_some() {
        return "string".into();
    }
    "any".into()
}

/// Decodes a tool's arguments and makes the checks the tool makes before any live work (steps,
/// postconditions, desktop events), without a service: what a caller's JSON can reach before a
/// backend is involved; [`crate::fuzzing::tool_args`] drives it with arbitrary input.
pub(crate) fn check_args(tool: &str, args: Value) -> Result<(), Error> {
    let Some(name) = ToolName::from_name(tool) else {
        return Err(unknown_tool(tool));
    };
    match name {
        ToolName::FindRoots => decode::<find_roots::Args>(args).map(drop),
        ToolName::ObserveUi => decode::<observe_ui::Args>(args).map(drop),
        ToolName::SearchUi => decode::<search_ui::Args>(args).map(drop),
        ToolName::ExpandUi => decode::<expand_ui::Args>(args).map(drop),
        ToolName::InspectUi => decode::<inspect_ui::Args>(args).map(drop),
        ToolName::ActUi => act_ui::check(&decode(args)?).map(drop),
        ToolName::ReadText => decode::<read_text::Args>(args).map(drop),
        ToolName::WaitFor => wait_for::check(&decode(args)?).map(drop),
        ToolName::CloseRoot => decode::<close_root::Args>(args).map(drop),
        ToolName::LaunchBrowser => decode::<browser::LaunchArgs>(args).map(drop),
        ToolName::NavigateBrowser => decode::<browser::NavigateArgs>(args).map(drop),
        ToolName::EvaluateBrowser => decode::<browser::EvaluateArgs>(args).map(drop),
        ToolName::SavePdf => decode::<save_pdf::Args>(args).map(drop),
        ToolName::BrowserLog => decode::<browser_log::Args>(args).map(drop),
        ToolName::SaveBrowserState => decode::<save_browser_state::Args>(args).map(drop),
        ToolName::DesktopScreenshot => decode::<desktop::ScreenshotArgs>(args).map(drop),
        ToolName::DesktopInput => {
            desktop::plan(&decode::<desktop::InputArgs>(args)?.actions, None).map(drop)
        }
    }
}

impl ToolName {
    /// Whether the tool only reads (its read-only hint in [`TOOLS`]): a cancelled call of it is
    /// dropped at once (`call.rs`), and a call of it whose answer was lost may be sent again
    /// (the daemon client).
    pub fn read_only(self) -> bool {
        TOOLS.iter().any(|t| t.name == self && t.hints.read_only)
    }
}

fn unknown_tool(name: &str) -> Error {
    Error::invalid(
        "tool",
        format!(
            "unknown tool {:?}; expected one of {}",
            name.chars().take(40).collect::<String>(),
            TOOLS
                .iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
}

/// Runs a tool by name.
pub(crate) async fn dispatch(svc: &Service, tool: &str, args: Value) -> Result<ToolResult, Error> {
    let Some(name) = ToolName::from_name(tool) else {
        return Err(unknown_tool(tool));
    };
    match name {
        ToolName::FindRoots => find_roots::run(svc, decode(args)?).await,
        ToolName::ObserveUi => observe_ui::run(svc, decode(args)?).await,
        ToolName::SearchUi => search_ui::run(svc, decode(args)?).await,
        ToolName::ExpandUi => expand_ui::run(svc, decode(args)?).await,
        ToolName::InspectUi => inspect_ui::run(svc, decode(args)?),
        ToolName::ActUi => act_ui::run(svc, decode(args)?).await,
        ToolName::ReadText => read_text::run(svc, decode(args)?).await,
        ToolName::WaitFor => wait_for::run(svc, decode(args)?).await,
        ToolName::CloseRoot => close_root::run(svc, decode(args)?).await,
        ToolName::LaunchBrowser => browser::launch(svc, decode(args)?).await,
        ToolName::NavigateBrowser => browser::navigate(svc, decode(args)?).await,
        ToolName::EvaluateBrowser => browser::evaluate(svc, decode(args)?).await,
        ToolName::SavePdf => save_pdf::run(svc, decode(args)?).await,
        ToolName::BrowserLog => browser_log::run(svc, decode(args)?).await,
        ToolName::SaveBrowserState => save_browser_state::run(svc, decode(args)?).await,
        ToolName::DesktopScreenshot => desktop::screenshot(svc, decode(args)?).await,
        ToolName::DesktopInput => desktop::input(svc, decode(args)?).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The registry serves one tool under each name, in `ToolName`'s order.
    #[test]
    fn the_registry_serves_each_name_once() {
        let served: Vec<ToolName> = TOOLS.iter().map(|t| t.name).collect();
        assert_eq!(served, ToolName::ALL);
    }
}
