//! Pixels for a state: capture through the backend, scale and encode, OCR, fuse OCR text into
//! the snapshot. The image work itself is `uidriver-vision`'s; this file sequences it under the
//! observation's deadline and turns failures into notes (a missing image never fails a look).

use std::sync::Arc;
use std::time::Instant;

use uidriver_core::{Backend, Deadline, Error, ImageInfo, OcrText, RootInfo, Snapshot};
use uidriver_vision::{encode, fuse, ocr, OcrOptions};

/// Whether the tree says too little to act on without pixels.
pub(crate) fn tree_is_poor(snapshot: &Snapshot) -> bool {
    uidriver_vision::tree_is_poor(snapshot)
}

/// Captures the root, encodes the image, reads its text and fuses the text into `snapshot`.
pub(crate) async fn capture_and_read(
    backend: &dyn Backend,
    info: &RootInfo,
    snapshot: &mut Snapshot,
    max: (u32, u32),
    deadline: Deadline,
) -> Result<(Option<ImageInfo>, Vec<OcrText>), Error> {
    let t0 = Instant::now();
    let raw = Arc::new(backend.capture(info, deadline).await?);
    let t1 = Instant::now();
    let enc_raw = raw.clone();
    let window = info.window_id;
    let image = tokio::task::spawn_blocking(move || encode(&enc_raw, max, window))
        .await
        .map_err(|e| Error::internal(format!("encoding task: {e}")))?
        .map_err(Error::from)?;
    let t2 = Instant::now();
    let timings = &mut snapshot.timings.phases;
    timings.insert("captureMs".into(), ms(t1 - t0));
    timings.insert("encodeMs".into(), ms(t2 - t1));
    let opts = OcrOptions {
        timeout: deadline.remaining(),
        ..OcrOptions::default()
    };
    let lines = match tokio::time::timeout(deadline.remaining(), ocr(&raw, &opts)).await {
        Ok(Ok(r)) => r.lines,
        Ok(Err(e)) => {
            let e = Error::from(e);
            snapshot.notes.push(format!("no OCR: {}", e.message));
            return Ok((Some(image), vec![]));
        }
        Err(_) => {
            snapshot
                .notes
                .push("no OCR: it did not finish before the deadline".into());
            return Ok((Some(image), vec![]));
        }
    };
    snapshot
        .timings
        .phases
        .insert("ocrMs".into(), ms(t2.elapsed()));
    // Screen pixels may include other windows; only a front-most window's text is fused.
    if !raw.maybe_occluded || info.focused {
        let report = fuse(snapshot, &lines);
        if report.picture_only > 0 || report.owned > 0 {
            snapshot.notes.push(format!(
                "OCR: {} lines; {} added to elements, {} picture-only",
                report.lines, report.owned, report.picture_only
            ));
        }
    } else {
        snapshot.notes.push(
            "the image was read from the screen and may include other windows: OCR text not merged"
                .into(),
        );
    }
    Ok((Some(image), lines))
}

fn ms(d: std::time::Duration) -> f64 {
    (d.as_secs_f64() * 1000.0 * 10.0).round() / 10.0
}
