//! The name of every tool, defined once as [`ToolName`]. The registry (`tools/mod.rs`) serves
//! one tool under each name and dispatches on it; what sits below the tools (policies, the file
//! roots rule, the checks in `enforce.rs`) and above the service (transports, the CLI) match on
//! it instead of spelling names again. What a tool may do is the registry's, not this file's
//! ([`ToolName::read_only`] reads its hints).

macro_rules! tool_names {
    ($($(#[$doc:meta])* $variant:ident = $wire:literal),+ $(,)?) => {
        /// A tool uidriver serves, by name (what MCP and the daemon's socket carry).
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum ToolName {
            $($(#[$doc])* $variant),+
        }

        impl ToolName {
            /// Every tool, in the registry's order.
            pub const ALL: &'static [ToolName] = &[$(ToolName::$variant),+];

            /// The name on the wire (snake_case verb and noun).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ToolName::$variant => $wire),+
                }
            }

            /// The tool a wire name names, if any.
            pub fn from_name(name: &str) -> Option<ToolName> {
                match name {
                    $($wire => Some(ToolName::$variant),)+
                    _ => None,
                }
            }
        }
    };
}

tool_names!(
    /// Lists windows, dialogs and pages as roots.
    FindRoots = "find_roots",
    /// Observes a root into a new state.
    ObserveUi = "observe_ui",
    /// Searches a stored state.
    SearchUi = "search_ui",
    /// Unfolds part of a stored state.
    ExpandUi = "expand_ui",
    /// Shows every field of one element.
    InspectUi = "inspect_ui",
    /// Runs steps on a state.
    ActUi = "act_ui",
    /// Reads a range of an element's text.
    ReadText = "read_text",
    /// Waits for a condition or a download.
    WaitFor = "wait_for",
    /// Asks a window or page to close.
    CloseRoot = "close_root",
    /// Starts or attaches a browser.
    LaunchBrowser = "launch_browser",
    /// Loads a URL, goes back, forward or reloads.
    NavigateBrowser = "navigate_browser",
    /// Runs JavaScript in a page.
    EvaluateBrowser = "evaluate_browser",
    /// Prints a page to PDF.
    SavePdf = "save_pdf",
    /// Reads a page's logs.
    BrowserLog = "browser_log",
    /// Saves cookies and web storage.
    SaveBrowserState = "save_browser_state",
    /// Takes a screenshot of the desktop.
    DesktopScreenshot = "desktop_screenshot",
    /// Sends raw input to the desktop.
    DesktopInput = "desktop_input",
);

impl std::fmt::Display for ToolName {
    /// The wire name; honours width and alignment (`{:<18}` in `uidriver tools`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in ToolName::ALL {
            assert_eq!(ToolName::from_name(t.as_str()), Some(*t));
        }
        assert_eq!(ToolName::from_name("act"), None);
        assert_eq!(format!("{:<8}|", ToolName::ActUi), "act_ui  |");
    }
}
