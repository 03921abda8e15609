//! The desktop frames `desktop_screenshot` took, kept in a small ring so `desktop_input` finds
//! the one its coordinates are pixels of. Frames are not states: they belong to no root.

use std::collections::VecDeque;
use std::sync::Arc;

use uidriver_core::{ImageInfo, ScreenFrame};

/// Frames kept for input.
const FRAMES: usize = 16;

/// One screenshot and the layout it was taken with.
pub(crate) struct Frame {
    /// Its number (`fN`).
    pub(crate) id: u64,
    /// The image a model was sent, mapped to screen pixels.
    pub(crate) image: ImageInfo,
    /// The windows on screen when it was taken.
    pub(crate) layout: ScreenFrame,
}

/// The ring of recent frames.
#[derive(Default)]
pub(crate) struct Frames {
    next: u64,
    ring: VecDeque<Arc<Frame>>,
}

impl Frames {
    /// Keeps a new frame under the next number, forgetting the oldest beyond [`FRAMES`].
    pub(crate) fn record(&mut self, image: ImageInfo, layout: ScreenFrame) -> Arc<Frame> {
        self.next += 1;
        let frame = Arc::new(Frame {
            id: self.next,
            image,
            layout,
        });
        self.ring.push_back(frame.clone());
        while self.ring.len() > FRAMES {
            self.ring.pop_front();
        }
        frame
    }

    /// Frame `id`, while it is kept.
    pub(crate) fn get(&self, id: u64) -> Option<Arc<Frame>> {
        self.ring.iter().find(|f| f.id == id).cloned()
    }
}
