//! `uidriver tools` and `uidriver errors`: the registry and the catalogue, printed.

use std::io::Write;

use uidriver_core::ErrorCode;
use uidriver_service::TOOLS;

use super::exit;

pub fn list(as_json: bool, markdown: bool) -> u8 {
    let mut out = std::io::stdout().lock();
    if markdown {
        let _ = write!(out, "{}", uidriver_service::tools_markdown());
    } else if as_json {
        let tools: Vec<_> = TOOLS.iter().map(|t| t.to_json()).collect();
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&tools).unwrap_or_default()
        );
    } else {
        for t in TOOLS {
            let _ = writeln!(out, "{:<18} {}", t.name, t.description);
        }
    }
    exit::OK
}

pub fn errors() -> u8 {
    let _ = write!(
        std::io::stdout().lock(),
        "{}",
        ErrorCode::catalogue_markdown()
    );
    exit::OK
}
