//! `uidriver doctor` on a Wayland session: which session this is, which compositor, and what
//! works there (and, for what does not, why and the fix). Nothing here changes settings.

use std::path::Path;
use std::time::Duration;

use uidriver_core::{Check, Deadline};

use super::connection::Wayland;
use super::kwin::bus::KwinBus;
use super::sway::SwayIpc;

/// What doctor says when the session cannot be driven: reading still works, the rest not.
const OTHER_FIX: &str = "run the apps in `uidriver sandbox --wayland` (a headless sway), or log \
     in to an X11 session; X11 apps of this session can be driven through XWayland (DISPLAY)";

/// The checks of a sway session: the session, the compositor's IPC (windows and their
/// rectangles), and each protocol uidriver uses (virtual pointer and keyboard, screencopy).
pub(crate) async fn sway_checks(socket: &Path, ipc: &Path) -> Vec<Check> {
    let mut v = vec![Check::pass(
        "session",
        format!("Wayland (compositor socket {})", socket.display()),
    )];
    let ipc_path = ipc.to_path_buf();
    let version = tokio::task::spawn_blocking(move || SwayIpc::new(ipc_path).version())
        .await
        .unwrap_or_else(|e| Err(crate::LinuxError::Wayland(e.to_string())));
    match version {
        Ok(name) => v.push(Check::pass(
            "compositor",
            format!(
                "{name}: windows, their rectangles and focus come from its IPC ({})",
                ipc.display()
            ),
        )),
        Err(e) => v.push(Check::fail(
            "compositor",
            format!("sway's IPC does not answer: {e}"),
            "set SWAYSOCK to the running sway's socket (`sway --get-socketpath`)",
        )),
    }
    let wl = match Wayland::start(&socket.to_string_lossy(), Path::new("/")) {
        Ok(w) => w,
        Err(e) => {
            v.push(Check::fail("display", e.to_string(), OTHER_FIX));
            return v;
        }
    };
    let globals = wl
        .run(Deadline::after(Duration::from_secs(3)), |c| {
            Ok((
                c.layout(),
                c.pointer_manager.is_some(),
                c.keyboard_manager.is_some(),
                c.screencopy.is_some(),
            ))
        })
        .await;
    match globals {
        Err(e) => v.push(Check::fail(
            "display",
            format!(
                "cannot use the Wayland compositor at {}: {e}",
                socket.display()
            ),
            OTHER_FIX,
        )),
        Ok((layout, pointer, keyboard, screencopy)) => {
            v.push(match layout {
                Some(b) => Check::pass(
                    "display",
                    format!("Wayland, outputs {}x{}", b.width, b.height),
                ),
                None => Check::fail(
                    "display",
                    "the compositor reports no output",
                    "configure an output (headless: `output HEADLESS-1 resolution 1280x800`)",
                ),
            });
            let proto = |name: &str, ok: bool, global: &str, what: &str| {
                if ok {
                    Check::pass(name, format!("{global}: {what}"))
                } else {
                    Check::fail(
                        name,
                        format!("the compositor does not offer {global}: {what} cannot work"),
                        "use a wlroots compositor (sway) or `uidriver sandbox --wayland`",
                    )
                }
            };
            v.push(proto(
                "pointer input",
                pointer,
                "zwlr_virtual_pointer_manager_v1",
                "clicks by coordinates",
            ));
            v.push(proto(
                "keyboard input",
                keyboard,
                "zwp_virtual_keyboard_manager_v1",
                "typing and key presses",
            ));
            v.push(proto(
                "screen capture",
                screencopy,
                "zwlr_screencopy_manager_v1",
                "screenshots, visual looks and OCR",
            ));
        }
    }
    v
}

/// The checks of a KDE Wayland session: the session, KWin on the session bus (its version;
/// windows, rectangles and focus come from its scripts), fake input, and ScreenShot2.
pub(crate) async fn kwin_checks(socket: &Path, session: Option<String>) -> Vec<Check> {
    let mut v = vec![Check::pass(
        "session",
        format!("Wayland on KDE (compositor socket {})", socket.display()),
    )];
    let (version, shot) = tokio::task::spawn_blocking(move || {
        let mut bus = KwinBus::new(session);
        let version = bus.version();
        let shot = version
            .as_ref()
            .ok()
            .map(|_| bus.capture(uidriver_core::Bounds::new(0, 0, 1, 1)));
        (version, shot)
    })
    .await
    .unwrap_or_else(|e| (Err(crate::LinuxError::Wayland(e.to_string())), None));
    let kwin_fix = "run KWin's session bus as DBUS_SESSION_BUS_ADDRESS (KWin owns org.kde.KWin \
         there), or `uidriver sandbox --wayland --compositor kwin`";
    match version {
        Ok(name) => v.push(Check::pass(
            "compositor",
            format!("{name}: windows, their rectangles and focus come from KWin scripts"),
        )),
        Err(e) => v.push(Check::fail(
            "compositor",
            format!("KWin does not answer on the session bus: {e}"),
            kwin_fix,
        )),
    }
    let wl = match Wayland::start(&socket.to_string_lossy(), Path::new("/")) {
        Ok(w) => w,
        Err(e) => {
            v.push(Check::fail("display", e.to_string(), OTHER_FIX));
            return v;
        }
    };
    let globals = wl
        .run(Deadline::after(Duration::from_secs(3)), |c| {
            Ok((
                c.layout(),
                c.fake_input
                    .as_ref()
                    .map(|(f, _)| wayland_client::Proxy::version(f)),
            ))
        })
        .await;
    match globals {
        Err(e) => v.push(Check::fail(
            "display",
            format!(
                "cannot use the Wayland compositor at {}: {e}",
                socket.display()
            ),
            OTHER_FIX,
        )),
        Ok((layout, fake)) => {
            v.push(match layout {
                Some(b) => Check::pass(
                    "display",
                    format!("Wayland, outputs {}x{}", b.width, b.height),
                ),
                None => Check::fail(
                    "display",
                    "the compositor reports no output",
                    "start KWin with an output (`kwin_wayland --virtual --width 1280 --height 800`)",
                ),
            });
            v.push(match fake {
                Some(n) if n >= 4 => Check::pass(
                    "input",
                    format!("org_kde_kwin_fake_input version {n}: clicks and keys"),
                ),
                Some(n) => Check::fail(
                    "input",
                    format!("org_kde_kwin_fake_input version {n}: absolute motion and keys need 4"),
                    "use KWin 5.23 or later",
                ),
                None => Check::fail(
                    "input",
                    "KWin does not offer org_kde_kwin_fake_input to this client: no clicks or keys",
                    "start KWin with KWIN_WAYLAND_NO_PERMISSION_CHECKS=1, or use `uidriver sandbox --wayland --compositor kwin`",
                ),
            });
        }
    }
    v.push(match shot {
        Some(Ok(_)) => Check::pass(
            "screen capture",
            "org.kde.KWin.ScreenShot2: screenshots, visual looks and OCR",
        ),
        Some(Err(e)) => Check::fail(
            "screen capture",
            format!("org.kde.KWin.ScreenShot2 refused a capture: {e}"),
            "start KWin with KWIN_SCREENSHOT_NO_PERMISSION_CHECKS=1, or use `uidriver sandbox --wayland --compositor kwin`",
        ),
        None => Check::fail(
            "screen capture",
            "KWin is not on the session bus: no screenshots",
            kwin_fix,
        ),
    });
    v
}

/// The checks of a Wayland session uidriver cannot drive (no sway IPC, not KDE: GNOME's mutter,
/// weston): reading through AT-SPI works, windows' rectangles, input and pixels do not.
pub(crate) fn other_checks(socket: &Path, xwayland: Option<&str>) -> Vec<Check> {
    let session = Check::pass(
        "session",
        format!(
            "Wayland (compositor socket {}), not sway: SWAYSOCK is not set",
            socket.display()
        ),
    );
    let display = match xwayland {
        Some(d) => Check::fail(
            "native Wayland apps",
            format!("this compositor gives clients no window rectangles, input or pixels: native Wayland apps can be read through AT-SPI only; X11 apps are driven through XWayland ({d})"),
            OTHER_FIX,
        ),
        None => Check::fail(
            "display",
            "this compositor gives clients no window rectangles, input or pixels, and there is no XWayland DISPLAY: apps can be read through AT-SPI only",
            OTHER_FIX,
        ),
    };
    vec![session, display]
}
