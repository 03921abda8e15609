//! Live tests of regions with no accessible content (issue 29, item 8): a Qt 5 terminal's
//! screen (qterminal) and a GTK 3 spreadsheet's grid (Gnumeric) take keys but give AT-SPI no
//! children, text or value. The outline says they are pixels only, and typing into them is
//! verified by OCR of the region before and after; each effect is also judged independently (a
//! file the command wrote, the sum the spreadsheet computed in its status bar).

use serde_json::json;
use uidriver_sandbox::testing::live_test as live;
use uidriver_service::Service;

mod desk;
use desk::*;

/// The ref of the outline line that says its element is pixels only, and that line.
async fn pixels_only_region(svc: &Service, root: &str) -> (String, String) {
    let res = call(svc, "observe_ui", json!({ "root": root, "maxLines": 200 })).await;
    let line = res
        .text
        .lines()
        .find(|l| l.contains("(pixels only:"))
        .unwrap_or_else(|| panic!("no region says it is pixels only:\n{}", res.text))
        .trim()
        .to_string();
    let r = line.split_whitespace().next().expect("a ref").to_string();
    (r, line)
}

/// Types `text` (into `target`, or the focused element) in one act on a fresh look at `root`;
/// the step must have worked on the evidence of its region's pixels. Returns that evidence.
async fn typed_and_seen(svc: &Service, root: &str, target: Option<&str>, text: &str) -> String {
    let s0 = observe(svc, root).await;
    let mut step = json!({ "action": "typeText", "text": text });
    if let Some(t) = target {
        step["ref"] = json!(t);
    }
    let res = act(svc, &s0, json!([step]), json!({})).await;
    let steps = res.structured["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 1, "{}", res.text);
    let step = &steps[0];
    assert_eq!(step["outcome"], "worked", "{step}");
    assert_eq!(step["verification"]["method"], "pixels", "{step}");
    step["verification"]["detail"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
#[ignore = "live: starts a private desktop (Xvfb, AT-SPI) and its apps; scripts/test.sh runs it"]
fn typing_into_a_qt_terminal_screen_is_verified_by_ocr() {
    live(
        "typing_into_a_qt_terminal_screen_is_verified_by_ocr",
        240,
        &["qterminal", "tesseract"],
        |t| async move {
            let d = Desk::start(&t).await;
            let dir = tempdir();
            let app = d
                .launch(&["qterminal", "-w", dir.to_str().expect("utf-8 path")])
                .await;
            let svc = &d.svc;
            let root = root_of(svc, app.pid, "Shell").await;
            settled(svc, app.pid).await;
            let (region, line) = pixels_only_region(svc, &root).await;
            assert!(line.contains("[focused"), "{line}");
            // No ref: the keys go to the focused screen, which is found among the state's
            // pixels-only regions.
            let detail =
                typed_and_seen(svc, &root, None, "echo pixel-check | tee pixel.txt\n").await;
            assert!(detail.contains(&region), "names the region: {detail}");
            assert!(detail.contains("pixel-check"), "{detail}");
            let bytes = std::fs::read(dir.join("pixel.txt")).expect("the command wrote its file");
            assert_eq!(bytes, b"pixel-check\n");
        },
    );
}

#[test]
#[ignore = "live: starts a private desktop (Xvfb, AT-SPI) and its apps; scripts/test.sh runs it"]
fn typing_into_a_gtk3_spreadsheet_grid_is_verified_by_ocr() {
    live(
        "typing_into_a_gtk3_spreadsheet_grid_is_verified_by_ocr",
        240,
        &["gnumeric", "tesseract"],
        |t| async move {
            let d = Desk::start(&t).await;
            let app = d.launch(&["gnumeric"]).await;
            let svc = &d.svc;
            let root = root_of(svc, app.pid, "Gnumeric").await;
            settled(svc, app.pid).await;
            let (grid, line) = pixels_only_region(svc, &root).await;
            assert!(line.contains(" pane "), "{line}");
            let detail = typed_and_seen(svc, &root, Some(&grid), "5\n7\n=A1*A2+1\n").await;
            assert!(detail.contains("\"5\""), "{detail}");
            // The app's own arithmetic, read through accessibility: A1:A3 selected, its status
            // bar sums them (5 + 7 + 36).
            let s1 = observe(svc, &root).await;
            let keys = act(
                svc,
                &s1,
                json!([
                    { "action": "keypress", "keys": "ctrl+Home" },
                    { "action": "keypress", "keys": "shift+Down" },
                    { "action": "keypress", "keys": "shift+Down" }
                ]),
                json!({ "expect": { "text": "Sum = 48", "timeoutMs": 5000 } }),
            )
            .await;
            assert_eq!(
                keys.structured["expect"]["verdict"], "verified",
                "{}",
                keys.text
            );
        },
    );
}
