//! One test per bug fixed in the sandbox, named for what must stay true, with where it was
//! found. A new fix adds its test here. Live: each starts a real sandbox.

use uidriver_sandbox::SandboxConfig;

mod support;
use support::{argv, live_test};

/// Issue 11 (09dda3b): GIMP 2.10, a GTK 2 app, had no accessibility tree in the sandbox: GTK 2
/// loads the ATK bridge only when `GTK2_MODULES` names it, which the sandbox did not set.
#[test]
#[ignore = "live: starts Xvfb, D-Bus and AT-SPI; scripts/test.sh runs it"]
fn apps_in_the_sandbox_are_given_the_gtk2_atk_bridge() {
    live_test(
        "apps_in_the_sandbox_are_given_the_gtk2_atk_bridge",
        90,
        |t| {
            let sb = t.start(SandboxConfig::default());
            let out = sb.state_dir().join("gtk2-modules");
            let script = format!("echo \"${{GTK2_MODULES-unset}}\" > '{}'", out.display());
            let status = sb.run(&argv(&["sh", "-c", &script])).expect("run");
            assert!(status.success());
            let modules = std::fs::read_to_string(&out).expect("output file");
            let modules: Vec<&str> = modules.trim_end().split(':').collect();
            assert!(
                modules.contains(&"atk-bridge") && modules.contains(&"gail"),
                "GTK2_MODULES is {modules:?}"
            );
            sb.stop().expect("stop");
        },
    );
}
