//! Cutting a region out of a captured image: the pixels of one element's box, for reading that
//! element alone (OCR of a region with no accessible content, before and after a step).

use uidriver_core::{Bounds, RawImage};

/// The part of `image` that shows `region` (screen pixels), with its own screen mapping; `None`
/// when the region lies outside the image or the image maps no screen area.
pub fn crop(image: &RawImage, region: Bounds) -> Option<RawImage> {
    let screen = image.screen;
    if screen.width <= 0 || screen.height <= 0 || image.width == 0 || image.height == 0 {
        return None;
    }
    let x0 = region.x.max(screen.x);
    let y0 = region.y.max(screen.y);
    let x1 = (region.x + region.width).min(screen.x + screen.width);
    let y1 = (region.y + region.height).min(screen.y + screen.height);
    if x1 <= x0 || y1 <= y0 {
        return None;
    }
    // Screen → image pixels (a capture is 1:1, but the mapping says so rather than assumes it).
    let sx = f64::from(image.width) / f64::from(screen.width);
    let sy = f64::from(image.height) / f64::from(screen.height);
    let px = |v: i32, origin: i32, s: f64, max: u32| {
        ((f64::from(v - origin) * s).round().max(0.0) as u32).min(max)
    };
    let (ix0, ix1) = (
        px(x0, screen.x, sx, image.width),
        px(x1, screen.x, sx, image.width),
    );
    let (iy0, iy1) = (
        px(y0, screen.y, sy, image.height),
        px(y1, screen.y, sy, image.height),
    );
    if ix1 <= ix0 || iy1 <= iy0 {
        return None;
    }
    let (w, h) = (ix1 - ix0, iy1 - iy0);
    let stride = image.width as usize * 3;
    let mut rgb = Vec::with_capacity(w as usize * h as usize * 3);
    for row in iy0..iy1 {
        let start = row as usize * stride + ix0 as usize * 3;
        rgb.extend_from_slice(image.rgb.get(start..start + w as usize * 3)?);
    }
    Some(RawImage {
        width: w,
        height: h,
        rgb,
        screen: Bounds::new(x0, y0, x1 - x0, y1 - y0),
        maybe_occluded: image.maybe_occluded,
    })
}

/// The side of the square tiles two images are compared in.
const TILE: u32 = 8;
/// More separate areas than this are read as one box around them all.
const MAX_AREAS: usize = 24;
/// How many tiles apart two changed tiles on one line still belong to one area: the words of a
/// line are read together (a lone short word is what OCR misses most).
const REACH: u32 = 3;
/// Pixels added around each area, so a glyph's edge is not cut.
const PAD: i32 = 2;

/// Where two captures of the same screen rectangle differ: boxes (screen pixels) around groups of
/// touching tiles that changed, each padded a little. Empty when the images are the same, or are
/// not two captures of one rectangle.
pub fn changed_areas(before: &RawImage, after: &RawImage) -> Vec<Bounds> {
    if before.width != after.width
        || before.height != after.height
        || before.screen != after.screen
        || before.rgb.len() != after.rgb.len()
    {
        return Vec::new();
    }
    let (tw, th) = (before.width.div_ceil(TILE), before.height.div_ceil(TILE));
    let mut changed = vec![false; (tw * th) as usize];
    let stride = before.width as usize * 3;
    for y in 0..before.height {
        let row = y as usize * stride;
        let (a, b) = (
            &before.rgb[row..row + stride],
            &after.rgb[row..row + stride],
        );
        if a == b {
            continue;
        }
        for x in 0..before.width {
            let i = x as usize * 3;
            if a[i..i + 3] != b[i..i + 3] {
                changed[((y / TILE) * tw + x / TILE) as usize] = true;
            }
        }
    }
    let mut boxes = tile_groups(&mut changed, tw, th);
    if boxes.len() > MAX_AREAS {
        boxes = vec![boxes.iter().skip(1).fold(boxes[0], |u, b| union(u, *b))];
    }
    let sx = f64::from(before.screen.width) / f64::from(before.width);
    let sy = f64::from(before.screen.height) / f64::from(before.height);
    let screen = before.screen;
    boxes
        .into_iter()
        .map(|(x0, y0, x1, y1)| {
            let to = |v: u32, s: f64| (f64::from(v * TILE) * s).round() as i32;
            let left = (screen.x + to(x0, sx) - PAD).max(screen.x);
            let top = (screen.y + to(y0, sy) - PAD).max(screen.y);
            let right = (screen.x + to(x1 + 1, sx) + PAD).min(screen.x + screen.width);
            let bottom = (screen.y + to(y1 + 1, sy) + PAD).min(screen.y + screen.height);
            Bounds::new(left, top, right - left, bottom - top)
        })
        .collect()
}

/// Groups of changed tiles that touch, or lie on one line up to [`REACH`] tiles apart, as
/// inclusive tile boxes in reading order; `changed` is consumed.
fn tile_groups(changed: &mut [bool], tw: u32, th: u32) -> Vec<(u32, u32, u32, u32)> {
    let mut boxes = Vec::new();
    for start in 0..changed.len() {
        if !changed[start] {
            continue;
        }
        changed[start] = false;
        let (sx, sy) = (start as u32 % tw, start as u32 / tw);
        let mut bbox = (sx, sy, sx, sy);
        let mut todo = vec![(sx, sy)];
        while let Some((x, y)) = todo.pop() {
            bbox = union(bbox, (x, y, x, y));
            for ny in y.saturating_sub(1)..=(y + 1).min(th - 1) {
                for nx in x.saturating_sub(REACH)..=(x + REACH).min(tw - 1) {
                    let k = (ny * tw + nx) as usize;
                    if changed[k] {
                        changed[k] = false;
                        todo.push((nx, ny));
                    }
                }
            }
        }
        boxes.push(bbox);
    }
    boxes
}

fn union(a: (u32, u32, u32, u32), b: (u32, u32, u32, u32)) -> (u32, u32, u32, u32) {
    (a.0.min(b.0), a.1.min(b.1), a.2.max(b.2), a.3.max(b.3))
}

/// The `areas` of `image` (screen pixels) one under another on white, a gap between them, so one
/// OCR reads each as its own line. The result maps no real screen rectangle: its boxes say only
/// the order of what was read. `None` when no area lies in the image.
pub fn stack(image: &RawImage, areas: &[Bounds]) -> Option<RawImage> {
    const GAP: u32 = 12;
    let parts: Vec<RawImage> = areas.iter().filter_map(|a| crop(image, *a)).collect();
    let width = parts.iter().map(|p| p.width).max()? + 2 * GAP;
    let height = parts.iter().map(|p| p.height + GAP).sum::<u32>() + GAP;
    let mut rgb = vec![255u8; (width * height * 3) as usize];
    let mut top = GAP;
    for p in &parts {
        for row in 0..p.height {
            let src = (row * p.width * 3) as usize;
            let dst = (((top + row) * width + GAP) * 3) as usize;
            rgb[dst..dst + (p.width * 3) as usize]
                .copy_from_slice(&p.rgb[src..src + (p.width * 3) as usize]);
        }
        top += p.height + GAP;
    }
    Some(RawImage {
        width,
        height,
        rgb,
        screen: Bounds::new(0, 0, width as i32, height as i32),
        maybe_occluded: image.maybe_occluded,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4x3 image at screen (10, 20) whose pixel (x, y) holds the bytes [x, y, 0].
    fn grid() -> RawImage {
        let mut rgb = Vec::new();
        for y in 0..3u8 {
            for x in 0..4u8 {
                rgb.extend_from_slice(&[x, y, 0]);
            }
        }
        RawImage {
            width: 4,
            height: 3,
            rgb,
            screen: Bounds::new(10, 20, 4, 3),
            maybe_occluded: false,
        }
    }

    #[test]
    fn a_region_is_cut_with_its_screen_place() {
        let c = crop(&grid(), Bounds::new(11, 21, 2, 2)).unwrap();
        assert_eq!((c.width, c.height), (2, 2));
        assert_eq!(c.screen, Bounds::new(11, 21, 2, 2));
        assert_eq!(c.rgb, vec![1, 1, 0, 2, 1, 0, 1, 2, 0, 2, 2, 0]);
    }

    #[test]
    fn a_region_is_clipped_to_the_image_and_outside_it_is_none() {
        let c = crop(&grid(), Bounds::new(0, 0, 12, 22)).unwrap();
        assert_eq!(c.screen, Bounds::new(10, 20, 2, 2));
        assert!(crop(&grid(), Bounds::new(100, 100, 5, 5)).is_none());
    }

    #[test]
    fn changed_areas_box_each_group_of_changed_tiles() {
        let before = RawImage {
            width: 64,
            height: 32,
            rgb: vec![255; 64 * 32 * 3],
            screen: Bounds::new(100, 200, 64, 32),
            maybe_occluded: false,
        };
        let mut after = before.clone();
        for (x, y) in [(3u32, 3u32), (4, 4), (50, 20)] {
            let i = ((y * 64 + x) * 3) as usize;
            after.rgb[i] = 0;
        }
        assert!(changed_areas(&before, &before).is_empty());
        let areas = changed_areas(&before, &after);
        assert_eq!(
            areas,
            vec![Bounds::new(100, 200, 10, 10), Bounds::new(146, 214, 12, 12)]
        );
        let s = stack(&after, &areas).unwrap();
        assert_eq!((s.width, s.height), (12 + 24, 10 + 12 + 12 + 12 + 12));
    }
}
