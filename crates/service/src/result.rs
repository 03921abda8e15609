//! What every tool returns: the text a model reads, the same facts as structured JSON, images,
//! and the error flag. MCP, the daemon and the CLI all carry this one value unchanged, which is
//! what makes their answers identical.

use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use uidriver_core::Error;

/// An image attached to a result (PNG, base64).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// MIME type (`image/png`).
    pub mime_type: String,
    /// Base64 data.
    pub data: String,
}

impl ImageContent {
    /// Wraps PNG bytes.
    pub fn png(bytes: &[u8]) -> Self {
        ImageContent {
            mime_type: "image/png".into(),
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
        }
    }
}

/// One tool result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// What the model reads.
    pub text: String,
    /// The same facts as fields.
    pub structured: Value,
    /// Images (observations in visual or fused mode, screenshots).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ImageContent>,
    /// Whether the call failed.
    #[serde(default)]
    pub is_error: bool,
}

impl ToolResult {
    /// A successful result; `structured` is the tool's typed output (the registry's output
    /// schema is generated from the same type).
    pub fn ok<T: Serialize>(text: String, structured: &T) -> Self {
        ToolResult {
            text,
            structured: serde_json::to_value(structured)
                .unwrap_or_else(|e| json!({ "serializationError": e.to_string() })),
            images: vec![],
            is_error: false,
        }
    }

    /// A failed call: the catalogued error in both text and structure.
    pub fn error(e: &Error) -> Self {
        ToolResult {
            text: error_text(e),
            structured: json!({ "error": e }),
            images: vec![],
            is_error: true,
        }
    }

    /// Adds an image.
    pub fn with_image(mut self, png: &[u8]) -> Self {
        self.images.push(ImageContent::png(png));
        self
    }
}

/// The text form of an error: code, message, whether input was delivered, and the hint.
pub fn error_text(e: &Error) -> String {
    let delivery = match e.delivery {
        uidriver_core::Delivery::Delivered => "input was delivered",
        uidriver_core::Delivery::NotDelivered => "nothing was sent",
        uidriver_core::Delivery::Maybe => "input may have been delivered: do not replay blindly",
    };
    format!(
        "error {}: {}\n{delivery}\nhint: {}",
        e.code, e.message, e.hint
    )
}

impl From<Error> for ToolResult {
    fn from(e: Error) -> Self {
        ToolResult::error(&e)
    }
}
