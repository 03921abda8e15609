//! uidriver's vision: turns captured pixels into what a model and the frame lease need — scaled
//! PNG images with an exact pixel-to-screen mapping, OCR text with screen boxes, and OCR fused into
//! an accessibility snapshot.
//!
//! It does no X11 and no D-Bus: a backend captures a [`RawImage`](uidriver_core::RawImage) (or a
//! browser hands over a PNG, see [`decode_png`]) and the service calls in here. [`encode`] blocks
//! (run it in `spawn_blocking`); [`ocr`] is async and runs tesseract as a child process with a
//! timeout; [`fuse`] and [`tree_is_poor`] are pure functions over a
//! [`Snapshot`](uidriver_core::Snapshot).
//!
//! # Layout
//! - `encode`: [`encode`] (fit into a size budget, PNG, [`ImageInfo`](uidriver_core::ImageInfo)),
//!   [`fit_size`], [`decode_png`].
//! - `resample`: the pixel arithmetic: area-averaging downscale, grayscale, 2x upscale.
//! - `ocr`: [`ocr`] with [`OcrOptions`] → [`OcrResult`] (words and lines as
//!   [`OcrText`](uidriver_core::OcrText) in screen pixels), and [`probe`] for `doctor`.
//! - `crop`: [`crop`] one region (screen pixels) out of a captured image, [`changed_areas`]
//!   between two captures of it, [`stack`] areas into one image for one OCR.
//! - `fuse`: [`fuse`] OCR lines into a snapshot ([`FuseReport`]), [`insert_children`].
//! - `quality`: [`tree_is_poor`] / [`tree_quality`]: when the pixels must be read at all.
//! - `error`: [`VisionError`] and its one mapping into core's catalogue.
#![warn(missing_docs)]

mod crop;
mod encode;
mod error;
mod fuse;
mod ocr;
mod quality;
mod resample;

pub use crop::{changed_areas, crop, stack};
pub use encode::{decode_png, encode, fit_size, DEFAULT_MAX};
pub use error::VisionError;
pub use fuse::{fuse, insert_children, FuseReport, ENCLOSE_SLACK};
pub use ocr::{ocr, probe, OcrOptions, OcrResult, Upscale, AUTO_UPSCALE_MAX_PIXELS};
pub use quality::{
    tree_is_poor, tree_quality, PoorReason, TreeQuality, MAX_UNLABELED_LEAF_SHARE,
    MIN_CANVAS_SHARE, MIN_SHOWING_NODES,
};
