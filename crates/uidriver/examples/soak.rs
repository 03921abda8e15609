//! Benchmark program (not a test): the "Do no harm" soak over real applications. For each app
//! (GTK 3 mousepad, GTK 4 gnome-calculator, Qt 5 FeatherPad, Gecko Thunderbird with a fresh
//! profile, LibreOffice Calc with the task suite's profile) it starts a fresh private desktop
//! with the app and an in-process `Service`, then for `--minutes` (default 10) looks, searches
//! and acts through the tools, as an agent would, choosing each call with a seeded RNG
//! (`--seed`, default 1: the same seed makes the same choices on the same screens):
//! - `find_roots` of the app; `observe_ui` of its window (semantic, fused or visual);
//! - `search_ui` for a word of the last outline; `inspect_ui` on a ref of the last outline;
//! - `act_ui` with harmless, reversible acts: open a menu (a key, or its button) and close it
//!   with Escape, looking at the window (and at the menu's own root) while it is open, which is
//!   what killed Gecko apps before; type text into a text field, find it, and delete it with
//!   BackSpace; press calculator buttons and clear; move between cells (Calc) or to the end and
//!   back (editors); toggle a check box twice. After each act a plain semantic look must answer
//!   within 5 s.
//!
//! Counted per app: calls by tool, errors by code, act outcomes, **crashes** (the app's
//! process, by pid and start time, died; recorded with the tail of its log, then a fresh
//! desktop and app continue the run) and **hangs** (a call slower than its deadline + 2 s, no
//! answer at all, an `app_unresponsive` answer, or no plain look within 5 s after an act).
//! Latency medians and p95 of looks and acts. Reference from the same run: the median of 5
//! fresh semantic looks and the app's RSS (`/proc/PID/status`) at the start and at the end,
//! and this process's RSS (the service), to show no slowdown or leak.
//!
//! Prints a table per app and a total, writes JSON (`--json PATH`, default
//! `target/soak.json`), and exits 1 if any crash or hang happened.
//!
//! ```text
//! cargo run --release -p uidriver --example soak -- --minutes 10 [--app NAME] [--seed N]
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use uidriver_backend_linux::{LinuxBackend, LinuxConfig};
use uidriver_core::Backend;
use uidriver_sandbox::{Sandbox, SandboxConfig};
use uidriver_service::{Service, ServiceConfig, ToolResult};

fn arg(name: &str) -> Option<String> {
    std::env::args().skip_while(|a| a != name).nth(1)
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn quantile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let i = ((v.len() - 1) as f64 * q).round() as usize;
    v[i]
}

/// xorshift64*: small, seeded, reproducible.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> Option<&'a T> {
        if v.is_empty() {
            None
        } else {
            Some(&v[self.below(v.len())])
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Mousepad,
    Calculator,
    Featherpad,
    Thunderbird,
    Calc,
}

impl Kind {
    const ALL: [Kind; 5] = [
        Kind::Mousepad,
        Kind::Calculator,
        Kind::Featherpad,
        Kind::Thunderbird,
        Kind::Calc,
    ];
    fn name(self) -> &'static str {
        match self {
            Kind::Mousepad => "mousepad",
            Kind::Calculator => "gnome-calculator",
            Kind::Featherpad => "featherpad",
            Kind::Thunderbird => "thunderbird",
            Kind::Calc => "localc",
        }
    }
    fn toolkit(self) -> &'static str {
        match self {
            Kind::Mousepad => "GTK 3",
            Kind::Calculator => "GTK 4",
            Kind::Featherpad => "Qt 5",
            Kind::Thunderbird => "Gecko",
            Kind::Calc => "LibreOffice",
        }
    }
    fn title(self) -> &'static str {
        match self {
            Kind::Mousepad | Kind::Featherpad => "notes",
            Kind::Calculator => "",
            Kind::Thunderbird => "Thunderbird",
            Kind::Calc => "LibreOffice Calc",
        }
    }
    /// Files and profile under `dir` (inside the sandbox's state dir), and the command line.
    fn prepare(self, sb: &Sandbox, dir: &Path) -> Vec<String> {
        std::fs::create_dir_all(dir).expect("soak dir");
        let s = |p: &Path| p.to_str().expect("utf-8 path").to_string();
        match self {
            Kind::Mousepad | Kind::Featherpad => {
                let file = dir.join("notes.txt");
                std::fs::write(&file, "soak notes\nsecond line of the soak\n").expect("file");
                vec![self.name().into(), s(&file)]
            }
            Kind::Calculator => vec!["gnome-calculator".into()],
            Kind::Thunderbird => {
                let profile = dir.join("profile");
                std::fs::create_dir_all(&profile).expect("profile");
                vec![
                    "thunderbird".into(),
                    "--no-remote".into(),
                    "--profile".into(),
                    s(&profile),
                ]
            }
            Kind::Calc => {
                let home = PathBuf::from(sb.env_var("HOME").expect("sandbox HOME"));
                let user = home.join(".config/libreoffice/4/user");
                std::fs::create_dir_all(&user).expect("lo profile");
                let xcu = concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/../../tasks/files/libreoffice/registrymodifications.xcu"
                );
                std::fs::copy(xcu, user.join("registrymodifications.xcu")).expect("xcu");
                vec!["soffice".into(), "--calc".into(), "--norestore".into()]
            }
        }
    }
    fn acts(self) -> &'static [Act] {
        match self {
            Kind::Mousepad | Kind::Featherpad => &[Act::Menu, Act::Type, Act::Navigate],
            Kind::Calculator => &[Act::Menu, Act::Type, Act::Press],
            Kind::Thunderbird => &[Act::Menu, Act::Type, Act::Toggle, Act::Navigate],
            Kind::Calc => &[Act::Menu, Act::Type, Act::Navigate],
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Act {
    Menu,
    Type,
    Press,
    Navigate,
    Toggle,
}

/// One private desktop with the app and a service over it.
struct Desk {
    svc: Service,
    pid: u32,
    start_time: u64,
    root: String,
    // Last: dropping the sandbox stops the app and the desktop.
    sb: Sandbox,
}

fn rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// The last `n` lines of the log(s) of the app(s) the sandbox started.
fn log_tail(sb: &Sandbox, n: usize) -> String {
    let mut out = String::new();
    let logs = sb
        .processes()
        .into_iter()
        .filter(|p| p.role == uidriver_sandbox::roles::APP)
        .filter_map(|p| p.log);
    for p in logs {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let from = lines.len().saturating_sub(n);
        out.push_str(&format!("== {}\n", p.display()));
        out.push_str(&lines[from..].join("\n"));
        out.push('\n');
    }
    out
}

async fn start_desk(kind: Kind) -> Result<Desk, String> {
    let (sb, pid) = tokio::task::block_in_place(|| {
        let sb = Sandbox::start(SandboxConfig::default()).map_err(|e| format!("sandbox: {e}"))?;
        let argv = kind.prepare(&sb, &sb.state_dir().join("soak"));
        let pid = sb
            .spawn(&argv)
            .map_err(|e| format!("spawn {argv:?}: {e}"))?;
        let w = sb
            .wait_for_app_window(pid, Duration::from_secs(90))
            .map_err(|e| format!("{} showed no window: {e}", kind.name()))?;
        Ok::<_, String>((sb, w.pid))
    })?;
    let cfg = LinuxConfig::from_vars(sb.env().iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let linux = LinuxBackend::connect(cfg)
        .await
        .map_err(|e| format!("backend: {e}"))?;
    let svc = Service::new(
        vec![Arc::new(linux) as Arc<dyn Backend>],
        vec![],
        ServiceConfig::default(),
    );
    let start_time = uidriver_procfs::stat(pid)
        .map(|s| s.start_time)
        .ok_or("app gone at start")?;
    let root = root_of(&svc, pid, kind.title(), 60).await?;
    // Ready: Thunderbird shows its account setup (a tab that loads a moment after the window),
    // the others are ready when their window's geometry holds.
    let t0 = Instant::now();
    if kind == Kind::Thunderbird {
        loop {
            let look = svc
                .call("observe_ui", json!({ "root": root, "mode": "semantic" }))
                .await;
            if !look.is_error && look.text.contains("Email address") {
                break;
            }
            if t0.elapsed() > Duration::from_secs(90) {
                return Err("Thunderbird showed no account setup in 90 s".into());
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
    let mut last = Value::Null;
    loop {
        let v = svc
            .call("find_roots", json!({ "pid": pid }))
            .await
            .structured;
        let now: Vec<Value> = v["roots"]
            .as_array()
            .map(|a| a.iter().map(|r| r["bounds"].clone()).collect())
            .unwrap_or_default();
        let now = Value::Array(now);
        if now == last || t0.elapsed() > Duration::from_secs(20) {
            break;
        }
        last = now;
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    eprintln!(
        "[soak] {} up: pid {pid}, root {root}, state dir {}",
        kind.name(),
        sb.state_dir().display()
    );
    Ok(Desk {
        svc,
        pid,
        start_time,
        root,
        sb,
    })
}

/// The app's window root whose title contains `title` (not a menu), waiting up to `secs`.
async fn root_of(svc: &Service, pid: u32, title: &str, secs: u64) -> Result<String, String> {
    let t0 = Instant::now();
    loop {
        let v = svc
            .call("find_roots", json!({ "pid": pid }))
            .await
            .structured;
        if let Some(r) = v["roots"].as_array().and_then(|a| {
            a.iter().find(|r| {
                r["title"].as_str().is_some_and(|t| t.contains(title))
                    && matches!(r["kind"].as_str(), Some("window"))
            })
        }) {
            return Ok(r["ref"].as_str().unwrap_or_default().to_string());
        }
        if t0.elapsed() > Duration::from_secs(secs) {
            return Err(format!("no window of {pid} titled {title:?}: {v}"));
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

#[derive(Default)]
struct Stats {
    calls: BTreeMap<String, u64>,
    errors: BTreeMap<String, u64>,
    /// The first answer of each error, for the report.
    error_samples: BTreeMap<String, String>,
    outcomes: BTreeMap<String, u64>,
    acts_by_kind: BTreeMap<String, u64>,
    crashes: Vec<Value>,
    hangs: Vec<Value>,
    looks: Vec<f64>,
    acts: Vec<f64>,
    restarts: u64,
    steps: u64,
}

struct Soak {
    kind: Kind,
    d: Desk,
    st: Stats,
    rng: Rng,
    state: String,
    words: Vec<String>,
    refs: Vec<String>,
    /// Set when the app died during the last call.
    crashed: bool,
    hangs_in_a_row: u32,
}

/// Words of an outline worth searching for: letters only, 4–20 characters, no refs.
fn words_of(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| (4..=20).contains(&w.chars().count()))
        .map(str::to_string)
        .collect();
    out.sort();
    out.dedup();
    out
}

fn refs_of(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("@e") {
        let tail = &rest[i + 2..];
        let n: String = tail.chars().take_while(|c| c.is_ascii_digit()).collect();
        if !n.is_empty() {
            out.push(format!("@e{n}"));
        }
        rest = tail;
    }
    out.sort();
    out.dedup();
    out
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    s.chars().take(300).collect()
}

impl Soak {
    fn alive(&self) -> bool {
        uidriver_procfs::alive_same(self.d.pid, self.d.start_time)
    }

    fn hang(&mut self, tool: &str, args: &Value, took: f64, why: &str) {
        eprintln!(
            "[soak] HANG {} step {}: {tool} {}: {why} ({took:.0} ms)",
            self.kind.name(),
            self.st.steps,
            short(args)
        );
        self.hangs_in_a_row += 1;
        self.st.hangs.push(json!({
            "app": self.kind.name(), "step": self.st.steps, "tool": tool,
            "args": short(args), "ms": took.round(), "why": why,
        }));
    }

    /// One tool call, counted and judged: its answer (None: no answer at all, or a crash).
    /// `deadline` is the call's own deadline; `plain` marks the look after an act, which must
    /// answer within 5 s.
    async fn call(
        &mut self,
        tool: &str,
        args: Value,
        deadline: u64,
        plain: bool,
    ) -> Option<ToolResult> {
        if self.crashed {
            return None;
        }
        *self.st.calls.entry(tool.to_string()).or_default() += 1;
        let t = Instant::now();
        let r = tokio::time::timeout(
            Duration::from_millis(deadline + 30_000),
            self.d.svc.call(tool, args.clone()),
        )
        .await;
        let took = ms(t);
        match tool {
            "observe_ui" => self.st.looks.push(took),
            "act_ui" => self.st.acts.push(took),
            _ => {}
        }
        if !self.alive() {
            self.crashed = true;
            let tail = log_tail(&self.d.sb, 25);
            eprintln!(
                "[soak] CRASH {} step {}: after {tool} {}\n{tail}",
                self.kind.name(),
                self.st.steps,
                short(&args)
            );
            self.st.crashes.push(json!({
                "app": self.kind.name(), "step": self.st.steps, "tool": tool,
                "args": short(&args), "answer": r.as_ref().map(|r| r.text.chars().take(400).collect::<String>()).unwrap_or_default(),
                "logTail": tail,
            }));
            return None;
        }
        let Ok(r) = r else {
            self.hang(tool, &args, took, "no answer");
            return None;
        };
        let code = r
            .is_error
            .then(|| match r.structured["error"]["code"].as_str() {
                Some(c) => c.to_string(),
                None => format!(
                    "outcome {}",
                    r.structured["outcome"].as_str().unwrap_or("?")
                ),
            });
        if let Some(c) = &code {
            let key = format!("{tool}: {c}");
            *self.st.errors.entry(key.clone()).or_default() += 1;
            self.st
                .error_samples
                .entry(key)
                .or_insert_with(|| r.text.chars().take(600).collect());
        }
        let limit = if plain {
            5000.0
        } else {
            deadline as f64 + 2000.0
        };
        if code.as_deref() == Some("app_unresponsive") {
            self.hang(tool, &args, took, "app_unresponsive");
        } else if plain && code.is_some() {
            let why = format!(
                "plain look after an act failed: {}",
                code.clone().unwrap_or_default()
            );
            self.hang(tool, &args, took, &why);
        } else if took > limit {
            self.hang(tool, &args, took, &format!("slower than {limit:.0} ms"));
        } else {
            self.hangs_in_a_row = 0;
        }
        if tool == "act_ui" {
            let o = r.structured["outcome"].as_str().unwrap_or("?").to_string();
            *self.st.outcomes.entry(o).or_default() += 1;
        }
        if r.is_error
            && matches!(code.as_deref(), Some("root_not_found" | "target_closed"))
            && !self.crashed
        {
            if let Ok(root) = root_of(&self.d.svc, self.d.pid, self.kind.title(), 20).await {
                self.d.root = root;
            }
        }
        Some(r)
    }

    fn mode(&mut self) -> &'static str {
        match self.rng.below(10) {
            0..=5 => "semantic",
            6..=8 => "fused",
            _ => "visual",
        }
    }

    /// A look at the app's window; its outline feeds searches and inspections.
    async fn look(&mut self, mode: &str) -> Option<Value> {
        let args = json!({ "root": self.d.root, "mode": mode, "timeoutMs": 8000 });
        let r = self.call("observe_ui", args, 8000, false).await?;
        self.take_look(&r)
    }

    fn take_look(&mut self, r: &ToolResult) -> Option<Value> {
        if r.is_error {
            return None;
        }
        if let Some(s) = r.structured["stateId"].as_str() {
            self.state = s.to_string();
        }
        let w = words_of(&r.text);
        if !w.is_empty() {
            self.words = w;
        }
        self.refs = refs_of(&r.text);
        Some(r.structured.clone())
    }

    /// The look after every act: semantic, within 5 s.
    async fn plain_look(&mut self) {
        let args = json!({ "root": self.d.root, "mode": "semantic", "timeoutMs": 5000 });
        if let Some(r) = self.call("observe_ui", args, 5000, true).await {
            self.take_look(&r);
        }
    }

    async fn act(&mut self, steps: Value) -> Option<ToolResult> {
        let args = json!({ "stateId": self.state, "actions": steps, "timeoutMs": 15000 });
        let r = self.call("act_ui", args, 15000, false).await?;
        if let Some(s) = r.structured["stateId"].as_str() {
            self.state = s.to_string();
        }
        self.plain_look().await;
        Some(r)
    }

    async fn search(&mut self, q: Value) -> Vec<Value> {
        let mut q = q;
        q["stateId"] = json!(self.state);
        q["ocrFallback"] = json!(false);
        match self.call("search_ui", q, 10_000, false).await {
            Some(r) if !r.is_error => r.structured["matches"]
                .as_array()
                .cloned()
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    async fn find_roots(&mut self) -> Vec<Value> {
        match self
            .call("find_roots", json!({ "pid": self.d.pid }), 10_000, false)
            .await
        {
            Some(r) if !r.is_error => r.structured["roots"]
                .as_array()
                .cloned()
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    async fn menu_roots(&mut self) -> Vec<String> {
        self.find_roots()
            .await
            .into_iter()
            .filter(|r| matches!(r["kind"].as_str(), Some("menu" | "popover")))
            .filter_map(|r| r["ref"].as_str().map(str::to_string))
            .collect()
    }

    fn enabled(matches: Vec<Value>) -> Vec<Value> {
        matches
            .into_iter()
            .filter(|m| !m["states"].to_string().contains("disabled"))
            .collect()
    }

    async fn do_act(&mut self, act: Act) {
        *self.st.acts_by_kind.entry(format!("{act:?}")).or_default() += 1;
        match act {
            Act::Menu => self.menu().await,
            Act::Type => self.type_delete().await,
            Act::Press => self.press_buttons().await,
            Act::Navigate => {
                let (there, back) = match self.kind {
                    Kind::Calc => *self
                        .rng
                        .pick(&[("Right Down", "Up Left"), ("Tab", "shift+Tab")])
                        .expect("pairs"),
                    Kind::Thunderbird => ("Tab", "shift+Tab"),
                    _ => ("ctrl+End", "ctrl+Home"),
                };
                self.act(json!([{ "action": "keypress", "keys": there }]))
                    .await;
                self.act(json!([{ "action": "keypress", "keys": back }]))
                    .await;
            }
            Act::Toggle => {
                let boxes = Self::enabled(
                    self.search(json!({ "role": "check-box", "capability": "toggle" }))
                        .await,
                );
                let Some(b) = self.rng.pick(&boxes).cloned() else {
                    return self.menu().await;
                };
                let r = b["ref"].as_str().unwrap_or_default().to_string();
                for _ in 0..2 {
                    self.act(json!([{ "action": "press", "ref": r }])).await;
                }
            }
        }
    }

    /// Opens a menu, looks at it while it is open, closes it with Escape.
    async fn menu(&mut self) {
        if self.kind == Kind::Calculator {
            let found = Self::enabled(
                self.search(json!({ "text": "menu", "role": ["button", "toggle-button"] }))
                    .await,
            );
            match found.first() {
                Some(m) => {
                    let r = m["ref"].as_str().unwrap_or_default().to_string();
                    self.act(json!([{ "action": "press", "ref": r }])).await;
                }
                None => {
                    self.act(json!([{ "action": "keypress", "keys": "F10" }]))
                        .await;
                }
            }
        } else {
            self.act(json!([{ "action": "keypress", "keys": "alt+f" }]))
                .await;
        }
        for _ in 0..1 + self.rng.below(3) {
            let mode = self.mode();
            self.look(mode).await;
        }
        for m in self.menu_roots().await.into_iter().take(2) {
            let args = json!({ "root": m, "mode": "semantic", "timeoutMs": 8000 });
            self.call("observe_ui", args, 8000, false).await;
        }
        self.search(json!({ "role": ["menu-item", "menu", "check-menu-item"] }))
            .await;
        self.act(json!([{ "action": "keypress", "keys": "Escape" }]))
            .await;
        if !self.menu_roots().await.is_empty() {
            self.act(json!([{ "action": "keypress", "keys": "Escape" }]))
                .await;
        }
    }

    /// Types text, finds it, deletes it again.
    async fn type_delete(&mut self) {
        let text = match self.kind {
            Kind::Calculator => format!("{}", 10 + self.rng.below(90)),
            _ => format!("soak{}", 10 + self.rng.below(90)),
        };
        let back = vec!["BackSpace"; text.chars().count()].join(" ");
        if self.kind == Kind::Calc {
            // Into the current cell; Escape cancels the input.
            self.act(json!([{ "action": "typeText", "text": text }]))
                .await;
            self.search(json!({ "text": text })).await;
            self.act(json!([{ "action": "keypress", "keys": "Escape" }]))
                .await;
            return;
        }
        let fields = Self::enabled(
            self.search(json!({ "role": ["text"], "capability": "type-text" }))
                .await,
        );
        let Some(f) = self.rng.pick(&fields).cloned() else {
            return self.menu().await;
        };
        let r = f["ref"].as_str().unwrap_or_default().to_string();
        self.act(json!([{ "action": "typeText", "ref": r, "text": text }]))
            .await;
        self.search(json!({ "text": text })).await;
        self.act(json!([{ "action": "keypress", "keys": back }]))
            .await;
    }

    /// Calculator: one to three digit or operator buttons, then Escape (clear).
    async fn press_buttons(&mut self) {
        let buttons: Vec<Value> = self
            .search(json!({ "role": "button", "limit": 200 }))
            .await
            .into_iter()
            .filter(|m| {
                let n = m["name"].as_str().unwrap_or_default();
                n.len() == 1 && n.chars().all(|c| c.is_ascii_digit()) || n == "+"
            })
            .collect();
        for _ in 0..1 + self.rng.below(3) {
            let Some(b) = self.rng.pick(&buttons).cloned() else {
                break;
            };
            let r = b["ref"].as_str().unwrap_or_default().to_string();
            self.act(json!([{ "action": "press", "ref": r }])).await;
        }
        self.act(json!([{ "action": "keypress", "keys": "Escape" }]))
            .await;
    }

    /// One step of the loop.
    async fn step(&mut self) {
        self.st.steps += 1;
        match self.rng.below(100) {
            0..=9 => {
                self.find_roots().await;
            }
            10..=39 => {
                let mode = self.mode();
                self.look(mode).await;
            }
            40..=59 => {
                let w = self.rng.pick(&self.words).cloned();
                if let Some(w) = w {
                    self.search(json!({ "text": w })).await;
                }
            }
            60..=69 => {
                let r = self.rng.pick(&self.refs).cloned();
                if let Some(r) = r {
                    let args = json!({ "stateId": self.state, "ref": r });
                    self.call("inspect_ui", args, 10_000, false).await;
                }
            }
            _ => {
                let act = *self.rng.pick(self.kind.acts()).expect("acts");
                self.do_act(act).await;
            }
        }
    }
}

/// Median of `n` fresh semantic looks (not counted in the soak's figures).
async fn fresh_looks(d: &Desk, n: usize) -> (f64, u64) {
    let mut v = Vec::new();
    let mut nodes = 0;
    for _ in 0..n {
        let t = Instant::now();
        let r = d
            .svc
            .call("observe_ui", json!({ "root": d.root, "mode": "semantic" }))
            .await;
        v.push(ms(t));
        nodes = r.structured["nodeCount"].as_u64().unwrap_or(0);
    }
    (quantile(&v, 0.5), nodes)
}

async fn soak_app(kind: Kind, minutes: f64, seed: u64) -> Value {
    let d = match start_desk(kind).await {
        Ok(d) => d,
        Err(e) => {
            eprintln!("[soak] {} did not start: {e}", kind.name());
            return json!({ "app": kind.name(), "toolkit": kind.toolkit(), "startError": e });
        }
    };
    let (look0, nodes0) = fresh_looks(&d, 5).await;
    let rss0 = rss_kb(d.pid);
    let self0 = rss_kb(std::process::id());
    let mut s = Soak {
        kind,
        d,
        st: Stats::default(),
        rng: Rng::new(seed ^ ((kind as u64 + 1) * 1_000_003)),
        state: String::new(),
        words: Vec::new(),
        refs: Vec::new(),
        crashed: false,
        hangs_in_a_row: 0,
    };
    s.look("semantic").await;
    let t0 = Instant::now();
    let end = Duration::from_secs_f64(minutes * 60.0);
    let mut next_report = Duration::from_secs(60);
    let mut start_errors = Vec::new();
    while t0.elapsed() < end {
        s.step().await;
        if t0.elapsed() >= next_report {
            next_report += Duration::from_secs(60);
            eprintln!(
                "[soak] {} {:.0} s: {} steps, {} calls, {} crashes, {} hangs, app RSS {} kB",
                kind.name(),
                t0.elapsed().as_secs_f64(),
                s.st.steps,
                s.st.calls.values().sum::<u64>(),
                s.st.crashes.len(),
                s.st.hangs.len(),
                rss_kb(s.d.pid)
            );
        }
        let stuck = s.hangs_in_a_row >= 3;
        if s.crashed || stuck {
            if stuck {
                eprintln!("[soak] {}: 3 hangs in a row, restarting", kind.name());
            }
            s.st.restarts += 1;
            let fresh = loop {
                match start_desk(kind).await {
                    Ok(d) => break Some(d),
                    Err(e) => {
                        start_errors.push(e);
                        if start_errors.len() >= 3 {
                            break None;
                        }
                    }
                }
            };
            let Some(fresh) = fresh else { break };
            let old = std::mem::replace(&mut s.d, fresh);
            drop(old);
            s.crashed = false;
            s.hangs_in_a_row = 0;
            s.look("semantic").await;
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    let (look1, nodes1) = fresh_looks(&s.d, 5).await;
    let rss1 = rss_kb(s.d.pid);
    let self1 = rss_kb(std::process::id());
    let st = &s.st;
    json!({
        "app": kind.name(),
        "toolkit": kind.toolkit(),
        "seconds": secs.round(),
        "steps": st.steps,
        "calls": st.calls,
        "totalCalls": st.calls.values().sum::<u64>(),
        "errors": st.errors,
        "errorSamples": st.error_samples,
        "actOutcomes": st.outcomes,
        "actKinds": st.acts_by_kind,
        "crashes": st.crashes,
        "hangs": st.hangs,
        "restarts": st.restarts,
        "startErrors": start_errors,
        "looks": st.looks.len(),
        "lookP50": quantile(&st.looks, 0.5),
        "lookP95": quantile(&st.looks, 0.95),
        "acts": st.acts.len(),
        "actP50": quantile(&st.acts, 0.5),
        "actP95": quantile(&st.acts, 0.95),
        "reference": {
            "freshLookStartMs": look0, "freshLookEndMs": look1,
            "nodesStart": nodes0, "nodesEnd": nodes1,
            "appRssStartKb": rss0, "appRssEndKb": rss1,
            "serviceRssStartKb": self0, "serviceRssEndKb": self1,
        },
    })
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

fn main() {
    let minutes: f64 = arg("--minutes")
        .and_then(|s| s.parse().ok())
        .unwrap_or(10.0);
    let seed: u64 = arg("--seed").and_then(|s| s.parse().ok()).unwrap_or(1);
    let only = arg("--app");
    let out = arg("--json").unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/soak.json").to_string()
    });
    let kinds: Vec<Kind> = Kind::ALL
        .into_iter()
        .filter(|k| {
            only.as_deref()
                .is_none_or(|a| k.name().contains(a) || k.toolkit().eq_ignore_ascii_case(a))
        })
        .collect();
    assert!(!kinds.is_empty(), "no app matches --app {only:?}");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let mut results = Vec::new();
    for k in kinds {
        eprintln!("[soak] {} ({}) for {minutes} min", k.name(), k.toolkit());
        let r = rt.block_on(soak_app(k, minutes, seed));
        println!("{}", serde_json::to_string(&r).unwrap_or_default());
        results.push(r);
    }

    println!(
        "\nsoak, {minutes} min per app, seed {seed}\n\n| app | toolkit | calls | find_roots | observe_ui | search_ui | inspect_ui | act_ui | errors | crashes | hangs | look p50 / p95 ms | act p50 / p95 ms | fresh look start → end ms | app RSS start → end MB | service RSS start → end MB |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    let (mut calls, mut crashes, mut hangs, mut errors) = (0, 0, 0, 0);
    let mut failed_start = false;
    for r in &results {
        if r.get("startError").is_some() {
            failed_start = true;
            println!(
                "| {} | {} | did not start: {} |",
                r["app"].as_str().unwrap_or("?"),
                r["toolkit"].as_str().unwrap_or("?"),
                r["startError"]
            );
            continue;
        }
        let c = &r["calls"];
        let errs: u64 = r["errors"]
            .as_object()
            .map(|o| o.values().map(n).sum())
            .unwrap_or(0);
        let cr = r["crashes"].as_array().map_or(0, Vec::len);
        let hg = r["hangs"].as_array().map_or(0, Vec::len);
        calls += n(&r["totalCalls"]);
        crashes += cr;
        hangs += hg;
        errors += errs;
        let f = |k: &str| r[k].as_f64().unwrap_or(f64::NAN);
        let re = &r["reference"];
        let mb = |k: &str| n(&re[k]) as f64 / 1024.0;
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.1} / {:.1} | {:.1} / {:.1} | {:.1} → {:.1} | {:.1} → {:.1} | {:.1} → {:.1} |",
            r["app"].as_str().unwrap_or("?"),
            r["toolkit"].as_str().unwrap_or("?"),
            n(&r["totalCalls"]),
            n(&c["find_roots"]),
            n(&c["observe_ui"]),
            n(&c["search_ui"]),
            n(&c["inspect_ui"]),
            n(&c["act_ui"]),
            errs,
            cr,
            hg,
            f("lookP50"),
            f("lookP95"),
            f("actP50"),
            f("actP95"),
            re["freshLookStartMs"].as_f64().unwrap_or(f64::NAN),
            re["freshLookEndMs"].as_f64().unwrap_or(f64::NAN),
            mb("appRssStartKb"),
            mb("appRssEndKb"),
            mb("serviceRssStartKb"),
            mb("serviceRssEndKb"),
        );
    }
    println!("| total | | {calls} | | | | | | {errors} | {crashes} | {hangs} | | | | | |");
    for r in &results {
        println!(
            "\n{}: errors {} act outcomes {} act kinds {} restarts {}",
            r["app"].as_str().unwrap_or("?"),
            r["errors"],
            r["actOutcomes"],
            r["actKinds"],
            r["restarts"]
        );
        for c in r["crashes"].as_array().into_iter().flatten() {
            println!("  crash: {}", short(c));
        }
        for h in r["hangs"].as_array().into_iter().flatten() {
            println!("  hang: {}", short(h));
        }
    }
    let _ = std::fs::write(
        &out,
        serde_json::to_string_pretty(&json!({ "minutes": minutes, "seed": seed, "apps": results }))
            .unwrap_or_default(),
    );
    println!("\nJSON: {out}");
    if crashes > 0 || hangs > 0 || failed_start {
        std::process::exit(1);
    }
}
