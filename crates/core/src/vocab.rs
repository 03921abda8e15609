//! The closed vocabularies every backend maps into: roles, states and capabilities.
//!
//! A backend never invents a token. A platform role that has no counterpart maps to
//! [`Role::Unknown`], which is a positive statement ("this is something we do not name"),
//! distinct from a failed read (which is carried by [`crate::Evidence::Unknown`]).

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

macro_rules! vocabulary {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $wire:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::serde::Serialize, ::serde::Deserialize)]
        pub enum $name {
            $($(#[$vdoc])* #[serde(rename = $wire)] $variant),+
        }

        // A plain `enum` of the wire spellings: the derived schema is a `oneOf` with one
        // described `const` per member, and the tool list a model reads every turn carried the
        // role list that way twice (search_ui's schema was 3,225 cl100k tokens; ~480 now).
        // What each member means stays in these docs.
        impl ::schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({ "type": "string", "enum": [$($wire),+] })
            }
        }

        impl $name {
            /// Every member, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// The wire spelling (kebab-case).
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $wire),+ }
            }
            /// Parses the wire spelling.
            pub fn from_wire(s: &str) -> Option<Self> {
                match s { $($wire => Some($name::$variant),)+ _ => None }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
pub(crate) use vocabulary;

vocabulary!(
    /// The canonical kind of a control.
    Role {
        /// An application (the parent of its windows).
        Application = "application",
        /// A top-level window or frame.
        Window = "window",
        /// A dialog window.
        Dialog = "dialog",
        /// An alert or message dialog.
        Alert = "alert",
        /// A document or web area.
        Document = "document",
        /// A generic container (panel, filler).
        Pane = "pane",
        /// A named grouping of controls.
        Group = "group",
        /// A scrollable viewport.
        ScrollPane = "scroll-pane",
        /// A split container.
        SplitPane = "split-pane",
        /// A tool bar.
        Toolbar = "toolbar",
        /// A status bar.
        StatusBar = "status-bar",
        /// A menu bar.
        MenuBar = "menu-bar",
        /// A menu (popup or submenu).
        Menu = "menu",
        /// A menu item.
        MenuItem = "menu-item",
        /// A checkable menu item.
        CheckMenuItem = "check-menu-item",
        /// A radio menu item.
        RadioMenuItem = "radio-menu-item",
        /// A separator.
        Separator = "separator",
        /// A push button.
        Button = "button",
        /// A toggle button.
        ToggleButton = "toggle-button",
        /// A check box.
        CheckBox = "check-box",
        /// A radio button.
        RadioButton = "radio-button",
        /// An on/off switch.
        Switch = "switch",
        /// A hyperlink.
        Link = "link",
        /// Editable or selectable text (entry, text view, text area).
        Text = "text",
        /// A password entry; its value is always redacted.
        PasswordText = "password-text",
        /// Static text.
        Label = "label",
        /// A heading.
        Heading = "heading",
        /// A paragraph of text.
        Paragraph = "paragraph",
        /// An image or icon.
        Image = "image",
        /// A combo box or drop-down.
        ComboBox = "combo-box",
        /// A list box.
        List = "list",
        /// An item of a list.
        ListItem = "list-item",
        /// A tree.
        Tree = "tree",
        /// An item of a tree.
        TreeItem = "tree-item",
        /// A table or grid.
        Table = "table",
        /// A table row.
        Row = "row",
        /// A table cell.
        Cell = "cell",
        /// A column header.
        ColumnHeader = "column-header",
        /// A row header.
        RowHeader = "row-header",
        /// A tab strip.
        TabList = "tab-list",
        /// A tab.
        Tab = "tab",
        /// The panel shown by a tab.
        TabPanel = "tab-panel",
        /// A slider.
        Slider = "slider",
        /// A spin button.
        SpinButton = "spin-button",
        /// A progress bar or level bar.
        ProgressBar = "progress-bar",
        /// A scroll bar.
        ScrollBar = "scroll-bar",
        /// A tool tip.
        Tooltip = "tooltip",
        /// A drawing area without accessible content.
        Canvas = "canvas",
        /// A calendar.
        Calendar = "calendar",
        /// A color chooser.
        ColorChooser = "color-chooser",
        /// A notification.
        Notification = "notification",
        /// A form.
        Form = "form",
        /// A landmark or section of a page.
        Section = "section",
        /// A terminal.
        Terminal = "terminal",
        /// Text found only in pixels (OCR); act on it by its box.
        PictureOnly = "picture-only",
        /// Something the platform names but this vocabulary does not.
        Unknown = "unknown",
    }
);

vocabulary!(
    /// One state token; a node carries a set of them.
    StateFlag {
        /// Has keyboard focus.
        Focused = "focused",
        /// Can take keyboard focus.
        Focusable = "focusable",
        /// Text can be edited.
        Editable = "editable",
        /// Multi-line text.
        MultiLine = "multi-line",
        /// Read-only.
        ReadOnly = "read-only",
        /// Checked or on.
        Checked = "checked",
        /// Partially checked.
        Mixed = "mixed",
        /// A toggle that is pressed.
        Pressed = "pressed",
        /// Selected.
        Selected = "selected",
        /// Can be selected.
        Selectable = "selectable",
        /// Expanded.
        Expanded = "expanded",
        /// Can expand but is collapsed.
        Collapsed = "collapsed",
        /// Disabled (not enabled or not sensitive).
        Disabled = "disabled",
        /// Not showing on screen.
        Hidden = "hidden",
        /// A modal surface.
        Modal = "modal",
        /// Holds a secret; the value is redacted.
        Password = "password",
        /// Required input.
        Required = "required",
        /// Invalid input.
        Invalid = "invalid",
        /// Busy or loading.
        Busy = "busy",
        /// A visited link.
        Visited = "visited",
        /// The active window or item.
        Active = "active",
        /// The default button.
        Default = "default",
        /// More than one item can be selected.
        MultiSelectable = "multi-selectable",
    }
);

vocabulary!(
    /// What an agent can do with a node, derived from platform evidence.
    Capability {
        /// Activate it (press, click, open).
        Press = "press",
        /// Toggle it (check / uncheck).
        Toggle = "toggle",
        /// Choose among options or select it.
        Select = "select",
        /// Replace its text.
        SetText = "set-text",
        /// Insert text at the caret.
        TypeText = "type-text",
        /// Set a numeric value.
        SetValue = "set-value",
        /// Expand or collapse it.
        Expand = "expand",
        /// Scroll it.
        Scroll = "scroll",
        /// Give it keyboard focus.
        Focus = "focus",
        /// Read its text by range.
        ReadText = "read-text",
        /// Click it by position (it has a box on screen).
        Click = "click",
    }
);

/// A set of [`StateFlag`]s stored as bits; serialized as a list of wire names.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
pub struct StateSet(u32);

/// A set of [`Capability`]s stored as bits; serialized as a list of wire names.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
pub struct CapSet(u32);

macro_rules! bitset {
    ($set:ident, $item:ident) => {
        impl $set {
            /// The empty set.
            pub const EMPTY: $set = $set(0);
            /// Adds a member.
            pub fn insert(&mut self, f: $item) {
                self.0 |= 1 << (f as u32);
            }
            /// Removes a member.
            pub fn remove(&mut self, f: $item) {
                self.0 &= !(1 << (f as u32));
            }
            /// Adds a member (builder style).
            pub fn with(mut self, f: $item) -> Self {
                self.insert(f);
                self
            }
            /// Whether a member is present.
            pub fn contains(self, f: $item) -> bool {
                self.0 & (1 << (f as u32)) != 0
            }
            /// Whether the set is empty.
            pub fn is_empty(self) -> bool {
                self.0 == 0
            }
            /// Members in vocabulary order.
            pub fn iter(self) -> impl Iterator<Item = $item> {
                $item::ALL
                    .iter()
                    .copied()
                    .filter(move |f| self.contains(*f))
            }
        }

        impl FromIterator<$item> for $set {
            fn from_iter<I: IntoIterator<Item = $item>>(iter: I) -> Self {
                let mut s = $set::EMPTY;
                for f in iter {
                    s.insert(f);
                }
                s
            }
        }

        impl fmt::Debug for $set {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_list().entries(self.iter()).finish()
            }
        }

        impl Serialize for $set {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.iter())
            }
        }

        impl<'de> Deserialize<'de> for $set {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                Ok(Vec::<$item>::deserialize(d)?.into_iter().collect())
            }
        }

        impl JsonSchema for $set {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($set).into()
            }
            fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
                <Vec<$item>>::json_schema(g)
            }
        }
    };
}

bitset!(StateSet, StateFlag);
bitset!(CapSet, Capability);

impl Role {
    /// Roles whose only job is to contain others; unnamed ones are folded away in outlines.
    pub fn is_container(self) -> bool {
        matches!(
            self,
            Role::Pane
                | Role::Group
                | Role::Section
                | Role::Unknown
                | Role::ScrollPane
                | Role::SplitPane
                | Role::Form
        )
    }

    /// Roles whose text is the content itself (shown as the line's text).
    pub fn is_textual(self) -> bool {
        matches!(
            self,
            Role::Label | Role::Heading | Role::Paragraph | Role::PictureOnly
        )
    }

    /// Roles that are surfaces of their own.
    pub fn is_modal_surface(self) -> bool {
        matches!(self, Role::Dialog | Role::Alert)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for r in Role::ALL {
            assert_eq!(Role::from_wire(r.as_str()), Some(*r));
            assert!(seen.insert(r.as_str()));
        }
        assert!(StateFlag::ALL.len() <= 32 && Capability::ALL.len() <= 32);
        assert_eq!(Role::from_wire("no-such-role"), None);
    }

    #[test]
    fn sets_serialize_as_lists() {
        let s = StateSet::EMPTY
            .with(StateFlag::Focused)
            .with(StateFlag::Editable);
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"["focused","editable"]"#
        );
        let back: StateSet = serde_json::from_str(r#"["editable","focused"]"#).unwrap();
        assert_eq!(back, s);
        assert!(serde_json::from_str::<StateSet>(r#"["flying"]"#).is_err());
    }
}
