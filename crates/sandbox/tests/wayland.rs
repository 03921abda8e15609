//! Live tests of the Wayland sandbox against a real headless sway, dbus-daemon and AT-SPI: apps
//! of two toolkits run as native Wayland clients (GTK 3's mousepad, Qt 5's FeatherPad) and show
//! up on the sandbox's accessibility bus and in sway's tree, the env has no `DISPLAY` (unless
//! XWayland is asked for), `grim` captures the output at the configured size, the compositor can
//! be killed and restarted by pid, and stop leaves no process behind. Each judges by an
//! independent observation (`swaymsg`, `dbus-send`, `grim`, `xdpyinfo`, `/proc`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use uidriver_sandbox::{Component, DisplayServer, Manifest, Sandbox, SandboxConfig};

mod support;
use support::{alive, argv, assert_recorded_gone, have, live_test};

/// How long a cold app start may take to show its window (FeatherPad: ~2 s on 2 cores).
const APP_WAIT: Duration = Duration::from_secs(30);

fn wayland(width: u32, height: u32) -> SandboxConfig {
    SandboxConfig {
        display_server: DisplayServer::Wayland,
        width,
        height,
        ..SandboxConfig::default()
    }
}

fn need(progs: &[&str]) {
    for p in progs {
        assert!(
            have(p),
            "{p} is not installed: the test cannot run without it (scripts/install-deps.sh installs it)"
        );
    }
}

/// Runs `prog args` with exactly the sandbox's env (and PATH); panics unless it succeeds.
fn sandbox_cmd(sb: &Sandbox, prog: &str, args: &[&str]) -> String {
    let out = Command::new(prog)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .envs(sb.env().iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .output()
        .expect("run helper");
    assert!(
        out.status.success(),
        "{prog} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Pids of the windows in sway's tree, as `swaymsg -t get_tree` reports them.
fn sway_window_pids(sb: &Sandbox) -> Vec<u64> {
    let sock = sb.env_var("SWAYSOCK").expect("SWAYSOCK").to_string();
    let tree: serde_json::Value = serde_json::from_str(&sandbox_cmd(
        sb,
        "swaymsg",
        &["-s", &sock, "-r", "-t", "get_tree"],
    ))
    .expect("get_tree JSON");
    fn walk(n: &serde_json::Value, out: &mut Vec<u64>) {
        out.extend(n["pid"].as_u64());
        for key in ["nodes", "floating_nodes"] {
            for c in n[key].as_array().into_iter().flatten() {
                walk(c, out);
            }
        }
    }
    let mut pids = Vec::new();
    walk(&tree, &mut pids);
    pids
}

/// The pid owning `bus_name` on the sandbox's accessibility bus, asked with dbus-send, and
/// whether the registry lists it as an application.
fn a11y_app(sb: &Sandbox, bus_name: &str) -> (u32, bool) {
    let addr = format!("--bus={}", sb.env_var("AT_SPI_BUS_ADDRESS").expect("a11y"));
    let pid = sandbox_cmd(
        sb,
        "dbus-send",
        &[
            &addr,
            "--print-reply=literal",
            "--dest=org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.GetConnectionUnixProcessID",
            &format!("string:{bus_name}"),
        ],
    );
    let pid = pid
        .split_whitespace()
        .last()
        .and_then(|p| p.parse().ok())
        .expect("a pid");
    let children = sandbox_cmd(
        sb,
        "dbus-send",
        &[
            &addr,
            "--print-reply",
            "--dest=org.a11y.atspi.Registry",
            "/org/a11y/atspi/accessible/root",
            "org.a11y.atspi.Accessible.GetChildren",
        ],
    );
    (pid, children.contains(&format!("\"{bus_name}\"")))
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(path: &Path) -> (u32, u32) {
    let b = std::fs::read(path).expect("png file");
    assert!(
        b.starts_with(b"\x89PNG\r\n\x1a\n") && &b[12..16] == b"IHDR",
        "not a PNG"
    );
    let be = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    (be(16), be(20))
}

fn grim(sb: &Sandbox, name: &str) -> (u32, u32) {
    let file = sb.state_dir().join(name);
    let file_s = file.to_string_lossy().into_owned();
    sandbox_cmd(sb, "grim", &["-o", "HEADLESS-1", &file_s]);
    png_size(&file)
}

fn compositor(m: &Manifest) -> (u32, u64) {
    let p = m
        .processes
        .iter()
        .find(|p| p.role == "compositor")
        .unwrap_or_else(|| panic!("no compositor recorded: {:?}", m.processes));
    (p.pid, p.start_time)
}

#[test]
#[ignore = "live: starts sway, D-Bus, AT-SPI, mousepad and FeatherPad; scripts/test.sh runs it"]
fn gtk_and_qt_apps_run_natively_on_wayland_and_stop_leaves_nothing() {
    live_test(
        "gtk_and_qt_apps_run_natively_on_wayland_and_stop_leaves_nothing",
        180,
        |t| {
            need(&[
                "sway",
                "swaymsg",
                "grim",
                "mousepad",
                "featherpad",
                "dbus-send",
            ]);
            let sb = t.start(wayland(1024, 768));
            assert_eq!(sb.display_server(), DisplayServer::Wayland);
            for key in [
                "WAYLAND_DISPLAY",
                "XDG_RUNTIME_DIR",
                "SWAYSOCK",
                "DBUS_SESSION_BUS_ADDRESS",
                "AT_SPI_BUS_ADDRESS",
                "HOME",
            ] {
                assert!(
                    sb.env_var(key).is_some_and(|v| !v.is_empty()),
                    "env lacks {key}: {:?}",
                    sb.env()
                );
            }
            assert_eq!(sb.env_var("DISPLAY"), None, "{:?}", sb.env());
            assert_eq!(sb.env_var("GDK_BACKEND"), Some("wayland"));
            assert_eq!(sb.env_var("QT_QPA_PLATFORM"), Some("wayland"));
            assert_eq!(sb.env_var("XDG_SESSION_TYPE"), Some("wayland"));
            assert_eq!(sb.env_var("WAYLAND_DISPLAY"), Some(sb.display()));
            let runtime = PathBuf::from(sb.env_var("XDG_RUNTIME_DIR").unwrap_or_default());
            assert!(runtime.starts_with(sb.state_dir()));
            assert!(runtime.join(sb.display()).exists(), "no Wayland socket");
            let env_file = std::fs::read_to_string(sb.state_dir().join("env")).expect("env file");
            for line in [
                format!("export WAYLAND_DISPLAY='{}'", sb.display()),
                "export GDK_BACKEND='wayland'".to_string(),
                "export QT_QPA_PLATFORM='wayland'".to_string(),
            ] {
                assert!(env_file.contains(&line), "{line} not in {env_file}");
            }
            for key in ["SWAYSOCK", "AT_SPI_BUS_ADDRESS", "XDG_RUNTIME_DIR"] {
                assert!(env_file.contains(&format!("export {key}=")), "{key}");
            }
            assert!(!env_file.contains("export DISPLAY="), "{env_file}");
            // What a command run inside sees: no DISPLAY, even when the caller has one.
            let out = sb.state_dir().join("run-out");
            let script = format!(
                "echo \"${{DISPLAY-unset}}|$WAYLAND_DISPLAY\" > '{}'",
                out.display()
            );
            assert!(sb
                .run(&argv(&["sh", "-c", &script]))
                .expect("run")
                .success());
            let seen = std::fs::read_to_string(&out).expect("run output");
            assert_eq!(seen.trim_end(), format!("unset|{}", sb.display()));

            let m = sb.manifest();
            assert_eq!(m.display_server, DisplayServer::Wayland);
            let (sway, _) = compositor(&m);
            assert!(sb.is_alive());
            assert!(sb.window_manager_ready().expect("compositor check"));
            assert_eq!(grim(&sb, "empty.png"), (1024, 768));

            let mut apps = Vec::new();
            for prog in ["mousepad", "featherpad"] {
                let pid = sb.spawn(&argv(&[prog])).expect("spawn");
                let w = sb
                    .wait_for_app_window(pid, APP_WAIT)
                    .unwrap_or_else(|e| panic!("{prog}: {e}"));
                eprintln!(
                    "{prog}: pid {pid} on {} after {} ms",
                    w.bus_name,
                    w.waited.as_millis()
                );
                assert_eq!(w.pid, pid, "{prog}");
                let (owner, listed) = a11y_app(&sb, &w.bus_name);
                assert_eq!(owner, pid, "{prog}'s accessibility connection");
                assert!(listed, "{prog} is not an application on the registry");
                apps.push((prog, pid));
            }
            let in_tree = sway_window_pids(&sb);
            for (prog, pid) in &apps {
                assert!(
                    in_tree.contains(&u64::from(*pid)),
                    "{prog} (pid {pid}) not in sway's tree: {in_tree:?}"
                );
                // A native Wayland client: no X connection, and it never saw a DISPLAY.
                let environ = std::fs::read(format!("/proc/{pid}/environ")).expect("environ");
                assert!(
                    !environ
                        .split(|&c| c == 0)
                        .any(|e| e.starts_with(b"DISPLAY=")),
                    "{prog} got a DISPLAY"
                );
            }
            assert_eq!(grim(&sb, "apps.png"), (1024, 768));

            let m = sb.manifest();
            let state_dir = sb.state_dir().to_path_buf();
            let report = sb.stop().expect("stop");
            eprintln!("{report:?}");
            assert!(report.survivors.is_empty(), "{report:?}");
            assert!(report.terminated.contains(&sway), "{report:?}");
            assert!(report.removed_state_dir);
            assert!(!state_dir.exists());
            assert_recorded_gone(&m);
            for (prog, pid) in &apps {
                assert!(!Path::new(&format!("/proc/{pid}")).exists(), "{prog} left");
            }
        },
    );
}

#[test]
#[ignore = "live: starts sway with XWayland, D-Bus and AT-SPI; scripts/test.sh runs it"]
fn xwayland_gives_x11_apps_a_display_when_asked() {
    live_test("xwayland_gives_x11_apps_a_display_when_asked", 120, |t| {
        need(&["sway", "Xwayland", "xdpyinfo"]);
        let sb = t.start(SandboxConfig {
            xwayland: true,
            ..wayland(1280, 800)
        });
        let display = sb
            .env_var("DISPLAY")
            .expect("DISPLAY with XWayland")
            .to_string();
        assert!(sb.env_var("WAYLAND_DISPLAY").is_some());
        let m = sb.manifest();
        assert_eq!(display, format!(":{}", m.display_number));
        // The first X client starts XWayland (lazily, under sway).
        let info = sandbox_cmd(&sb, "xdpyinfo", &[]);
        assert!(
            info.contains(&format!("name of display:    {display}")),
            "{info}"
        );
        let (sway, _) = compositor(&m);
        let lock = format!("/tmp/.X{}-lock", m.display_number);
        let m = sb.manifest();
        sb.stop().expect("stop");
        assert_recorded_gone(&m);
        let holder = std::fs::read_to_string(&lock)
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok());
        assert_ne!(holder, Some(sway), "XWayland's lock left behind");
    });
}

#[test]
#[ignore = "live: starts sway, D-Bus and AT-SPI; scripts/test.sh runs it"]
fn the_compositor_is_killed_and_restarted_by_pid() {
    live_test("the_compositor_is_killed_and_restarted_by_pid", 120, |t| {
        need(&["sway", "grim"]);
        let sb = t.start(wayland(800, 600));
        let m = sb.manifest();
        let (sway, started) = compositor(&m);
        let socket = sb.display().to_string();
        assert_eq!(sb.kill(Component::Compositor).expect("kill"), vec![sway]);
        assert!(!alive(sway, started));
        assert!(!sb.is_alive());
        sb.restart(Component::Compositor).expect("restart");
        let m = sb.manifest();
        let (again, _) = compositor(&m);
        assert_ne!(again, sway);
        assert!(sb.is_alive());
        assert!(sb.window_manager_ready().expect("compositor check"));
        assert_eq!(sb.display(), socket);
        assert_eq!(grim(&sb, "after.png"), (800, 600));
        sb.stop().expect("stop");
        assert_recorded_gone(&m);
    });
}
