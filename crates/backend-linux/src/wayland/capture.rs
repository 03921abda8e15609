//! Screen pixels on wlroots compositors: `zwlr_screencopy_manager_v1` copies a region of one
//! output into a `wl_shm` buffer we own, converted here to RGB.
//!
//! The buffer is a memfd read back with `pread` (no mmap, so no unsafe code). The compositor
//! picks the pixel format (`buffer` event) and may hand rows bottom-up (`flags` y_invert). A
//! Wayland compositor never lets a client see another window's pixels when covered, so every
//! image is `maybe_occluded`. Scaling and encoding are the vision crate's job.

use std::fs::File;
use std::os::fd::AsFd as _;
use std::os::unix::fs::FileExt as _;

use uidriver_core::{Bounds, RawImage};
use wayland_client::protocol::wl_shm::Format;
use wayland_client::{Proxy as _, WEnum};

use super::connection::{missing, FrameEvents, WlConn};
use crate::error::LinuxError;

/// Captures `bounds` (screen coordinates), clipped to the output that shows most of it.
pub(crate) fn capture(w: &mut WlConn, bounds: Bounds) -> Result<RawImage, LinuxError> {
    let manager = w
        .screencopy
        .clone()
        .ok_or_else(|| missing("screen capture", "zwlr_screencopy_manager_v1"))?;
    let shm = w
        .shm
        .clone()
        .ok_or_else(|| missing("screen capture", "wl_shm"))?;
    let (output, out_rect, rect) = w
        .state
        .outputs
        .iter()
        .filter_map(|o| {
            let r = o.logical();
            bounds.intersect(&r).map(|i| (o.output.clone(), r, i))
        })
        .max_by_key(|(_, _, i)| i64::from(i.width) * i64::from(i.height))
        .ok_or_else(|| LinuxError::InvalidArgs(format!("rectangle {bounds} is off screen")))?;
    let qh = w.qh().clone();
    let frame = if rect == out_rect {
        manager.capture_output(0, &output, &qh, ())
    } else {
        manager.capture_output_region(
            0,
            &output,
            rect.x - out_rect.x,
            rect.y - out_rect.y,
            rect.width,
            rect.height,
            &qh,
            (),
        )
    };
    w.state.frame = Some((frame.id(), FrameEvents::default()));
    let result = copy(w, &frame, &shm, manager.version());
    frame.destroy();
    w.state.frame = None;
    let (ev, bytes) = result?;
    let (format, width, height, stride) = ev
        .buffer
        .ok_or_else(|| LinuxError::Wayland("screencopy announced no buffer".into()))?;
    let rgb = to_rgb(&bytes, format, width, height, stride, ev.y_invert)?;
    Ok(RawImage {
        width,
        height,
        rgb,
        screen: rect,
        maybe_occluded: true,
    })
}

/// Waits for the buffer parameters, copies into a fresh shm buffer and waits for `ready`.
fn copy(
    w: &mut WlConn,
    frame: &wayland_protocols_wlr::screencopy::v1::client::zwlr_screencopy_frame_v1::ZwlrScreencopyFrameV1,
    shm: &wayland_client::protocol::wl_shm::WlShm,
    version: u32,
) -> Result<(FrameEvents, Vec<u8>), LinuxError> {
    let events =
        |s: &super::connection::State| s.frame.as_ref().map(|f| f.1.clone()).unwrap_or_default();
    // Version 3 lists every buffer type and then says `buffer_done`; before, `buffer` is all.
    w.wait(
        |s| {
            let e = events(s);
            e.failed || (e.buffer.is_some() && (version < 3 || e.buffer_done))
        },
        "screencopy's buffer parameters",
    )?;
    let ev = events(&w.state);
    if ev.failed {
        return Err(LinuxError::Wayland("screencopy failed".into()));
    }
    let Some((format, width, height, stride)) = ev.buffer else {
        return Err(LinuxError::Wayland("screencopy announced no buffer".into()));
    };
    let WEnum::Value(shm_format) = format else {
        return Err(LinuxError::Wayland(format!(
            "screencopy offers an unknown pixel format {format:?}"
        )));
    };
    let size = u64::from(stride) * u64::from(height);
    let len = i32::try_from(size)
        .map_err(|_| LinuxError::Wayland(format!("screencopy buffer of {size} bytes")))?;
    let fd = rustix::fs::memfd_create("uidriver-capture", rustix::fs::MemfdFlags::CLOEXEC)
        .map_err(|e| LinuxError::Wayland(format!("memfd_create: {e}")))?;
    let file = File::from(fd);
    file.set_len(size)
        .map_err(|e| LinuxError::Wayland(format!("sizing the capture buffer: {e}")))?;
    let qh = w.qh().clone();
    let pool = shm.create_pool(file.as_fd(), len, &qh, ());
    let buffer = pool.create_buffer(
        0,
        width as i32,
        height as i32,
        stride as i32,
        shm_format,
        &qh,
        (),
    );
    frame.copy(&buffer);
    let waited = w.wait(
        |s| {
            let e = events(s);
            e.ready || e.failed
        },
        "screencopy",
    );
    buffer.destroy();
    pool.destroy();
    waited?;
    let ev = events(&w.state);
    if ev.failed {
        return Err(LinuxError::Wayland("screencopy failed".into()));
    }
    let mut bytes = vec![0u8; size as usize];
    file.read_exact_at(&mut bytes, 0)
        .map_err(|e| LinuxError::Wayland(format!("reading the capture buffer: {e}")))?;
    Ok((ev, bytes))
}

/// Where a format keeps its channels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// Bytes per pixel and the byte index of red, green and blue.
    Bytes(usize, [usize; 3]),
    /// 32-bit little-endian words with 10-bit channels at these shifts.
    Ten([u32; 3]),
}

/// The layout of a `wl_shm` format in memory (DRM fourcc names give the order of a
/// little-endian word from the high bits: XRGB8888 is bytes B, G, R, X).
fn layout(f: WEnum<Format>) -> Option<Layout> {
    let WEnum::Value(f) = f else {
        return None;
    };
    Some(match f {
        Format::Argb8888 | Format::Xrgb8888 => Layout::Bytes(4, [2, 1, 0]),
        Format::Abgr8888 | Format::Xbgr8888 => Layout::Bytes(4, [0, 1, 2]),
        Format::Rgba8888 | Format::Rgbx8888 => Layout::Bytes(4, [3, 2, 1]),
        Format::Bgra8888 | Format::Bgrx8888 => Layout::Bytes(4, [1, 2, 3]),
        Format::Rgb888 => Layout::Bytes(3, [2, 1, 0]),
        Format::Bgr888 => Layout::Bytes(3, [0, 1, 2]),
        Format::Xrgb2101010 | Format::Argb2101010 => Layout::Ten([20, 10, 0]),
        Format::Xbgr2101010 | Format::Abgr2101010 => Layout::Ten([0, 10, 20]),
        _ => return None,
    })
}

/// RGB bytes from the buffer, top row first.
fn to_rgb(
    bytes: &[u8],
    format: WEnum<Format>,
    width: u32,
    height: u32,
    stride: u32,
    y_invert: bool,
) -> Result<Vec<u8>, LinuxError> {
    let l = layout(format).ok_or_else(|| {
        LinuxError::Wayland(format!("unsupported screencopy pixel format {format:?}"))
    })?;
    let bpp = match l {
        Layout::Bytes(n, _) => n,
        Layout::Ten(_) => 4,
    };
    let (w, h, stride) = (width as usize, height as usize, stride as usize);
    let mut rgb = Vec::with_capacity(w * h * 3);
    for row in 0..h {
        let src = if y_invert { h - 1 - row } else { row };
        let line = bytes
            .get(src * stride..src * stride + w * bpp)
            .ok_or_else(|| LinuxError::Wayland("short screencopy buffer".into()))?;
        match l {
            Layout::Bytes(_, [r, g, b]) => {
                for px in line.chunks_exact(bpp) {
                    rgb.extend_from_slice(&[px[r], px[g], px[b]]);
                }
            }
            Layout::Ten(shifts) => {
                for px in line.chunks_exact(4) {
                    let v = u32::from_le_bytes([px[0], px[1], px[2], px[3]]);
                    for s in shifts {
                        rgb.push((((v >> s) & 0x3ff) >> 2) as u8);
                    }
                }
            }
        }
    }
    Ok(rgb)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_convert_to_rgb_and_inverted_rows_flip() {
        // One 1×2 image: red on top, blue below, as XRGB8888 (bytes B, G, R, X).
        let xrgb = [0, 0, 0xff, 0, 0xff, 0, 0, 0];
        let top_first = to_rgb(&xrgb, WEnum::Value(Format::Xrgb8888), 1, 2, 4, false).unwrap();
        assert_eq!(top_first, vec![0xff, 0, 0, 0, 0, 0xff]);
        let flipped = to_rgb(&xrgb, WEnum::Value(Format::Xrgb8888), 1, 2, 4, true).unwrap();
        assert_eq!(flipped, vec![0, 0, 0xff, 0xff, 0, 0]);
        let xbgr = [0x11, 0x22, 0x33, 0];
        assert_eq!(
            to_rgb(&xbgr, WEnum::Value(Format::Xbgr8888), 1, 1, 4, false).unwrap(),
            vec![0x11, 0x22, 0x33]
        );
        // Stride padding is skipped.
        let padded = [1, 2, 3, 0, 9, 9, 9, 9, 4, 5, 6, 0, 9, 9, 9, 9];
        assert_eq!(
            to_rgb(&padded, WEnum::Value(Format::Argb8888), 1, 2, 8, false).unwrap(),
            vec![3, 2, 1, 6, 5, 4]
        );
        // 10-bit red at full scale.
        let ten = (0x3ffu32 << 20).to_le_bytes();
        assert_eq!(
            to_rgb(&ten, WEnum::Value(Format::Xrgb2101010), 1, 1, 4, false).unwrap(),
            vec![0xff, 0, 0]
        );
        assert!(to_rgb(&[0; 4], WEnum::Value(Format::C8), 1, 1, 4, false).is_err());
        assert!(to_rgb(&[0; 3], WEnum::Value(Format::Xrgb8888), 1, 1, 4, false).is_err());
    }
}
