//! Benchmark of visual evidence on a live window: capture + scale + PNG encode, and OCR, per
//! window size, against ImageMagick `import -window` (capture + encode) and the `tesseract` CLI
//! on the same window in the same run. Prints medians and ratios; `--json FILE` writes them.
//!
//!     cargo run --release -p uidriver --example bench_capture [-- --runs 7 --json out.json]

// A benchmark program: its table on stdout is its output.
#![allow(clippy::print_stdout)]

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use uidriver_backend_linux::{LinuxBackend, LinuxConfig};
use uidriver_core::{Backend, Deadline};
use uidriver_sandbox::{Sandbox, SandboxConfig};

const CANVAS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/canvas_app.py"
);

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn arg(name: &str) -> Option<String> {
    std::env::args().skip_while(|a| a != name).nth(1)
}

fn main() {
    let runs: usize = arg("--runs").and_then(|s| s.parse().ok()).unwrap_or(7);
    let sb = Sandbox::start(SandboxConfig::default()).expect("sandbox");
    let env: Vec<(String, String)> = sb.env().to_vec();
    let pid = sb
        .spawn(&["/usr/bin/python3".to_string(), CANVAS.to_string()])
        .expect("canvas app");
    sb.wait_for_app_window(pid, Duration::from_secs(30))
        .expect("window");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let tmp = std::env::temp_dir().join(format!("uidriver-bench-capture-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let run_env = |c: &mut Command| {
        c.envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    };
    let mut rows = Vec::new();
    rt.block_on(async {
        let config = LinuxConfig::from_vars(env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let linux = Arc::new(LinuxBackend::connect(config).await.expect("backend"));
        for (w, h) in [(400, 300), (800, 600), (1200, 760)] {
            let roots = linux
                .list_roots(Deadline::after(Duration::from_secs(5)))
                .await
                .unwrap();
            let root = roots
                .iter()
                .find(|r| r.title == "Canvas fixture")
                .expect("root")
                .clone();
            let wid = format!("{}", root.window_id.unwrap());
            let mut c = Command::new("xdotool");
            c.args([
                "windowsize",
                &wid,
                &w.to_string(),
                &h.to_string(),
                "windowmove",
                &wid,
                "0",
                "0",
            ]);
            run_env(&mut c);
            c.status().unwrap();
            tokio::time::sleep(Duration::from_millis(500)).await;
            let roots = linux
                .list_roots(Deadline::after(Duration::from_secs(5)))
                .await
                .unwrap();
            let root = roots
                .iter()
                .find(|r| r.title == "Canvas fixture")
                .unwrap()
                .clone();
            let (mut cap, mut ocr, mut ref_cap, mut ref_ocr) = (vec![], vec![], vec![], vec![]);
            let mut words = (0, 0);
            for _ in 0..runs {
                let t = Instant::now();
                let raw = linux
                    .capture(&root, Deadline::after(Duration::from_secs(10)))
                    .await
                    .unwrap();
                let r2 = raw.clone();
                tokio::task::spawn_blocking(move || {
                    uidriver_vision::encode(&r2, (1366, 768), None).unwrap()
                })
                .await
                .unwrap();
                cap.push(ms(t));
                let t = Instant::now();
                let r = uidriver_vision::ocr(&raw, &uidriver_vision::OcrOptions::default())
                    .await
                    .unwrap();
                ocr.push(ms(t));
                words.0 = r.words.len();

                let png = tmp.join("ref.png");
                let t = Instant::now();
                let mut c = Command::new("import");
                c.args(["-window", &wid]).arg(&png);
                run_env(&mut c);
                assert!(c.status().unwrap().success());
                ref_cap.push(ms(t));
                let t = Instant::now();
                let out = Command::new("tesseract")
                    .arg(&png)
                    .args(["stdout", "--psm", "11", "tsv"])
                    .output()
                    .unwrap();
                ref_ocr.push(ms(t));
                words.1 = String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .filter(|l| {
                        l.starts_with("5\t")
                            && l.split('\t').nth(11).is_some_and(|w| !w.trim().is_empty())
                    })
                    .count();
            }
            let b = root.bounds.unwrap();
            rows.push(json!({
                "window": format!("{}x{}", b.width, b.height),
                "captureEncodeMs": median(cap), "importMs": median(ref_cap),
                "ocrMs": median(ocr), "tesseractCliMs": median(ref_ocr),
                "ocrWords": words.0, "tesseractCliWords": words.1,
            }));
        }
    });
    let _ = sb.stop();
    let _ = std::fs::remove_dir_all(&tmp);
    println!("visual evidence on a live window ({runs} runs each, medians, ms)");
    println!(
        "{:<10} {:>14} {:>10} {:>7} | {:>9} {:>14} {:>7} | {:>6} {:>8}",
        "window",
        "capture+encode",
        "import",
        "ratio",
        "ocr",
        "tesseract cli",
        "ratio",
        "words",
        "cli words"
    );
    for r in &rows {
        let f = |k: &str| r[k].as_f64().unwrap();
        println!(
            "{:<10} {:>14.1} {:>10.1} {:>7.2} | {:>9.1} {:>14.1} {:>7.2} | {:>6} {:>8}",
            r["window"].as_str().unwrap(),
            f("captureEncodeMs"),
            f("importMs"),
            f("captureEncodeMs") / f("importMs"),
            f("ocrMs"),
            f("tesseractCliMs"),
            f("ocrMs") / f("tesseractCliMs"),
            r["ocrWords"],
            r["tesseractCliWords"]
        );
    }
    if let Some(path) = arg("--json") {
        std::fs::write(
            path,
            serde_json::to_string_pretty(&json!({ "runs": runs, "rows": rows })).unwrap(),
        )
        .unwrap();
    }
}
