//! uidriver's core: the vocabulary, the state model and the platform port, as data and pure
//! functions. No I/O and no runtime: backends implement [`Backend`], the service drives them.
//!
//! # Layout
//! - `ids`: the public handles [`RootRef`] `@r3`, [`ElementRef`] `@e12`, [`StateId`] `s41`.
//! - `vocab`: closed vocabularies of [`Role`], [`StateFlag`], [`Capability`].
//! - `model`: what a backend returns: [`RootInfo`], [`Node`], [`Snapshot`], [`Evidence`].
//! - `state`, `identity`, `store`: immutable [`State`]s, ref carry-over, the bounded [`StateStore`]
//!   and the [`RootRegistry`].
//! - `lane`: per-resource [`Lanes`] with epochs, and the [`InputLock`].
//! - `outline`, `search`, `diff`: what a model reads: folded outlines, ranked matches, diffs.
//! - `action`, `outcome`: steps and their evidence ([`Outcome`], [`Delivery`]).
//! - `batch`: the one step runner ([`run_batch`]) and the backends' part of it ([`StepDriver`]).
//! - `web`: what a browser keeps beside its pages: [`Download`]s and [`LogEntry`]s.
//! - `error`: the published catalogue ([`ErrorCode`]) and [`Error`].
//! - `backend`: the port ([`Backend`], [`BrowserControl`], [`ScreenControl`], [`Deadline`]).
#![warn(missing_docs)]

pub mod action;
mod action_kind;
pub mod backend;
pub mod batch;
pub mod choose;
pub mod diff;
pub mod error;
pub mod expect;
pub mod identity;
mod ids;
pub mod lane;
pub mod model;
pub mod outcome;
pub mod outline;
pub mod pixels_only;
pub mod search;
pub mod state;
pub mod store;
mod vocab;
pub mod watch;
pub mod web;

#[cfg(feature = "testing")]
pub mod testing;

pub use action::{ActionKind, Button, DesktopEvent, KeyChord, Keys, RawStep, Step, Target};
pub use backend::{
    ActRequest, Backend, BrowserControl, Check, Deadline, Doctor, LaunchRequest, Navigation,
    ObserveRequest, ScreenControl, ScreenFrame, ScreenInput,
};
pub use batch::{cancellable, run_batch, StepDriver};
pub use error::{Error, ErrorCode, Result};
pub use expect::Expect;
pub use ids::{ElementRef, IdParseError, RootRef, StateId};
pub use lane::{InputLock, LaneGuard, Lanes};
pub use model::{
    Bounds, Evidence, ImageInfo, Node, NumericValue, OcrText, RawImage, ResourceKey, RootInfo,
    RootKind, Snapshot, TextSlice, TextStyle, Timings, Truncation,
};
pub use outcome::{
    Delivery, DeliveryEvidence, DeliveryMethod, ExpectVerdict, Grounding, GroundingMethod, Outcome,
    StepReport, Verification, VerificationMethod,
};
pub use state::{NewState, State};
pub use store::{RootRegistry, StateStore};
pub use vocab::{CapSet, Capability, Role, StateFlag, StateSet};
pub use web::{Download, DownloadState, LogEntry, LogKind};
