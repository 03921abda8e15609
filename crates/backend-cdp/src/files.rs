//! The `setFiles` step: files put on an `<input type=file>` through `DOM.setFileInputFiles`
//! (the browser reads them and fires the input's `input` and `change` events), found from the
//! element, a label of it, or a control whose press opens the file chooser. A chooser is
//! intercepted (`Page.setInterceptFileChooserDialog`) and answered with the same files, so no
//! OS dialog ever opens. The step is verified by reading the input's `files` back.
//!
//! Paths were checked by core (absolute, readable regular files) before this runs.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::broadcast::error::RecvError;
use uidriver_core::action::Button;
use uidriver_core::{
    Delivery, DeliveryMethod, ElementRef, Error, ErrorCode, Result, StepReport, VerificationMethod,
};

use crate::act::{Actor, Elem};
use crate::error::maybe_delivered;
use crate::page::Page;
use crate::protocol::{
    CallFunctionOn, FileChooserOpened, ResolveNode, SetFileInputFiles, SetInterceptFileChooser,
};
use crate::verify::verify;

/// Finds the file input an element stands for (see the script).
const FILE_INPUT_JS: &str = include_str!("js/file_input.js");
/// Reads an input's file names, `multiple` and `disabled`.
const FILES_OF_JS: &str = include_str!("js/files_of.js");
/// Longest wait for a chooser after the press that should open it (Chromium reports it within
/// the press's own event dispatch; measured here well under 100 ms).
const CHOOSER_WAIT: Duration = Duration::from_secs(3);

impl Actor<'_> {
    /// Puts `paths` on the file input `t` stands for.
    pub(crate) async fn set_files(
        &self,
        r: &mut StepReport,
        t: ElementRef,
        paths: &[PathBuf],
    ) -> Result<()> {
        let el = self.element(r, t).await?;
        let files: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        let page = self.page_of(&el);
        match self.file_input(page, &el).await? {
            Some(input) => {
                let r2 = self.fill_input(r, page, &input, &files).await;
                page.release(&input).await;
                r2
            }
            None => self.through_chooser(r, &el, &files).await,
        }
    }

    /// The handle of the file input `el` stands for, if it names one without a press.
    async fn file_input(&self, page: &Page, el: &Elem) -> Result<Option<String>> {
        let ev = page
            .send(
                &CallFunctionOn {
                    function_declaration: FILE_INPUT_JS,
                    object_id: Some(&el.obj),
                    arguments: vec![],
                    return_by_value: false,
                    ..CallFunctionOn::default()
                },
                self.deadline,
            )
            .await?;
        if let Some(x) = ev.exception_details {
            return Err(Error::internal(x.message()));
        }
        Ok(ev.result.object_id)
    }

    /// Sets the files on a known input, after refusing a disabled one or a second file on a
    /// single one (nothing sent).
    async fn fill_input(
        &self,
        r: &mut StepReport,
        page: &Page,
        input: &str,
        files: &[String],
    ) -> Result<()> {
        let before = page
            .call_on(input, FILES_OF_JS, vec![], self.deadline)
            .await?;
        if before["disabled"].as_bool() == Some(true) {
            return Err(Error::unsupported(
                "the file input is disabled; nothing was sent",
            ));
        }
        check_count(r, before["multiple"].as_bool() == Some(true), files.len())?;
        r.delivery.method = DeliveryMethod::CdpDom;
        r.delivery.delivered = Delivery::Maybe;
        let cmd = SetFileInputFiles {
            files,
            object_id: Some(input),
            backend_node_id: None,
        };
        page.send(&cmd, self.deadline)
            .await
            .map_err(maybe_delivered)?;
        r.delivery.delivered = Delivery::Delivered;
        r.delivery.detail = Some("DOM.setFileInputFiles".into());
        let after = page
            .call_on(input, FILES_OF_JS, vec![], self.deadline)
            .await?;
        verify_names(r, &after, files);
        Ok(())
    }

    /// Presses `el` with file choosers intercepted, and answers the chooser it opens.
    async fn through_chooser(&self, r: &mut StepReport, el: &Elem, files: &[String]) -> Result<()> {
        // Interception belongs to the tab (the top page's session), whichever frame asks.
        let top = self.page;
        let mut events = top.client().events();
        top.send(&SetInterceptFileChooser { enabled: true }, self.deadline)
            .await?;
        let answered = async {
            self.pointer_click(r, el, Button::Left, 1, true).await?;
            let wait = self.deadline.remaining().min(CHOOSER_WAIT);
            let opened = tokio::time::timeout(wait, async {
                loop {
                    match events.recv().await {
                        Ok(ev)
                            if ev.method == "Page.fileChooserOpened"
                                && ev.session_id.as_deref() == Some(top.session()) =>
                        {
                            let p = ev.params.as_deref().map(|p| p.get()).unwrap_or("{}");
                            return serde_json::from_str::<FileChooserOpened>(p).ok();
                        }
                        Ok(_) | Err(RecvError::Lagged(_)) => {}
                        Err(RecvError::Closed) => return None,
                    }
                }
            })
            .await
            .ok()
            .flatten();
            let Some(chooser) = opened else {
                return Err(Error::unsupported(format!(
                    "{} is not a file input or its label, and pressing it opened no file chooser; the press was delivered, no files were set",
                    el.r
                ))
                .with_hint("search_ui for the page's file input (role: textbox or button named like Choose file) and setFiles on it.")
                .delivered(Delivery::Delivered));
            };
            check_count(r, chooser.mode == "selectMultiple", files.len())
                .map_err(|e| e.delivered(Delivery::Delivered))?;
            let node = chooser.backend_node_id.ok_or_else(|| {
                Error::internal("the file chooser named no input").delivered(Delivery::Delivered)
            })?;
            let cmd = SetFileInputFiles {
                files,
                object_id: None,
                backend_node_id: Some(node),
            };
            top.send(&cmd, self.deadline)
                .await
                .map_err(|e| maybe_delivered(e).delivered(Delivery::Delivered))?;
            r.delivery.detail = Some("press, then the file chooser answered".into());
            self.read_chooser_input(r, top, node, files).await
        }
        .await;
        // Off again on every path, so a later chooser of the page behaves as the page expects.
        let _ = top
            .send(&SetInterceptFileChooser { enabled: false }, self.deadline)
            .await;
        answered
    }

    /// Reads back the input a chooser belonged to.
    async fn read_chooser_input(
        &self,
        r: &mut StepReport,
        page: &Page,
        node: i64,
        files: &[String],
    ) -> Result<()> {
        let ctx = page.world_context(self.deadline).await?;
        let resolved = page
            .send(
                &ResolveNode {
                    backend_node_id: node,
                    execution_context_id: Some(ctx),
                },
                self.deadline,
            )
            .await?;
        let Some(obj) = resolved.object.object_id else {
            return Err(Error::new(ErrorCode::StaleRef, "the file input went away")
                .delivered(Delivery::Delivered));
        };
        let after = page.call_on(&obj, FILES_OF_JS, vec![], self.deadline).await;
        page.release(&obj).await;
        verify_names(r, &after?, files);
        Ok(())
    }
}

/// A single-file input takes one file.
fn check_count(r: &StepReport, multiple: bool, n: usize) -> Result<()> {
    if n > 1 && !multiple {
        return Err(Error::invalid(
            &format!("actions[{}].paths", r.index),
            format!(
                "the file input takes one file (no multiple attribute); got {n}, nothing was set"
            ),
        ));
    }
    Ok(())
}

/// Verified when the input holds exactly the files' names, in order.
fn verify_names(r: &mut StepReport, after: &Value, files: &[String]) {
    let names: Vec<&str> = after["names"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let want: Vec<&str> = files
        .iter()
        .map(|f| f.rsplit('/').next().unwrap_or(f))
        .collect();
    verify(
        r,
        VerificationMethod::ReadBack,
        names == want,
        &format!("the input holds {} file(s)", names.len()),
        &format!(
            "the input holds {} file(s), not the {} given",
            names.len(),
            want.len()
        ),
    );
}
