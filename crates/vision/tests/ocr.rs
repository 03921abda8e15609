//! OCR against real tesseract on images rendered by ImageMagick, and OCR fused into a snapshot.
//!
//! These need `tesseract-ocr tesseract-ocr-eng imagemagick fonts-dejavu-core`, so they are
//! ignored by a bare `cargo test`; `scripts/test.sh` installs them and runs these with
//! `--include-ignored`, where a missing one fails the test, saying which.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use uidriver_core::{Bounds, Evidence, Node, OcrText, RawImage, Role, Snapshot};
use uidriver_vision::{decode_png, fuse, ocr, probe, OcrOptions, OcrResult, Upscale, VisionError};

/// Why OCR tests cannot run here, if they cannot.
async fn missing_tools() -> Option<String> {
    if let Err(e) = probe(&OcrOptions::default()).await {
        return Some(format!(
            "{e} (apt-get install tesseract-ocr tesseract-ocr-eng)"
        ));
    }
    match Command::new("convert").args(["-list", "font"]).output() {
        Ok(o) if !o.status.success() => {
            Some("ImageMagick `convert` fails (apt-get install imagemagick)".into())
        }
        Ok(o) if !String::from_utf8_lossy(&o.stdout).contains("DejaVu-Sans") => Some(
            "font DejaVu-Sans unknown to ImageMagick (apt-get install fonts-dejavu-core)".into(),
        ),
        Ok(_) => None,
        Err(_) => Some("ImageMagick `convert` not found (apt-get install imagemagick)".into()),
    }
}

macro_rules! require_tools {
    () => {
        if let Some(why) = missing_tools().await {
            panic!("the OCR test cannot run: {why}");
        }
    };
}

fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("uidriver-vision-{}-{name}", std::process::id()))
}

/// Runs `convert ARGS... OUT` and loads the result as a capture of `screen`.
fn render(args: &[&str], out: &Path, screen: Bounds) -> RawImage {
    let status = Command::new("convert")
        .args(args)
        .arg(out)
        .status()
        .expect("convert runs");
    assert!(status.success(), "convert {args:?}");
    let png = std::fs::read(out).expect("rendered png");
    let _ = std::fs::remove_file(out);
    decode_png(&png, screen).expect("decodes")
}

/// The bounding box of dark pixels, in image pixels.
fn ink_box(img: &RawImage) -> Bounds {
    let (mut x0, mut y0, mut x1, mut y1) = (i32::MAX, i32::MAX, -1, -1);
    for (i, p) in img.rgb.chunks_exact(3).enumerate() {
        if p[0] < 128 {
            let (x, y) = ((i as u32 % img.width) as i32, (i as u32 / img.width) as i32);
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
        }
    }
    Bounds::new(x0, y0, x1 - x0 + 1, y1 - y0 + 1)
}

fn word<'a>(r: &'a OcrResult, text: &str) -> &'a OcrText {
    r.words
        .iter()
        .find(|w| w.text == text)
        .unwrap_or_else(|| panic!("{text:?} not found in {:?}", r.words))
}

fn assert_near(got: Bounds, want: Bounds, tol: i32) {
    let ok = (got.x - want.x).abs() <= tol
        && (got.y - want.y).abs() <= tol
        && (got.x + got.width - want.x - want.width).abs() <= tol
        && (got.y + got.height - want.y - want.height).abs() <= tol;
    assert!(ok, "box {got:?} not within {tol}px of {want:?}");
}

/// The brief's image: one annotation, so tesseract sees one line.
fn hello(text: &str) -> Vec<&str> {
    vec![
        "-size",
        "400x100",
        "xc:white",
        "-font",
        "DejaVu-Sans",
        "-pointsize",
        "32",
        "-fill",
        "black",
        "-annotate",
        "+20+60",
        text,
    ]
}

/// The box of pixels that are dark in `with` but not in `without`: where a word was drawn.
fn drawn_box(with: &RawImage, without: &RawImage) -> Bounds {
    let mut diff = with.clone();
    for (d, w) in diff
        .rgb
        .chunks_exact_mut(3)
        .zip(without.rgb.chunks_exact(3))
    {
        if w[0] < 128 {
            d.copy_from_slice(&[255, 255, 255]);
        }
    }
    ink_box(&diff)
}

#[tokio::test]
#[ignore = "live: runs tesseract and ImageMagick; scripts/test.sh runs it"]
async fn finds_words_where_they_were_drawn_with_screen_offsets() {
    require_tools!();
    let at_origin = Bounds::new(0, 0, 400, 100);
    let img = render(&hello("Hello Canvas"), &tmp("hello.png"), at_origin);
    let drawn = drawn_box(&img, &render(&hello("Hello"), &tmp("h.png"), at_origin));

    let r = ocr(&img, &OcrOptions::default()).await.expect("ocr");
    assert_eq!(r.scale, 2, "small images are doubled");
    let canvas = word(&r, "Canvas");
    assert_near(canvas.bounds, drawn, 10);
    assert!(canvas.confidence > 80.0);
    assert!(
        r.lines.iter().any(|l| l.text == "Hello Canvas"),
        "{:?}",
        r.lines
    );

    // The same pixels shown at (1000, 500): every box moves by exactly that much.
    let mut shifted = img.clone();
    shifted.screen = Bounds::new(1000, 500, 400, 100);
    let r2 = ocr(&shifted, &OcrOptions::default()).await.expect("ocr");
    let moved = word(&r2, "Canvas").bounds;
    assert_eq!(
        moved,
        Bounds::new(
            canvas.bounds.x + 1000,
            canvas.bounds.y + 500,
            canvas.bounds.width,
            canvas.bounds.height
        )
    );

    // A 2x HiDPI capture of a 200x50 screen area: boxes are halved.
    let mut hidpi = img.clone();
    hidpi.screen = Bounds::new(-300, 20, 200, 50);
    let r3 = ocr(&hidpi, &OcrOptions::default()).await.expect("ocr");
    let half = Bounds::new(
        -300 + drawn.x / 2,
        20 + drawn.y / 2,
        drawn.width / 2,
        drawn.height / 2,
    );
    assert_near(word(&r3, "Canvas").bounds, half, 6);
}

#[tokio::test]
#[ignore = "live: runs tesseract and ImageMagick; scripts/test.sh runs it"]
async fn reads_without_upscaling_too() {
    require_tools!();
    let img = render(
        &hello("Hello Canvas"),
        &tmp("plain.png"),
        Bounds::new(0, 0, 400, 100),
    );
    let opts = OcrOptions {
        upscale: Upscale::Never,
        ..OcrOptions::default()
    };
    let r = ocr(&img, &opts).await.expect("ocr");
    assert_eq!(r.scale, 1);
    word(&r, "Canvas");
}

#[tokio::test]
#[ignore = "live: runs tesseract and ImageMagick; scripts/test.sh runs it"]
async fn a_deadline_kills_tesseract() {
    require_tools!();
    let img = render(
        &hello("Hello Canvas"),
        &tmp("slow.png"),
        Bounds::new(0, 0, 400, 100),
    );
    let opts = OcrOptions {
        timeout: Duration::from_millis(1),
        ..OcrOptions::default()
    };
    let e = ocr(&img, &opts).await.expect_err("cannot finish in 1 ms");
    assert!(matches!(e, VisionError::Timeout(_)), "{e}");
    let core: uidriver_core::Error = e.into();
    assert_eq!(core.code, uidriver_core::ErrorCode::Timeout);
}

#[tokio::test]
#[ignore = "live: runs tesseract and ImageMagick; scripts/test.sh runs it"]
async fn missing_language_data_is_backend_unavailable() {
    require_tools!();
    let img = render(
        &hello("Hello Canvas"),
        &tmp("lang.png"),
        Bounds::new(0, 0, 400, 100),
    );
    let opts = OcrOptions {
        lang: "xx-no-such-language".into(),
        ..OcrOptions::default()
    };
    let e = ocr(&img, &opts).await.expect_err("no such language");
    assert!(matches!(e, VisionError::LanguageMissing { .. }), "{e}");
    assert!(matches!(
        probe(&opts).await,
        Err(VisionError::LanguageMissing { .. })
    ));
}

/// A window with a labeled button and a canvas that draws its own text: after OCR and fusion
/// the button's label is not repeated and the canvas text is a clickable picture-only node.
#[tokio::test]
#[ignore = "live: runs tesseract and ImageMagick; scripts/test.sh runs it"]
async fn ocr_fused_into_a_window_with_a_button_and_a_canvas() {
    require_tools!();
    let screen = Bounds::new(100, 50, 600, 200);
    let img = render(
        &[
            // Adwaita-like colours: light panel, light border (see the known limit in ocr.rs).
            "-size",
            "600x200",
            "xc:white",
            "-fill",
            "#f6f5f4",
            "-stroke",
            "#cdc7c2",
            "-draw",
            "rectangle 20,20 140,70",
            "-draw",
            "rectangle 200,20 580,180",
            "-stroke",
            "none",
            "-fill",
            "black",
            "-font",
            "DejaVu-Sans",
            "-pointsize",
            "20",
            "-annotate",
            "+50+53",
            "Save",
            "-pointsize",
            "24",
            "-annotate",
            "+240+110",
            "Total 42 items",
        ],
        &tmp("app.png"),
        screen,
    );
    let r = ocr(&img, &OcrOptions::default()).await.expect("ocr");

    let mut snap = Snapshot::default();
    let node = |role: Role, name: &str, b: Bounds, parent: Option<usize>| Node {
        role,
        name: Evidence::from_text(name),
        bounds: Some(b),
        parent,
        ..Node::default()
    };
    snap.nodes.push(node(Role::Window, "Demo", screen, None));
    snap.nodes.push(node(
        Role::Button,
        "Save",
        Bounds::new(120, 70, 121, 51),
        Some(0),
    ));
    snap.nodes.push(node(
        Role::Canvas,
        "",
        Bounds::new(300, 70, 381, 161),
        Some(0),
    ));
    snap.nodes[0].children = vec![1, 2];
    snap.check().unwrap();

    let report = fuse(&mut snap, &r.lines);
    snap.check().expect("pre-order kept");
    assert_eq!(report.known, 1, "{report:?} from {:?}", r.lines);
    assert_eq!(report.picture_only, 1, "{report:?} from {:?}", r.lines);
    assert!(snap.nodes[1].visual_text.is_none());
    let pic = &snap.nodes[3];
    assert_eq!(pic.role, Role::PictureOnly);
    assert_eq!(pic.parent, Some(2));
    assert_eq!(pic.name.text(), Some("Total 42 items"));
    let b = pic.bounds.unwrap();
    // Drawn at image (240, ~92..110) -> screen (340, ~142..160).
    assert!(snap.nodes[2].bounds.unwrap().encloses(&b, 0), "{b:?}");
    assert!(
        (b.x - 340).abs() <= 6 && (b.y + b.height - 160).abs() <= 8,
        "{b:?}"
    );
    assert_eq!(
        pic.handle,
        format!("ocr:{},{},{},{}", b.x, b.y, b.width, b.height)
    );
}
