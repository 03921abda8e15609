//! The name of every tool, in the registry's order, for a module below the tools that must know
//! them: a policy's `[tools]` lists are checked against them (`policy.rs`), and the tools check
//! their calls against policies, so policies cannot read the registry (`tools/mod.rs`) itself.
//! The registry serves one tool under each name; its test keeps the two lists one.

/// Every tool's name, as the registry lists them.
pub(crate) const TOOL_NAMES: &[&str] = &[
    "find_roots",
    "observe_ui",
    "search_ui",
    "expand_ui",
    "inspect_ui",
    "act_ui",
    "read_text",
    "wait_for",
    "close_root",
    "launch_browser",
    "navigate_browser",
    "evaluate_browser",
    "save_pdf",
    "browser_log",
    "save_browser_state",
    "desktop_screenshot",
    "desktop_input",
];
