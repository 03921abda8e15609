//! Pixels of a window: X11 `GetImage`, converted to RGB.
//!
//! When a compositing manager redirects windows, the window's own pixmap
//! (`Composite.NameWindowPixmap` of its top-level frame) holds its pixels even when covered; else
//! the pixels come from the root window's rectangle, where another window may cover the target
//! (`maybe_occluded`). Scaling and encoding are the vision crate's job.

use x11rb::connection::Connection;
use x11rb::protocol::composite::ConnectionExt as _;
use x11rb::protocol::xproto::{ConnectionExt as _, ImageFormat, Window};

use super::connection::{xerr, XConn};
use super::ewmh::has_extension;
use crate::error::LinuxError;
use uidriver_core::{Bounds, RawImage};

/// Captures `bounds` (root coordinates) of window `w` (the client window, or `None` for a bare
/// screen rectangle).
pub(crate) fn capture(x: &XConn, w: Option<u32>, bounds: Bounds) -> Result<RawImage, LinuxError> {
    let screen = &x.conn.setup().roots[x.screen];
    let full = Bounds::new(
        0,
        0,
        i32::from(screen.width_in_pixels),
        i32::from(screen.height_in_pixels),
    );
    let rect = bounds
        .intersect(&full)
        .ok_or_else(|| LinuxError::InvalidArgs(format!("rectangle {bounds} is off screen")))?;
    if let Some(w) = w {
        if has_extension(x, x11rb::protocol::composite::X11_EXTENSION_NAME)
            && (compositing(x) || redirect_toplevels(x))
        {
            if let Ok(img) = from_pixmap(x, w, rect) {
                return Ok(img);
            }
        }
    }
    let img = get_image(x, x.root(), 0, 0, rect)?;
    Ok(RawImage {
        maybe_occluded: true,
        ..img
    })
}

/// Without a compositing manager, windows have no pixmaps of their own and a covered window's
/// pixels are gone. Redirecting the root's children *automatically* gives every top-level window
/// an offscreen pixmap while the server keeps painting the screen as before (nothing visible
/// changes). Done once per connection; the first capture after it waits briefly because
/// redirected windows repaint into their new pixmaps on the Expose that follows.
pub(crate) fn redirect_toplevels(x: &XConn) -> bool {
    if x.redirected.get() {
        return true;
    }
    let ok = x
        .conn
        .composite_redirect_subwindows(x.root(), x11rb::protocol::composite::Redirect::AUTOMATIC)
        .ok()
        .and_then(|c| c.check().ok())
        .is_some();
    if ok {
        x.redirected.set(true);
        std::thread::sleep(std::time::Duration::from_millis(150));
    }
    ok
}

/// Whether a compositing manager owns `_NET_WM_CM_S<screen>`.
fn compositing(x: &XConn) -> bool {
    let name = format!("_NET_WM_CM_S{}", x.screen);
    let Ok(Ok(atom)) = x.conn.intern_atom(true, name.as_bytes()).map(|c| c.reply()) else {
        return false;
    };
    if atom.atom == 0 {
        return false;
    }
    x.conn
        .get_selection_owner(atom.atom)
        .ok()
        .and_then(|c| c.reply().ok())
        .is_some_and(|r| r.owner != 0)
}

/// The top-level ancestor of `w` (the child of the root: the window manager's frame).
fn toplevel(x: &XConn, mut w: Window) -> Result<Window, LinuxError> {
    let root = x.root();
    for _ in 0..64 {
        let t = x.conn.query_tree(w).map_err(xerr)?.reply().map_err(xerr)?;
        if t.parent == root || t.parent == 0 {
            return Ok(w);
        }
        w = t.parent;
    }
    Ok(w)
}

fn from_pixmap(x: &XConn, w: Window, rect: Bounds) -> Result<RawImage, LinuxError> {
    let top = toplevel(x, w)?;
    let origin = x
        .conn
        .translate_coordinates(top, x.root(), 0, 0)
        .map_err(xerr)?
        .reply()
        .map_err(xerr)?;
    let pixmap = x.conn.generate_id().map_err(xerr)?;
    x.conn
        .composite_name_window_pixmap(top, pixmap)
        .map_err(xerr)?
        .check()
        .map_err(xerr)?;
    let result = get_image(
        x,
        pixmap,
        i32::from(origin.dst_x),
        i32::from(origin.dst_y),
        rect,
    );
    let _ = x.conn.free_pixmap(pixmap);
    let img = result?;
    Ok(RawImage {
        maybe_occluded: false,
        ..img
    })
}

/// `GetImage` of `rect` (root coordinates) from `drawable`, whose top-left sits at
/// `(dx, dy)` on the root.
fn get_image(
    x: &XConn,
    drawable: u32,
    dx: i32,
    dy: i32,
    rect: Bounds,
) -> Result<RawImage, LinuxError> {
    let reply = x
        .conn
        .get_image(
            ImageFormat::Z_PIXMAP,
            drawable,
            (rect.x - dx) as i16,
            (rect.y - dy) as i16,
            rect.width as u16,
            rect.height as u16,
            !0,
        )
        .map_err(xerr)?
        .reply()
        .map_err(xerr)?;
    let setup = x.conn.setup();
    let bpp = setup
        .pixmap_formats
        .iter()
        .find(|f| f.depth == reply.depth)
        .map(|f| f.bits_per_pixel)
        .unwrap_or(32);
    let visual = setup.roots[x.screen]
        .allowed_depths
        .iter()
        .flat_map(|d| d.visuals.iter())
        .find(|v| v.visual_id == reply.visual)
        .map(|v| (v.red_mask, v.green_mask, v.blue_mask))
        .unwrap_or((0xff_0000, 0xff00, 0xff));
    if bpp != 32 && bpp != 24 {
        return Err(LinuxError::X11(format!(
            "unsupported pixel format: {bpp} bits per pixel"
        )));
    }
    let (w, h) = (rect.width as usize, rect.height as usize);
    let bytes = usize::from(bpp / 8);
    let pad = usize::from(setup.bitmap_format_scanline_pad) / 8;
    let stride = (w * bytes).div_ceil(pad.max(1)) * pad.max(1);
    let little = setup.image_byte_order == x11rb::protocol::xproto::ImageOrder::LSB_FIRST;
    let mut rgb = Vec::with_capacity(w * h * 3);
    for row in 0..h {
        let line = reply
            .data
            .get(row * stride..row * stride + w * bytes)
            .ok_or_else(|| LinuxError::X11("short GetImage reply".into()))?;
        for px in line.chunks_exact(bytes) {
            let mut v: u32 = 0;
            for (i, b) in px.iter().enumerate() {
                let shift = if little { 8 * i } else { 8 * (bytes - 1 - i) };
                v |= u32::from(*b) << shift;
            }
            rgb.push(channel(v, visual.0));
            rgb.push(channel(v, visual.1));
            rgb.push(channel(v, visual.2));
        }
    }
    Ok(RawImage {
        width: w as u32,
        height: h as u32,
        rgb,
        screen: rect,
        maybe_occluded: true,
    })
}

/// Extracts an 8-bit channel under `mask` (e.g. 0xff0000 → bits 16..24).
fn channel(v: u32, mask: u32) -> u8 {
    if mask == 0 {
        return 0;
    }
    let shift = mask.trailing_zeros();
    let bits = (mask >> shift).count_ones();
    let raw = (v & mask) >> shift;
    if bits >= 8 {
        (raw >> (bits - 8)) as u8
    } else {
        ((raw << (8 - bits)) | (raw >> (2 * bits).saturating_sub(8))) as u8
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn channels_follow_the_visual_masks() {
        let v = 0x00_12_34_56;
        assert_eq!(super::channel(v, 0xff_0000), 0x12);
        assert_eq!(super::channel(v, 0xff00), 0x34);
        assert_eq!(super::channel(v, 0xff), 0x56);
        assert_eq!(super::channel(0xf800, 0xf800), 0xff);
    }
}
