//! From a capture to the image a model sees: fit the pixels into a size budget (never enlarging),
//! encode a PNG quickly, and record the exact mapping back to screen pixels in an [`ImageInfo`].
//!
//! Also the way back: [`decode_png`] turns a PNG (a CDP screenshot, a test fixture) into a
//! [`RawImage`] so OCR and encoding accept either source. Everything here blocks; callers in async
//! code run it in `spawn_blocking`. Capturing pixels is the Linux backend's job, not this file's.

use std::io::Cursor;
use std::sync::Arc;

use uidriver_core::{Bounds, ImageInfo, RawImage};

use crate::error::VisionError;
use crate::resample::downscale_rgb;

/// The default size budget: the common laptop screen, and what vision models take without
/// resizing again on their side.
pub const DEFAULT_MAX: (u32, u32) = (1366, 768);

/// PNG settings, measured on 1365x768 frames of real screenshots (png 0.18, release build):
/// `Fast` (fdeflate, adaptive filters) 2.8-3.4 ms and 92-166 KB; `Balanced` (zlib level 6)
/// 9-24 ms for 40% smaller files; `Fastest` 0.6-1.9 ms but 2-3x larger. Scaling a 1920x1080 desktop
/// gave 139 KB here against 166 KB from `convert -resize`. Speed wins: this is the observe path.
const COMPRESSION: png::Compression = png::Compression::Fast;

/// Largest decoded image accepted by [`decode_png`] (an 8K RGBA frame is 127 MiB).
const DECODE_LIMIT_BYTES: usize = 256 << 20;

/// The largest size with the aspect ratio of `width x height` that fits in `max`, never larger
/// than the source. Each side is at least 1.
///
/// The limiting side gets exactly its budget; the other is rounded to the nearest pixel, so the
/// per-axis scale factors may differ by less than a pixel's worth. [`ImageInfo::to_screen`] maps
/// each axis with its own factor, which keeps the mapping exact at the image edges.
pub fn fit_size(width: u32, height: u32, max: (u32, u32)) -> (u32, u32) {
    let (mw, mh) = (max.0.max(1) as u64, max.1.max(1) as u64);
    let (w, h) = (width.max(1) as u64, height.max(1) as u64);
    if w <= mw && h <= mh {
        return (w as u32, h as u32);
    }
    // Compare mw/w with mh/h without floating point: the smaller ratio limits.
    if mw * h <= mh * w {
        let oh = ((h * mw + w / 2) / w).clamp(1, mh);
        (mw as u32, oh as u32)
    } else {
        let ow = ((w * mh + h / 2) / h).clamp(1, mw);
        (ow as u32, mh as u32)
    }
}

/// Scales `raw` to fit within `max` (see [`fit_size`]), encodes it as PNG, and describes the
/// result with the screen rectangle it shows.
///
/// The reported `width`/`height` are the PNG's own; `screen` and `maybe_occluded` come from the
/// capture, `window_id` is stored for the frame lease. Blocking: run it in `spawn_blocking`.
///
/// # Errors
/// [`VisionError::InvalidImage`] when the buffer does not hold `width * height * 3` bytes or a
/// size is zero; [`VisionError::Encode`] if the PNG writer fails.
pub fn encode(
    raw: &RawImage,
    max: (u32, u32),
    window_id: Option<u64>,
) -> Result<ImageInfo, VisionError> {
    check_raw(raw)?;
    if max.0 == 0 || max.1 == 0 {
        return Err(VisionError::InvalidImage(format!(
            "size budget {}x{} is empty",
            max.0, max.1
        )));
    }
    let (w, h) = fit_size(raw.width, raw.height, max);
    let started = std::time::Instant::now();
    let scaled;
    let pixels: &[u8] = if (w, h) == (raw.width, raw.height) {
        &raw.rgb
    } else {
        scaled = downscale_rgb(
            &raw.rgb,
            raw.width as usize,
            raw.height as usize,
            w as usize,
            h as usize,
        );
        &scaled
    };
    let scaled_at = started.elapsed();
    let png = png_rgb(pixels, w, h)?;
    tracing::debug!(
        src = %format!("{}x{}", raw.width, raw.height),
        out = %format!("{w}x{h}"),
        bytes = png.len(),
        scale_ms = scaled_at.as_secs_f64() * 1e3,
        total_ms = started.elapsed().as_secs_f64() * 1e3,
        "encoded image"
    );
    Ok(ImageInfo {
        width: w,
        height: h,
        screen: raw.screen,
        maybe_occluded: raw.maybe_occluded,
        png: Arc::new(png),
        window_id,
    })
}

/// Encodes packed 8-bit RGB as PNG with this crate's speed settings.
fn png_rgb(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, VisionError> {
    // UI screenshots compress roughly 10:1; start with room for that.
    let mut out = Vec::with_capacity(rgb.len() / 8 + 1024);
    let mut enc = png::Encoder::new(&mut out, width, height);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_compression(COMPRESSION);
    let mut writer = enc.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    Ok(out)
}

/// Decodes a PNG into packed RGB showing `screen` (alpha is dropped, palettes and 16-bit
/// samples are expanded to 8-bit RGB). `maybe_occluded` is false: the caller knows better and
/// may set it.
///
/// # Errors
/// [`VisionError::Decode`] for bytes that are not a readable PNG or exceed 256 MiB decoded.
pub fn decode_png(png: &[u8], screen: Bounds) -> Result<RawImage, VisionError> {
    let mut dec = png::Decoder::new_with_limits(
        Cursor::new(png),
        png::Limits {
            bytes: DECODE_LIMIT_BYTES,
        },
    );
    dec.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = dec.read_info()?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| VisionError::InvalidImage("png too large for this machine".to_string()))?;
    let mut buf = vec![0u8; size];
    let info = reader.next_frame(&mut buf)?;
    buf.truncate(info.buffer_size());
    let (w, h) = (info.width as usize, info.height as usize);
    let rgb = match info.color_type {
        png::ColorType::Rgb => buf,
        png::ColorType::Rgba => buf
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect(),
        png::ColorType::Grayscale => buf.iter().flat_map(|&g| [g, g, g]).collect(),
        png::ColorType::GrayscaleAlpha => buf
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0]])
            .collect(),
        png::ColorType::Indexed => {
            return Err(VisionError::InvalidImage(
                "indexed png was not expanded".to_string(),
            ))
        }
    };
    if rgb.len() != w * h * 3 {
        return Err(VisionError::InvalidImage(format!(
            "decoded {} bytes for {w}x{h}",
            rgb.len()
        )));
    }
    Ok(RawImage {
        width: info.width,
        height: info.height,
        rgb,
        screen,
        maybe_occluded: false,
    })
}

/// Rejects captures whose buffer does not match their size.
pub(crate) fn check_raw(raw: &RawImage) -> Result<(), VisionError> {
    let want = raw.width as u64 * raw.height as u64 * 3;
    if raw.width == 0 || raw.height == 0 || raw.rgb.len() as u64 != want {
        return Err(VisionError::InvalidImage(format!(
            "{}x{} capture holds {} bytes, expected {want}",
            raw.width,
            raw.height,
            raw.rgb.len()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(w: u32, h: u32, screen: Bounds) -> RawImage {
        // A gradient so scaling has something to average.
        let mut rgb = Vec::with_capacity((w * h * 3) as usize);
        for y in 0..h {
            for x in 0..w {
                rgb.extend_from_slice(&[(x % 256) as u8, (y % 256) as u8, ((x + y) % 256) as u8]);
            }
        }
        RawImage {
            width: w,
            height: h,
            rgb,
            screen,
            maybe_occluded: true,
        }
    }

    fn png_size(png: &[u8]) -> (u32, u32) {
        let dec = png::Decoder::new(Cursor::new(png));
        let reader = dec.read_info().unwrap();
        let i = reader.info();
        (i.width, i.height)
    }

    #[test]
    fn fit_size_never_enlarges_and_keeps_aspect() {
        assert_eq!(fit_size(800, 600, DEFAULT_MAX), (800, 600));
        assert_eq!(fit_size(1366, 768, DEFAULT_MAX), (1366, 768));
        // 1366x768 is not exactly 16:9, so height limits (as with ImageMagick's -resize).
        assert_eq!(fit_size(1920, 1080, DEFAULT_MAX), (1365, 768));
        assert_eq!(fit_size(1280, 800, DEFAULT_MAX), (1229, 768));
        assert_eq!(fit_size(3840, 1080, DEFAULT_MAX), (1366, 384));
        assert_eq!(fit_size(10, 5000, DEFAULT_MAX), (2, 768));
        assert_eq!(fit_size(5000, 1, DEFAULT_MAX), (1366, 1));
        for (w, h) in [(1, 1), (1367, 769), (2000, 3000), (1366, 769), (640, 4000)] {
            let (ow, oh) = fit_size(w, h, DEFAULT_MAX);
            assert!(
                ow <= w && oh <= h && ow <= 1366 && oh <= 768,
                "{w}x{h} -> {ow}x{oh}"
            );
            let ar = w as f64 / h as f64;
            let oar = ow as f64 / oh as f64;
            // Within one pixel of the source aspect on the rounded side.
            assert!(
                ((ow as f64) - oh as f64 * ar).abs() <= 1.0
                    || ((oh as f64) - ow as f64 / ar).abs() <= 1.0,
                "{w}x{h} {oar}"
            );
        }
    }

    #[test]
    fn encode_scales_into_budget_and_png_decodes_to_reported_size() {
        for (w, h, max) in [
            (1920, 1080, DEFAULT_MAX),
            (1280, 800, DEFAULT_MAX),
            (640, 400, DEFAULT_MAX),
            (333, 777, (100, 100)),
        ] {
            let screen = Bounds::new(-50, 20, w as i32, h as i32);
            let info = encode(&raw(w, h, screen), max, Some(7)).unwrap();
            assert_eq!((info.width, info.height), fit_size(w, h, max));
            assert!(info.width <= w && info.height <= h);
            assert_eq!(png_size(&info.png), (info.width, info.height));
            assert_eq!(info.screen, screen);
            assert!(info.maybe_occluded);
            assert_eq!(info.window_id, Some(7));
            let back = decode_png(&info.png, screen).unwrap();
            assert_eq!(back.rgb.len(), (info.width * info.height * 3) as usize);
        }
    }

    #[test]
    fn unscaled_png_round_trips_pixels_exactly() {
        let r = raw(97, 31, Bounds::new(0, 0, 97, 31));
        let info = encode(&r, DEFAULT_MAX, None).unwrap();
        let back = decode_png(&info.png, r.screen).unwrap();
        assert_eq!(back.rgb, r.rgb);
    }

    #[test]
    fn image_corners_map_onto_screen_corners() {
        for (w, h, screen) in [
            (1920, 1080, Bounds::new(0, 0, 1920, 1080)),
            (1280, 800, Bounds::new(100, 37, 1280, 800)),
            (1999, 1001, Bounds::new(-1999, 5, 1999, 1001)),
            // A HiDPI-like capture: more pixels than screen units.
            (2560, 1600, Bounds::new(10, 10, 1280, 800)),
        ] {
            let info = encode(&raw(w, h, screen), DEFAULT_MAX, None).unwrap();
            let (iw, ih) = (info.width as f64, info.height as f64);
            assert_eq!(info.to_screen(0.0, 0.0), (screen.x, screen.y));
            assert_eq!(
                info.to_screen(iw, ih),
                (screen.x + screen.width, screen.y + screen.height),
                "{w}x{h} -> {iw}x{ih}"
            );
            assert_eq!(info.to_screen(iw, 0.0).0, screen.x + screen.width);
            assert_eq!(info.to_screen(0.0, ih).1, screen.y + screen.height);
            // And back: the whole screen is the whole image.
            let whole = info.to_image(&screen);
            assert_eq!(
                whole,
                Bounds::new(0, 0, info.width as i32, info.height as i32)
            );
            // Every image pixel centre maps inside the screen rectangle.
            let (cx, cy) = info.to_screen(iw - 0.5, ih - 0.5);
            assert!(screen.contains(cx, cy));
        }
    }

    /// `ImageInfo::to_screen` computes `x * (screen.width / width)`; the rounded quotient makes
    /// the far edge land one pixel short for about 5% of window sizes (600x792 -> 582x768 is
    /// one). Multiplying first, `x * screen.width / width`, is exact for every integer pixel.
    #[test]
    fn image_edges_map_exactly_for_every_window_size() {
        let mut bad = Vec::new();
        for w in (600..2600).step_by(7) {
            for h in (400..1600).step_by(7) {
                let (iw, ih) = fit_size(w, h, DEFAULT_MAX);
                let info = ImageInfo {
                    width: iw,
                    height: ih,
                    screen: Bounds::new(0, 0, w as i32, h as i32),
                    maybe_occluded: false,
                    png: Arc::new(Vec::new()),
                    window_id: None,
                };
                if info.to_screen(iw as f64, ih as f64) != (w as i32, h as i32) {
                    bad.push((w, h));
                }
            }
        }
        assert!(
            bad.is_empty(),
            "{} sizes map short, e.g. {:?}",
            bad.len(),
            &bad[..bad.len().min(5)]
        );
    }

    #[test]
    fn rejects_mismatched_buffers_and_empty_budgets() {
        let mut r = raw(10, 10, Bounds::new(0, 0, 10, 10));
        assert!(matches!(
            encode(&r, (0, 10), None),
            Err(VisionError::InvalidImage(_))
        ));
        r.rgb.pop();
        assert!(matches!(
            encode(&r, DEFAULT_MAX, None),
            Err(VisionError::InvalidImage(_))
        ));
        assert!(matches!(
            decode_png(b"not a png", r.screen),
            Err(VisionError::Decode(_))
        ));
    }
}
