//! The command line as a user runs it: `uidriver sandbox start|env|stop`, `uidriver sandbox --
//! CMD`, `uidriver doctor` inside and outside a desktop, and `uidriver call` exit codes. Each
//! test bounds its run time, and every sandbox it starts is stopped.

use std::process::{Command, Output};
use std::time::Duration;

const EXE: &str = env!("CARGO_BIN_EXE_uidriver");

fn have_xvfb() -> bool {
    std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .any(|d| std::path::Path::new(d).join("Xvfb").is_file())
}

/// A test's private runtime and state dir, removed when the test ends.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(test: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("uidriver-cli-test-{}-{test}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the binary with a clean desktop environment (no inherited display or buses) and the
/// test's private runtime dir, killing it after `secs`.
fn run(scratch: &Scratch, args: &[&str], secs: u64) -> Output {
    run_in(scratch, &[], args, secs)
}

/// [`run`] with `env` set on top (a sandbox's `export` lines, as a user's shell has them).
fn run_in(scratch: &Scratch, env: &[(String, String)], args: &[&str], secs: u64) -> Output {
    let dir = &scratch.0;
    let mut c = Command::new(EXE);
    c.args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("AT_SPI_BUS_ADDRESS")
        .env("XDG_RUNTIME_DIR", dir)
        .env("XDG_STATE_HOME", dir.join("state"))
        .envs(env.iter().map(|(k, v)| (k, v)));
    let mut child = c
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(secs);
    // Poll instead of a timer thread: `Child::kill` only signals a child not yet reaped, so a
    // recycled pid can never be hit.
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
#[ignore = "live: starts a private desktop (Xvfb, AT-SPI) and its apps; scripts/test.sh runs it"]
fn doctor_fails_without_a_desktop_and_passes_inside_a_sandbox() {
    let s = Scratch::new("doctor_fails_without_a_d");
    let out = run(&s, &["doctor"], 60);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(
        text(&out).contains("fix: "),
        "every failure carries its fix"
    );
    if !have_xvfb() {
        panic!("Xvfb is not installed: the test cannot run without it (scripts/install-deps.sh installs it)");
    }
    let out = run(&s, &["sandbox", "--", EXE, "doctor"], 90);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(0), "{t}");
    for check in [
        "display",
        "XTEST",
        "session bus",
        "accessibility bus",
        "toolkit accessibility",
        "GTK 2 bridge",
        "Qt bridge",
    ] {
        assert!(
            t.lines().any(|l| l.starts_with("ok") && l.contains(check)),
            "{check}: {t}"
        );
    }
}

#[test]
#[ignore = "live: starts a private desktop (Xvfb, AT-SPI) and its apps; scripts/test.sh runs it"]
fn long_lived_sandbox_start_env_stop() {
    let s = Scratch::new("long_lived_sandbox_start");
    if !have_xvfb() {
        panic!("Xvfb is not installed: the test cannot run without it (scripts/install-deps.sh installs it)");
    }
    let name = format!("clitest{}", std::process::id());
    let out = run(&s, &["sandbox", "start", "--name", &name], 60);
    assert!(out.status.success(), "{}", text(&out));
    let env = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(env.contains("export DISPLAY=':"), "{env}");
    let again = run(&s, &["sandbox", "env", "--name", &name], 30);
    assert_eq!(String::from_utf8_lossy(&again.stdout), env, "env is stable");
    // The X server it started answers.
    let display = env
        .lines()
        .find_map(|l| l.strip_prefix("export DISPLAY='"))
        .and_then(|l| l.strip_suffix('\''))
        .unwrap()
        .to_string();
    let xd = Command::new("xdpyinfo")
        .args(["-display", &display])
        .output()
        .unwrap();
    // A call made with the sandbox's environment starts a daemon for its desktop; stopping
    // the sandbox stops that daemon too (it carries no sandbox marker, and outlived it before).
    let exports: Vec<(String, String)> = env
        .lines()
        .filter_map(|l| l.strip_prefix("export ")?.split_once('='))
        .map(|(k, v)| (k.to_string(), v.trim_matches('\'').to_string()))
        .collect();
    let call = run_in(&s, &exports, &["call", "find_roots", "{}"], 60);
    assert!(call.status.success(), "{}", text(&call));
    let status = run_in(&s, &exports, &["daemon", "status"], 30);
    let status = text(&status);
    let daemon: u32 = status
        .split("\"pid\":")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no daemon pid in {status}"));
    let stop = run(&s, &["sandbox", "stop", "--name", &name], 60);
    assert!(stop.status.success(), "{}", text(&stop));
    let proc = std::path::PathBuf::from(format!("/proc/{daemon}"));
    let t0 = std::time::Instant::now();
    while proc.exists() && t0.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !proc.exists(),
        "the sandbox's daemon {daemon} outlived the sandbox"
    );
    assert!(xd.status.success(), "xdpyinfo on the sandbox display");
    let gone = Command::new("xdpyinfo")
        .args(["-display", &display])
        .output()
        .unwrap();
    assert!(!gone.status.success(), "the display is gone after stop");
    // A named sandbox keeps its state dir (home, logs) for its next start; this one is done.
    let _ = std::fs::remove_dir_all(std::env::temp_dir().join(format!("uidriver-sandbox-{name}")));
}

/// Whether `pid` is a live process (not gone, not a zombie awaiting its reaper).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| Some(s[s.rfind(')')? + 2..].chars().next()? != 'Z'))
        .unwrap_or(false)
}

#[test]
#[ignore = "live: starts a private Wayland desktop (sway, AT-SPI) and mousepad; scripts/test.sh runs it"]
fn wayland_sandbox_runs_a_command_and_starts_env_stop() {
    let s = Scratch::new("wayland_sandbox");
    let path = std::env::var("PATH").unwrap_or_default();
    for prog in ["sway", "swaymsg", "mousepad"] {
        assert!(
            path.split(':').any(|d| std::path::Path::new(d).join(prog).is_file()),
            "{prog} is not installed: the test cannot run without it (scripts/install-deps.sh installs it)"
        );
    }
    // --xwayland means nothing without --wayland.
    let out = run(&s, &["sandbox", "--xwayland", "--", "true"], 10);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let script = "echo \"${DISPLAY-unset}|$WAYLAND_DISPLAY|$GDK_BACKEND|$QT_QPA_PLATFORM\"; \
                  swaymsg -r -t get_outputs | grep -c '\"width\": 1024'";
    let out = run(
        &s,
        &[
            "sandbox",
            "--wayland",
            "--size",
            "1024x768",
            "--app",
            "mousepad",
            "--",
            "sh",
            "-c",
            script,
        ],
        90,
    );
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    let mut lines = t.lines();
    assert_eq!(lines.next(), Some("unset|wayland-1|wayland|wayland"), "{t}");
    assert_ne!(lines.next(), Some("0"), "the output is not 1024 wide: {t}");

    let name = format!("clitestwl{}", std::process::id());
    let dir = std::env::temp_dir().join(format!("uidriver-sandbox-{name}"));
    let out = run(&s, &["sandbox", "start", "--wayland", "--name", &name], 60);
    assert!(out.status.success(), "{}", text(&out));
    let env = String::from_utf8_lossy(&out.stdout).to_string();
    for key in [
        "WAYLAND_DISPLAY",
        "SWAYSOCK",
        "XDG_RUNTIME_DIR",
        "DBUS_SESSION_BUS_ADDRESS",
        "AT_SPI_BUS_ADDRESS",
    ] {
        assert!(env.contains(&format!("export {key}='")), "{key}: {env}");
    }
    assert!(env.contains("export GDK_BACKEND='wayland'"), "{env}");
    assert!(env.contains("export QT_QPA_PLATFORM='wayland'"), "{env}");
    assert!(!env.contains("export DISPLAY="), "{env}");
    let again = run(&s, &["sandbox", "env", "--name", &name], 30);
    assert_eq!(String::from_utf8_lossy(&again.stdout), env, "env is stable");
    let manifest = std::fs::read_to_string(dir.join("manifest.json")).expect("manifest");
    let manifest: serde_json::Value = serde_json::from_str(&manifest).expect("manifest JSON");
    assert_eq!(manifest["display_server"], "wayland");
    let pids: Vec<u32> = manifest["processes"]
        .as_array()
        .expect("processes")
        .iter()
        .filter_map(|p| p["pid"].as_u64().map(|p| p as u32))
        .collect();
    assert!(
        manifest["processes"]
            .as_array()
            .is_some_and(|ps| ps.iter().any(|p| p["role"] == "compositor")),
        "no compositor recorded: {manifest}"
    );
    let stop = run(&s, &["sandbox", "stop", "--name", &name], 60);
    assert!(stop.status.success(), "{}", text(&stop));
    let left: Vec<u32> = pids.into_iter().filter(|p| running(*p)).collect();
    assert!(left.is_empty(), "left after stop: {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn call_exit_codes_follow_the_documented_table() {
    let s = Scratch::new("call_exit_codes_follow_t");
    let bad_json = run(&s, &["call", "find_roots", "{not json"], 30);
    assert_eq!(bad_json.status.code(), Some(2), "{}", text(&bad_json));
    let sock = s.0.join("exit-codes.sock");
    let sock = sock.to_str().unwrap();
    let invalid = run(
        &s,
        &[
            "call",
            "act_ui",
            "{\"stateId\":\"s1\",\"actions\":[]}",
            "--socket",
            sock,
        ],
        60,
    );
    assert_eq!(invalid.status.code(), Some(2), "{}", text(&invalid));
    let stale = run(
        &s,
        &[
            "call",
            "search_ui",
            "{\"stateId\":\"s999999\",\"text\":\"x\"}",
            "--socket",
            sock,
        ],
        60,
    );
    assert_eq!(stale.status.code(), Some(1), "{}", text(&stale));
    assert!(text(&stale).contains("stale_state"));
    // Arguments over the request limit: refused before anything is sent (issue 14).
    let big = s.0.join("big.json");
    let text_5mb = "x".repeat(5_200_000);
    let args = format!(
        "{{\"stateId\":\"s1\",\"actions\":[{{\"action\":\"typeText\",\"ref\":\"@e1\",\"text\":\"{text_5mb}\"}}]}}"
    );
    std::fs::write(&big, args).unwrap();
    let at = format!("@{}", big.display());
    let huge = run(&s, &["call", "act_ui", &at, "--socket", sock], 60);
    assert_eq!(huge.status.code(), Some(2), "{}", text(&huge));
    assert!(
        text(&huge).contains("request is 5.2 MB; the limit is 4 MB"),
        "{}",
        text(&huge)
    );
    let stopped = run(&s, &["daemon", "stop", "--socket", sock], 30);
    assert!(stopped.status.success(), "{}", text(&stopped));
}

/// Issue 15: `uidriver policy check` accepts a valid file (0, a summary) and refuses a typo (2,
/// naming the key); `uidriver call --policy` refuses an unusable file before any daemon is
/// reached (2) and answers a denied call policy_denied (1).
#[test]
fn policy_check_and_call_under_a_policy_follow_the_exit_codes() {
    let s = Scratch::new("policy_check_and_call");
    let good = s.0.join("good.toml");
    std::fs::write(
        &good,
        "[tools]\ndeny = [\"find_roots\"]\n[secrets]\nvalues = [\"hunter2\"]\n",
    )
    .unwrap();
    let bad = s.0.join("bad.toml");
    std::fs::write(&bad, "[apps]\ndenny = [\"mousepad\"]\n").unwrap();
    let good = good.to_str().unwrap();
    let bad = bad.to_str().unwrap();

    let ok = run(&s, &["policy", "check", good], 30);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok));
    assert!(
        text(&ok).contains("tools denied: find_roots"),
        "{}",
        text(&ok)
    );
    assert!(text(&ok).contains("1 value(s) redacted"), "{}", text(&ok));
    assert!(!text(&ok).contains("hunter2"), "{}", text(&ok));
    let typo = run(&s, &["policy", "check", bad], 30);
    assert_eq!(typo.status.code(), Some(2), "{}", text(&typo));
    assert!(
        text(&typo).contains("line 2: unknown field `denny`"),
        "{}",
        text(&typo)
    );

    let sock = s.0.join("policy.sock");
    let sock = sock.to_str().unwrap();
    let refused = run(
        &s,
        &["call", "--policy", bad, "find_roots", "--socket", sock],
        30,
    );
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(
        !std::path::Path::new(sock).exists(),
        "no daemon was started"
    );
    let denied = run(
        &s,
        &[
            "call",
            "--policy",
            good,
            "find_roots",
            "--json",
            "--socket",
            sock,
        ],
        60,
    );
    assert_eq!(denied.status.code(), Some(1), "{}", text(&denied));
    assert!(
        text(&denied).contains("\"code\": \"policy_denied\""),
        "{}",
        text(&denied)
    );
    assert!(
        text(&denied).contains("[tools] deny contains \\\"find_roots\\\""),
        "{}",
        text(&denied)
    );
    let stopped = run(&s, &["daemon", "stop", "--socket", sock], 30);
    assert!(stopped.status.success(), "{}", text(&stopped));
}

/// Issue 24 item 9: `uidriver tasks` is in the help exactly when the binary has the task suite
/// (the `tasks` feature, on by default); a build without it (scripts/demo.sh's) answers
/// `uidriver tasks …` with how to build it and exit 2, not clap's unknown subcommand.
#[test]
fn the_tasks_subcommand_follows_the_tasks_feature() {
    let s = Scratch::new("tasks_feature");
    let help = run(&s, &["--help"], 30);
    assert!(help.status.success(), "{}", text(&help));
    let listed = String::from_utf8_lossy(&help.stdout)
        .lines()
        .any(|l| l.trim_start().starts_with("tasks "));
    let tasks = run(&s, &["tasks", "--help"], 30);
    if cfg!(feature = "tasks") {
        assert!(listed, "tasks missing from the help: {}", text(&help));
        assert!(tasks.status.success(), "{}", text(&tasks));
        assert!(text(&tasks).contains("osworld-cache"), "{}", text(&tasks));
    } else {
        assert!(
            !listed,
            "tasks in the help of a build without it: {}",
            text(&help)
        );
        assert_eq!(tasks.status.code(), Some(2), "{}", text(&tasks));
        assert!(
            text(&tasks).contains("cargo build --release -p uidriver --features tasks"),
            "{}",
            text(&tasks)
        );
    }
}
