//! AT-SPI roles, states, interfaces and actions mapped into core's closed vocabularies.
//!
//! Pure functions over wire values: no D-Bus here. The role table covers every `ATSPI_ROLE_*`
//! of at-spi2-core 2.46 (0–129); a number beyond it is `unknown` with its number kept as the
//! native role.

use uidriver_core::{CapSet, Capability, Role, StateFlag, StateSet};

use crate::atspi::{state as st, Ifaces, States};

/// `(native name, canonical role)` indexed by `ATSPI_ROLE_*`.
const ROLES: &[(&str, Role)] = &[
    ("invalid", Role::Unknown),
    ("accelerator-label", Role::Label),
    ("alert", Role::Alert),
    ("animation", Role::Image),
    ("arrow", Role::Image),
    ("calendar", Role::Calendar),
    ("canvas", Role::Canvas),
    ("check-box", Role::CheckBox),
    ("check-menu-item", Role::CheckMenuItem),
    ("color-chooser", Role::ColorChooser),
    ("column-header", Role::ColumnHeader),
    ("combo-box", Role::ComboBox),
    ("date-editor", Role::Text),
    ("desktop-icon", Role::Image),
    ("desktop-frame", Role::Window),
    ("dial", Role::Slider),
    ("dialog", Role::Dialog),
    ("directory-pane", Role::Pane),
    ("drawing-area", Role::Canvas),
    ("file-chooser", Role::Dialog),
    ("filler", Role::Pane),
    ("focus-traversable", Role::Unknown),
    ("font-chooser", Role::Dialog),
    ("frame", Role::Window),
    ("glass-pane", Role::Pane),
    ("html-container", Role::Pane),
    ("icon", Role::Image),
    ("image", Role::Image),
    ("internal-frame", Role::Pane),
    ("label", Role::Label),
    ("layered-pane", Role::Pane),
    ("list", Role::List),
    ("list-item", Role::ListItem),
    ("menu", Role::Menu),
    ("menu-bar", Role::MenuBar),
    ("menu-item", Role::MenuItem),
    ("option-pane", Role::Pane),
    ("page-tab", Role::Tab),
    ("page-tab-list", Role::TabList),
    ("panel", Role::Pane),
    ("password-text", Role::PasswordText),
    ("popup-menu", Role::Menu),
    ("progress-bar", Role::ProgressBar),
    ("push-button", Role::Button),
    ("radio-button", Role::RadioButton),
    ("radio-menu-item", Role::RadioMenuItem),
    ("root-pane", Role::Pane),
    ("row-header", Role::RowHeader),
    ("scroll-bar", Role::ScrollBar),
    ("scroll-pane", Role::ScrollPane),
    ("separator", Role::Separator),
    ("slider", Role::Slider),
    ("spin-button", Role::SpinButton),
    ("split-pane", Role::SplitPane),
    ("status-bar", Role::StatusBar),
    ("table", Role::Table),
    ("table-cell", Role::Cell),
    ("table-column-header", Role::ColumnHeader),
    ("table-row-header", Role::RowHeader),
    ("tearoff-menu-item", Role::MenuItem),
    ("terminal", Role::Terminal),
    ("text", Role::Text),
    ("toggle-button", Role::ToggleButton),
    ("tool-bar", Role::Toolbar),
    ("tool-tip", Role::Tooltip),
    ("tree", Role::Tree),
    ("tree-table", Role::Tree),
    ("unknown", Role::Unknown),
    ("viewport", Role::Pane),
    ("window", Role::Window),
    ("extended", Role::Unknown),
    ("header", Role::Section),
    ("footer", Role::Section),
    ("paragraph", Role::Paragraph),
    ("ruler", Role::Unknown),
    ("application", Role::Application),
    ("autocomplete", Role::ComboBox),
    ("editbar", Role::Text),
    ("embedded", Role::Pane),
    ("entry", Role::Text),
    ("chart", Role::Image),
    ("caption", Role::Label),
    ("document-frame", Role::Document),
    ("heading", Role::Heading),
    ("page", Role::Section),
    ("section", Role::Section),
    ("redundant-object", Role::Unknown),
    ("form", Role::Form),
    ("link", Role::Link),
    ("input-method-window", Role::Window),
    ("table-row", Role::Row),
    ("tree-item", Role::TreeItem),
    ("document-spreadsheet", Role::Document),
    ("document-presentation", Role::Document),
    ("document-text", Role::Document),
    ("document-web", Role::Document),
    ("document-email", Role::Document),
    ("comment", Role::Section),
    ("list-box", Role::List),
    ("grouping", Role::Group),
    ("image-map", Role::Image),
    ("notification", Role::Notification),
    ("info-bar", Role::StatusBar),
    ("level-bar", Role::ProgressBar),
    ("title-bar", Role::Toolbar),
    ("block-quote", Role::Section),
    ("audio", Role::Unknown),
    ("video", Role::Unknown),
    ("definition", Role::Paragraph),
    ("article", Role::Section),
    ("landmark", Role::Section),
    ("log", Role::Section),
    ("marquee", Role::Section),
    ("math", Role::Image),
    ("rating", Role::Slider),
    ("timer", Role::Label),
    ("static", Role::Label),
    ("math-fraction", Role::Unknown),
    ("math-root", Role::Unknown),
    ("subscript", Role::Label),
    ("superscript", Role::Label),
    ("description-list", Role::List),
    ("description-term", Role::ListItem),
    ("description-value", Role::Paragraph),
    ("footnote", Role::Section),
    ("content-deletion", Role::Section),
    ("content-insertion", Role::Section),
    ("mark", Role::Section),
    ("suggestion", Role::Section),
    ("push-button-menu", Role::Button),
];

/// AT-SPI role numbers uidriver reasons about.
pub(crate) mod role {
    pub(crate) const ALERT: u32 = 2;
    pub(crate) const COLOR_CHOOSER: u32 = 9;
    pub(crate) const DIALOG: u32 = 16;
    pub(crate) const FILE_CHOOSER: u32 = 19;
    pub(crate) const FILLER: u32 = 20;
    pub(crate) const FONT_CHOOSER: u32 = 22;
    pub(crate) const FRAME: u32 = 23;
    pub(crate) const LABEL: u32 = 29;
    pub(crate) const LIST_ITEM: u32 = 32;
    pub(crate) const MENU: u32 = 33;
    pub(crate) const PANEL: u32 = 39;
    pub(crate) const PASSWORD_TEXT: u32 = 40;
    pub(crate) const POPUP_MENU: u32 = 41;
    pub(crate) const SECTION: u32 = 85;
    pub(crate) const TABLE_CELL: u32 = 56;
    pub(crate) const TEXT: u32 = 61;
    pub(crate) const TOOL_TIP: u32 = 64;
    pub(crate) const WINDOW: u32 = 69;
    pub(crate) const PARAGRAPH: u32 = 73;
    pub(crate) const ENTRY: u32 = 79;
    pub(crate) const HEADING: u32 = 83;
    pub(crate) const LINK: u32 = 88;
    pub(crate) const STATIC: u32 = 116;
    pub(crate) const TERMINAL: u32 = 60;
    pub(crate) const DOCUMENT_TEXT: u32 = 94;
}

/// The native role name and canonical role of an `ATSPI_ROLE_*` number.
pub(crate) fn map_role(n: u32) -> (String, Role) {
    match ROLES.get(n as usize) {
        Some((name, r)) => ((*name).to_string(), *r),
        None => (format!("role-{n}"), Role::Unknown),
    }
}

/// A name as a screen reader gives it: toolkit class names (`GtkMenuButton`, `AdwGizmo`,
/// GTK 4's fallback for a widget nobody named) are no names, and the blanks around a name are
/// not part of it (GTK 3 menu items of mousepad pad theirs: `"Select All      "`).
pub(crate) fn clean_name(name: String) -> String {
    if is_class_name(&name) {
        return String::new();
    }
    let name = match name.trim() {
        t if t.len() == name.len() => name,
        t => t.to_string(),
    };
    undoubled(&name).unwrap_or(name)
}

/// A name said twice, the first time with its mnemonic marks, as GTK 4.8 names some buttons
/// from both their label and its text: `_Rename Rename`, `Replace _All Replace All`,
/// `Cancel Cancel` → the second half. `None` when the name is not so doubled.
fn undoubled(name: &str) -> Option<String> {
    name.match_indices(' ').find_map(|(i, _)| {
        let (first, second) = (&name[..i], &name[i + 1..]);
        (!second.is_empty() && first.replace('_', "") == second).then(|| second.to_string())
    })
}

/// The name the labels of a nameless control (`labelled-by`) give it: their names, cleaned (a
/// GTK4 button is labelled by its own icon, named `GtkImage`), without a trailing colon
/// ("Name:"), joined.
pub(crate) fn label_from(names: Vec<String>) -> Option<String> {
    let parts: Vec<String> = names
        .into_iter()
        .map(clean_name)
        .map(|n| n.trim_end_matches(':').trim_end().to_string())
        .filter(|n| !n.is_empty())
        .collect();
    (!parts.is_empty()).then(|| {
        let joined = parts.join(" ");
        undoubled(&joined).unwrap_or(joined)
    })
}

/// Whether a GTK 4.8 name is the widget's type name: GTK 4.8 answers `G_OBJECT_TYPE_NAME` for
/// a widget without a label, so besides the toolkit's own classes (`clean_name`) an app's
/// appear (gnome-text-editor's `EditorPage`, `EditorSourceView`). A type name is one
/// identifier of at least two capitalised words; a label's name is its text and is kept. A
/// GTK4 control truly named like an identifier ("GitHub") loses its name too: a nameless
/// control is found by role and place, a class name would mislead.
pub(crate) fn is_gtk4_type_name(name: &str, role_n: u32) -> bool {
    let humps = name.chars().filter(char::is_ascii_uppercase).count();
    !matches!(role_n, role::LABEL | role::STATIC | role::HEADING)
        && name.len() >= 6
        && humps >= 2
        && name.starts_with(|c: char| c.is_ascii_uppercase())
        && name.chars().all(|c| c.is_ascii_alphanumeric())
        && name.chars().any(|c| c.is_ascii_lowercase())
}

fn is_class_name(s: &str) -> bool {
    let rest = ["Gtk", "Adw", "Gsk", "Gdk", "Vte", "Nautilus"]
        .iter()
        .find_map(|p| s.strip_prefix(p));
    rest.is_some_and(|r| {
        r.len() >= 3
            && r.starts_with(|c: char| c.is_ascii_uppercase())
            && r.chars().all(|c| c.is_ascii_alphanumeric())
            && r.chars().any(|c| c.is_ascii_lowercase())
    })
}

/// Controls that a label elsewhere names (`labelled-by`) when they carry no name of their own.
pub(crate) fn takes_label(n: u32) -> bool {
    matches!(
        map_role(n).1,
        Role::Text
            | Role::PasswordText
            | Role::ComboBox
            | Role::SpinButton
            | Role::Slider
            | Role::List
            | Role::Table
            | Role::Tree
            | Role::CheckBox
            | Role::RadioButton
            | Role::Button
            | Role::ToggleButton
    )
}

/// Whether a numeric value says something: always for the roles that are values (sliders,
/// spin buttons, scroll and progress bars); for others only with a real range, not the
/// ±f64::MAX a spreadsheet cell reports nor the 0–1 of a toolbar button.
pub(crate) fn numeric_is_meaningful(n: u32, min: f64, max: f64) -> bool {
    let real = |x: f64| x.is_finite() && x.abs() < 1e300;
    matches!(
        map_role(n).1,
        Role::Slider | Role::SpinButton | Role::ScrollBar | Role::ProgressBar
    ) || (real(min) && real(max) && max > min && !(min == 0.0 && max == 1.0))
}

/// Whether a role is a surface of its own (a top-level child of an application).
pub(crate) fn is_surface_role(n: u32) -> bool {
    matches!(
        n,
        role::FRAME
            | role::WINDOW
            | role::DIALOG
            | role::ALERT
            | role::FILE_CHOOSER
            | role::FONT_CHOOSER
            | role::COLOR_CHOOSER
            | role::MENU
            | role::POPUP_MENU
            | role::TOOL_TIP
    )
}

/// Whether a role only lays out what it holds (panes, sections, groups, scroll panes and bars,
/// split panes, tool bars): the containers a toolkit hides whole, subtree and all.
pub(crate) fn is_layout_box(n: u32) -> bool {
    matches!(
        map_role(n).1,
        Role::Pane
            | Role::Section
            | Role::Group
            | Role::ScrollPane
            | Role::ScrollBar
            | Role::SplitPane
            | Role::Toolbar
    )
}

/// Whether a node's text (Text interface) is its visible content rather than a repeat of its
/// name: static text and paragraphs in web content, labels without a name.
pub(crate) fn text_is_content(n: u32) -> bool {
    matches!(
        n,
        role::LABEL
            | role::STATIC
            | role::PARAGRAPH
            | role::HEADING
            | role::TABLE_CELL
            | role::LIST_ITEM
            | role::SECTION
            | role::LINK
            | role::PANEL
            | role::FILLER
            | role::DOCUMENT_TEXT
    )
}

/// Maps AT-SPI states. `Hidden` when not showing, `Disabled` when neither enabled nor
/// sensitive, `Collapsed` when expandable and not expanded, `Password` for password roles.
pub(crate) fn map_states(s: States, role_n: u32) -> StateSet {
    let mut out = StateSet::EMPTY;
    let pairs: &[(u32, StateFlag)] = &[
        (st::FOCUSED, StateFlag::Focused),
        (st::FOCUSABLE, StateFlag::Focusable),
        (st::EDITABLE, StateFlag::Editable),
        (st::MULTI_LINE, StateFlag::MultiLine),
        (st::READ_ONLY, StateFlag::ReadOnly),
        (st::CHECKED, StateFlag::Checked),
        (st::INDETERMINATE, StateFlag::Mixed),
        (st::PRESSED, StateFlag::Pressed),
        (st::SELECTED, StateFlag::Selected),
        (st::SELECTABLE, StateFlag::Selectable),
        (st::EXPANDED, StateFlag::Expanded),
        (st::MODAL, StateFlag::Modal),
        (st::REQUIRED, StateFlag::Required),
        (st::INVALID_ENTRY, StateFlag::Invalid),
        (st::BUSY, StateFlag::Busy),
        (st::VISITED, StateFlag::Visited),
        (st::ACTIVE, StateFlag::Active),
        (st::IS_DEFAULT, StateFlag::Default),
        (st::MULTISELECTABLE, StateFlag::MultiSelectable),
    ];
    for (n, f) in pairs {
        if s.has(*n) {
            out.insert(*f);
        }
    }
    if !s.has(st::SHOWING) {
        out.insert(StateFlag::Hidden);
    }
    if !s.has(st::ENABLED) && !s.has(st::SENSITIVE) {
        out.insert(StateFlag::Disabled);
    }
    if (s.has(st::EXPANDABLE) && !s.has(st::EXPANDED)) || s.has(st::COLLAPSED) {
        out.insert(StateFlag::Collapsed);
    }
    if role_n == role::PASSWORD_TEXT {
        out.insert(StateFlag::Password);
    }
    out
}

/// Whether a node is password text (by role; GTK3 entries with visibility off use role
/// `password-text`).
pub(crate) fn is_password(role_n: u32) -> bool {
    role_n == role::PASSWORD_TEXT
}

/// Whether a node's text is worth reading as its value (editable text, entries, and terminals,
/// whose screen is what a user reads and types into).
pub(crate) fn text_is_value(role_n: u32, s: States, ifaces: Ifaces) -> bool {
    ifaces.has(Ifaces::TEXT)
        && (s.has(st::EDITABLE)
            || ifaces.has(Ifaces::EDITABLE_TEXT)
            || matches!(
                role_n,
                role::TEXT | role::ENTRY | role::PASSWORD_TEXT | role::TERMINAL
            ))
}

/// Roles whose content is only pixels and whose size decides whether a fused look needs an
/// image (drawing areas, canvases: vision's "canvas covers most of the window" rule), so they are
/// measured even in a look without bounds. Images are not: no rule reads their size, and a look
/// that takes pixels re-reads every rectangle anyway.
pub(crate) fn is_pixel_surface(role_n: u32) -> bool {
    map_role(role_n).1 == Role::Canvas
}

/// Capabilities derived from interfaces, role, states and action names.
pub(crate) fn capabilities(
    role: Role,
    s: States,
    ifaces: Ifaces,
    actions: &[String],
    has_box: bool,
) -> CapSet {
    let mut c = CapSet::EMPTY;
    let act = |names: &[&str]| {
        actions
            .iter()
            .any(|a| names.iter().any(|n| a.eq_ignore_ascii_case(n)))
    };
    let toggle_role = matches!(
        role,
        Role::CheckBox
            | Role::CheckMenuItem
            | Role::RadioButton
            | Role::RadioMenuItem
            | Role::ToggleButton
            | Role::Switch
    );
    if toggle_role && !actions.is_empty() {
        c.insert(Capability::Toggle);
    }
    if act(&[
        "click",
        "press",
        "activate",
        "jump",
        "open",
        "invoke",
        "showmenu",
        "show menu",
    ]) {
        c.insert(Capability::Press);
    }
    if act(&["toggle"]) {
        c.insert(Capability::Toggle);
    }
    if act(&[
        "expand or contract",
        "expand",
        "collapse",
        "expand or collapse",
        "open or close",
    ]) || s.has(st::EXPANDABLE)
    {
        c.insert(Capability::Expand);
    }
    if ifaces.has(Ifaces::SELECTION)
        || s.has(st::SELECTABLE)
        || act(&["select"])
        || matches!(role, Role::ComboBox | Role::List | Role::TabList)
    {
        c.insert(Capability::Select);
    }
    let editable =
        ifaces.has(Ifaces::EDITABLE_TEXT) && (s.has(st::EDITABLE) || !s.has(st::READ_ONLY));
    if editable && !s.has(st::READ_ONLY) {
        c.insert(Capability::SetText);
        c.insert(Capability::TypeText);
    }
    if ifaces.has(Ifaces::VALUE)
        && !s.has(st::READ_ONLY)
        && matches!(role, Role::Slider | Role::SpinButton | Role::ScrollBar)
    {
        c.insert(Capability::SetValue);
    }
    if matches!(role, Role::ScrollPane | Role::ScrollBar) || act(&["scroll"]) {
        c.insert(Capability::Scroll);
    }
    if s.has(st::FOCUSABLE) {
        c.insert(Capability::Focus);
    }
    // A password field has Text, but its text is never read: it does not offer what
    // read_text refuses.
    if ifaces.has(Ifaces::TEXT) && role != Role::PasswordText {
        c.insert(Capability::ReadText);
    }
    if has_box {
        c.insert(Capability::Click);
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_said_twice_with_its_mnemonic_is_said_once() {
        for (raw, want) in [
            ("_Rename Rename", "Rename"),
            ("Replace _All Replace All", "Replace All"),
            ("Cancel Cancel", "Cancel"),
            ("Save As", "Save As"),
            ("New New York", "New New York"),
            ("_Open", "_Open"),
        ] {
            assert_eq!(clean_name(raw.to_string()), want);
        }
        assert_eq!(
            label_from(vec!["_Retry".into(), "Retry".into()]).as_deref(),
            Some("Retry")
        );
    }

    #[test]
    fn role_table_matches_atspi_numbering() {
        assert_eq!(ROLES.len(), 130);
        assert_eq!(map_role(23), ("frame".to_string(), Role::Window));
        assert_eq!(map_role(43).1, Role::Button);
        assert_eq!(map_role(75).1, Role::Application);
        assert_eq!(map_role(95).1, Role::Document);
        assert_eq!(map_role(129).0, "push-button-menu");
        assert_eq!(map_role(500), ("role-500".to_string(), Role::Unknown));
        assert_eq!(ROLES[role::PASSWORD_TEXT as usize].0, "password-text");
        assert_eq!(ROLES[role::STATIC as usize].0, "static");
        assert_eq!(ROLES[role::ENTRY as usize].0, "entry");
        assert_eq!(ROLES[role::TOOL_TIP as usize].0, "tool-tip");
    }

    #[test]
    fn names_lose_class_names_and_surrounding_blanks() {
        assert_eq!(clean_name("GtkMenuButton".into()), "");
        assert_eq!(clean_name("Select All      ".into()), "Select All");
        assert_eq!(clean_name(" Find ".into()), "Find");
        assert_eq!(clean_name("Save As…".into()), "Save As…");
        assert_eq!(clean_name("   ".into()), "");
        assert_eq!(label_from(vec!["GtkImage".into()]), None);
        assert!(is_gtk4_type_name("EditorSourceView", role::TEXT));
        assert!(is_gtk4_type_name("EditorPage", role::FILLER));
        assert!(!is_gtk4_type_name("EditorPage", role::LABEL));
        assert!(!is_gtk4_type_name("Save As", role::PANEL));
        assert!(!is_gtk4_type_name("Open", role::PANEL));
        assert!(!is_gtk4_type_name("USB", role::PANEL));
        assert_eq!(
            label_from(vec![" Find ".into(), "Name:".into()]).as_deref(),
            Some("Find Name")
        );
    }

    #[test]
    fn derived_states() {
        let bits = |ns: &[u32]| States(ns.iter().fold(0u64, |a, n| a | (1 << n)));
        let s = map_states(bits(&[st::EXPANDABLE, st::ENABLED, st::SENSITIVE]), 35);
        assert!(s.contains(StateFlag::Collapsed) && s.contains(StateFlag::Hidden));
        assert!(!s.contains(StateFlag::Disabled));
        let s = map_states(bits(&[st::SHOWING, st::EXPANDABLE, st::EXPANDED]), 35);
        assert!(s.contains(StateFlag::Expanded) && !s.contains(StateFlag::Collapsed));
        assert!(s.contains(StateFlag::Disabled) && !s.contains(StateFlag::Hidden));
        assert!(map_states(bits(&[st::SHOWING]), role::PASSWORD_TEXT).contains(StateFlag::Password));
    }

    #[test]
    fn a_password_field_does_not_offer_its_text() {
        let ifaces = Ifaces::from_names(&["org.a11y.atspi.Text", "org.a11y.atspi.EditableText"]);
        let s = States(1 << st::EDITABLE);
        let c = capabilities(Role::PasswordText, s, ifaces, &[], true);
        assert!(!c.contains(Capability::ReadText) && c.contains(Capability::SetText));
    }

    #[test]
    fn capabilities_from_evidence() {
        let s = States(1 << st::FOCUSABLE);
        let c = capabilities(Role::Button, s, Ifaces::ACTION, &["click".into()], true);
        assert!(
            c.contains(Capability::Press)
                && c.contains(Capability::Focus)
                && c.contains(Capability::Click)
        );
        let c = capabilities(
            Role::CheckBox,
            States(0),
            Ifaces::ACTION,
            &["click".into()],
            false,
        );
        assert!(c.contains(Capability::Toggle) && !c.contains(Capability::Click));
        let text = Ifaces::from_names(&["org.a11y.atspi.Text", "org.a11y.atspi.EditableText"]);
        let c = capabilities(Role::Text, States(1 << st::EDITABLE), text, &[], true);
        assert!(c.contains(Capability::SetText) && c.contains(Capability::ReadText));
        let ro = capabilities(Role::Text, States(1 << st::READ_ONLY), text, &[], true);
        assert!(!ro.contains(Capability::SetText));
        let v = capabilities(Role::Slider, States(0), Ifaces::VALUE, &[], true);
        assert!(v.contains(Capability::SetValue));
    }
}
