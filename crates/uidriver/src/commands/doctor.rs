//! `uidriver doctor`: every environment check, each failure with its fix: each platform's
//! checks through the port's `Doctor` (`backends::doctors`), then OCR. Exit 0 when no platform
//! says an essential check failed; 3 otherwise.

use uidriver_core::Check;

use super::{exit, say};

/// Tesseract with English data, for OCR of poor trees and windows without accessibility.
async fn tesseract() -> Check {
    match uidriver_vision::probe(&uidriver_vision::OcrOptions::default()).await {
        Ok(v) => Check::pass("tesseract", v),
        Err(e) => {
            let e = uidriver_core::Error::from(e);
            Check::fail("tesseract", e.message, e.hint)
        }
    }
}

pub async fn run() -> u8 {
    let mut checks = Vec::new();
    let mut essential = Vec::new();
    for doctor in crate::backends::doctors() {
        for c in doctor.checks().await {
            if !c.ok && doctor.essential(&c.name) {
                essential.push(c.name.clone());
            }
            checks.push(c);
        }
    }
    checks.push(tesseract().await);
    for c in &checks {
        let mark = if c.ok { "ok  " } else { "FAIL" };
        say(&format!("{mark} {:<24} {}", c.name, c.detail));
        if let Some(f) = &c.fix {
            say(&format!("     {:<24} fix: {f}", ""));
        }
    }
    if !essential.is_empty() {
        exit::UNAVAILABLE
    } else {
        exit::OK
    }
}
