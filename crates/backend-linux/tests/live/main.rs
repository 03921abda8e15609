//! Live tests of the Linux backend against real applications in an isolated desktop the tests
//! start themselves (uidriver-sandbox: Xvfb + private D-Bus + AT-SPI + openbox). Every test has
//! a hard timeout and fails, saying so, when Xvfb or the apps are not installed. Each is
//! ignored by a bare `cargo test`; `scripts/test.sh` runs them with `--include-ignored`.
//! Effects are judged independently: geometry by `xwininfo`, pids by `xdotool`, completeness by
//! a libatspi walk (`tools/atspi_walk.py` on the system python).
//!
//! Topics: `desktop` (roots, observation, completeness, GTK4 bounds), `faults` (stopped and
//! killed apps), `text` (read_text, observe_region, wait_change, capture). New live tests go in
//! the module of their topic; helpers in `support`.

mod desktop;
mod faults;
mod regressions;
mod support;
mod text;
