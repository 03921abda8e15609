//! Live tests of the sandbox against the real Xvfb / dbus-daemon / AT-SPI / openbox: they prove
//! that it starts a usable isolated desktop, that apps show windows on its AT-SPI registry, and
//! that stop leaves nothing behind. Each test runs under a hard timeout (a hang fails, and the
//! sandboxes it started are stopped through their state dirs). They fail when Xvfb is missing.
//! A fixed bug's test goes to `regressions.rs`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use std::time::{Duration, Instant};

use uidriver_sandbox::{Manifest, Sandbox, SandboxConfig, SandboxError};

mod support;
use support::{alive, argv, assert_recorded_gone, have, live_test};

const ENV_KEYS: &[&str] = &[
    "DISPLAY",
    "DBUS_SESSION_BUS_ADDRESS",
    "AT_SPI_BUS_ADDRESS",
    "XDG_RUNTIME_DIR",
    "XDG_SESSION_TYPE",
    "GDK_BACKEND",
    "NO_AT_BRIDGE",
    "ACCESSIBILITY_ENABLED",
    "QT_ACCESSIBILITY",
    "QT_LINUX_ACCESSIBILITY_ALWAYS_ON",
    "GSETTINGS_BACKEND",
    "GTK_A11Y",
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
];

/// Everything recorded (and everything carrying the marker) is gone, and the X lock with it.
fn assert_all_gone(m: &Manifest) {
    assert_recorded_gone(m);
    // Tests run in parallel: another sandbox may already have taken the display number.
    let xvfb = m.processes.iter().find(|p| p.role == "xvfb").map(|p| p.pid);
    let socket = Path::new(&format!("/tmp/.X11-unix/X{}", m.display_number)).exists();
    let lock_pid = std::fs::read_to_string(format!("/tmp/.X{}-lock", m.display_number))
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok());
    assert!(
        lock_pid.is_none() || lock_pid != xvfb,
        "our X lock left behind"
    );
    assert!(
        !socket || lock_pid.is_some(),
        "X socket left behind without a lock"
    );
}

fn sandbox_cmd(sb: &Sandbox, prog: &str, args: &[&str]) -> std::process::Output {
    Command::new(prog)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .envs(sb.env().iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .output()
        .expect("run helper")
}

fn xdpyinfo_ok(sb: &Sandbox) -> bool {
    let out = sandbox_cmd(sb, "xdpyinfo", &[]);
    out.status.success() && String::from_utf8_lossy(&out.stdout).contains("1280x800 pixels")
}

fn a11y_bus_owned(sb: &Sandbox) -> bool {
    let out = sandbox_cmd(
        sb,
        "dbus-send",
        &[
            "--session",
            "--dest=org.freedesktop.DBus",
            "--type=method_call",
            "--print-reply=literal",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.NameHasOwner",
            "string:org.a11y.Bus",
        ],
    );
    out.status.success() && String::from_utf8_lossy(&out.stdout).contains("true")
}

fn ewmh_wm(sb: &Sandbox) -> bool {
    let out = sandbox_cmd(sb, "xprop", &["-root", "_NET_SUPPORTING_WM_CHECK"]);
    out.status.success() && String::from_utf8_lossy(&out.stdout).contains("window id")
}

#[test]
#[ignore = "live: starts Xvfb, D-Bus and AT-SPI; scripts/test.sh runs it"]
fn start_describe_stop() {
    live_test("start_describe_stop", 90, |t| {
        let sb = t.start(SandboxConfig::default());
        for key in ENV_KEYS {
            let v = sb.env_var(key);
            assert!(
                v.is_some_and(|v| !v.is_empty()),
                "env lacks {key}: {:?}",
                sb.env()
            );
        }
        assert_eq!(sb.env_var("DISPLAY"), Some(sb.display()));
        assert_ne!(sb.env_var("NO_AT_BRIDGE"), Some("1"));
        for key in [
            "HOME",
            "XDG_RUNTIME_DIR",
            "XDG_CONFIG_HOME",
            "XDG_CACHE_HOME",
            "XDG_DATA_HOME",
            "XDG_STATE_HOME",
        ] {
            let dir = PathBuf::from(sb.env_var(key).unwrap_or_default());
            assert!(
                dir.starts_with(sb.state_dir()),
                "{key} not private: {}",
                dir.display()
            );
            assert!(dir.is_dir(), "{key} missing");
        }
        let runtime = PathBuf::from(sb.env_var("XDG_RUNTIME_DIR").unwrap_or_default());
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&runtime)
            .expect("runtime")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o700);
        assert!(sb.is_alive());
        assert!(xdpyinfo_ok(&sb), "xdpyinfo failed on {}", sb.display());
        assert!(
            a11y_bus_owned(&sb),
            "org.a11y.Bus has no owner on the private bus"
        );
        assert!(ewmh_wm(&sb), "no EWMH window manager");
        assert!(sb.window_manager_ready().expect("wm check"));
        let env_file = std::fs::read_to_string(sb.state_dir().join("env")).expect("env file");
        assert!(env_file.contains(&format!("export DISPLAY='{}'", sb.display())));

        let m = sb.manifest();
        let roles: Vec<&str> = m.processes.iter().map(|p| p.role.as_str()).collect();
        for role in [
            "xvfb",
            "session-bus",
            "at-spi-bus-launcher",
            "window-manager",
        ] {
            assert!(roles.contains(&role), "{role} not recorded: {roles:?}");
        }
        assert!(
            m.processes.iter().any(|p| p.comm == "at-spi2-registr"),
            "registryd not recorded: {:?}",
            m.processes
        );
        // Apps keep their temporary files in the sandbox (LibreOffice's and Chromium's are left
        // behind when they are stopped).
        let home = PathBuf::from(sb.env_var("HOME").unwrap_or_default());
        let argv = ["sh", "-c", "echo \"$TMPDIR\" > \"$HOME/tmpdir\"; sleep 60"];
        sb.spawn(&argv.map(String::from)).expect("spawn");
        let t0 = Instant::now();
        let tmp = loop {
            match std::fs::read_to_string(home.join("tmpdir")) {
                Ok(t) if t.ends_with('\n') => break PathBuf::from(t.trim_end()),
                _ if t0.elapsed() > Duration::from_secs(10) => panic!("the app did not start"),
                _ => std::thread::sleep(Duration::from_millis(50)),
            }
        };
        assert!(
            tmp.starts_with(sb.state_dir()) && tmp.is_dir(),
            "TMPDIR {}",
            tmp.display()
        );
        assert_eq!(
            sb.env_var("TMPDIR"),
            None,
            "the printed env keeps the caller's TMPDIR"
        );
        let state_dir = sb.state_dir().to_path_buf();
        let t0 = Instant::now();
        let report = sb.stop().expect("stop");
        eprintln!("stop took {} ms: {report:?}", t0.elapsed().as_millis());
        assert!(report.survivors.is_empty());
        assert!(
            report.killed.is_empty(),
            "needed SIGKILL: {:?}",
            report.killed
        );
        assert!(report.removed_state_dir);
        assert!(!state_dir.exists());
        assert_all_gone(&m);
    });
}

#[test]
#[ignore = "live: starts Xvfb, D-Bus and AT-SPI; scripts/test.sh runs it"]
fn apps_show_windows_and_are_stopped() {
    live_test("apps_show_windows_and_are_stopped", 120, |t| {
        let sb = t.start(SandboxConfig::default());
        if !have("zenity") || !have("gtk3-widget-factory") {
            panic!("zenity / gtk3-widget-factory not installed: the test cannot run without it (scripts/install-deps.sh installs it)");
        }
        let zenity = sb
            .spawn(&argv(&["zenity", "--info", "--text", "hello"]))
            .expect("spawn zenity");
        let factory = sb
            .spawn(&argv(&["gtk3-widget-factory"]))
            .expect("spawn factory");
        // A launcher that forks the app and exits at once: matched through its session.
        let forked = sb
            .spawn(&argv(&["sh", "-c", "zenity --info --text forked & exit 0"]))
            .expect("spawn forking launcher");
        for (name, pid) in [
            ("zenity", zenity),
            ("gtk3-widget-factory", factory),
            ("forked zenity", forked),
        ] {
            let w = sb
                .wait_for_app_window(pid, Duration::from_secs(20))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            eprintln!(
                "{name}: pid {pid} window on {} (app pid {}) after {} ms",
                w.bus_name,
                w.pid,
                w.waited.as_millis()
            );
            if name == "forked zenity" {
                assert_ne!(w.pid, pid, "the forked child owns the window");
            } else {
                assert_eq!(w.pid, pid);
            }
        }
        // Errors: a program that does not exist, an app that exits without a window.
        assert!(matches!(
            sb.spawn(&argv(&["no-such-program-uidriver"])),
            Err(SandboxError::NotInstalled { .. })
        ));
        let quick = sb
            .spawn(&argv(&["sh", "-c", "sleep 0.2"]))
            .expect("spawn sh");
        assert!(matches!(
            sb.wait_for_app_window(quick, Duration::from_secs(10)),
            Err(SandboxError::AppExited { .. })
        ));
        let m = sb.manifest();
        assert_eq!(m.processes.iter().filter(|p| p.role == "app").count(), 4);
        let report = sb.stop().expect("stop");
        assert!(report.survivors.is_empty());
        assert_all_gone(&m);
    });
}

#[test]
#[ignore = "live: starts Xvfb, D-Bus and AT-SPI; scripts/test.sh runs it"]
fn two_sandboxes_side_by_side() {
    live_test("two_sandboxes_side_by_side", 90, |t| {
        let a = t.start(SandboxConfig::default());
        let b = t.start(SandboxConfig::default());
        assert_ne!(a.display(), b.display());
        assert_ne!(
            a.env_var("DBUS_SESSION_BUS_ADDRESS"),
            b.env_var("DBUS_SESSION_BUS_ADDRESS")
        );
        assert_ne!(
            a.env_var("AT_SPI_BUS_ADDRESS"),
            b.env_var("AT_SPI_BUS_ADDRESS")
        );
        for sb in [&a, &b] {
            assert!(
                xdpyinfo_ok(sb) && a11y_bus_owned(sb) && ewmh_wm(sb),
                "{} not working",
                sb.display()
            );
        }
        let ma = a.manifest();
        a.stop().expect("stop a");
        assert_all_gone(&ma);
        assert!(b.is_alive(), "stopping a killed b");
        assert!(xdpyinfo_ok(&b) && a11y_bus_owned(&b) && ewmh_wm(&b));
        let mb = b.manifest();
        b.stop().expect("stop b");
        assert_all_gone(&mb);
    });
}

#[test]
#[ignore = "live: starts Xvfb, D-Bus and AT-SPI; scripts/test.sh runs it"]
fn stop_after_xvfb_killed_externally() {
    live_test("stop_after_xvfb_killed_externally", 90, |t| {
        let sb = t.start(SandboxConfig::default());
        let m = sb.manifest();
        let xvfb = m
            .processes
            .iter()
            .find(|p| p.role == "xvfb")
            .expect("xvfb record");
        let status = Command::new("kill")
            .args(["-KILL", &xvfb.pid.to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
        let deadline = Instant::now() + Duration::from_secs(5);
        while alive(xvfb.pid, xvfb.start_time) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!alive(xvfb.pid, xvfb.start_time));
        assert!(!sb.is_alive());
        assert!(Path::new(&format!("/tmp/.X{}-lock", m.display_number)).exists());
        let report = sb.stop().expect("stop");
        eprintln!("{report:?}");
        assert!(report.survivors.is_empty());
        // Tests run in parallel: another sandbox may already have taken over the free display
        // (replacing the stale lock with its own) before this stop ran. Either way the stale
        // lock of the killed Xvfb must be gone.
        let lock = format!("/tmp/.X{}-lock", m.display_number);
        let lock_pid = std::fs::read_to_string(&lock)
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok());
        assert!(
            report.removed_x_lock || lock_pid.is_none_or(|p| p != xvfb.pid),
            "the killed Xvfb's lock file is still there"
        );
        assert!(report.already_gone.iter().any(|g| g.starts_with("xvfb ")));
        assert_all_gone(&m);
    });
}

#[test]
#[ignore = "live: starts Xvfb, D-Bus and AT-SPI; scripts/test.sh runs it"]
fn detach_attach_stop() {
    live_test("detach_attach_stop", 90, |t| {
        let dir = std::env::temp_dir().join(format!(
            "uidriver-sandbox-test-named-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let cfg = SandboxConfig {
            state_dir: Some(dir.clone()),
            ..SandboxConfig::default()
        };
        let sb = t.start(cfg.clone());
        let env = sb.env().to_vec();
        let procs = sb.processes();
        let returned = sb.detach();
        assert_eq!(returned, dir);

        let again = Sandbox::attach(&dir).expect("attach");
        assert_eq!(again.env(), env.as_slice());
        assert_eq!(again.processes(), procs);
        assert!(again.is_alive());
        drop(again); // an attached handle does not stop on drop
        let again = Sandbox::attach(&dir).expect("attach 2");
        assert!(
            again.is_alive(),
            "dropping an attached handle stopped the sandbox"
        );
        assert!(xdpyinfo_ok(&again));
        assert!(matches!(
            Sandbox::start(cfg.clone()),
            Err(SandboxError::AlreadyRunning { .. })
        ));
        let m = again.manifest();
        let report = again.stop().expect("stop");
        assert!(report.survivors.is_empty());
        assert!(!report.removed_state_dir, "a named state dir is kept");
        assert!(dir.join("xvfb.log").exists(), "logs kept");
        assert!(!dir.join("manifest.json").exists() && !dir.join("runtime").exists());
        assert!(Sandbox::attach(&dir).is_err());
        assert_all_gone(&m);
        std::fs::remove_dir_all(&dir).expect("cleanup");
    });
}

#[test]
#[ignore = "live: starts Xvfb, D-Bus and AT-SPI; scripts/test.sh runs it"]
fn run_sees_sandbox_env() {
    live_test("run_sees_sandbox_env", 90, |t| {
        let sb = t.start(SandboxConfig::default());
        let out = sb.state_dir().join("run-out");
        let script = format!(
            "echo \"$DISPLAY|$DBUS_SESSION_BUS_ADDRESS|$NO_AT_BRIDGE|$HOME|${{WAYLAND_DISPLAY-unset}}\" > '{}'",
            out.display()
        );
        let status = sb.run(&argv(&["sh", "-c", &script])).expect("run");
        assert!(status.success());
        let text = std::fs::read_to_string(&out).expect("output file");
        let fields: Vec<&str> = text.trim_end().split('|').collect();
        assert_eq!(fields[0], sb.display());
        assert_eq!(Some(fields[1]), sb.env_var("DBUS_SESSION_BUS_ADDRESS"));
        assert_eq!(fields[2], "0");
        assert_eq!(Some(fields[3]), sb.env_var("HOME"));
        assert_eq!(fields[4], "unset");
        let status = sb.run(&argv(&["sh", "-c", "exit 3"])).expect("run");
        assert_eq!(status.code(), Some(3));
        let m = sb.manifest();
        drop(sb); // Drop stops an owned sandbox too
        assert!(!m.state_dir.exists());
        assert_all_gone(&m);
    });
}

#[test]
#[ignore = "live: starts Xvfb, D-Bus and AT-SPI; scripts/test.sh runs it"]
fn works_inside_a_tokio_runtime_without_wm() {
    live_test("works_inside_a_tokio_runtime_without_wm", 90, |t| {
        if !have("zenity") {
            panic!("zenity not installed: the test cannot run without it (scripts/install-deps.sh installs it)");
        }
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        // The blocking API must not panic when called from async code (it uses its own
        // runtime on a separate thread for D-Bus).
        rt.block_on(async {
            let sb = t.start(SandboxConfig {
                window_manager: false,
                ..SandboxConfig::default()
            });
            assert!(!sb.processes().iter().any(|p| p.role == "window-manager"));
            assert!(!sb.window_manager_ready().expect("wm check"));
            let pid = sb
                .spawn(&argv(&["zenity", "--info", "--text", "async"]))
                .expect("spawn");
            sb.wait_for_app_window(pid, Duration::from_secs(20))
                .expect("zenity window");
            let m = sb.manifest();
            sb.stop().expect("stop");
            assert_all_gone(&m);
        });
    });
}

#[test]
#[ignore = "live: starts Xvfb, D-Bus and AT-SPI; scripts/test.sh runs it"]
fn startup_failure_is_reported_and_cleaned_up() {
    live_test("startup_failure_is_reported_and_cleaned_up", 60, |_| {
        // Xvfb refuses a screen this large; start must fail fast, kill nothing else and leave
        // only the state dir with its logs.
        let dir =
            std::env::temp_dir().join(format!("uidriver-sandbox-test-fail-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let err = Sandbox::start(SandboxConfig {
            width: 70000,
            height: 70000,
            state_dir: Some(dir.clone()),
            ..SandboxConfig::default()
        })
        .expect_err("an impossible screen must fail");
        eprintln!("{err}");
        assert!(matches!(err, SandboxError::ComponentDied { .. }), "{err:?}");
        assert!(dir.join("xvfb.log").exists());
        assert!(!dir.join("manifest.json").exists());
        std::fs::remove_dir_all(&dir).expect("cleanup");
    });
}
