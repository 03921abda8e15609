//! `uidriver doctor`: every environment check, each failure with its fix. Exit 0 when the
//! desktop backend can work; 3 otherwise.

use std::time::Duration;

use uidriver_core::Check;

use super::{exit, say};

/// Chromium: the binary exists and answers `--version`.
async fn chromium() -> Check {
    let path = uidriver_backend_cdp::CdpConfig::default().chromium;
    let out = tokio::time::timeout(
        Duration::from_secs(10),
        tokio::process::Command::new(&path)
            .arg("--version")
            .kill_on_drop(true)
            .output(),
    )
    .await;
    match out {
        Ok(Ok(o)) if o.status.success() => Check::pass(
            "chromium",
            String::from_utf8_lossy(&o.stdout).trim().to_string(),
        ),
        _ => Check::fail(
            "chromium",
            format!("{} is missing or does not run", path.display()),
            "apt-get install --no-install-recommends chromium",
        ),
    }
}

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
    let config = uidriver_backend_linux::LinuxConfig::from_env();
    let mut checks = uidriver_backend_linux::doctor::diagnose(&config).await;
    checks.push(chromium().await);
    checks.push(tesseract().await);
    let mut essential_failed = false;
    for c in &checks {
        let mark = if c.ok { "ok  " } else { "FAIL" };
        say(&format!("{mark} {:<24} {}", c.name, c.detail));
        if let Some(f) = &c.fix {
            say(&format!("     {:<24} fix: {f}", ""));
        }
        if !c.ok
            && matches!(
                c.name.as_str(),
                "display" | "session bus" | "accessibility bus"
            )
        {
            essential_failed = true;
        }
    }
    if essential_failed {
        exit::UNAVAILABLE
    } else {
        exit::OK
    }
}
