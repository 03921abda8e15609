//! Pixels and prints of a page: `Page.captureScreenshot` of the viewport, decoded to the RGB that core's
//! [`RawImage`] carries, with the screen rectangle the image shows (the same mapping as node
//! bounds, so image coordinates in act steps land where the outline says). Scaling, encoding
//! and OCR are the vision crate's. `print_pdf` is `Page.printToPDF`, for `save_pdf`.

use serde::{Deserialize, Serialize};
use uidriver_core::{Deadline, RawImage};

use crate::error::{CdpError, CdpResult};
use crate::extract::Viewport;
use crate::page::Page;
use crate::protocol::Command;

/// `Page.captureScreenshot`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CaptureScreenshot {
    format: &'static str,
    from_surface: bool,
}
#[derive(Deserialize)]
struct Screenshot {
    data: String,
}
impl Command for CaptureScreenshot {
    const METHOD: &'static str = "Page.captureScreenshot";
    type Output = Screenshot;
}

/// Captures the page's viewport. The page renders itself (another window cannot cover it), so
/// the image is never marked as possibly occluded.
pub async fn capture(page: &Page, headless: bool, deadline: Deadline) -> CdpResult<RawImage> {
    let vp: [f64; 9] = serde_json::from_value(
        page.eval_value(
            "[innerWidth, innerHeight, scrollX, scrollY, devicePixelRatio, screenX, screenY, outerWidth, outerHeight]",
            deadline,
        )
        .await?,
    )
    .map_err(|source| CdpError::Decode {
        method: "viewport",
        source,
    })?;
    let shot = page
        .send(
            &CaptureScreenshot {
                format: "png",
                from_surface: true,
            },
            deadline,
        )
        .await?;
    let png = base64_decode(&shot.data)
        .ok_or_else(|| CdpError::PageScript("the screenshot is not valid base64".into()))?;
    let screen = Viewport::from_vp(&vp, headless).to_screen(0.0, 0.0, vp[0], vp[1]);
    tokio::task::spawn_blocking(move || uidriver_vision::decode_png(&png, screen))
        .await
        .map_err(|e| CdpError::PageScript(format!("decoding the screenshot: {e}")))?
        .map_err(|e| CdpError::PageScript(format!("the screenshot is not a PNG: {e}")))
}

/// `Page.printToPDF`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PrintToPdf {
    print_background: bool,
    prefer_css_page_size: bool,
}
#[derive(Deserialize)]
struct Printed {
    data: String,
}
impl Command for PrintToPdf {
    const METHOD: &'static str = "Page.printToPDF";
    type Output = Printed;
}

/// The page printed as PDF (print media; the page's own `@page` size when it sets one, else
/// Letter), its backgrounds kept so it looks as on screen. Headless Chromium only: a headed
/// browser answers "PrintToPDF is not implemented".
pub async fn print_pdf(page: &Page, deadline: Deadline) -> CdpResult<Vec<u8>> {
    let printed = page
        .send(
            &PrintToPdf {
                print_background: true,
                prefer_css_page_size: true,
            },
            deadline,
        )
        .await?;
    base64_decode(&printed.data)
        .ok_or_else(|| CdpError::PageScript("the PDF is not valid base64".into()))
}

/// Standard base64 (with padding) to bytes; None on a bad character. CDP sends screenshots
/// this way; one small decoder saves a dependency.
pub(crate) fn base64_decode(s: &str) -> Option<Vec<u8>> {
    fn val(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let bytes: Vec<u8> = s.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    let trimmed = bytes
        .strip_suffix(b"==")
        .or_else(|| bytes.strip_suffix(b"="))
        .unwrap_or(&bytes);
    let mut out = Vec::with_capacity(trimmed.len() * 3 / 4);
    for chunk in trimmed.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= val(c)? << (18 - 6 * i);
        }
        let b = n.to_be_bytes();
        out.extend_from_slice(&b[1..chunk.len()]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_known_values() {
        assert_eq!(base64_decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64_decode("aGk=").unwrap(), b"hi");
        assert_eq!(base64_decode("YWJj").unwrap(), b"abc");
        assert_eq!(base64_decode("").unwrap(), b"");
        assert!(base64_decode("a*==").is_none());
    }
}
