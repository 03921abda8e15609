//! Live tests of the Wayland protocol module (`src/wayland/`: virtual pointer, virtual keyboard,
//! screencopy) against a private headless sway each test starts itself (as root, sway runs in a
//! user namespace; WAYLAND-FACTS.md). Ignored by a bare `cargo test`; `scripts/test.sh` runs
//! them with `--include-ignored`. They need `sway`, `grim` and `foot`
//! (`apt-get install --no-install-recommends sway grim foot`) and fail saying so without them.
//!
//! Effects are judged independently of the module: pixels against `grim`, typed text by the file
//! `cat` wrote in a `foot` terminal, clicks by sway's focus (`swaymsg -t get_tree`, with
//! `focus_follows_mouse no`) and by the mouse reports the terminal received (xterm SGR mouse
//! mode, recorded by `cat -v`), which carry the cell the click landed on.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use uidriver_backend_linux::wayland_testing::Session;
use uidriver_core::action::{Button, KeyChord};
use uidriver_core::{Bounds, Deadline};

/// Every test's hard limit.
const TEST_LIMIT: Duration = Duration::from_secs(90);

fn deadline() -> Deadline {
    Deadline::after(Duration::from_secs(30))
}

/// A headless sway in a user namespace, with its own runtime directory, and the clients the
/// test started. Dropping it stops each process it started, by pid.
struct Sway {
    dir: PathBuf,
    sway: Child,
    clients: Vec<Child>,
    display: String,
    ipc: PathBuf,
}

impl Sway {
    fn start(config: &str) -> Sway {
        for tool in ["sway", "swaymsg", "grim", "foot", "unshare"] {
            let found = Command::new("sh")
                .args(["-c", &format!("command -v {tool}")])
                .stdout(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            assert!(
                found,
                "{tool} is not installed (apt-get install -y --no-install-recommends sway grim foot)"
            );
        }
        let dir = std::env::temp_dir().join(format!(
            "uidriver-wl-{}-{}",
            std::process::id(),
            Instant::now().elapsed().as_nanos() ^ rand_bits()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        let conf = dir.join("sway.conf");
        std::fs::write(
            &conf,
            format!(
                "output HEADLESS-1 resolution 1280x720\nxwayland disable\n\
                 default_border none\nfocus_follows_mouse no\n{config}\n"
            ),
        )
        .unwrap();
        let mut s = Sway {
            sway: spawn_sway(&dir, &conf),
            dir,
            clients: Vec::new(),
            display: String::new(),
            ipc: PathBuf::new(),
        };
        s.wait_ready();
        s
    }

    /// Stops sway (by pid) and starts it again in the same runtime directory and config.
    fn restart(&mut self) {
        stop(&mut self.sway);
        self.sway = spawn_sway(&self.dir, &self.dir.join("sway.conf"));
        self.wait_ready();
    }

    /// Waits until the Wayland socket and the IPC answer.
    fn wait_ready(&mut self) {
        let s = self;
        let t0 = Instant::now();
        loop {
            let names: Vec<String> = std::fs::read_dir(&s.dir)
                .unwrap()
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            let display = names
                .iter()
                .find(|n| n.starts_with("wayland-") && !n.ends_with(".lock"));
            let ipc = names
                .iter()
                .find(|n| n.starts_with("sway-ipc.") && n.ends_with(".sock"));
            if let (Some(d), Some(i)) = (display, ipc) {
                s.display = d.clone();
                s.ipc = s.dir.join(i);
                if s.swaymsg(&["-t", "get_outputs"]).is_some() {
                    break;
                }
            }
            if let Ok(Some(st)) = s.sway.try_wait() {
                panic!("sway exited ({st}): {}", s.log());
            }
            assert!(
                t0.elapsed() < Duration::from_secs(20),
                "sway did not start: {}",
                s.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("sway.log")).unwrap_or_default()
    }

    fn session(&self) -> Session {
        Session::start(&self.display, &self.dir).unwrap()
    }

    fn client(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env_remove("DISPLAY")
            .env("XDG_RUNTIME_DIR", &self.dir)
            .env("WAYLAND_DISPLAY", &self.display)
            .env("HOME", &self.dir);
        c
    }

    fn swaymsg(&self, args: &[&str]) -> Option<serde_json::Value> {
        let out = Command::new("swaymsg")
            .arg("-s")
            .arg(&self.ipc)
            .args(["-r"])
            .args(args)
            .stderr(Stdio::null())
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        serde_json::from_slice(&out.stdout).ok()
    }

    /// Starts `foot` running `script` in `sh`; returns foot's pid.
    fn foot(&mut self, script: &str) -> u32 {
        let child = self
            .client("foot")
            .args(["-e", "sh", "-c", script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start foot");
        let pid = child.id();
        self.clients.push(child);
        pid
    }

    /// The content rectangle and focus of the view of `pid`, from sway's tree.
    fn view(&self, pid: u32) -> Option<(Bounds, bool)> {
        fn walk(n: &serde_json::Value, pid: u32) -> Option<(Bounds, bool)> {
            if n["pid"].as_u64() == Some(u64::from(pid)) {
                let (r, w) = (&n["rect"], &n["window_rect"]);
                let get = |v: &serde_json::Value, k: &str| v[k].as_i64().unwrap_or(0) as i32;
                let b = Bounds::new(
                    get(r, "x") + get(w, "x"),
                    get(r, "y") + get(w, "y"),
                    get(w, "width"),
                    get(w, "height"),
                );
                return Some((b, n["focused"].as_bool() == Some(true)));
            }
            n["nodes"]
                .as_array()
                .into_iter()
                .chain(n["floating_nodes"].as_array())
                .flatten()
                .find_map(|c| walk(c, pid))
        }
        walk(&self.swaymsg(&["-t", "get_tree"])?, pid).filter(|(b, _)| b.width > 0)
    }

    /// Whether the client `pid` has exited.
    fn exited(&mut self, pid: u32) -> bool {
        self.clients
            .iter_mut()
            .find(|c| c.id() == pid)
            .is_some_and(|c| matches!(c.try_wait(), Ok(Some(_))))
    }
}

/// Starts sway headless in a user namespace (it refuses uid 0), logging to `sway.log`.
fn spawn_sway(dir: &std::path::Path, conf: &std::path::Path) -> Child {
    let log = std::fs::File::create(dir.join("sway.log")).unwrap();
    Command::new("unshare")
        .args([
            "--user",
            "--map-user=1000",
            "--map-group=1000",
            "sway",
            "-c",
        ])
        .arg(conf)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("XDG_RUNTIME_DIR", dir)
        .env("WLR_BACKENDS", "headless")
        .env("WLR_RENDERER", "pixman")
        .env("WLR_LIBINPUT_NO_DEVICES", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("start sway")
}

fn rand_bits() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

fn stop(child: &mut Child) {
    if let Ok(Some(_)) = child.try_wait() {
        return;
    }
    let pid = rustix::process::Pid::from_raw(child.id() as i32);
    if let Some(pid) = pid {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
    }
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(3) {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

impl Drop for Sway {
    fn drop(&mut self) {
        for c in &mut self.clients {
            stop(c);
        }
        stop(&mut self.sway);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Polls `f` every 50 ms until it gives a value, at most `limit`.
async fn until<T>(what: &str, limit: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let t0 = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(t0.elapsed() < limit, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A binary PPM (`grim -t ppm`): width, height, RGB bytes.
fn parse_ppm(b: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut fields = Vec::new();
    let mut i = 0;
    while fields.len() < 4 {
        while b[i].is_ascii_whitespace() {
            i += 1;
        }
        let s = i;
        while !b[i].is_ascii_whitespace() {
            i += 1;
        }
        fields.push(String::from_utf8_lossy(&b[s..i]).into_owned());
    }
    assert_eq!(fields[0], "P6");
    assert_eq!(fields[3], "255");
    (
        fields[1].parse().unwrap(),
        fields[2].parse().unwrap(),
        b[i + 1..].to_vec(),
    )
}

fn chord(s: &str) -> KeyChord {
    KeyChord::parse(s).unwrap()
}

/// (a) A full-output capture equals `grim`'s picture of the same output, and a region capture
/// equals the same rectangle of it.
#[tokio::test]
#[ignore = "live: starts a private headless sway (sway, grim, foot); scripts/test.sh runs it"]
async fn capture_matches_grim() {
    tokio::time::timeout(TEST_LIMIT, async {
        let mut sway = Sway::start("");
        // Something on screen that is not uniform: a terminal with text.
        let foot = sway.foot("printf 'uidriver capture test\\n'; seq 1 20; exec sleep 60");
        until("the terminal window", Duration::from_secs(20), || {
            sway.view(foot)
        })
        .await;
        tokio::time::sleep(Duration::from_millis(800)).await;
        let session = sway.session();
        let outputs = session.outputs(deadline()).await.unwrap();
        assert_eq!(outputs.len(), 1, "{outputs:?}");
        assert_eq!(outputs[0].bounds, Bounds::new(0, 0, 1280, 720));
        assert_eq!(outputs[0].name.as_deref(), Some("HEADLESS-1"));

        let t0 = Instant::now();
        let img = session
            .capture(Bounds::new(0, 0, 1280, 720), deadline())
            .await
            .unwrap();
        let first = t0.elapsed();
        let t1 = Instant::now();
        let again = session
            .capture(Bounds::new(0, 0, 1280, 720), deadline())
            .await
            .unwrap();
        let second = t1.elapsed();
        eprintln!("capture 1280x720: first {first:?} (connects), second {second:?}");
        assert_eq!((img.width, img.height), (1280, 720));
        assert_eq!(img.screen, Bounds::new(0, 0, 1280, 720));
        assert!(img.maybe_occluded);
        assert_eq!(img.rgb.len(), 1280 * 720 * 3);

        let grim = sway
            .client("grim")
            .args(["-t", "ppm", "-o", "HEADLESS-1", "-"])
            .output()
            .unwrap();
        assert!(grim.status.success(), "grim failed");
        let (gw, gh, grgb) = parse_ppm(&grim.stdout);
        assert_eq!((gw, gh), (1280, 720));
        let differ = img
            .rgb
            .chunks_exact(3)
            .zip(grgb.chunks_exact(3))
            .filter(|(a, b)| a != b)
            .count();
        let distinct: std::collections::HashSet<&[u8]> = img.rgb.chunks_exact(3).collect();
        eprintln!(
            "pixels differing from grim: {differ} of {}; distinct colours: {}",
            1280 * 720,
            distinct.len()
        );
        assert!(
            distinct.len() > 2,
            "the screen is blank: nothing was compared"
        );
        assert!(
            differ <= 1280 * 720 / 200,
            "{differ} pixels differ from grim"
        );
        assert_eq!(again.rgb.len(), img.rgb.len());

        // A region, partly off screen: clipped to the output, same pixels as grim's.
        let region = session
            .capture(Bounds::new(1200, 600, 200, 200), deadline())
            .await
            .unwrap();
        assert_eq!(region.screen, Bounds::new(1200, 600, 80, 120));
        assert_eq!((region.width, region.height), (80, 120));
        let mut off = 0;
        for y in 0..120usize {
            for x in 0..80usize {
                let r = &region.rgb[(y * 80 + x) * 3..][..3];
                let g = &grgb[((600 + y) * 1280 + 1200 + x) * 3..][..3];
                off += usize::from(r != g);
            }
        }
        assert!(off <= 80 * 120 / 100, "{off} region pixels differ");

        let gone = session
            .capture(Bounds::new(2000, 2000, 10, 10), deadline())
            .await
            .unwrap_err();
        assert!(gone.to_string().contains("off screen"), "{gone}");
    })
    .await
    .expect("test timed out");
}

/// (b) Text reaches a native Wayland app: `cat` in a `foot` terminal writes what was typed,
/// including characters no US keymap has (each later call needs a grown keymap), and ctrl+d
/// (a chord) ends it.
#[tokio::test]
#[ignore = "live: starts a private headless sway (sway, grim, foot); scripts/test.sh runs it"]
async fn typed_text_reaches_a_terminal() {
    tokio::time::timeout(TEST_LIMIT, async {
        let mut sway = Sway::start("");
        let out = sway.dir.join("typed.txt");
        let ready = sway.dir.join("ready");
        let foot = sway.foot(&format!(
            "touch {}; exec cat > {}",
            ready.display(),
            out.display()
        ));
        until("the terminal", Duration::from_secs(20), || {
            sway.view(foot)
                .filter(|(_, focused)| *focused && ready.exists())
        })
        .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let session = sway.session();

        let first = "Hello, wörld! 42\n";
        let t0 = Instant::now();
        session.type_text(first.into(), deadline()).await.unwrap();
        let took = t0.elapsed();
        // Every character here is new to the keymap: one upload per call, then the keys.
        let second = "xyz€ñ → 漢字 🙂\tq\n";
        let t1 = Instant::now();
        session.type_text(second.into(), deadline()).await.unwrap();
        let took2 = t1.elapsed();
        // Characters already on the map: no upload.
        let third = "Hello again\n";
        let t2 = Instant::now();
        session.type_text(third.into(), deadline()).await.unwrap();
        let took3 = t2.elapsed();
        eprintln!(
            "typing: {} chars in {took:?} (includes keyboard creation), {} new chars in {took2:?}, {} known chars in {took3:?} ({:?}/key)",
            first.chars().count(),
            second.chars().count(),
            third.chars().count(),
            took3 / third.chars().count() as u32
        );

        // Held keys: shift+x held down, so letters typed meanwhile come out shifted, then
        // released (well inside foot's 600 ms key-repeat delay).
        session
            .key_event(chord("shift+x"), true, deadline())
            .await
            .unwrap();
        session.type_text("ab".into(), deadline()).await.unwrap();
        session
            .key_event(chord("shift+x"), false, deadline())
            .await
            .unwrap();
        session.type_text("c\n".into(), deadline()).await.unwrap();

        // A deadline already passed stops typing before the first key and says so.
        let err = session
            .type_text_until("never".into(), Instant::now(), deadline())
            .await
            .unwrap_err();
        assert!(
            err.to_string().contains("0 of 5 characters were sent"),
            "{err}"
        );

        session
            .press_chords(vec![chord("ctrl+d")], deadline())
            .await
            .unwrap();
        until("cat to exit on ctrl+d", Duration::from_secs(10), || {
            sway.exited(foot).then_some(())
        })
        .await;
        let got = std::fs::read_to_string(&out).unwrap();
        assert_eq!(got, format!("{first}{second}{third}XABc\n"));
    })
    .await
    .expect("test timed out");
}

/// The mouse reports (`ESC [ < b ; col ; row M|m`, SGR mode) in what `cat -v` recorded.
fn mouse_reports(raw: &str) -> Vec<(u32, u32, u32, bool)> {
    raw.split("^[[<")
        .skip(1)
        .filter_map(|r| {
            let end = r.find(['M', 'm'])?;
            let mut it = r[..end].split(';').map(|n| n.parse::<u32>().ok());
            let (b, c, w) = (it.next()??, it.next()??, it.next()??);
            Some((b, c, w, &r[end..end + 1] == "M"))
        })
        .collect()
}

/// (c) A click lands where it was aimed: sway moves focus to the clicked window (motion alone
/// does not, with `focus_follows_mouse no`), and the terminal reports the press in the cell
/// under the point; wheel steps and a drag arrive as wheel and motion-with-button reports.
#[tokio::test]
#[ignore = "live: starts a private headless sway (sway, grim, foot); scripts/test.sh runs it"]
async fn clicks_scrolls_and_drags_land() {
    tokio::time::timeout(TEST_LIMIT, async {
        let mut sway = Sway::start("");
        let (out_a, size_a) = (sway.dir.join("a.out"), sway.dir.join("a.size"));
        let ready = sway.dir.join("a.ready");
        // Button-event tracking (1002) with SGR coordinates (1006); cat -v keeps the reports.
        // The grid size is read after cat ends: the pty is resized when the window is tiled.
        let a = sway.foot(&format!(
            "printf '\\033[?1002h\\033[?1006h'; touch {r}; cat -v > {o}; \
             stty size > {s}.tmp && mv {s}.tmp {s}",
            r = ready.display(),
            o = out_a.display(),
            s = size_a.display()
        ));
        until("window A", Duration::from_secs(20), || {
            sway.view(a).filter(|_| ready.exists())
        })
        .await;
        let b = sway.foot("exec sleep 60");
        // B opens beside A and takes the focus.
        let (rect_a, rect_b) = until("window B focused beside A", Duration::from_secs(20), || {
            let (rb, fb) = sway.view(b)?;
            let (ra, _) = sway.view(a)?;
            (fb && ra.x + ra.width <= rb.x).then_some((ra, rb))
        })
        .await;
        // A's terminal may have been resized when B arrived: read its size again.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let session = sway.session();

        let (cx, cy) = (rect_a.x + rect_a.width / 2, rect_a.y + rect_a.height / 2);
        session.move_to(cx, cy, deadline()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(
            sway.view(b).map(|v| v.1),
            Some(true),
            "motion alone moved the focus"
        );

        // A second connection: its pointer is new, so the click is that device's first event.
        drop(session);
        let session = sway.session();
        let t0 = Instant::now();
        session
            .click(cx, cy, Button::Left, 1, deadline())
            .await
            .unwrap();
        eprintln!("click (creates the pointer): {:?}", t0.elapsed());
        until("A focused by the click", Duration::from_secs(5), || {
            sway.view(a).filter(|v| v.1)
        })
        .await;
        session.scroll(cx, cy, 0, 2, deadline()).await.unwrap();
        session.scroll(cx, cy, 0, -1, deadline()).await.unwrap();
        session
            .drag(vec![(cx, cy), (cx + 80, cy + 40)], Button::Left, deadline())
            .await
            .unwrap();
        // Flush the line to cat, then end it.
        session
            .press_chords(vec![chord("Return"), chord("ctrl+d")], deadline())
            .await
            .unwrap();
        until("cat in A to exit", Duration::from_secs(10), || {
            sway.exited(a).then_some(())
        })
        .await;

        let raw = std::fs::read_to_string(&out_a).unwrap();
        let reports = mouse_reports(&raw);
        let _ = rect_b;
        // The terminal grid: rows and columns over the window's pixels (foot pads the grid by
        // a few pixels, hence the tolerance of one cell).
        let size = std::fs::read_to_string(&size_a).unwrap();
        let mut it = size.split_whitespace().map(|n| n.parse::<i32>().unwrap());
        let (rows, cols) = (it.next().unwrap(), it.next().unwrap());
        let col = 1 + (cx - rect_a.x) * cols / rect_a.width;
        let row = 1 + (cy - rect_a.y) * rows / rect_a.height;
        eprintln!("reports {reports:?}; expected press near col {col} row {row} of {cols}x{rows}");
        let press = reports
            .iter()
            .find(|r| r.0 == 0 && r.3)
            .expect("no left-button press reported");
        assert!(
            (press.1 as i32 - col).abs() <= 1 && (press.2 as i32 - row).abs() <= 1,
            "press at col {} row {}, expected near {col},{row}",
            press.1,
            press.2
        );
        assert!(
            reports.iter().any(|r| r.0 == 0 && !r.3),
            "no release reported"
        );
        // foot reports each wheel step as `scrollback.multiplier` (3) lines: compare ratios.
        let down = reports.iter().filter(|r| r.0 == 65).count();
        let up = reports.iter().filter(|r| r.0 == 64).count();
        assert!(
            up >= 1 && down == 2 * up,
            "wheel reports: {down} down, {up} up"
        );
        let drags: Vec<_> = reports.iter().filter(|r| r.0 == 32).collect();
        assert!(
            drags.len() >= 2,
            "no motion with the button held: {reports:?}"
        );
        let last = drags[drags.len() - 1];
        assert!(
            last.1 as i32 > press.1 as i32 && last.2 as i32 >= press.2 as i32,
            "the drag did not move right and down: {last:?} from {press:?}"
        );
    })
    .await
    .expect("test timed out");
}

/// The connection mirrors X11's: a compositor that went away answers `backend_unavailable`
/// naming the socket, and the next call after it came back reconnects (new devices included)
/// without a new handle. A missing protocol is `not_supported`, never a hang.
#[tokio::test]
#[ignore = "live: starts a private headless sway (sway, grim, foot); scripts/test.sh runs it"]
async fn a_restarted_compositor_is_reconnected() {
    tokio::time::timeout(TEST_LIMIT, async {
        let mut sway = Sway::start("");
        let session = sway.session();
        let screen = Bounds::new(0, 0, 1280, 720);
        session.capture(screen, deadline()).await.unwrap();
        session.move_to(10, 10, deadline()).await.unwrap();
        let display = sway.display.clone();
        sway.restart();
        assert_eq!(sway.display, display, "sway chose another socket name");
        // The first call after the restart may find the old connection dead (it says so)...
        let first = session.capture(screen, deadline()).await;
        if let Err(e) = first {
            let msg = e.to_string();
            assert!(
                msg.contains("went away") || msg.contains("cannot connect"),
                "{msg}"
            );
            assert_eq!(
                uidriver_core::Error::from(e).code,
                uidriver_core::ErrorCode::BackendUnavailable
            );
        }
        // ...and the next one works on the new compositor, input too.
        let img = session.capture(screen, deadline()).await.unwrap();
        assert_eq!((img.width, img.height), (1280, 720));
        session.move_to(20, 20, deadline()).await.unwrap();
        session.type_text("x".into(), deadline()).await.unwrap();

        // No compositor at all: backend_unavailable, not a hang.
        let nowhere = Session::start("wayland-none", &sway.dir).unwrap();
        let e = nowhere.capture(screen, deadline()).await.unwrap_err();
        assert_eq!(
            uidriver_core::Error::from(e).code,
            uidriver_core::ErrorCode::BackendUnavailable
        );
    })
    .await
    .expect("test timed out");
}
