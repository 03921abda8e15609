//! Pixels for a state: capture through the backend, scale and encode, OCR, fuse OCR text into
//! the snapshot. The image work itself is `uidriver-vision`'s; this file sequences it.

use uidriver_core::{Backend, Deadline, Error, ImageInfo, OcrText, RootInfo, Snapshot};

/// Whether the tree says too little to act on without pixels.
pub(crate) fn tree_is_poor(snapshot: &Snapshot) -> bool {
    snapshot.nodes.len() < 3
}

/// Captures the root, encodes the image and reads its text.
pub(crate) async fn capture_and_read(
    backend: &dyn Backend,
    info: &RootInfo,
    _snapshot: &mut Snapshot,
    _max: (u32, u32),
    deadline: Deadline,
) -> Result<(Option<ImageInfo>, Vec<OcrText>), Error> {
    let _raw = backend.capture(info, deadline).await?;
    Err(Error::unsupported("image encoding is not wired yet"))
}
