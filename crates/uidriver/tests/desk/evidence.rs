//! Checks independent of uidriver that the live tests of several display servers share: a
//! file's bytes, the calculator's display read by a separate AT-SPI client (python3-gi), a
//! tool result's image read by tesseract, and a scratch directory per test.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};
use uidriver_service::{Service, ToolResult};

use super::{act, r, search, step_outcomes, Desk};

/// The system python, which has python3-gi (an AT-SPI client independent of uidriver).
pub const PYTHON: &str = "/usr/bin/python3";

/// A fresh directory of the test's own, named by `label` and this process.
pub fn scratch(label: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("uidriver-{label}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// Waits until `path` holds `want` (an app saves asynchronously); what it holds then.
pub async fn file_becomes(path: &Path, want: &str) -> String {
    let t0 = Instant::now();
    loop {
        let now = std::fs::read_to_string(path).unwrap_or_default();
        if now == want || t0.elapsed() > Duration::from_secs(10) {
            return now;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The first image of a tool result, written to `dir/name.png`.
pub fn save_image(res: &uidriver_service::ToolResult, dir: &Path, name: &str) -> PathBuf {
    let img = res.images.first().expect("an image");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&img.data)
        .expect("base64 PNG");
    let p = dir.join(format!("{name}.png"));
    std::fs::write(&p, bytes).expect("write the PNG");
    p
}

/// What tesseract reads in a PNG.
pub fn ocr(png: &Path) -> String {
    let out = std::process::Command::new("tesseract")
        .arg(png)
        .arg("-")
        .output()
        .expect("tesseract");
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// The calculator's display as a separate AT-SPI client reads it (the first editable text of
/// gnome-calculator), never through uidriver.
pub fn calculator_display(d: &Desk) -> String {
    let script = r#"
import gi, sys
gi.require_version('Atspi', '2.0')
from gi.repository import Atspi
d = Atspi.get_desktop(0)
for i in range(d.get_child_count()):
    app = d.get_child_at_index(i)
    if app is None or app.get_name() != 'gnome-calculator':
        continue
    stack = [app]
    while stack:
        o = stack.pop(0)
        if o.get_role() == Atspi.Role.TEXT and o.get_state_set().contains(Atspi.StateType.EDITABLE):
            print(Atspi.Text.get_text(o, 0, Atspi.Text.get_character_count(o)))
            sys.exit(0)
        for k in range(o.get_child_count()):
            c = o.get_child_at_index(k)
            if c is not None:
                stack.append(c)
"#;
    let out = d
        .command(PYTHON)
        .args(["-c", script])
        .output()
        .expect("python3");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The button named exactly `label` in `state`.
pub async fn button(svc: &Service, state: &str, label: &str) -> Value {
    search(svc, state, json!({ "role": "button", "text": label }))
        .await
        .into_iter()
        .find(|m| m["name"] == label)
        .unwrap_or_else(|| panic!("no button {label:?} in {state}"))
}

/// Clicks 7, +, 8 and = of gnome-calculator by ref in `state` (one `act_ui`), then waits up
/// to 5 s until its display, read by a separate AT-SPI client, shows 15; the act's answer.
pub async fn calculator_adds_by_clicks(d: &Desk, state: &str) -> ToolResult {
    let svc = &*d.svc;
    let mut clicks = Vec::new();
    for label in ["7", "+", "8", "="] {
        let b = button(svc, state, label).await;
        clicks.push(json!({ "action": "click", "ref": r(&b) }));
    }
    let res = act(svc, state, Value::Array(clicks), json!({})).await;
    assert_eq!(step_outcomes(&res), ["worked"; 4], "{}", res.text);
    let t0 = Instant::now();
    while calculator_display(d) != "15" {
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "7 + 8 shows {:?}\n{}",
            calculator_display(d),
            res.text
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    res
}
