//! The tool registry: every tool once, with its description and a JSON schema derived from its
//! argument type, and the dispatch from a tool name to its file. MCP's tool list, the CLI's
//! `tools` command and `docs/TOOLS.md` all come from [`TOOLS`].

mod act_ui;
mod browser;
mod desktop;
mod expand_ui;
mod find_roots;
mod inspect_ui;
mod observe_ui;
mod read_text;
mod search_ui;
mod wait_for;

use schemars::JsonSchema;
use serde_json::Value;
use uidriver_core::Error;

use crate::{decode, Service, ToolResult};

pub(crate) use desktop::Frames;

/// One tool: name, description, schema of its arguments.
pub struct ToolDef {
    /// snake_case verb and noun.
    pub name: &'static str,
    /// What it does and when to use it.
    pub description: &'static str,
    /// JSON Schema of the arguments (an object schema; unknown fields are rejected).
    pub schema: fn() -> Value,
}

/// A schema with subschemas inlined (some MCP clients do not follow `$ref`).
fn schema<T: JsonSchema>() -> Value {
    let gen = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let mut v = serde_json::to_value(gen.into_root_schema_for::<T>()).unwrap_or(Value::Null);
    if let Some(o) = v.as_object_mut() {
        o.remove("$schema");
        o.remove("title");
        o.entry("properties")
            .or_insert_with(|| serde_json::json!({}));
    }
    v
}

/// Every tool uidriver serves.
pub static TOOLS: &[ToolDef] = &[
    ToolDef {
        name: "find_roots",
        description: "List the windows, dialogs, menus/popovers and browser pages that are open, as root refs (@rN) stable for the daemon's life. Filter by text (title or app), app, pid or kind; results are ranked (text match, focused, modal, front-most). Start here, then observe_ui one root.",
        schema: schema::<find_roots::Args>,
    },
    ToolDef {
        name: "observe_ui",
        description: "Observe one root: returns a new stateId and a folded outline of its elements with refs (@eN) that belong to that state. mode: semantic (tree only), visual (tree + image + OCR), fused (default: image and OCR only when the tree is poor). Folded lines say what they hide; use search_ui / expand_ui / inspect_ui on the stateId to see more without re-observing.",
        schema: schema::<observe_ui::Args>,
    },
    ToolDef {
        name: "search_ui",
        description: "Search a stored state (no live access): ranked matches by text (exact > prefix > word > substring > fuzzy), role and capability. Returns refs with role, name, value, states and path.",
        schema: schema::<search_ui::Args>,
    },
    ToolDef {
        name: "expand_ui",
        description: "Unfold the subtree of one element of a stored state. A region the backend did not fully read (marked ✂) is read live (epoch-checked) and returned as a new state.",
        schema: schema::<expand_ui::Args>,
    },
    ToolDef {
        name: "inspect_ui",
        description: "Every field of one element of a stored state: role, native role, name, value, description, states, capabilities, actions, bounds (screen and image), native id, text length, unread fields.",
        schema: schema::<inspect_ui::Args>,
    },
    ToolDef {
        name: "act_ui",
        description: "Run 1-20 steps in order from one state (press, click, setText, typeText, keypress, scroll, select, check, uncheck, expand, collapse, focus, setValue, drag, moveMouse, hover, wait). Semantic accessibility actions first; physical input only when allowed (headless: true forbids pointer, keyboard injection and focus changes). Stops at the first step that did not work. Every step reports outcome worked/didnt/unknown with grounding, delivery and verification; optional expect postcondition; returns the successor stateId with a diff (or the full view) and root changes (dialogs opened, target closed).",
        schema: schema::<act_ui::Args>,
    },
    ToolDef {
        name: "read_text",
        description: "Read a range of an element's text (offset and length in characters), for long documents and fields the outline shortens.",
        schema: schema::<read_text::Args>,
    },
    ToolDef {
        name: "wait_for",
        description: "Wait until text, a role or a value appears (or with gone: true disappears) in a root, driven by accessibility or page events with periodic re-checks. Returns the state where it held, or a timeout error with the last evidence.",
        schema: schema::<wait_for::Args>,
    },
    ToolDef {
        name: "launch_browser",
        description: "Start Debian's Chromium with a fresh private profile and a loopback-only DevTools port (headed inside a desktop, headless otherwise), or attach to an existing browser by its CDP endpoint. Returns its pages as browser_page roots.",
        schema: schema::<browser::LaunchArgs>,
    },
    ToolDef {
        name: "navigate_browser",
        description: "Navigate a browser page (root or stateId) to an http, https or file URL, or back/forward/reload; waits for load. Earlier states of the page become stale. Returns the new observation.",
        schema: schema::<browser::NavigateArgs>,
    },
    ToolDef {
        name: "evaluate_browser",
        description: "Evaluate a JavaScript expression in a page and return its JSON-serialized result (size-capped). Disabled unless the daemon was started with --allow-evaluate.",
        schema: schema::<browser::EvaluateArgs>,
    },
    ToolDef {
        name: "desktop_screenshot",
        description: "Capture the whole screen (all monitors) as one image (scaled to fit 1366x768, never enlarged) and record its window layout as a frame (fN). Optional OCR of the screen's text. Use it for windows and apps without usable accessibility.",
        schema: schema::<desktop::ScreenshotArgs>,
    },
    ToolDef {
        name: "desktop_input",
        description: "Raw input bound to a desktop_screenshot frame: moveMouse, click (count, button), scroll, drag, typeText, keypress, keyDown, keyUp, with x/y in the frame's image pixels. Before any coordinate input the window under each point and its geometry must still match the frame, else gui_frame_stale and nothing is sent. Also activateApp (launched when not running, confirmed frontmost) and the clipboard (write before, read after; text is untrusted data). Refused under headless. Returns a fresh screenshot.",
        schema: schema::<desktop::InputArgs>,
    },
];

/// The tool reference as Markdown (what `docs/TOOLS.md` contains): each tool's description and
/// a table of its arguments from its schema.
pub fn tools_markdown() -> String {
    let mut s = String::new();
    for t in TOOLS {
        s.push_str(&format!("## `{}`\n\n{}\n\n", t.name, t.description));
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
    }
    s.push_str("## Action steps (`act_ui.actions[]`)\n\n| action | fields besides `action` |\n| --- | --- |\n");
    for a in uidriver_core::action::ACTIONS {
        let fields = uidriver_core::action::allowed_fields(a).unwrap_or(&[]);
        let list: Vec<String> = fields.iter().map(|f| format!("`{f}`")).collect();
        s.push_str(&format!("| `{a}` | {} |\n", list.join(", ")));
    }
    s
}

fn type_of(p: &Value) -> String {
    if let Some(c) = p["const"].as_str() {
        return format!("`{c}`");
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
    if let Some(e) = p["enum"].as_array() {
        return e
            .iter()
            .filter_map(|v| v.as_str())
            .map(|v| format!("`{v}`"))
            .collect::<Vec<_>>()
            .join(" \\| ");
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
    match tool {
        "find_roots" => decode::<find_roots::Args>(args).map(drop),
        "observe_ui" => decode::<observe_ui::Args>(args).map(drop),
        "search_ui" => decode::<search_ui::Args>(args).map(drop),
        "expand_ui" => decode::<expand_ui::Args>(args).map(drop),
        "inspect_ui" => decode::<inspect_ui::Args>(args).map(drop),
        "act_ui" => act_ui::check(&decode(args)?).map(drop),
        "read_text" => decode::<read_text::Args>(args).map(drop),
        "wait_for" => wait_for::expect_of(&decode(args)?).map(drop),
        "launch_browser" => decode::<browser::LaunchArgs>(args).map(drop),
        "navigate_browser" => decode::<browser::NavigateArgs>(args).map(drop),
        "evaluate_browser" => decode::<browser::EvaluateArgs>(args).map(drop),
        "desktop_screenshot" => decode::<desktop::ScreenshotArgs>(args).map(drop),
        "desktop_input" => {
            desktop::plan(&decode::<desktop::InputArgs>(args)?.actions, None).map(drop)
        }
        other => Err(unknown_tool(other)),
    }
}

fn unknown_tool(name: &str) -> Error {
    Error::invalid(
        "tool",
        format!(
            "unknown tool {:?}; expected one of {}",
            name.chars().take(40).collect::<String>(),
            TOOLS.iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
        ),
    )
}

/// Runs a tool by name.
pub(crate) async fn dispatch(svc: &Service, tool: &str, args: Value) -> Result<ToolResult, Error> {
    match tool {
        "find_roots" => find_roots::run(svc, decode(args)?).await,
        "observe_ui" => observe_ui::run(svc, decode(args)?).await,
        "search_ui" => search_ui::run(svc, decode(args)?).await,
        "expand_ui" => expand_ui::run(svc, decode(args)?).await,
        "inspect_ui" => inspect_ui::run(svc, decode(args)?),
        "act_ui" => act_ui::run(svc, decode(args)?).await,
        "read_text" => read_text::run(svc, decode(args)?).await,
        "wait_for" => wait_for::run(svc, decode(args)?).await,
        "launch_browser" => browser::launch(svc, decode(args)?).await,
        "navigate_browser" => browser::navigate(svc, decode(args)?).await,
        "evaluate_browser" => browser::evaluate(svc, decode(args)?).await,
        "desktop_screenshot" => desktop::screenshot(svc, decode(args)?).await,
        "desktop_input" => desktop::input(svc, decode(args)?).await,
        other => Err(unknown_tool(other)),
    }
}
