//! The `DOM` domain: the node at a point, JS handles for nodes and facts about them, files put
//! on file inputs; and `Accessibility.getFullAXTree`, the reference the benchmark compares the
//! walker against.

use serde::{Deserialize, Serialize};

use super::{Empty, RemoteObject};

/// `DOM.getNodeForLocation`: the node hit at a viewport point (frames included).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetNodeForLocation {
    /// CSS pixels of the main frame's viewport.
    pub x: i32,
    /// CSS pixels.
    pub y: i32,
    /// Hit-test inside user-agent shadow trees (inputs); false gives the host element.
    pub include_user_agent_shadow_dom: bool,
    /// Whether elements with `pointer-events: none` count (false: as the pointer sees it).
    pub ignore_pointer_events_none: bool,
}
/// Reply of `DOM.getNodeForLocation`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeForLocation {
    /// The node.
    pub backend_node_id: i64,
}
command!(
    GetNodeForLocation,
    "DOM.getNodeForLocation",
    NodeForLocation
);

/// `DOM.resolveNode`: a JS handle for a backend node.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolveNode {
    /// The node.
    pub backend_node_id: i64,
    /// The world to make the handle in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution_context_id: Option<i64>,
}
/// Reply of `DOM.resolveNode`.
#[derive(Debug, Deserialize)]
pub struct Resolved {
    /// The handle.
    pub object: RemoteObject,
}
command!(ResolveNode, "DOM.resolveNode", Resolved);

/// `DOM.describeNode`: facts about the node of a JS handle (for a frame owner, its frame).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribeNode<'a> {
    /// The handle.
    pub object_id: &'a str,
}
/// Reply of `DOM.describeNode`.
#[derive(Debug, Deserialize)]
pub struct Described {
    /// The node.
    pub node: DescribedNode,
}
/// The part of a `DOM.Node` we read.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribedNode {
    /// For `iframe` and `frame` elements: the frame they show.
    #[serde(default)]
    pub frame_id: Option<String>,
}
command!(DescribeNode<'_>, "DOM.describeNode", Described);

/// `DOM.setFileInputFiles`: the files of an `<input type=file>` (Chromium fires its `input`
/// and `change` events), named by a JS handle or, for a file chooser, by its backend node.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetFileInputFiles<'a> {
    /// Absolute paths, read by the browser.
    pub files: &'a [String],
    /// The input's handle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_id: Option<&'a str>,
    /// Or its backend node (from `Page.fileChooserOpened`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend_node_id: Option<i64>,
}
command!(SetFileInputFiles<'_>, "DOM.setFileInputFiles", Empty);

/// `Accessibility.getFullAXTree`.
#[derive(Serialize)]
pub struct GetFullAxTree {}
/// Reply of `Accessibility.getFullAXTree`, undecoded (only its size is of interest).
#[derive(Debug, Deserialize)]
pub struct FullAxTree {
    /// The nodes.
    pub nodes: Vec<serde::de::IgnoredAny>,
}
command!(GetFullAxTree, "Accessibility.getFullAXTree", FullAxTree);
