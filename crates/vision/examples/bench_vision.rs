//! Benchmark of this crate's image path against the tools a script would use instead, measured
//! in the same run: `encode` (scale + PNG) against `convert <in> -resize 1366x768 <out>`, and
//! `ocr` against the plain `tesseract <in> stdout --psm 11 tsv` (and with our thread setting), on
//! a given PNG or on synthetic UI-like screens drawn by ImageMagick. Prints a table of medians
//! and ratios; `--json PATH` writes the same figures.
//!
//! ```text
//! cargo run --release -p uidriver-vision --example bench_vision -- \
//!     [--png shot.png] [--truth words.txt] [--runs 20] [--ocr-runs 5] [--json out.json]
//! ```
//!
//! Absolute times are noisy on shared machines; the ratios within one run are what count. The
//! measuring functions take a [`RawImage`] or a path, so a live-capture benchmark can reuse them.
#![allow(clippy::print_stdout)] // A benchmark program: its table on stdout is the product.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::{json, Value};
use uidriver_core::{Bounds, RawImage};
use uidriver_vision::{decode_png, encode, ocr, OcrOptions, DEFAULT_MAX};

struct Args {
    png: Option<PathBuf>,
    truth: Option<PathBuf>,
    runs: usize,
    ocr_runs: usize,
    json: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        png: None,
        truth: None,
        runs: 20,
        ocr_runs: 5,
        json: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--png" => a.png = Some(value()?.into()),
            "--truth" => a.truth = Some(value()?.into()),
            "--json" => a.json = Some(value()?.into()),
            "--runs" => a.runs = value()?.parse().map_err(|e| format!("--runs: {e}"))?,
            "--ocr-runs" => a.ocr_runs = value()?.parse().map_err(|e| format!("--ocr-runs: {e}"))?,
            "-h" | "--help" => {
                return Err("usage: bench_vision [--png PATH] [--truth WORDS.txt] [--runs N] [--ocr-runs N] [--json PATH]".into())
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    a.runs = a.runs.max(1);
    a.ocr_runs = a.ocr_runs.max(1);
    Ok(a)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Times `f` `runs` times (after one warm-up) and returns the median in milliseconds.
fn time_ms<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut last = f();
    let samples = (0..runs)
        .map(|_| {
            let t = Instant::now();
            last = f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    (median(samples), last)
}

fn tool_works(program: &str, arg: &str) -> bool {
    Command::new(program)
        .arg(arg)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Draws a UI-like screen (header bar with menus, sidebar, table, buttons, status bar) and returns
/// the words drawn, for recall.
fn synth_ui(w: u32, h: u32, out: &Path) -> Result<Vec<String>, String> {
    let mut args: Vec<String> = vec![
        "-size".into(),
        format!("{w}x{h}"),
        "xc:#f6f5f4".into(),
        "-font".into(),
        "DejaVu-Sans".into(),
        "-pointsize".into(),
        "14".into(),
    ];
    let mut words = Vec::new();
    let rect =
        |args: &mut Vec<String>, fill: &str, stroke: &str, x0: u32, y0: u32, x1: u32, y1: u32| {
            args.extend([
                "-fill".into(),
                fill.into(),
                "-stroke".into(),
                stroke.into(),
                "-draw".into(),
                format!("rectangle {x0},{y0} {x1},{y1}"),
                "-stroke".into(),
                "none".into(),
            ]);
        };
    let text = |args: &mut Vec<String>, words: &mut Vec<String>, x: u32, y: u32, t: &str| {
        args.extend([
            "-fill".into(),
            "#2e3436".into(),
            "-annotate".into(),
            format!("+{x}+{y}"),
            t.into(),
        ]);
        words.extend(t.split_whitespace().map(str::to_string));
    };
    rect(&mut args, "#ebebeb", "#d5d0cc", 0, 0, w - 1, 46);
    let mut x = 16;
    for m in ["File", "Edit", "View", "Mailbox", "Message", "Help"] {
        text(&mut args, &mut words, x, 29, m);
        x += 14 * m.len() as u32 + 24;
    }
    text(&mut args, &mut words, w / 2 - 60, 29, "Inbox - Mail");
    rect(&mut args, "white", "#cdc7c2", 10, 60, 230, h - 40);
    let folders = [
        "Inbox",
        "Drafts",
        "Sent items",
        "Archive",
        "Spam",
        "Trash",
        "Receipts",
        "Travel plans",
        "Family",
        "Newsletters",
        "Project Apollo",
        "Invoices 2024",
    ];
    for (i, f) in folders.iter().enumerate() {
        let y = 90 + 32 * i as u32;
        if y + 20 < h - 40 {
            text(&mut args, &mut words, 24, y, f);
        }
    }
    rect(&mut args, "white", "#cdc7c2", 244, 60, w - 10, h - 100);
    text(&mut args, &mut words, 260, 84, "Sender");
    text(&mut args, &mut words, 480, 84, "Subject");
    text(&mut args, &mut words, w - 200, 84, "Received");
    let senders = [
        "Maria Lopez",
        "Build server",
        "Jonas Berg",
        "Accounts team",
        "Li Wei",
        "Calendar",
    ];
    let subjects = [
        "Quarterly report draft",
        "Nightly build failed on main",
        "Lunch on Friday?",
        "Invoice 4417 is due",
        "Slides for the review",
        "Reminder: planning meeting",
    ];
    let days = [
        "Today",
        "Yesterday",
        "Monday",
        "Sunday",
        "Friday",
        "Thursday",
    ];
    let mut row = 0;
    while 120 + 30 * row < h - 110 {
        let y = 120 + 30 * row;
        let k = row as usize % senders.len();
        text(&mut args, &mut words, 260, y, senders[k]);
        text(
            &mut args,
            &mut words,
            480,
            y,
            subjects[(k * 5 + row as usize / 6) % subjects.len()],
        );
        text(
            &mut args,
            &mut words,
            w - 200,
            y,
            days[(k + row as usize / 6) % days.len()],
        );
        row += 1;
    }
    rect(
        &mut args,
        "#f6f5f4",
        "#cdc7c2",
        w - 330,
        h - 85,
        w - 200,
        h - 50,
    );
    text(&mut args, &mut words, w - 300, h - 62, "Cancel");
    rect(
        &mut args,
        "#3584e4",
        "#1c71d8",
        w - 180,
        h - 85,
        w - 20,
        h - 50,
    );
    args.extend([
        "-fill".into(),
        "white".into(),
        "-annotate".into(),
        format!("+{}+{}", w - 150, h - 62),
        "Send reply".into(),
    ]);
    words.extend(["Send", "reply"].map(str::to_string));
    text(
        &mut args,
        &mut words,
        16,
        h - 14,
        "Ready - 42 messages, 3 unread",
    );
    let status = Command::new("convert")
        .args(&args)
        .arg(out)
        .status()
        .map_err(|e| format!("convert: {e}"))?;
    if !status.success() {
        return Err(format!("convert failed: {status}"));
    }
    Ok(words)
}

fn norm(w: &str) -> String {
    w.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Share of the truth words found (as a multiset, case- and punctuation-blind).
fn recall(truth: &[String], found: &[String]) -> f64 {
    let mut want: HashMap<String, usize> = HashMap::new();
    for w in truth.iter().map(|w| norm(w)).filter(|w| !w.is_empty()) {
        *want.entry(w).or_default() += 1;
    }
    let total: usize = want.values().sum();
    let mut hit = 0;
    for w in found.iter().map(|w| norm(w)) {
        if let Some(n) = want.get_mut(&w).filter(|n| **n > 0) {
            *n -= 1;
            hit += 1;
        }
    }
    if total == 0 {
        f64::NAN
    } else {
        hit as f64 / total as f64
    }
}

/// Words of a tesseract TSV at confidence >= 40 (the filter `ocr` applies by default).
fn tsv_words(tsv: &str) -> Vec<String> {
    tsv.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.splitn(12, '\t').collect();
            (f.len() == 12
                && f[0] == "5"
                && f[10].parse::<f64>().is_ok_and(|c| c >= 40.0)
                && !f[11].trim().is_empty())
            .then(|| f[11].trim().to_string())
        })
        .collect()
}

struct Row {
    name: String,
    ms: f64,
    reference: Option<(String, f64)>,
    extra: Value,
}

fn print_rows(rows: &[Row]) {
    println!(
        "{:<44} {:>10} {:<40} {:>10} {:>7}",
        "measure", "median ms", "reference", "ref ms", "ratio"
    );
    for r in rows {
        match &r.reference {
            Some((name, ms)) => println!(
                "{:<44} {:>10.1} {:<40} {:>10.1} {:>7.2}",
                r.name,
                r.ms,
                name,
                ms,
                r.ms / ms
            ),
            None => println!("{:<44} {:>10.1}", r.name, r.ms),
        }
    }
}

/// Encode measurements for one PNG file: ours from raw pixels, ours from the PNG, `convert`.
fn bench_encode(
    path: &Path,
    runs: usize,
    have_convert: bool,
    rows: &mut Vec<Row>,
) -> Result<RawImage, String> {
    let png = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let probe = decode_png(&png, Bounds::new(0, 0, 1, 1)).map_err(|e| e.to_string())?;
    let screen = Bounds::new(0, 0, probe.width as i32, probe.height as i32);
    let raw = RawImage { screen, ..probe };
    let size = format!("{}x{}", raw.width, raw.height);
    let (ms, info) = time_ms(runs, || encode(&raw, DEFAULT_MAX, None));
    let info = info.map_err(|e| e.to_string())?;
    let (ms_png, _) = time_ms(runs, || {
        decode_png(&png, screen).and_then(|r| encode(&r, DEFAULT_MAX, None))
    });
    let mut reference = None;
    let mut ref_extra = Value::Null;
    if have_convert {
        let out =
            std::env::temp_dir().join(format!("bench-vision-{}-resized.png", std::process::id()));
        let (rms, ok) = time_ms(runs, || {
            Command::new("convert")
                .arg(path)
                .args(["-resize", "1366x768"])
                .arg(&out)
                .status()
                .is_ok_and(|s| s.success())
        });
        if ok {
            let bytes = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
            ref_extra = json!({"bytes": bytes});
            reference = Some(("convert -resize 1366x768 (png→png)".to_string(), rms));
        }
        let _ = std::fs::remove_file(&out);
    }
    rows.push(Row {
        name: format!("encode {size} raw→{}x{} png", info.width, info.height),
        ms,
        reference: reference.clone(),
        extra: json!({"size": size, "out": [info.width, info.height], "bytes": info.png.len(), "reference": ref_extra}),
    });
    rows.push(Row {
        name: format!("decode+encode {size} png→png"),
        ms: ms_png,
        reference,
        extra: json!({"size": size}),
    });
    Ok(raw)
}

/// OCR measurements: ours on raw pixels; the tesseract CLI on the PNG, as is and single-threaded.
async fn bench_ocr(
    path: &Path,
    raw: &RawImage,
    truth: Option<&[String]>,
    runs: usize,
    rows: &mut Vec<Row>,
) -> Result<(), String> {
    let size = format!("{}x{}", raw.width, raw.height);
    let opts = OcrOptions {
        timeout: std::time::Duration::from_secs(60),
        ..OcrOptions::default()
    };
    let mut samples = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let r = ocr(raw, &opts).await.map_err(|e| e.to_string())?;
        samples.push(t.elapsed().as_secs_f64() * 1e3);
        last = Some(r);
    }
    let r = last.ok_or("no ocr run")?;
    let ours_words: Vec<String> = r.words.iter().map(|w| w.text.clone()).collect();
    let ours = median(samples);

    let cli = |single_thread: bool| {
        let mut samples = Vec::new();
        let mut words = Vec::new();
        for _ in 0..runs {
            let mut c = Command::new("tesseract");
            c.arg(path).args(["stdout", "--psm", "11", "tsv"]);
            if single_thread {
                c.env("OMP_THREAD_LIMIT", "1");
            }
            let t = Instant::now();
            let out = c.output().map_err(|e| format!("tesseract: {e}"))?;
            samples.push(t.elapsed().as_secs_f64() * 1e3);
            words = tsv_words(&String::from_utf8_lossy(&out.stdout));
        }
        Ok::<_, String>((median(samples), words))
    };
    let (cli_ms, cli_words) = cli(false)?;
    let (cli1_ms, cli1_words) = cli(true)?;
    let rec = |w: &[String]| truth.map(|t| recall(t, w));
    let label = |name: &str, words: &[String]| match rec(words) {
        Some(x) => format!("{name} recall {x:.2}"),
        None => format!("{name} {} words", words.len()),
    };
    rows.push(Row {
        name: format!("ocr {size} ({})", label("ours", &ours_words)),
        ms: ours,
        reference: Some((label("tesseract CLI", &cli_words), cli_ms)),
        extra: json!({
            "size": size, "scale": r.scale, "words": ours_words.len(), "lines": r.lines.len(),
            "recall": rec(&ours_words), "prepareMs": r.prepare_ms,
            "reference": {"words": cli_words.len(), "recall": rec(&cli_words)},
        }),
    });
    rows.push(Row {
        name: format!("ocr {size} ({})", label("ours", &ours_words)),
        ms: ours,
        reference: Some((label("CLI OMP_THREAD_LIMIT=1", &cli1_words), cli1_ms)),
        extra: json!({"size": size, "reference": {"words": cli1_words.len(), "recall": rec(&cli1_words)}}),
    });
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("bench_vision: {e}");
        std::process::exit(1);
    }
}

async fn run() -> Result<(), String> {
    let args = parse_args()?;
    let have_convert = tool_works("convert", "-version");
    let have_tesseract = tool_works("tesseract", "--version");
    if !have_convert {
        eprintln!("note: ImageMagick `convert` missing: no synthetic images, no resize reference");
    }
    if !have_tesseract {
        eprintln!("note: tesseract missing: OCR not measured (apt-get install tesseract-ocr tesseract-ocr-eng)");
    }
    let dir = std::env::temp_dir().join(format!("bench-vision-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;

    // (path, truth words)
    let mut images: Vec<(PathBuf, Option<Vec<String>>)> = Vec::new();
    if let Some(p) = &args.png {
        let truth = match &args.truth {
            Some(t) => Some(
                std::fs::read_to_string(t)
                    .map_err(|e| format!("{}: {e}", t.display()))?
                    .split_whitespace()
                    .map(str::to_string)
                    .collect(),
            ),
            None => None,
        };
        images.push((p.clone(), truth));
    } else if have_convert {
        for (w, h) in [(1280, 800), (1920, 1080)] {
            let p = dir.join(format!("synthetic-{w}x{h}.png"));
            let truth = synth_ui(w, h, &p)?;
            images.push((p, Some(truth)));
        }
    } else {
        return Err("no --png given and no ImageMagick to draw a synthetic screen".into());
    }

    let mut rows = Vec::new();
    for (path, truth) in &images {
        eprintln!("measuring {}", path.display());
        let raw = bench_encode(path, args.runs, have_convert, &mut rows)?;
        if have_tesseract {
            bench_ocr(path, &raw, truth.as_deref(), args.ocr_runs, &mut rows).await?;
        }
    }
    println!(
        "runs: encode {} · ocr {} (medians; ratio = ours / reference)",
        args.runs, args.ocr_runs
    );
    print_rows(&rows);
    if let Some(p) = &args.json {
        let out = json!({
            "runs": args.runs,
            "ocrRuns": args.ocr_runs,
            "images": images.iter().map(|(p, _)| p.display().to_string()).collect::<Vec<_>>(),
            "rows": rows.iter().map(|r| json!({
                "measure": r.name, "medianMs": r.ms,
                "reference": r.reference.as_ref().map(|(n, _)| n), "referenceMs": r.reference.as_ref().map(|(_, m)| m),
                "ratio": r.reference.as_ref().map(|(_, m)| r.ms / m), "details": r.extra,
            })).collect::<Vec<_>>(),
        });
        std::fs::write(
            p,
            serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?,
        )
        .map_err(|e| format!("{}: {e}", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
