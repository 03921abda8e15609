//! Pixel arithmetic shared by encoding and OCR: an area-averaging (box) downscale for what a
//! model sees, and a grayscale 2x upscale for what tesseract reads.
//!
//! Hand-written rather than a resize crate: the two operations are ~150 lines, run in a few
//! milliseconds at 1920x1080 (see `examples/bench_vision.rs`), and `fast_image_resize` 6 needs a
//! newer Rust than the workspace's `rust-version`. Choosing sizes is `encode.rs`'s job.

/// Fixed-point scale of the filter weights (weights of one output pixel sum to exactly this).
const ONE: u32 = 1 << 14;

/// Source taps of one output pixel along one axis: first source index and its weights.
struct Taps {
    start: Vec<usize>,
    /// `weights[offset[i]..offset[i + 1]]` belong to output `i`.
    offset: Vec<usize>,
    weights: Vec<u32>,
}

impl Taps {
    /// Area-averaging weights: output pixel `o` covers source interval `[o*s, (o+1)*s)` with
    /// `s = src / dst`, and each source pixel weighs by how much of it lies inside.
    fn area(src: usize, dst: usize) -> Taps {
        let scale = src as f64 / dst as f64;
        let mut taps = Taps {
            start: Vec::with_capacity(dst),
            offset: Vec::with_capacity(dst + 1),
            weights: Vec::with_capacity(dst * (scale.ceil() as usize + 1)),
        };
        taps.offset.push(0);
        for o in 0..dst {
            let lo = o as f64 * scale;
            let hi = ((o + 1) as f64 * scale).min(src as f64);
            let first = (lo.floor() as usize).min(src - 1);
            let last = ((hi.ceil() as usize).max(first + 1)).min(src);
            let base = taps.weights.len();
            let mut sum = 0u32;
            for i in first..last {
                let cover = (hi.min((i + 1) as f64) - lo.max(i as f64)).max(0.0);
                let w = (cover / scale * ONE as f64).round() as u32;
                taps.weights.push(w);
                sum += w;
            }
            // Rounding can leave the sum a unit or two off ONE; give the difference to the
            // heaviest tap so flat areas keep their exact colour.
            let heaviest = (base..taps.weights.len())
                .max_by_key(|&k| taps.weights[k])
                .unwrap_or(base);
            taps.weights[heaviest] = (taps.weights[heaviest] + ONE).saturating_sub(sum);
            taps.start.push(first);
            taps.offset.push(taps.weights.len());
        }
        taps
    }

    fn of(&self, o: usize) -> (usize, &[u32]) {
        (
            self.start[o],
            &self.weights[self.offset[o]..self.offset[o + 1]],
        )
    }
}

#[inline]
fn round_one(acc: u32) -> u8 {
    ((acc + ONE / 2) / ONE).min(255) as u8
}

/// Downscales packed RGB (`src_w * src_h * 3` bytes) to `dst_w x dst_h` by area averaging.
///
/// Sizes must be non-zero and not larger than the source (callers check); an axis that keeps
/// its size is copied, not filtered. Rows are reduced first (whole rows at a time, which the
/// compiler vectorizes), so the per-pixel horizontal pass only runs on `dst_h` rows.
pub(crate) fn downscale_rgb(
    src: &[u8],
    src_w: usize,
    src_h: usize,
    dst_w: usize,
    dst_h: usize,
) -> Vec<u8> {
    let src_stride = src_w * 3;
    let dst_stride = dst_w * 3;
    let v_taps = (dst_h != src_h).then(|| Taps::area(src_h, dst_h));
    let h_taps = (dst_w != src_w).then(|| Taps::area(src_w, dst_w));
    let mut out = vec![0u8; dst_h * dst_stride];
    let mut acc = vec![0u32; src_stride];
    let mut row_buf = vec![0u8; src_stride];
    for (o, out_row) in out.chunks_exact_mut(dst_stride).enumerate() {
        // Vertical: one source-width row for output row `o`.
        let row: &[u8] = match &v_taps {
            None => &src[o * src_stride..(o + 1) * src_stride],
            Some(taps) => {
                acc.iter_mut().for_each(|a| *a = 0);
                let (first, ws) = taps.of(o);
                for (k, &w) in ws.iter().enumerate() {
                    let line = &src[(first + k) * src_stride..(first + k + 1) * src_stride];
                    for (a, &v) in acc.iter_mut().zip(line) {
                        *a += v as u32 * w;
                    }
                }
                for (d, &a) in row_buf.iter_mut().zip(&acc) {
                    *d = round_one(a);
                }
                &row_buf
            }
        };
        // Horizontal: that row to the output width.
        match &h_taps {
            None => out_row.copy_from_slice(row),
            Some(taps) => {
                for (x, px) in out_row.chunks_exact_mut(3).enumerate() {
                    let (first, ws) = taps.of(x);
                    let (mut r, mut g, mut b) = (0u32, 0u32, 0u32);
                    for (k, &w) in ws.iter().enumerate() {
                        let p = (first + k) * 3;
                        r += row[p] as u32 * w;
                        g += row[p + 1] as u32 * w;
                        b += row[p + 2] as u32 * w;
                    }
                    px[0] = round_one(r);
                    px[1] = round_one(g);
                    px[2] = round_one(b);
                }
            }
        }
    }
    out
}

/// Converts packed RGB to 8-bit luma (ITU-R BT.601 weights, as tesseract's own conversion).
pub(crate) fn to_gray(rgb: &[u8]) -> Vec<u8> {
    rgb.chunks_exact(3)
        .map(|p| ((p[0] as u32 * 77 + p[1] as u32 * 150 + p[2] as u32 * 29 + 128) >> 8) as u8)
        .collect()
}

/// Doubles a grayscale image in both directions with bilinear (triangle) interpolation.
///
/// Output pixel `2i` samples source position `i - 1/4` and `2i + 1` samples `i + 1/4` (pixel
/// centres aligned as ImageMagick's `-filter Triangle -resize 200%`), so weights are 3:1.
pub(crate) fn upscale2_gray(src: &[u8], w: usize, h: usize) -> Vec<u8> {
    let ow = w * 2;
    // Horizontal: each value is 4x the interpolated sample (no rounding yet).
    let mut wide = vec![0u16; h * ow];
    for (row, out) in src.chunks_exact(w).zip(wide.chunks_exact_mut(ow)) {
        for x in 0..w {
            let c = row[x] as u16 * 3;
            let left = row[x.saturating_sub(1)] as u16;
            let right = row[(x + 1).min(w - 1)] as u16;
            out[2 * x] = c + left;
            out[2 * x + 1] = c + right;
        }
    }
    let mut out = vec![0u8; ow * h * 2];
    for y in 0..h {
        let c = &wide[y * ow..(y + 1) * ow];
        let up = &wide[y.saturating_sub(1) * ow..(y.saturating_sub(1) + 1) * ow];
        let down = &wide[(y + 1).min(h - 1) * ow..((y + 1).min(h - 1) + 1) * ow];
        let (top, bottom) = out[2 * y * ow..(2 * y + 2) * ow].split_at_mut(ow);
        for x in 0..ow {
            // Values are 16x the sample: 3:1 vertically on top of 3:1 horizontally.
            top[x] = ((c[x] as u32 * 3 + up[x] as u32 + 8) / 16) as u8;
            bottom[x] = ((c[x] as u32 * 3 + down[x] as u32 + 8) / 16) as u8;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_colour_stays_exact_at_odd_ratios() {
        let (w, h) = (1920usize, 1081usize);
        let src: Vec<u8> = [10u8, 200, 77].repeat(w * h);
        let out = downscale_rgb(&src, w, h, 1366, 769);
        assert_eq!(out.len(), 1366 * 769 * 3);
        assert!(out.chunks_exact(3).all(|p| p == [10, 200, 77]));
    }

    #[test]
    fn halving_averages_blocks() {
        // 4x2 RGB: two 2x2 blocks; black/white checks average to mid grey, white stays white.
        let w = [255u8; 3];
        let b = [0u8; 3];
        let src: Vec<u8> = [w, b, w, w, b, w, w, w].concat();
        let out = downscale_rgb(&src, 4, 2, 2, 1);
        assert_eq!(out, vec![128, 128, 128, 255, 255, 255]);
    }

    #[test]
    fn weights_sum_to_one_everywhere() {
        for (src, dst) in [(1920, 1366), (800, 768), (1281, 7), (5, 5), (3, 1)] {
            let t = Taps::area(src, dst);
            for o in 0..dst {
                let (first, ws) = t.of(o);
                assert_eq!(ws.iter().sum::<u32>(), ONE, "{src}->{dst} at {o}");
                assert!(first + ws.len() <= src);
            }
        }
    }

    #[test]
    fn gray_and_upscale_keep_flat_areas_and_double_sizes() {
        assert_eq!(to_gray(&[255, 255, 255, 0, 0, 0]), vec![255, 0]);
        let src = vec![90u8; 7 * 3];
        let up = upscale2_gray(&src, 7, 3);
        assert_eq!(up.len(), 14 * 6);
        assert!(up.iter().all(|&v| v == 90));
        // An edge between 0 and 255 becomes a 3:1 ramp.
        let up = upscale2_gray(&[0, 255], 2, 1);
        assert_eq!(&up[..4], &[0, 64, 191, 255]);
    }
}
