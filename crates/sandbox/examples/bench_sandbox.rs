//! Benchmark of a sandbox's start and stop, X11 (Xvfb + openbox) against Wayland (headless
//! sway), alternating in the same run so both see the same machine load. Each run starts a
//! sandbox, waits until it is ready (what `Sandbox::start` returns on), and stops it; with
//! `--app CMD` it also starts that app and waits for its window before stopping. Prints medians
//! over the runs and the Wayland/X11 ratio.
//!
//!     cargo run --release -p uidriver-sandbox --example bench_sandbox [-- --runs 11 --app mousepad]

// A benchmark program: its table on stdout is its output.
#![allow(clippy::print_stdout)]

use std::time::{Duration, Instant};

use uidriver_sandbox::{DisplayServer, Sandbox, SandboxConfig};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn arg(name: &str) -> Option<String> {
    std::env::args().skip_while(|a| a != name).nth(1)
}

/// One start (+ app) + stop: milliseconds to ready, to the app's window, to stopped.
fn once(server: DisplayServer, app: Option<&str>) -> (f64, f64, f64) {
    let t0 = Instant::now();
    let sb = Sandbox::start(SandboxConfig {
        display_server: server,
        ..SandboxConfig::default()
    })
    .expect("sandbox starts");
    let started = ms(t0.elapsed());
    let mut window = 0.0;
    if let Some(app) = app {
        let t = Instant::now();
        let pid = sb.spawn(&[app.to_string()]).expect("app starts");
        sb.wait_for_app_window(pid, Duration::from_secs(30))
            .expect("app window");
        window = ms(t.elapsed());
    }
    let t = Instant::now();
    let report = sb.stop().expect("sandbox stops");
    assert!(report.survivors.is_empty(), "{report:?}");
    (started, window, ms(t.elapsed()))
}

fn main() {
    let runs: usize = arg("--runs").and_then(|s| s.parse().ok()).unwrap_or(11);
    let app = arg("--app");
    let servers = [DisplayServer::X11, DisplayServer::Wayland];
    // One warm-up of each: the first start pays for page cache and font cache.
    for s in servers {
        once(s, app.as_deref());
    }
    let mut samples: Vec<Vec<(f64, f64, f64)>> = vec![Vec::new(), Vec::new()];
    for _ in 0..runs {
        for (i, s) in servers.iter().enumerate() {
            samples[i].push(once(*s, app.as_deref()));
        }
    }
    let col = |i: usize, f: fn(&(f64, f64, f64)) -> f64| median(samples[i].iter().map(f).collect());
    println!(
        "sandbox start + stop, median of {runs} runs each (alternating){}",
        app.as_deref()
            .map(|a| format!(", with {a} to its window"))
            .unwrap_or_default()
    );
    println!(
        "{:<10} {:>10} {:>10} {:>10} {:>10}",
        "", "start ms", "app ms", "stop ms", "total ms"
    );
    let mut totals = [0.0; 2];
    for (i, s) in servers.iter().enumerate() {
        let (start, window, stop) = (col(i, |r| r.0), col(i, |r| r.1), col(i, |r| r.2));
        totals[i] = col(i, |r| r.0 + r.1 + r.2);
        println!(
            "{:<10} {start:>10.1} {window:>10.1} {stop:>10.1} {:>10.1}",
            format!("{s:?}"),
            totals[i]
        );
    }
    let ratio = |f: fn(&(f64, f64, f64)) -> f64| col(1, f) / col(0, f);
    println!(
        "Wayland/X11: start {:.2}x, stop {:.2}x, total {:.2}x",
        ratio(|r| r.0),
        ratio(|r| r.2),
        totals[1] / totals[0]
    );
}
