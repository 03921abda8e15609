//! Environment checks for `uidriver doctor`: can this process see an X display with the
//! extensions uidriver uses, a session bus, the accessibility bus with toolkit accessibility on,
//! and the registry's applications? Each failure carries its fix. Nothing here changes settings.

use std::time::Duration;

use uidriver_core::{Check, Deadline};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _};

use crate::atspi::connection::A11yBus;
use crate::atspi::{accessible, Obj, REGISTRY, ROOT_PATH};
use crate::x11::connection::X11;
use crate::{LinuxConfig, Platform};

const SANDBOX_FIX: &str =
    "run inside `uidriver sandbox -- …`, which starts a private desktop with all of this";

/// The Linux desktop's checks through the port: standalone (`LinuxDoctor::new(config)`, for a
/// backend that cannot start) or from a running backend ([`uidriver_core::Backend::doctor`]).
pub struct LinuxDoctor {
    config: LinuxConfig,
}

impl LinuxDoctor {
    /// The checks for the desktop `config` names.
    pub fn new(config: LinuxConfig) -> Self {
        LinuxDoctor { config }
    }
}

#[async_trait::async_trait]
impl uidriver_core::Doctor for LinuxDoctor {
    async fn checks(&self) -> Vec<Check> {
        diagnose(&self.config).await
    }

    /// Without a display, the session bus or the accessibility bus nothing on the desktop can
    /// be seen.
    fn essential(&self, name: &str) -> bool {
        matches!(name, "display" | "session bus" | "accessibility bus")
    }
}

/// Runs every check; never fails as a whole. The display checks follow the platform the
/// backend picks ([`LinuxConfig::platform`]): sway's IPC and protocols on a sway session, the
/// X server otherwise (XWayland's on another Wayland session, said so first).
pub async fn diagnose(config: &LinuxConfig) -> Vec<Check> {
    let mut out = Vec::new();
    match config.platform() {
        Platform::Sway { socket, ipc } => {
            out.extend(crate::wayland::doctor::sway_checks(&socket, &ipc).await)
        }
        Platform::Kwin { socket } => out.extend(
            crate::wayland::doctor::kwin_checks(&socket, config.session_address.clone()).await,
        ),
        Platform::OtherWayland(socket) => {
            out.extend(crate::wayland::doctor::other_checks(&socket, None))
        }
        Platform::X11(d) => {
            if let Some(socket) = other_wayland(config) {
                out.extend(crate::wayland::doctor::other_checks(&socket, Some(&d)));
            }
            out.extend(x11_checks(config).await);
        }
        Platform::None => out.extend(x11_checks(config).await),
    }
    out.extend(bus_checks(config).await);
    out.extend(bridge_checks(config));
    out
}

/// The socket of a Wayland session that `platform()` passed over for X11 (no sway IPC, but
/// XWayland's DISPLAY).
fn other_wayland(config: &LinuxConfig) -> Option<std::path::PathBuf> {
    let only_x11 = LinuxConfig {
        display: None,
        ..config.clone()
    };
    match only_x11.platform() {
        Platform::OtherWayland(socket) => Some(socket),
        _ => None,
    }
}

/// Where Debian, Fedora and Arch keep GTK 2 modules.
const GTK2_MODULE_DIRS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu/gtk-2.0/modules",
    "/usr/lib/aarch64-linux-gnu/gtk-2.0/modules",
    "/usr/lib64/gtk-2.0/modules",
    "/usr/lib/gtk-2.0/modules",
];

/// The toolkit bridges that are not built into the toolkit, and the environment each needs.
/// GTK 3, GTK 4, Chromium, LibreOffice and Gecko carry theirs; GTK 2 (GIMP 2.10) loads the ATK
/// bridge as a module only when asked; Qt starts its bridge only when told to or when
/// `org.a11y.Status` was already on when the app started.
fn bridge_checks(config: &LinuxConfig) -> Vec<Check> {
    let var = |k: &str| {
        config
            .launch_env
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(k).ok())
            .unwrap_or_default()
    };
    let mut v = Vec::new();
    let module = GTK2_MODULE_DIRS
        .iter()
        .map(|d| std::path::Path::new(d).join("libatk-bridge.so"))
        .find(|p| p.is_file());
    let asked = [var("GTK2_MODULES"), var("GTK_MODULES")]
        .iter()
        .any(|m| m.split(':').any(|x| x == "atk-bridge"));
    v.push(match (module, asked) {
        (Some(p), true) => Check::pass(
            "GTK 2 bridge",
            format!("{} is installed and GTK2_MODULES asks for it", p.display()),
        ),
        (Some(p), false) => Check::fail(
            "GTK 2 bridge",
            format!("{} is installed, but GTK 2 apps (GIMP 2.10) are not told to load it: they show no tree", p.display()),
            "start GTK 2 apps with GTK2_MODULES=gail:atk-bridge (`uidriver sandbox` sets it)",
        ),
        (None, _) => Check::fail(
            "GTK 2 bridge",
            "libatk-bridge.so for GTK 2 is not installed: GTK 2 apps (GIMP 2.10) show no tree",
            "apt-get install libatk-adaptor, then start them with GTK2_MODULES=gail:atk-bridge",
        ),
    });
    let qt_on = var("QT_LINUX_ACCESSIBILITY_ALWAYS_ON") == "1" || var("QT_ACCESSIBILITY") == "1";
    v.push(if qt_on {
        Check::pass("Qt bridge", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON or QT_ACCESSIBILITY is 1: Qt apps start their AT-SPI bridge")
    } else {
        Check::fail(
            "Qt bridge",
            "neither QT_LINUX_ACCESSIBILITY_ALWAYS_ON nor QT_ACCESSIBILITY is 1: a Qt app started before accessibility was switched on shows no tree",
            "start Qt apps with QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 (`uidriver sandbox` sets it)",
        )
    });
    v
}

async fn x11_checks(config: &LinuxConfig) -> Vec<Check> {
    let display = config.display.clone().filter(|d| !d.is_empty());
    let Some(name) = display.clone() else {
        return vec![Check::fail("display", "DISPLAY is not set", SANDBOX_FIX)];
    };
    let x = match X11::start(Some(name.clone())) {
        Ok(x) => x,
        Err(e) => return vec![Check::fail("display", e.to_string(), SANDBOX_FIX)],
    };
    let deadline = Deadline::after(Duration::from_secs(3));
    let probe = x
        .run(deadline, |c| {
            let screen = &c.conn.setup().roots[c.screen];
            let ext = |n: &'static str| crate::x11::ewmh::has_extension(c, n);
            let wm = c
                .conn
                .get_property(
                    false,
                    screen.root,
                    c.atoms._NET_SUPPORTING_WM_CHECK,
                    AtomEnum::WINDOW,
                    0,
                    1,
                )
                .ok()
                .and_then(|r| r.reply().ok())
                .is_some_and(|r| r.value_len > 0);
            Ok((
                (screen.width_in_pixels, screen.height_in_pixels),
                ext("XTEST"),
                ext("Composite"),
                ext("RANDR"),
                wm,
            ))
        })
        .await;
    match probe {
        Err(e) => vec![Check::fail(
            "display",
            format!("cannot use X display {name}: {e}"),
            SANDBOX_FIX,
        )],
        Ok(((w, h), xtest, composite, randr, wm)) => {
            let mut v = vec![Check::pass("display", format!("X display {name}, {w}x{h}"))];
            v.push(if xtest {
                Check::pass("XTEST", "present: physical input can be injected")
            } else {
                Check::fail(
                    "XTEST",
                    "missing: clicks and key presses by coordinates cannot work",
                    "start the X server with +extension XTEST",
                )
            });
            v.push(if composite {
                Check::pass(
                    "Composite",
                    "present: windows can be captured without covering windows",
                )
            } else {
                Check::fail(
                    "Composite",
                    "missing: captures read the screen and may show covering windows",
                    "start the X server with +extension Composite",
                )
            });
            v.push(if randr {
                Check::pass("RandR", "present: monitors are known")
            } else {
                Check::fail(
                    "RandR",
                    "missing: the screen is treated as one monitor",
                    "start the X server with +extension RANDR",
                )
            });
            v.push(if wm {
                Check::pass("window manager", "an EWMH window manager is running")
            } else {
                Check::fail("window manager", "no EWMH window manager: windows cannot be activated or listed in stacking order", "start one (openbox --sm-disable &), or use `uidriver sandbox`")
            });
            v
        }
    }
}

async fn bus_checks(config: &LinuxConfig) -> Vec<Check> {
    let mut v = Vec::new();
    let session = config
        .session_address
        .clone()
        .or_else(|| std::env::var("DBUS_SESSION_BUS_ADDRESS").ok())
        .filter(|s| !s.is_empty());
    let session_conn = match &session {
        None => {
            v.push(Check::fail(
                "session bus",
                "DBUS_SESSION_BUS_ADDRESS is not set",
                SANDBOX_FIX,
            ));
            None
        }
        Some(addr) => match tokio::time::timeout(Duration::from_secs(3), async {
            zbus::connection::Builder::address(addr.as_str())?
                .build()
                .await
        })
        .await
        {
            Ok(Ok(c)) => {
                v.push(Check::pass("session bus", format!("connected to {addr}")));
                Some(c)
            }
            Ok(Err(e)) => {
                v.push(Check::fail(
                    "session bus",
                    format!("{addr}: {e}"),
                    SANDBOX_FIX,
                ));
                None
            }
            Err(_) => {
                v.push(Check::fail(
                    "session bus",
                    format!("{addr}: no answer within 3 s"),
                    SANDBOX_FIX,
                ));
                None
            }
        },
    };
    if let Some(conn) = &session_conn {
        // org.a11y.Status.IsEnabled is what toolkits read to decide whether to expose a tree.
        let enabled = tokio::time::timeout(Duration::from_secs(2), async {
            let reply = conn
                .call_method(
                    Some("org.a11y.Bus"),
                    "/org/a11y/bus",
                    Some("org.freedesktop.DBus.Properties"),
                    "Get",
                    &("org.a11y.Status", "IsEnabled"),
                )
                .await?;
            let v: zbus::zvariant::OwnedValue = reply.body().deserialize()?;
            Ok::<bool, zbus::Error>(bool::try_from(v).unwrap_or(false))
        })
        .await;
        v.push(match enabled {
            Ok(Ok(true)) => Check::pass("toolkit accessibility", "org.a11y.Status.IsEnabled is true"),
            Ok(Ok(false)) => Check::fail(
                "toolkit accessibility",
                "org.a11y.Status.IsEnabled is false: GTK and Qt apps will not expose their trees",
                "gsettings set org.gnome.desktop.interface toolkit-accessibility true (then restart the apps), or start at-spi-bus-launcher with --a11y=1",
            ),
            _ => Check::fail(
                "toolkit accessibility",
                "nobody answers org.a11y.Bus on the session bus",
                "install at-spi2-core and start /usr/libexec/at-spi-bus-launcher --launch-immediately --a11y=1",
            ),
        });
    }
    let a11y = tokio::time::timeout(
        Duration::from_secs(6),
        A11yBus::connect(config.a11y_address.as_deref(), session.as_deref()),
    )
    .await;
    match a11y {
        Ok(Ok(bus)) => {
            v.push(Check::pass(
                "accessibility bus",
                format!("connected to {}", bus.address()),
            ));
            let deadline = Deadline::after(Duration::from_secs(2));
            let caller = bus.caller(deadline, Duration::from_secs(2), 4);
            match accessible::children(&caller, &Obj::new(REGISTRY, ROOT_PATH)).await {
                Ok(apps) => v.push(Check::pass(
                    "accessibility registry",
                    format!("{} applications registered", apps.len()),
                )),
                Err(e) => v.push(Check::fail(
                    "accessibility registry",
                    e.to_string(),
                    "at-spi2-registryd should start on demand; check the at-spi2-core installation",
                )),
            }
        }
        Ok(Err(e)) => v.push(Check::fail("accessibility bus", e.to_string(), SANDBOX_FIX)),
        Err(_) => v.push(Check::fail(
            "accessibility bus",
            "no answer within 6 s",
            SANDBOX_FIX,
        )),
    }
    v
}
