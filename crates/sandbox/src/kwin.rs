//! The KDE side of the Wayland sandbox: KWin (`kwin_wayland --virtual`) as compositor and
//! window manager, started after the session bus because KWin registers its services
//! (`org.kde.KWin`, its scripting and `ScreenShot2`) there at startup, and uidriver's KWin desk
//! asks them for windows and pixels.
//!
//! Debian's `/usr/bin/kwin_wayland` carries the file capability `cap_sys_resource`; where the
//! capability is not in the bounding set (containers, these VMs) exec fails with "Operation not
//! permitted". A copy of the binary in the state dir has no file capabilities and runs
//! (WAYLAND-FACTS.md). Starting and recording the process is `sandbox.rs`'s job; stopping it
//! is `stop.rs`'s, like every other component.

use std::path::{Path, PathBuf};

use crate::SandboxError;

/// Where Debian installs KWin.
pub(crate) const KWIN: &str = "kwin_wayland";
/// The socket name KWin is told to listen on (the runtime dir is the sandbox's own).
pub(crate) const SOCKET: &str = "wayland-kwin";
/// The name KWin owns on the session bus once its D-Bus interface is up.
pub(crate) const BUS_NAME: &str = "org.kde.KWin";
/// The name of its screenshot service, up a moment later.
pub(crate) const SCREENSHOT_NAME: &str = "org.kde.KWin.ScreenShot2";
/// Variables only the compositor gets: software compositing (no GPU here; `O2` is KWin's
/// OpenGL 2 through Mesa's llvmpipe), and fake input and screenshots for every client without
/// asking (a sandbox has nobody to ask).
const COMPOSITOR_VARS: &[(&str, &str)] = &[
    ("KWIN_COMPOSE", "O2"),
    ("KWIN_WAYLAND_NO_PERMISSION_CHECKS", "1"),
    ("KWIN_SCREENSHOT_NO_PERMISSION_CHECKS", "1"),
];
/// What apps see: a KDE session, so uidriver's backend picks its KWin desk, as Plasma sets.
pub(crate) const SESSION_VARS: &[(&str, &str)] =
    &[("XDG_CURRENT_DESKTOP", "KDE"), ("KDE_SESSION_VERSION", "5")];

/// Copies `kwin` into `state_dir` (without its file capabilities); the copy's path.
pub(crate) fn copy_binary(kwin: &Path, state_dir: &Path) -> Result<PathBuf, SandboxError> {
    let to = state_dir.join(KWIN);
    // A copy a previous run left may be running still; never write over a running binary.
    let _ = std::fs::remove_file(&to);
    std::fs::copy(kwin, &to).map_err(|e| {
        SandboxError::io(format!("copying {} to {}", kwin.display(), to.display()), e)
    })?;
    Ok(to)
}

/// KWin's arguments: a virtual output of `width`×`height`, our socket name, no lock screen.
pub(crate) fn args(width: u32, height: u32) -> Vec<String> {
    [
        "--virtual",
        "--width",
        &width.to_string(),
        "--height",
        &height.to_string(),
        "--socket",
        SOCKET,
        "--no-lockscreen",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// The compositor's environment: the sandbox's (with the session bus), without a display of
/// its own to connect to, plus KWin's variables.
pub(crate) fn compositor_env(env: &[(String, String)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = env
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "WAYLAND_DISPLAY" | "DISPLAY" | "SWAYSOCK"))
        .cloned()
        .collect();
    out.extend(
        COMPOSITOR_VARS
            .iter()
            .chain(SESSION_VARS)
            .map(|(k, v)| (k.to_string(), v.to_string())),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kwin_gets_a_virtual_output_our_socket_and_its_variables() {
        assert_eq!(
            args(1024, 768),
            [
                "--virtual",
                "--width",
                "1024",
                "--height",
                "768",
                "--socket",
                "wayland-kwin",
                "--no-lockscreen"
            ]
        );
        let env = vec![
            ("DISPLAY".to_string(), ":0".to_string()),
            ("DBUS_SESSION_BUS_ADDRESS".into(), "unix:path=/b".into()),
        ];
        let out = compositor_env(&env);
        let keys: Vec<&str> = out.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "DBUS_SESSION_BUS_ADDRESS",
                "KWIN_COMPOSE",
                "KWIN_WAYLAND_NO_PERMISSION_CHECKS",
                "KWIN_SCREENSHOT_NO_PERMISSION_CHECKS",
                "XDG_CURRENT_DESKTOP",
                "KDE_SESSION_VERSION"
            ]
        );
    }
}
