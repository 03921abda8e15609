//! Where the daemon socket lives: a private directory (mode 0700) in `$XDG_RUNTIME_DIR`, or in
//! the temp dir keyed by uid, and a file name keyed by the desktop it serves (display and
//! buses), so clients inside a sandbox never reach the daemon of another desktop.

use std::path::PathBuf;

/// The private directory for sockets and logs.
pub fn runtime_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d).join("uidriver");
    }
    let uid = std::fs::metadata("/proc/self").map(|m| {
        use std::os::unix::fs::MetadataExt;
        m.uid()
    });
    std::env::temp_dir().join(format!("uidriver-{}", uid.unwrap_or(0)))
}

/// FNV-1a: a stable, dependency-free hash for the socket name.
fn fnv(s: &str) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// `$UIDRIVER_SOCKET`, or `<runtime dir>/daemon-<desktop hash>.sock`.
pub fn default_socket_path() -> PathBuf {
    if let Some(p) = std::env::var_os("UIDRIVER_SOCKET").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let key: String = [
        "DISPLAY",
        "WAYLAND_DISPLAY",
        "DBUS_SESSION_BUS_ADDRESS",
        "AT_SPI_BUS_ADDRESS",
    ]
    .iter()
    .map(|k| std::env::var(k).unwrap_or_default())
    .collect::<Vec<_>>()
    .join("\n");
    runtime_dir().join(format!("daemon-{:012x}.sock", fnv(&key) & 0xffff_ffff_ffff))
}
