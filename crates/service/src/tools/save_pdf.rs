//! `save_pdf`: a browser page printed to a PDF file (the backend prints, `BrowserControl::
//! print_pdf`; the path is checked and the file written by `file_out`). It never replaces a
//! file unless asked (`overwrite: true`), and the path is checked before the page is printed,
//! so a refused call has done nothing.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;
use uidriver_core::outline::quote;
use uidriver_core::{Deadline, Error, RootRef};

use crate::file_out::{check_path, write, PageFile};
use crate::{Service, ToolResult};

/// Printing a long page takes a few seconds in headless Chromium; this bounds it.
const DEADLINE: Duration = Duration::from_secs(30);

/// Arguments of `save_pdf`: the page and the file.
pub type Args = PageFile;

/// The structured result of `save_pdf`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    /// The page.
    pub root: RootRef,
    /// The file written.
    pub path: String,
    /// Its size.
    pub bytes: usize,
}

pub(crate) async fn run(svc: &Service, a: Args) -> Result<ToolResult, Error> {
    let path = check_path(&a.path, a.overwrite)?;
    let (r, info) = svc.page_root(Some(a.root), None)?;
    let bc = svc.browser()?;
    let deadline = Deadline::after(DEADLINE);
    // Printing reads the page and changes nothing in it: the lane orders it with other calls
    // on the page, and the epoch stays.
    let guard = svc.lanes.enter(&info.resource).await;
    let pdf = bc.print_pdf(&info, deadline).await;
    drop(guard);
    let pdf = pdf?;
    write(&path, &pdf, a.overwrite, 0o644)?;
    let shown = quote(&a.path, 200);
    Ok(ToolResult::ok(
        format!("saved {r} as PDF to {shown} ({} bytes)\n", pdf.len()),
        &Output {
            root: r,
            path: a.path,
            bytes: pdf.len(),
        },
    ))
}
