//! Reading text out of pixels with tesseract, as a child process with a deadline: words and
//! lines with boxes in screen pixels, for the fused observation and `search_ui`.
//!
//! Measured on real screenshots (gtk3-widget-factory 1366x741, mousepad 1000x600, a Chromium page
//! 1280x800; tesseract 5.3.0, Debian 12), counting expected words found at confidence >= 30:
//!
//! | input                      | psm 3 | psm 11 |
//! |----------------------------|-------|--------|
//! | RGB as captured            | 0.78  | 0.89   |
//! | grayscale                  | 0.83  | 0.90   |
//! | grayscale, 2x bilinear     | 0.87  | 0.97   |
//!
//! (widget factory; mousepad and the page reach 1.00 with grayscale 2x and psm 11, 0.79-0.90
//! without upscaling.) So the defaults are psm 11 ("sparse text": UI labels are scattered, not
//! paragraphs) on a grayscale image doubled in size, run on the full-resolution capture rather
//! than the scaled PNG. `OMP_THREAD_LIMIT=1` is set because tesseract's OpenMP threads spin on a
//! loaded 2-core machine: 1.7 s single-threaded against 4.5 s (and once 31 s) with the default.
//!
//! Known limit, measured: tesseract binarizes with one global Otsu threshold, so on an image that
//! is mostly white plus large mid-grey panels (#dddddd or darker) the threshold can fall between
//! the two; the panels turn black and the text on them is lost. Real GTK and web screenshots
//! (panels #e8e8e8 and lighter, more text) read fine. Local background flattening and a raised
//! white point both fixed that synthetic case but cost 3-25% recall on the real screenshots
//! (mousepad's light-on-red warning bar vanished), so the pixels get no contrast change beyond grayscale.
//!
//! The image goes to tesseract's stdin as binary PGM: no temporary file, no PNG encode.
//! Matching the text to accessibility nodes is `fuse.rs`'s job.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::process::Command;
use uidriver_core::{Bounds, OcrText, RawImage};

use crate::encode::check_raw;
use crate::error::VisionError;
use crate::resample::{to_gray, upscale2_gray};

/// Images up to this many pixels are doubled before OCR under [`Upscale::Auto`]: a full 1920x1200
/// screen still is (about 3.5 s of tesseract here); larger, HiDPI-sized captures already have
/// big enough glyphs and would take four times as long.
pub const AUTO_UPSCALE_MAX_PIXELS: u64 = 1920 * 1200;

/// Words of one or two characters need this confidence: icons read as letters ("oO", "vw", "C"
/// for radio buttons, arrows and spinners) score 48-60 where real short words score 80+.
const SHORT_WORD_MIN_CONFIDENCE: f32 = 70.0;

/// Whether to enlarge the image before OCR.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Upscale {
    /// Double images up to [`AUTO_UPSCALE_MAX_PIXELS`], read larger ones as they are.
    #[default]
    Auto,
    /// Read the pixels as captured (fastest).
    Never,
    /// Always double.
    Double,
}

/// How tesseract is run and which words are kept.
#[derive(Clone, Debug)]
pub struct OcrOptions {
    /// The tesseract program (a name looked up in `PATH`, or a path).
    pub program: PathBuf,
    /// Language data to use (`eng`; `eng+deu` for several).
    pub lang: String,
    /// Page segmentation mode: 11 (sparse text) suits UI; 3 (automatic) suits documents.
    pub psm: u8,
    /// Whether to enlarge the image first.
    pub upscale: Upscale,
    /// Words below this confidence (0-100) are dropped.
    pub min_confidence: f32,
    /// The whole call, preparation included, is cut off after this; the child is killed.
    pub timeout: Duration,
}

impl Default for OcrOptions {
    fn default() -> Self {
        OcrOptions {
            program: PathBuf::from("tesseract"),
            lang: "eng".to_string(),
            psm: 11,
            upscale: Upscale::Auto,
            // Junk from icons and borders sits mostly below 40; real words rarely do.
            min_confidence: 40.0,
            timeout: Duration::from_secs(10),
        }
    }
}

/// Text found in one image, in screen pixels.
#[derive(Clone, Debug, Default)]
pub struct OcrResult {
    /// Words kept after filtering, in tesseract's reading order.
    pub words: Vec<OcrText>,
    /// Words grouped into lines (tesseract's block/paragraph/line); confidence is the mean.
    pub lines: Vec<OcrText>,
    /// The factor the image was enlarged by before OCR (1 or 2).
    pub scale: u32,
    /// Time spent converting pixels, milliseconds.
    pub prepare_ms: f64,
    /// Time tesseract ran, milliseconds.
    pub tesseract_ms: f64,
}

/// Reads the text in `image` with tesseract and maps every box to screen pixels.
///
/// # Errors
/// [`VisionError::TesseractMissing`] or [`VisionError::LanguageMissing`] when OCR is not
/// installed, [`VisionError::Timeout`] after `opts.timeout` (the child is killed),
/// [`VisionError::Tesseract`] when it fails, [`VisionError::InvalidImage`] for a bad buffer.
pub async fn ocr(image: &RawImage, opts: &OcrOptions) -> Result<OcrResult, VisionError> {
    check_raw(image)?;
    let deadline = opts.timeout;
    match tokio::time::timeout(deadline, ocr_inner(image, opts)).await {
        Ok(r) => r,
        Err(_) => {
            tracing::warn!(?deadline, "ocr timed out; tesseract killed");
            Err(VisionError::Timeout(deadline))
        }
    }
}

async fn ocr_inner(image: &RawImage, opts: &OcrOptions) -> Result<OcrResult, VisionError> {
    let scale = match opts.upscale {
        Upscale::Never => 1,
        Upscale::Double => 2,
        Upscale::Auto if image.width as u64 * image.height as u64 <= AUTO_UPSCALE_MAX_PIXELS => 2,
        Upscale::Auto => 1,
    };
    let started = Instant::now();
    // Pixel work is CPU-bound: keep it off the async workers. The copy costs ~1 ms per 2 MP.
    let (rgb, w, h) = (image.rgb.clone(), image.width, image.height);
    let pgm = tokio::task::spawn_blocking(move || to_pgm(&rgb, w, h, scale))
        .await
        .map_err(|e| VisionError::Task(e.to_string()))?;
    let prepare_ms = started.elapsed().as_secs_f64() * 1e3;

    let started = Instant::now();
    let tsv = run_tesseract(opts, pgm).await?;
    let tesseract_ms = started.elapsed().as_secs_f64() * 1e3;

    let map = BoxMap {
        scale: scale as f64,
        width: image.width,
        height: image.height,
        screen: image.screen,
    };
    let (words, lines) = parse_tsv(&tsv, &map, opts.min_confidence);
    tracing::debug!(
        words = words.len(),
        lines = lines.len(),
        scale,
        prepare_ms,
        tesseract_ms,
        "ocr done"
    );
    Ok(OcrResult {
        words,
        lines,
        scale,
        prepare_ms,
        tesseract_ms,
    })
}

/// Checks that tesseract runs and has the language data, returning its version line.
///
/// For `uidriver doctor` and for tests that skip when OCR is absent.
///
/// # Errors
/// The same missing-installation errors as [`ocr`].
pub async fn probe(opts: &OcrOptions) -> Result<String, VisionError> {
    let out = tokio::time::timeout(opts.timeout, command(opts).arg("--list-langs").output())
        .await
        .map_err(|_| VisionError::Timeout(opts.timeout))?
        .map_err(|e| spawn_error(opts, e))?;
    // Older versions print the list on stderr.
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    for lang in opts.lang.split('+') {
        if !text.lines().any(|l| l.trim() == lang) {
            return Err(VisionError::LanguageMissing {
                lang: lang.to_string(),
            });
        }
    }
    let version = command(opts)
        .arg("--version")
        .output()
        .await
        .map_err(|e| spawn_error(opts, e))?;
    let v = format!(
        "{}{}",
        String::from_utf8_lossy(&version.stdout),
        String::from_utf8_lossy(&version.stderr)
    );
    Ok(v.lines().next().unwrap_or("tesseract").trim().to_string())
}

fn command(opts: &OcrOptions) -> Command {
    let mut c = Command::new(&opts.program);
    c.env("OMP_THREAD_LIMIT", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    c
}

fn spawn_error(opts: &OcrOptions, e: std::io::Error) -> VisionError {
    if e.kind() == std::io::ErrorKind::NotFound {
        VisionError::TesseractMissing {
            program: opts.program.display().to_string(),
        }
    } else {
        VisionError::Io(e)
    }
}

/// Runs `tesseract stdin stdout --psm N -l LANG tsv` on a PGM and returns its TSV.
async fn run_tesseract(opts: &OcrOptions, pgm: Vec<u8>) -> Result<String, VisionError> {
    let mut cmd = command(opts);
    cmd.args(["stdin", "stdout", "--psm"])
        .arg(opts.psm.to_string())
        .args(["-l", &opts.lang, "tsv"])
        .stdin(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| spawn_error(opts, e))?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| VisionError::Task("tesseract stdin not piped".to_string()))?;
    // Feed stdin while collecting output, so neither side waits on a full pipe. Dropping this
    // future (timeout) drops the child, which kill_on_drop turns into SIGKILL.
    let write = async move {
        stdin.write_all(&pgm).await?;
        stdin.shutdown().await
    };
    let (written, output) = tokio::join!(write, child.wait_with_output());
    let output = output?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        if stderr.contains("Failed loading language") || stderr.contains("Error opening data file")
        {
            return Err(VisionError::LanguageMissing {
                lang: opts.lang.clone(),
            });
        }
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .chars()
            .take(300)
            .collect();
        return Err(VisionError::Tesseract {
            status: output.status.to_string(),
            stderr: last,
        });
    }
    // A write error with a clean exit means tesseract stopped reading early; its output stands.
    if let Err(e) = written {
        tracing::debug!(error = %e, "tesseract closed stdin early");
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Grayscale (and optionally doubled) pixels as binary PGM, which leptonica reads from stdin.
fn to_pgm(rgb: &[u8], width: u32, height: u32, scale: u32) -> Vec<u8> {
    let gray = to_gray(rgb);
    let (w, h, pixels) = if scale == 2 {
        let up = upscale2_gray(&gray, width as usize, height as usize);
        (width * 2, height * 2, up)
    } else {
        (width, height, gray)
    };
    let header = format!("P5\n{w} {h}\n255\n");
    let mut out = Vec::with_capacity(header.len() + pixels.len());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&pixels);
    out
}

/// Maps boxes in the OCR image (enlarged by `scale`) back to screen pixels.
struct BoxMap {
    scale: f64,
    width: u32,
    height: u32,
    screen: Bounds,
}

impl BoxMap {
    /// Rounds outward, so the screen box always covers the glyphs.
    fn to_screen(&self, left: f64, top: f64, width: f64, height: f64) -> Bounds {
        let sx = self.screen.width as f64 / self.width.max(1) as f64 / self.scale;
        let sy = self.screen.height as f64 / self.height.max(1) as f64 / self.scale;
        let x0 = (left * sx).floor() as i32;
        let y0 = (top * sy).floor() as i32;
        let x1 = (((left + width) * sx).ceil() as i32).min(self.screen.width);
        let y1 = (((top + height) * sy).ceil() as i32).min(self.screen.height);
        Bounds::new(
            self.screen.x + x0,
            self.screen.y + y0,
            (x1 - x0).max(1),
            (y1 - y0).max(1),
        )
    }
}

/// Whether a word is worth keeping (see the module doc for the measured thresholds).
fn keep_word(text: &str, conf: f32, min_confidence: f32) -> bool {
    if conf < min_confidence || !text.chars().any(char::is_alphanumeric) {
        return false;
    }
    text.chars().count() > 2 || conf >= SHORT_WORD_MIN_CONFIDENCE
}

/// Parses tesseract's TSV: level-5 rows are words; (page, block, paragraph, line) groups them.
fn parse_tsv(tsv: &str, map: &BoxMap, min_confidence: f32) -> (Vec<OcrText>, Vec<OcrText>) {
    let mut words = Vec::new();
    let mut line_of_word = Vec::new();
    let mut line_index: HashMap<[u32; 4], usize> = HashMap::new();
    for row in tsv.lines() {
        let f: Vec<&str> = row.splitn(12, '\t').collect();
        if f.len() < 12 || f[0] != "5" {
            continue;
        }
        let num = |i: usize| f[i].trim().parse::<f64>().ok();
        let (Some(left), Some(top), Some(width), Some(height), Some(conf)) =
            (num(6), num(7), num(8), num(9), num(10))
        else {
            continue;
        };
        let text = f[11].trim();
        let conf = conf as f32;
        if !keep_word(text, conf, min_confidence) {
            continue;
        }
        let key = [1, 2, 3, 4].map(|i| f[i].trim().parse::<u32>().unwrap_or(0));
        let next = line_index.len();
        let line = *line_index.entry(key).or_insert(next);
        line_of_word.push(line);
        words.push(OcrText {
            text: text.to_string(),
            bounds: map.to_screen(left, top, width, height),
            confidence: conf,
        });
    }
    let mut grouped: Vec<Vec<usize>> = vec![Vec::new(); line_index.len()];
    for (w, &l) in line_of_word.iter().enumerate() {
        grouped[l].push(w);
    }
    let lines = grouped
        .into_iter()
        .filter(|ws| !ws.is_empty())
        .map(|ws| {
            let text = ws
                .iter()
                .map(|&w| words[w].text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            let bounds = ws
                .iter()
                .map(|&w| words[w].bounds)
                .reduce(union)
                .unwrap_or(Bounds::new(0, 0, 0, 0));
            let confidence = ws.iter().map(|&w| words[w].confidence).sum::<f32>() / ws.len() as f32;
            OcrText {
                text,
                bounds,
                confidence,
            }
        })
        .collect();
    (words, lines)
}

fn union(a: Bounds, b: Bounds) -> Bounds {
    let x0 = a.x.min(b.x);
    let y0 = a.y.min(b.y);
    let x1 = (a.x + a.width).max(b.x + b.width);
    let y1 = (a.y + a.height).max(b.y + b.height);
    Bounds::new(x0, y0, x1 - x0, y1 - y0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TSV: &str = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext
1\t1\t0\t0\t0\t0\t0\t0\t800\t200\t-1\t
4\t1\t1\t1\t1\t0\t40\t100\t400\t40\t-1\t
5\t1\t1\t1\t1\t1\t40\t100\t180\t40\t95.5\tHello
5\t1\t1\t1\t1\t2\t240\t102\t200\t38\t91.0\tCanvas
5\t1\t2\t1\t1\t1\t600\t20\t30\t30\t55.0\toO
5\t1\t2\t1\t1\t2\t640\t20\t30\t30\t99.0\t—
5\t1\t3\t1\t1\t1\t600\t150\t20\t30\t96.0\t1
5\t1\t3\t1\t1\t2\t630\t150\t40\t30\t20.0\tjunk
5\t1\t4\t1\t1\t1\t700\t150\t40\t30\t90.0\t   
";

    #[test]
    fn tsv_words_are_filtered_grouped_and_mapped_to_screen() {
        // OCR image doubled from a 400x100 capture shown at screen (1000, 500).
        let map = BoxMap {
            scale: 2.0,
            width: 400,
            height: 100,
            screen: Bounds::new(1000, 500, 400, 100),
        };
        let (words, lines) = parse_tsv(TSV, &map, 40.0);
        let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["Hello", "Canvas", "1"]);
        assert_eq!(words[0].bounds, Bounds::new(1020, 550, 90, 20));
        assert_eq!(words[1].bounds, Bounds::new(1120, 551, 100, 19));
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].text, "Hello Canvas");
        assert_eq!(lines[0].bounds, Bounds::new(1020, 550, 200, 20));
        assert!((lines[0].confidence - 93.25).abs() < 1e-3);
        assert_eq!(lines[1].text, "1");
    }

    #[test]
    fn boxes_scale_with_the_capture_to_screen_ratio() {
        // A 2x HiDPI capture of a 100x50 screen area, read without enlarging.
        let map = BoxMap {
            scale: 1.0,
            width: 200,
            height: 100,
            screen: Bounds::new(0, 0, 100, 50),
        };
        assert_eq!(
            map.to_screen(11.0, 11.0, 20.0, 20.0),
            Bounds::new(5, 5, 11, 11)
        );
        // Never outside the captured area.
        assert_eq!(
            map.to_screen(190.0, 90.0, 30.0, 30.0),
            Bounds::new(95, 45, 5, 5)
        );
    }

    #[test]
    fn pgm_header_and_size() {
        let pgm = to_pgm(&[0u8; 4 * 3 * 3], 4, 3, 2);
        assert!(pgm.starts_with(b"P5\n8 6\n255\n"));
        assert_eq!(pgm.len(), b"P5\n8 6\n255\n".len() + 48);
    }

    #[tokio::test]
    async fn missing_program_is_a_clear_error() {
        let opts = OcrOptions {
            program: PathBuf::from("/nonexistent/tesseract"),
            ..OcrOptions::default()
        };
        let img = RawImage {
            width: 2,
            height: 2,
            rgb: vec![255; 12],
            screen: Bounds::new(0, 0, 2, 2),
            maybe_occluded: false,
        };
        let e = ocr(&img, &opts).await.unwrap_err();
        assert!(matches!(e, VisionError::TesseractMissing { .. }), "{e}");
        let core: uidriver_core::Error = e.into();
        assert_eq!(core.code, uidriver_core::ErrorCode::BackendUnavailable);
        assert!(matches!(
            probe(&opts).await,
            Err(VisionError::TesseractMissing { .. })
        ));
    }
}
