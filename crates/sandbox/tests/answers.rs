//! Live test of `Sandbox::apps_answer`, the check every live test runs after each act and before
//! its sandbox stops ("do no harm"): it passes while the apps answer, and names a frozen app
//! (SIGSTOP: its accessibility root stays silent) and a dead one (SIGKILL), each with its pid and
//! the tail of its log. An app without accessibility is checked for liveness only.

use std::process::Command;
use std::time::{Duration, Instant};

use uidriver_sandbox::{Sandbox, SandboxConfig, Verdict};

mod support;
use support::{argv, have, live_test};

/// Sends `sig` to `pid` (an app this test started) with `kill(1)`.
fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{sig}"), &pid.to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "kill -{sig} {pid}");
}

/// The failure report of `apps_answer`, and how long the check took.
fn failure(sb: &Sandbox) -> (String, Duration) {
    let t0 = Instant::now();
    let e = sb.apps_answer(&[]).expect_err("a dead or frozen app fails");
    (e.to_string(), t0.elapsed())
}

#[test]
#[ignore = "live: starts Xvfb, D-Bus and AT-SPI; scripts/test.sh runs it"]
fn apps_answer_names_a_frozen_or_dead_app_with_its_log() {
    live_test(
        "apps_answer_names_a_frozen_or_dead_app_with_its_log",
        120,
        |t| {
            assert!(
                have("gtk3-widget-factory"),
                "gtk3-widget-factory is not installed (scripts/install-deps.sh installs it)"
            );
            let sb = t.start(SandboxConfig::default());
            let factory = sb.spawn(&argv(&["gtk3-widget-factory"])).expect("spawn");
            sb.wait_for_app_window(factory, Duration::from_secs(40))
                .expect("its window");
            let plain = sb
                .spawn(&argv(&[
                    "sh",
                    "-c",
                    "echo plain app says hello; exec sleep 600",
                ]))
                .expect("spawn");

            // Healthy: the factory answers over accessibility, the plain one is alive.
            let answers = sb.apps_answer(&[]).expect("healthy apps answer");
            let verdict = |pid| answers.iter().find(|a| a.pid == pid).expect("checked");
            assert!(
                matches!(verdict(factory).verdict, Verdict::Answered { .. }),
                "{answers:?}"
            );
            let plain_line = verdict(plain).to_string();
            assert!(plain_line.contains("liveness only"), "{plain_line}");

            // Frozen: the accessibility call times out within the bound.
            signal(factory, "STOP");
            let (report, took) = failure(&sb);
            signal(factory, "CONT");
            eprintln!("frozen, found in {took:?}:\n{report}");
            assert!(took < Duration::from_millis(1500), "took {took:?}");
            assert!(
                report.contains(&format!("gtk3-widget-factory (pid {factory}) is frozen")),
                "{report}"
            );
            assert!(report.contains("stopped"), "{report}");
            assert!(!report.contains(&format!("(pid {plain})")), "{report}");
            sb.apps_answer(&[]).expect("answers again after SIGCONT");

            // Dead: named with its pid and the tail of its log.
            signal(plain, "KILL");
            let t0 = Instant::now();
            while sb.apps_answer(&[]).is_ok() && t0.elapsed() < Duration::from_secs(5) {
                std::thread::sleep(Duration::from_millis(20)); // SIGKILL takes a moment
            }
            let (report, _) = failure(&sb);
            eprintln!("dead:\n{report}");
            assert!(
                report.contains(&format!("sh (pid {plain}) is dead")),
                "{report}"
            );
            assert!(report.contains("plain app says hello"), "{report}");
            assert!(!report.contains("gtk3-widget-factory"), "{report}");
            // Let go on purpose: no longer asked.
            sb.apps_answer(&[plain]).expect("the rest answers");
            sb.stop().expect("stop");
        },
    );
}

/// A GTK 3 window that, once shown, is busy for 600 ms at a time with 80 ms breaks for four
/// seconds (an app loading its document), then writes `settled` in its working directory.
const BUSY_AFTER_SHOWING: &str = r#"
import time, gi
gi.require_version("Gtk", "3.0")
from gi.repository import Gtk, GLib
end = None
def busy():
    global end
    end = end or time.monotonic() + 4
    time.sleep(0.6)
    if time.monotonic() < end:
        GLib.timeout_add(80, busy)
    else:
        open("settled", "w").close()
    return False
w = Gtk.Window(title="Loading")
w.connect("map-event", lambda *a: GLib.timeout_add(80, busy) and False)
w.connect("destroy", Gtk.main_quit)
w.show_all()
Gtk.main()
"#;

/// The setup of every task waits on `wait_for_app_window`, and an agent's first look gives a
/// busy app 300 ms: an app whose window shows while it is still busy in spells is not handed
/// over until it answers promptly, call after call.
#[test]
#[ignore = "live: starts Xvfb, D-Bus and AT-SPI; scripts/test.sh runs it"]
fn an_app_busy_after_its_window_shows_is_awaited_until_it_answers_promptly() {
    live_test(
        "an_app_busy_after_its_window_shows_is_awaited_until_it_answers_promptly",
        120,
        |t| {
            assert!(
                std::path::Path::new("/usr/bin/python3").exists(),
                "/usr/bin/python3 with python3-gi is missing (scripts/install-deps.sh installs it)"
            );
            let sb = t.start(SandboxConfig::default());
            let dir = sb.state_dir().join("busy-app");
            std::fs::create_dir_all(&dir).expect("app dir");
            let script = dir.join("busy.py");
            std::fs::write(&script, BUSY_AFTER_SHOWING).expect("script");
            let line = format!("cd {} && exec /usr/bin/python3 busy.py", dir.display());
            let pid = sb.spawn(&argv(&["sh", "-c", &line])).expect("spawn");
            let window = sb
                .wait_for_app_window(pid, Duration::from_secs(40))
                .expect("its window, once the app answers");
            eprintln!("ready after {:?}", window.waited);
            assert!(
                dir.join("settled").exists(),
                "handed over while the app was still busy in spells (after {:?})",
                window.waited
            );
            sb.apps_answer(&[]).expect("the app answers");
            sb.stop().expect("stop");
        },
    );
}
