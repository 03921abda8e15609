//! The [`Sandbox`] handle: starts Xvfb and openbox, or a headless sway on Wayland
//! (`wayland.rs`), a private D-Bus session bus and the AT-SPI bus (each in its own session, with
//! a private env), records every process in the state directory's manifest, launches apps inside
//! it, waits for their windows on the AT-SPI registry (and on Wayland in sway's tree), and stops
//! exactly what it started.

use std::fs::File;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tracing::{debug, info, warn};

use crate::answers::log_tail;
use crate::app_window;
use crate::manifest::{Manifest, ProcessRecord, MANIFEST_FILE, MANIFEST_FORMAT};
use crate::stop::{self, StopReport};
use crate::{dbus, kwin, procfs, roles, wayland, x11, DisplayServer, SandboxConfig, SandboxError};
use crate::{
    APP_TMP_DIR, APP_TMP_SOCKET_SUFFIX, BUS_SOCKET, RUNTIME_DIR, SANDBOX_DIR_VAR, SANDBOX_ID_VAR,
    STATE_DIR_PREFIX,
};

/// Lines of a component's log quoted when it fails to start.
const STARTUP_LOG_LINES: usize = 15;
/// Display numbers tried after `display_min`.
const DISPLAY_TRIES: u32 = 100;
/// Poll interval while waiting for a component.
const POLL: Duration = Duration::from_millis(50);
/// Longest usable `sun_path` of a unix socket (108 bytes including the NUL).
const MAX_SOCKET_PATH: usize = 107;
/// The longest socket path below the state dir (the a11y bus, display number up to 5 digits).
const LONGEST_SOCKET_SUFFIX: &str = "/runtime/at-spi/bus_65535";

/// Variables of the parent never passed on: they point at the user's own display and buses.
const REMOVED_PARENT_VARS: &[&str] = &[
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "WAYLAND_SOCKET",
    "SWAYSOCK",
    "I3SOCK",
    "QT_QPA_PLATFORM",
    "DBUS_SESSION_BUS_ADDRESS",
    "DBUS_STARTER_ADDRESS",
    "DBUS_STARTER_BUS_TYPE",
    "AT_SPI_BUS_ADDRESS",
    "SESSION_MANAGER",
    "XAUTHORITY",
    "NO_AT_BRIDGE",
    SANDBOX_ID_VAR,
];

/// Where the AT-SPI bus launcher lives on Debian/Ubuntu/Fedora.
const LAUNCHER_PATHS: &[&str] = &[
    "/usr/libexec/at-spi-bus-launcher",
    "/usr/lib/at-spi2-core/at-spi-bus-launcher",
    "/usr/lib/at-spi-bus-launcher",
];

/// Where an app's AT-SPI registration was found by [`Sandbox::wait_for_app_window`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AppWindow {
    /// Unique name of the app's connection on the a11y bus (e.g. `:1.12`).
    pub bus_name: String,
    /// Pid owning that connection (the awaited pid or one of its descendants).
    pub pid: u32,
    /// Object path of the first child of the app root with `STATE_SHOWING`.
    pub window_path: String,
    /// Time from the call until the window was seen.
    pub waited: Duration,
}

/// A running isolated desktop. Dropping it stops everything it started (best effort), unless it
/// was [`detach`](Sandbox::detach)ed; a handle from [`attach`](Sandbox::attach) never stops on
/// drop (call [`stop`](Sandbox::stop) explicitly).
#[derive(Debug)]
pub struct Sandbox {
    state_dir: PathBuf,
    display: String,
    env: Vec<(String, String)>,
    manifest: Mutex<Manifest>,
    children: Mutex<Vec<Child>>,
    setsid: Option<PathBuf>,
    stop_on_drop: bool,
    keep_state_dir: bool,
    finished: bool,
    /// The live-test harness's check of the apps, run once before stopping.
    #[cfg(feature = "testing")]
    before_stop: crate::testing::StopHook,
}

impl Sandbox {
    /// Starts Xvfb, the session bus, the AT-SPI bus (+ registry) and, if configured, openbox;
    /// on Wayland sway instead of Xvfb and openbox. Blocks until all are ready. On failure
    /// everything already started is stopped again and the state directory is kept for its logs.
    pub fn start(cfg: SandboxConfig) -> Result<Sandbox, SandboxError> {
        let t0 = Instant::now();
        validate(&cfg)?;
        let bins = Binaries::find(&cfg)?;
        let (state_dir, owned, id) = prepare_state_dir(cfg.state_dir.as_deref())?;
        // The longest socket inside is the a11y bus: STATE/runtime/at-spi/bus_DISPLAY.
        if state_dir.as_os_str().len() + LONGEST_SOCKET_SUFFIX.len() > MAX_SOCKET_PATH {
            if owned {
                let _ = std::fs::remove_dir(&state_dir);
            }
            return Err(SandboxError::InvalidArgument(format!(
                "state dir {} is too long for the unix sockets inside it",
                state_dir.display()
            )));
        }
        let manifest = Manifest {
            format: MANIFEST_FORMAT,
            state_dir: state_dir.clone(),
            owned_state_dir: owned,
            display_server: cfg.display_server,
            display: String::new(),
            display_number: 0,
            marker: id,
            env: Vec::new(),
            processes: Vec::new(),
        };
        let mut sb = Sandbox {
            state_dir,
            display: String::new(),
            env: Vec::new(),
            manifest: Mutex::new(manifest),
            children: Mutex::new(Vec::new()),
            setsid: bins.setsid.clone(),
            stop_on_drop: true,
            keep_state_dir: false,
            finished: false,
            #[cfg(feature = "testing")]
            before_stop: Default::default(),
        };
        match sb.boot(&cfg, &bins) {
            Ok(()) => {
                info!(display = %sb.display, state_dir = %sb.state_dir.display(),
                      ms = t0.elapsed().as_millis() as u64, "sandbox started");
                Ok(sb)
            }
            Err(e) => {
                warn!(error = %e, state_dir = %sb.state_dir.display(),
                      "sandbox startup failed; stopping what was started (logs kept)");
                sb.keep_state_dir = true;
                drop(sb);
                Err(e)
            }
        }
    }

    /// Reloads a sandbox from its state directory (written by `start`), e.g. in another process
    /// for `sandbox env` / `sandbox stop`. The handle does not stop the sandbox on drop.
    pub fn attach(state_dir: &Path) -> Result<Sandbox, SandboxError> {
        let m = Manifest::load(state_dir)?;
        Ok(Sandbox {
            state_dir: m.state_dir.clone(),
            display: m.display.clone(),
            env: m.env.clone(),
            manifest: Mutex::new(m),
            children: Mutex::new(Vec::new()),
            setsid: which("setsid"),
            stop_on_drop: false,
            keep_state_dir: false,
            finished: false,
            #[cfg(feature = "testing")]
            before_stop: Default::default(),
        })
    }

    /// The environment for programs in the sandbox: `DISPLAY` (on Wayland `WAYLAND_DISPLAY`,
    /// `SWAYSOCK`, `GDK_BACKEND=wayland`, `QT_QPA_PLATFORM=wayland`, and `DISPLAY` only with
    /// XWayland), `DBUS_SESSION_BUS_ADDRESS`, `AT_SPI_BUS_ADDRESS`, `XDG_RUNTIME_DIR`, the
    /// accessibility switches, a private `HOME` and XDG base dirs, and `UIDRIVER_SANDBOX_DIR`
    /// (the state dir). Also in the `env` file.
    pub fn env(&self) -> &[(String, String)] {
        &self.env
    }

    /// Value of one variable of [`env`](Sandbox::env).
    pub fn env_var(&self, key: &str) -> Option<&str> {
        self.env
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The display: X11's `:99`, or on Wayland the compositor's socket name (`wayland-1`).
    pub fn display(&self) -> &str {
        &self.display
    }

    /// X11 or Wayland.
    pub fn display_server(&self) -> DisplayServer {
        self.lock_manifest().display_server
    }

    /// The state directory (manifest, env file, logs, private home and runtime dir).
    pub fn state_dir(&self) -> &Path {
        &self.state_dir
    }

    /// Every process recorded so far, in start order.
    pub fn processes(&self) -> Vec<ProcessRecord> {
        self.lock_manifest().processes.clone()
    }

    /// A copy of the manifest as saved in the state dir.
    pub fn manifest(&self) -> Manifest {
        self.lock_manifest().clone()
    }

    /// True while Xvfb (or the compositor), the session bus, the AT-SPI bus launcher and (if
    /// started) the window manager are all still the processes that were recorded.
    pub fn is_alive(&self) -> bool {
        let m = self.lock_manifest();
        let infra: Vec<&ProcessRecord> = m
            .processes
            .iter()
            .filter(|p| roles::INFRASTRUCTURE.contains(&p.role.as_str()))
            .collect();
        !infra.is_empty()
            && infra
                .iter()
                .all(|p| procfs::alive_same(p.pid, p.start_time))
    }

    /// True if an EWMH window manager currently owns the root window (`_NET_SUPPORTING_WM_CHECK`);
    /// on Wayland, if the compositor answers on its IPC socket with its output active.
    pub fn window_manager_ready(&self) -> Result<bool, SandboxError> {
        match self.display_server() {
            DisplayServer::X11 => x11::ewmh_wm_present(&self.display),
            DisplayServer::Wayland => {
                let ipc = self.env_var("SWAYSOCK").ok_or_else(|| {
                    SandboxError::InvalidArgument("the Wayland sandbox has no SWAYSOCK".into())
                })?;
                Ok(wayland::output_size(Path::new(ipc))?.is_some())
            }
            DisplayServer::Kwin => {
                let addr = self
                    .env_var("DBUS_SESSION_BUS_ADDRESS")
                    .unwrap_or_default()
                    .to_string();
                Ok(kwin_on_bus(&addr))
            }
        }
    }

    /// Starts `argv` in the sandbox env, in its own session, stdout/stderr to
    /// `app-N-NAME.log` in the state dir, stdin from /dev/null; records it for `stop`.
    pub fn spawn(&self, argv: &[String]) -> Result<u32, SandboxError> {
        let (prog, args) = argv
            .split_first()
            .ok_or_else(|| SandboxError::InvalidArgument("empty argv".into()))?;
        let path = resolve(prog)?;
        let n = self
            .lock_manifest()
            .processes
            .iter()
            .filter(|p| p.role == roles::APP)
            .count()
            + 1;
        let base: String = path
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or("app")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        // Apps' temporary files (LibreOffice's lu*.tmp, Chromium's singleton directory, left
        // behind when an app is stopped) stay in the sandbox, unless the sockets apps make
        // there (Chromium's TMPDIR/.org.chromium.Chromium.XXXXXX/SingletonSocket) would be
        // too long a path.
        let mut env = self.env.clone();
        let tmp = self.state_dir.join(APP_TMP_DIR);
        if tmp.as_os_str().len() + APP_TMP_SOCKET_SUFFIX.len() <= MAX_SOCKET_PATH {
            env.push(("TMPDIR".into(), tmp.to_string_lossy().into_owned()));
        }
        let pid = self.spawn_component(
            roles::APP,
            &path,
            args,
            &format!("app-{n}-{base}.log"),
            &env,
        )?;
        info!(pid, argv = ?argv, "spawned app in sandbox");
        Ok(pid)
    }

    /// Runs `argv` in the sandbox env with inherited stdio and waits for it.
    pub fn run(&self, argv: &[String]) -> Result<ExitStatus, SandboxError> {
        let (prog, args) = argv
            .split_first()
            .ok_or_else(|| SandboxError::InvalidArgument("empty argv".into()))?;
        let path = resolve(prog)?;
        let mut cmd = Command::new(&path);
        cmd.args(args);
        self.apply_env(&mut cmd, &self.env);
        cmd.status()
            .map_err(|e| SandboxError::io(format!("running {}", path.display()), e))
    }

    /// Waits until an application whose a11y-bus connection belongs to `pid` (or to a
    /// descendant / session member of it) is a child of the AT-SPI registry root and has a child
    /// (a window) with `STATE_SHOWING`; on Wayland also until that process has a window in the
    /// compositor's tree (mapped, so it can be captured and given input); and until its
    /// accessibility root answers promptly, so an app still loading a document is not handed
    /// over busy.
    pub fn wait_for_app_window(
        &self,
        pid: u32,
        timeout: Duration,
    ) -> Result<AppWindow, SandboxError> {
        let addr = self
            .env_var("AT_SPI_BUS_ADDRESS")
            .ok_or_else(|| {
                SandboxError::InvalidArgument("sandbox has no AT_SPI_BUS_ADDRESS".into())
            })?
            .to_string();
        let compositor = match self.display_server() {
            DisplayServer::Wayland => self.env_var("SWAYSOCK").map(PathBuf::from),
            _ => None,
        };
        dbus::block_on(move || async move {
            let t0 = Instant::now();
            let conn = dbus::connect(&addr).await?;
            let mut detail = String::from("no matching application on the AT-SPI registry");
            // Bound the whole wait, including D-Bus calls to an app that stopped answering.
            let search =
                app_window::find_app_window(&conn, compositor, pid, t0, timeout, &mut detail);
            match tokio::time::timeout(timeout + Duration::from_millis(500), search).await {
                Ok(Ok(Some(w))) => Ok(w),
                Ok(Err(e)) => Err(e),
                Ok(Ok(None)) | Err(_) => Err(SandboxError::AppWindowTimeout {
                    pid,
                    waited: t0.elapsed(),
                    detail,
                }),
            }
        })
    }

    /// Stops everything: apps, window manager, AT-SPI, session bus, Xvfb or the compositor
    /// (reverse start order), with descendants and session members; SIGTERM, then SIGKILL after
    /// 5 s. Removes a stale X lock, the runtime dir, the bus socket and the manifest; an
    /// auto-created state dir is removed entirely. Works when some (or all) processes are
    /// already gone.
    pub fn stop(mut self) -> Result<StopReport, SandboxError> {
        self.finished = true;
        Ok(self.stop_now())
    }

    /// Leaves the sandbox running and returns its state dir, for [`attach`](Sandbox::attach).
    pub fn detach(mut self) -> PathBuf {
        self.finished = true;
        info!(state_dir = %self.state_dir.display(), "sandbox detached");
        self.state_dir.clone()
    }

    /// Runs `check` once, just before this sandbox stops (on `stop` or drop).
    #[cfg(feature = "testing")]
    pub(crate) fn before_stop(&self, check: Box<dyn FnOnce(&Sandbox) + Send>) {
        self.before_stop.set(check);
    }

    fn stop_now(&mut self) -> StopReport {
        #[cfg(feature = "testing")]
        if let Some(check) = self.before_stop.take() {
            check(self);
        }
        let m = self.lock_manifest().clone();
        let mut children = self.children.lock().unwrap_or_else(|p| p.into_inner());
        stop::stop_all(&m, &mut children, self.keep_state_dir)
    }

    fn lock_manifest(&self) -> MutexGuard<'_, Manifest> {
        self.manifest.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Brings the components up: the private dirs and env, then the display server and buses.
    fn boot(&mut self, cfg: &SandboxConfig, bins: &Binaries) -> Result<(), SandboxError> {
        let dir = self.state_dir.clone();
        let runtime = dir.join(RUNTIME_DIR);
        make_private_dir(&runtime)?;
        let home = dir.join("home");
        let xdg = [
            ("XDG_CONFIG_HOME", home.join(".config")),
            ("XDG_CACHE_HOME", home.join(".cache")),
            ("XDG_DATA_HOME", home.join(".local/share")),
            ("XDG_STATE_HOME", home.join(".local/state")),
        ];
        make_private_dir(&home)?;
        // Never emptied here: a state dir the caller named may hold what they keep.
        std::fs::create_dir_all(dir.join(APP_TMP_DIR))
            .map_err(|e| SandboxError::io(format!("creating {}", dir.display()), e))?;
        for (_, d) in &xdg {
            std::fs::create_dir_all(d)
                .map_err(|e| SandboxError::io(format!("creating {}", d.display()), e))?;
        }
        let path_str = |p: &Path| p.to_string_lossy().into_owned();
        let session = match cfg.display_server {
            DisplayServer::X11 => "x11",
            DisplayServer::Wayland | DisplayServer::Kwin => "wayland",
        };
        let mut env: Vec<(String, String)> = vec![
            ("XDG_RUNTIME_DIR".into(), path_str(&runtime)),
            ("XDG_SESSION_TYPE".into(), session.into()),
            ("GDK_BACKEND".into(), session.into()),
        ];
        if cfg.display_server != DisplayServer::X11 {
            // Native Wayland clients: Qt 5 needs qtwayland5 for this; Firefox ESR (115) is a
            // Wayland client only with MOZ_ENABLE_WAYLAND, and there is no DISPLAY to fall to.
            env.push(("QT_QPA_PLATFORM".into(), "wayland".into()));
            env.push(("MOZ_ENABLE_WAYLAND".into(), "1".into()));
        }
        env.extend([
            ("NO_AT_BRIDGE".into(), "0".into()),
            ("ACCESSIBILITY_ENABLED".into(), "1".into()),
            ("QT_ACCESSIBILITY".into(), "1".into()),
            ("QT_LINUX_ACCESSIBILITY_ALWAYS_ON".into(), "1".into()),
            ("GSETTINGS_BACKEND".into(), "memory".into()),
            ("GTK_A11Y".into(), "atspi".into()),
            // GTK 2 apps (GIMP 2.10) load the ATK bridge only as a module (libatk-adaptor);
            // GTK 3 reads GTK_MODULES, not this, and has the bridge built in.
            ("GTK2_MODULES".into(), "gail:atk-bridge".into()),
            ("HOME".into(), path_str(&home)),
        ]);
        env.extend(xdg.iter().map(|(k, d)| (k.to_string(), path_str(d))));
        for (k, v) in &cfg.env {
            match env.iter_mut().find(|(have, _)| have == k) {
                Some(e) => e.1 = v.clone(),
                None => env.push((k.clone(), v.clone())),
            }
        }
        env.push((SANDBOX_DIR_VAR.into(), path_str(&dir)));
        match cfg.display_server {
            DisplayServer::X11 => self.boot_x11(cfg, bins, env),
            DisplayServer::Wayland => self.boot_wayland(cfg, bins, env),
            DisplayServer::Kwin => self.boot_kwin(cfg, bins, env),
        }
    }

    /// The buses, then KWin (it registers its services on the session bus as it starts),
    /// ready once its socket is there and it owns its screenshot service on the bus.
    fn boot_kwin(
        &mut self,
        cfg: &SandboxConfig,
        bins: &Binaries,
        mut env: Vec<(String, String)>,
    ) -> Result<(), SandboxError> {
        let installed = bins
            .kwin
            .as_deref()
            .ok_or_else(|| SandboxError::NotInstalled {
                program: kwin::KWIN.into(),
                hint: "apt-get install kwin-wayland".into(),
            })?;
        let program = kwin::copy_binary(installed, &self.state_dir)?;
        self.boot_buses(cfg, bins, &mut env)?;
        let runtime = self.state_dir.join(RUNTIME_DIR);
        let socket = runtime.join(kwin::SOCKET);
        let log = "kwin.log";
        let kwin_env = kwin::compositor_env(&env);
        let args = kwin::args(cfg.width, cfg.height);
        let pid = self.spawn_component(roles::COMPOSITOR, &program, &args, log, &kwin_env)?;
        let addr = env
            .iter()
            .find(|(k, _)| k == "DBUS_SESSION_BUS_ADDRESS")
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        let what = format!(
            "KWin ({}x{} on {}, {} on the session bus)",
            cfg.width,
            cfg.height,
            socket.display(),
            kwin::SCREENSHOT_NAME
        );
        self.wait_until(&what, pid, log, cfg.startup_timeout, || {
            socket.exists() && kwin_on_bus(&addr)
        })?;
        debug!(pid, socket = kwin::SOCKET, "KWin ready");
        env.insert(0, ("WAYLAND_DISPLAY".into(), kwin::SOCKET.into()));
        env.extend(
            kwin::SESSION_VARS
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string())),
        );
        self.display = kwin::SOCKET.into();
        {
            let mut m = self.lock_manifest();
            m.display = self.display.clone();
            m.display_number = 0;
            m.env = env.clone();
            m.save()?;
        }
        self.env = env;
        Ok(())
    }

    /// Xvfb, then the buses, then openbox.
    fn boot_x11(
        &mut self,
        cfg: &SandboxConfig,
        bins: &Binaries,
        mut env: Vec<(String, String)>,
    ) -> Result<(), SandboxError> {
        // 1. X server.
        let xvfb = bins
            .xvfb
            .as_deref()
            .ok_or_else(|| SandboxError::NotInstalled {
                program: "Xvfb".into(),
                hint: "apt-get install xvfb".into(),
            })?;
        let n = self.start_xvfb(cfg, xvfb, &env)?;
        self.display = format!(":{n}");
        env.insert(0, ("DISPLAY".into(), self.display.clone()));
        {
            let mut m = self.lock_manifest();
            m.display = self.display.clone();
            m.display_number = n;
            m.env = env.clone();
            m.save()?;
        }

        // 2 + 3. Session bus, AT-SPI bus and registry.
        self.boot_buses(cfg, bins, &mut env)?;
        {
            let mut m = self.lock_manifest();
            m.env = env.clone();
            m.save()?;
        }
        self.env = env;

        // 4. Window manager.
        if let Some(openbox) = &bins.openbox {
            let env = self.env.clone();
            let log = "openbox.log";
            let pid =
                self.spawn_component(roles::WM, openbox, &["--sm-disable".to_string()], log, &env)?;
            let display = self.display.clone();
            self.wait_until("openbox (EWMH)", pid, log, cfg.startup_timeout, || {
                x11::ewmh_wm_present(&display).unwrap_or(false)
                    && x11::wm_manages_windows(&display, Duration::from_millis(500))
                        .unwrap_or(false)
            })?;
            debug!(pid, "openbox ready");
        }
        Ok(())
    }

    /// sway (the compositor and window manager), and the buses while it starts: they need no
    /// display.
    fn boot_wayland(
        &mut self,
        cfg: &SandboxConfig,
        bins: &Binaries,
        mut env: Vec<(String, String)>,
    ) -> Result<(), SandboxError> {
        let sway = bins
            .sway
            .as_deref()
            .ok_or_else(|| SandboxError::NotInstalled {
                program: "sway".into(),
                hint: "apt-get install sway".into(),
            })?;
        let runtime = self.state_dir.join(RUNTIME_DIR);
        let ipc = runtime.join(wayland::IPC_SOCKET);
        // sway takes SWAYSOCK only when nothing is there (a socket a killed sway left behind).
        remove_if_present(&ipc)?;
        let config = self.state_dir.join(wayland::CONFIG_FILE);
        std::fs::write(
            &config,
            wayland::config_text(cfg.width, cfg.height, cfg.xwayland),
        )
        .map_err(|e| SandboxError::io(format!("writing {}", config.display()), e))?;
        let (program, args) = wayland::command(sway, bins.unshare.as_deref(), &config);
        let log = "sway.log";
        let sway_env = wayland::compositor_env(&env, &ipc);
        let pid = self.spawn_component(roles::COMPOSITOR, &program, &args, log, &sway_env)?;

        self.boot_buses(cfg, bins, &mut env)?;

        let size = (cfg.width, cfg.height);
        let what = format!(
            "sway ({} at {}x{} on {})",
            wayland::OUTPUT,
            cfg.width,
            cfg.height,
            ipc.display()
        );
        self.wait_until(&what, pid, log, cfg.startup_timeout, || {
            wayland::output_size(&ipc).ok().flatten() == Some(size)
                && wayland::socket_name(&runtime).is_some()
                && (!cfg.xwayland || wayland::xwayland_display(pid).is_some())
        })?;
        let name = wayland::socket_name(&runtime).unwrap_or_default();
        debug!(pid, socket = %name, "sway ready");
        env.insert(0, ("WAYLAND_DISPLAY".into(), name.clone()));
        env.insert(1, ("SWAYSOCK".into(), ipc.to_string_lossy().into_owned()));
        let mut display_number = 0;
        if let Some(n) = wayland::xwayland_display(pid).filter(|_| cfg.xwayland) {
            env.insert(1, ("DISPLAY".into(), format!(":{n}")));
            display_number = n;
        }
        self.display = name;
        {
            let mut m = self.lock_manifest();
            m.display = self.display.clone();
            m.display_number = display_number;
            m.env = env.clone();
            m.save()?;
        }
        self.env = env;
        Ok(())
    }

    /// The session bus, the AT-SPI bus and its registry (each recorded); their addresses go
    /// into `env`.
    fn boot_buses(
        &self,
        cfg: &SandboxConfig,
        bins: &Binaries,
        env: &mut Vec<(String, String)>,
    ) -> Result<(), SandboxError> {
        let session_addr = format!(
            "unix:path={}",
            dbus_escape(&self.state_dir.join(BUS_SOCKET).to_string_lossy())
        );
        let (a11y_addr, launcher_pid) = self.start_buses(cfg, bins, &session_addr, env)?;
        // Without the guid, so the address stays true when the bus is started again
        // (`outage.rs`): apps started then, and registryd itself, would refuse the new bus.
        env.insert(
            2,
            ("AT_SPI_BUS_ADDRESS".into(), dbus::without_guid(&a11y_addr)),
        );
        let table = procfs::table();
        for p in procfs::descendants(&table, launcher_pid) {
            if !self.lock_manifest().processes.iter().any(|r| r.pid == p) {
                self.record(roles::AT_SPI_CHILD, p, Vec::new(), None)?;
            }
        }
        Ok(())
    }

    /// Starts Xvfb on the first free display >= `display_min`; returns the display number.
    fn start_xvfb(
        &self,
        cfg: &SandboxConfig,
        xvfb: &Path,
        env: &[(String, String)],
    ) -> Result<u32, SandboxError> {
        let last = cfg.display_min.saturating_add(DISPLAY_TRIES - 1);
        for n in cfg.display_min..=last {
            if !x11::display_free(n) {
                continue;
            }
            let display = format!(":{n}");
            let args: Vec<String> = [
                display.as_str(),
                "-screen",
                "0",
                &format!("{}x{}x{}", cfg.width, cfg.height, cfg.depth),
                "-dpi",
                "96",
                "-nolisten",
                "tcp",
                "-noreset",
                "+extension",
                "XTEST",
                "+extension",
                "RANDR",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect();
            let log = "xvfb.log";
            let pid = self.spawn_component(roles::XVFB, xvfb, &args, log, env)?;
            let deadline = Instant::now() + cfg.startup_timeout;
            loop {
                if procfs::lock_file_pid(&x11::lock_path(n)) == Some(pid)
                    && x11::server_answers(&display)
                {
                    debug!(pid, display = %format_args!(":{n}"), "Xvfb ready");
                    return Ok(n);
                }
                if !procfs::alive(pid) {
                    let tail = log_tail(&self.state_dir.join(log), STARTUP_LOG_LINES);
                    self.forget(pid);
                    let lost_race = [
                        "already active",
                        "listening sockets",
                        "server already running",
                    ]
                    .iter()
                    .any(|s| tail.contains(s))
                        || !x11::display_free(n);
                    if lost_race {
                        debug!(display = n, "display taken meanwhile; trying the next one");
                        break;
                    }
                    return Err(SandboxError::ComponentDied {
                        component: "Xvfb".into(),
                        pid,
                        log: self.state_dir.join(log),
                        log_tail: tail,
                    });
                }
                if Instant::now() >= deadline {
                    return Err(SandboxError::StartupTimeout {
                        what: format!("Xvfb {display}"),
                        waited: cfg.startup_timeout,
                    });
                }
                std::thread::sleep(POLL);
            }
        }
        Err(SandboxError::NoFreeDisplay {
            from: cfg.display_min,
            to: last,
        })
    }

    /// Starts the session dbus-daemon and the AT-SPI bus launcher, activates the registry;
    /// returns the a11y bus address and the launcher's pid. Adds the session address to `env`.
    fn start_buses(
        &self,
        cfg: &SandboxConfig,
        bins: &Binaries,
        session_addr: &str,
        env: &mut Vec<(String, String)>,
    ) -> Result<(String, u32), SandboxError> {
        let timeout = cfg.startup_timeout;
        let args = vec![
            "--session".to_string(),
            "--nofork".into(),
            "--nopidfile".into(),
            format!("--address={session_addr}"),
        ];
        let bus_log = "session-bus.log";
        let bus_pid =
            self.spawn_component(roles::SESSION_BUS, &bins.dbus_daemon, &args, bus_log, env)?;
        env.insert(
            1,
            ("DBUS_SESSION_BUS_ADDRESS".into(), session_addr.to_string()),
        );
        let env_now = env.clone();
        let launcher = bins.launcher.clone();
        dbus::block_on(|| async move {
            let session = self
                .poll_async("session dbus-daemon", bus_pid, bus_log, timeout, || {
                    let a = session_addr.to_string();
                    async move { dbus::connect(&a).await.ok() }
                })
                .await?;
            debug!(pid = bus_pid, "session bus ready");

            let args = vec!["--launch-immediately".to_string(), "--a11y=1".into()];
            self.start_at_spi(&session, &launcher, &args, "at-spi.log", &env_now, timeout)
                .await
        })
    }

    /// Starts at-spi-bus-launcher (`launcher args`, output to `at_log`), waits until it owns
    /// `org.a11y.Bus` on `session`, activates the registry on its bus and records the
    /// registry's pid; returns the a11y bus address and the launcher's pid.
    pub(crate) async fn start_at_spi(
        &self,
        session: &zbus::Connection,
        launcher: &Path,
        args: &[String],
        at_log: &str,
        env: &[(String, String)],
        timeout: Duration,
    ) -> Result<(String, u32), SandboxError> {
        let launcher_pid =
            self.spawn_component(roles::AT_SPI_LAUNCHER, launcher, args, at_log, env)?;
        // Poll NameHasOwner, not GetAddress: calling org.a11y.Bus before the launcher owns
        // the name would make the bus auto-activate a second launcher.
        self.poll_async(
            "at-spi-bus-launcher (org.a11y.Bus)",
            launcher_pid,
            at_log,
            timeout,
            || {
                let s = session.clone();
                async move {
                    matches!(
                        dbus::name_has_owner(&s, dbus::A11Y_BUS_NAME).await,
                        Ok(true)
                    )
                    .then_some(())
                }
            },
        )
        .await?;
        match dbus::unix_pid(session, dbus::A11Y_BUS_NAME).await {
            Ok(owner) if owner != launcher_pid => {
                warn!(
                    owner,
                    launcher_pid, "org.a11y.Bus is owned by an unexpected process"
                )
            }
            Err(e) => warn!(error = %e, "could not check the owner of org.a11y.Bus"),
            Ok(_) => {}
        }
        let a11y_addr = dbus::a11y_address(session).await?;
        let a11y = self
            .poll_async("AT-SPI bus", launcher_pid, at_log, timeout, || {
                let a = a11y_addr.clone();
                async move { dbus::connect(&a).await.ok() }
            })
            .await?;
        if let Err(e) = dbus::start_service(&a11y, dbus::REGISTRY_NAME).await {
            debug!(error = %e, "StartServiceByName(registry)");
        }
        self.poll_async("at-spi2-registryd", launcher_pid, at_log, timeout, || {
            let c = a11y.clone();
            async move {
                matches!(
                    dbus::name_has_owner(&c, dbus::REGISTRY_NAME).await,
                    Ok(true)
                )
                .then_some(())
            }
        })
        .await?;
        // registryd is D-Bus-activated and double-forks away from the a11y dbus-daemon
        // (it stays in the launcher's session): record it by the pid owning its name.
        match dbus::unix_pid(&a11y, dbus::REGISTRY_NAME).await {
            Ok(pid) => self.record(roles::AT_SPI_CHILD, pid, Vec::new(), None)?,
            Err(e) => warn!(error = %e, "could not get the registry's pid"),
        }
        debug!(%a11y_addr, launcher_pid, "AT-SPI bus and registry ready");
        Ok((a11y_addr, launcher_pid))
    }

    /// Polls `probe` until it yields a value, failing if `pid` dies or `timeout` passes.
    async fn poll_async<T, F, Fut>(
        &self,
        what: &str,
        pid: u32,
        log: &str,
        timeout: Duration,
        mut probe: F,
    ) -> Result<T, SandboxError>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Option<T>>,
    {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(v) = probe().await {
                return Ok(v);
            }
            self.check_startup(what, pid, log, deadline, timeout)?;
            tokio::time::sleep(POLL).await;
        }
    }

    /// Polls `ready` until true, failing if `pid` dies or `timeout` passes.
    pub(crate) fn wait_until(
        &self,
        what: &str,
        pid: u32,
        log: &str,
        timeout: Duration,
        mut ready: impl FnMut() -> bool,
    ) -> Result<(), SandboxError> {
        let deadline = Instant::now() + timeout;
        loop {
            if ready() {
                return Ok(());
            }
            self.check_startup(what, pid, log, deadline, timeout)?;
            std::thread::sleep(POLL);
        }
    }

    fn check_startup(
        &self,
        what: &str,
        pid: u32,
        log: &str,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<(), SandboxError> {
        if !procfs::alive(pid) {
            let log = self.state_dir.join(log);
            return Err(SandboxError::ComponentDied {
                component: what.to_string(),
                pid,
                log_tail: log_tail(&log, STARTUP_LOG_LINES),
                log,
            });
        }
        if Instant::now() >= deadline {
            return Err(SandboxError::StartupTimeout {
                what: what.to_string(),
                waited: timeout,
            });
        }
        Ok(())
    }

    /// Spawns `program args` in its own session with `env`, output to `log_name`; records it.
    pub(crate) fn spawn_component(
        &self,
        role: &str,
        program: &Path,
        args: &[String],
        log_name: &str,
        env: &[(String, String)],
    ) -> Result<u32, SandboxError> {
        let log_path = self.state_dir.join(log_name);
        let log = File::create(&log_path)
            .map_err(|e| SandboxError::io(format!("creating {}", log_path.display()), e))?;
        let log2 = log
            .try_clone()
            .map_err(|e| SandboxError::io(format!("duplicating {}", log_path.display()), e))?;
        let mut cmd = match &self.setsid {
            // The freshly spawned util-linux setsid is not a process-group leader, so it calls
            // setsid() and execs the program in place: the pid we get is the program's.
            Some(setsid) => {
                let mut c = Command::new(setsid);
                c.arg(program);
                c
            }
            None => {
                let mut c = Command::new(program);
                c.process_group(0);
                c
            }
        };
        cmd.args(args).stdin(Stdio::null()).stdout(log).stderr(log2);
        self.apply_env(&mut cmd, env);
        let child = cmd
            .spawn()
            .map_err(|e| SandboxError::io(format!("starting {}", program.display()), e))?;
        let pid = child.id();
        {
            let mut children = self.children.lock().unwrap_or_else(|p| p.into_inner());
            stop::reap(&mut children); // do not let exited apps linger as zombies
            children.push(child);
        }
        if self.setsid.is_some() {
            // Let setsid exec the program so the recorded comm is the program's (cosmetic).
            let deadline = Instant::now() + Duration::from_millis(200);
            while procfs::stat(pid).is_some_and(|s| s.comm == "setsid" && s.is_alive())
                && Instant::now() < deadline
            {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        let mut argv = vec![program.to_string_lossy().into_owned()];
        argv.extend(args.iter().cloned());
        self.record(role, pid, argv, Some(log_path))?;
        debug!(role, pid, program = %program.display(), "spawned");
        Ok(pid)
    }

    fn apply_env(&self, cmd: &mut Command, env: &[(String, String)]) {
        for k in REMOVED_PARENT_VARS {
            cmd.env_remove(k);
        }
        cmd.envs(env.iter().map(|(k, v)| (k, v)));
        cmd.env(SANDBOX_ID_VAR, &self.lock_manifest().marker);
    }

    /// Adds a process to the manifest and saves it.
    pub(crate) fn record(
        &self,
        role: &str,
        pid: u32,
        argv: Vec<String>,
        log: Option<PathBuf>,
    ) -> Result<(), SandboxError> {
        let st = procfs::stat(pid);
        let mut m = self.lock_manifest();
        m.processes.push(ProcessRecord {
            role: role.to_string(),
            comm: st.as_ref().map(|s| s.comm.clone()).unwrap_or_default(),
            pid,
            start_time: st.map(|s| s.start_time).unwrap_or(0),
            argv,
            log,
        });
        // Refresh comms recorded before exec finished (setsid -> program).
        for p in m.processes.iter_mut() {
            if let Some(s) = procfs::stat(p.pid) {
                if s.start_time == p.start_time {
                    p.comm = s.comm;
                }
            }
        }
        m.save()
    }

    /// Reaps the children that exited, so their pids are free again.
    pub(crate) fn reap_children(&self) {
        let mut children = self.children.lock().unwrap_or_else(|p| p.into_inner());
        stop::reap(&mut children);
    }

    /// Drops the record of (and reaps) a child that exited.
    pub(crate) fn forget(&self, pid: u32) {
        self.lock_manifest().processes.retain(|p| p.pid != pid);
        let mut children = self.children.lock().unwrap_or_else(|p| p.into_inner());
        children.retain_mut(|c| {
            if c.id() == pid {
                let _ = c.wait();
                false
            } else {
                true
            }
        });
    }
}

/// Whether KWin owns its screenshot service (registered after `org.kde.KWin`) on the bus at
/// `address`.
fn kwin_on_bus(address: &str) -> bool {
    let address = address.to_string();
    dbus::block_on(move || async move {
        let conn = dbus::connect(&address).await?;
        let mut all = true;
        for name in [kwin::BUS_NAME, kwin::SCREENSHOT_NAME] {
            all &= dbus::name_has_owner(&conn, name).await?;
        }
        Ok(all)
    })
    .unwrap_or(false)
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if self.stop_on_drop && !self.finished {
            self.finished = true;
            let report = self.stop_now();
            debug!(?report, "sandbox stopped on drop");
        }
    }
}

/// Programs the sandbox needs, resolved up front so a missing package fails fast.
#[derive(Debug, Clone)]
struct Binaries {
    /// X11 only.
    xvfb: Option<PathBuf>,
    dbus_daemon: PathBuf,
    launcher: PathBuf,
    /// X11 with a window manager only.
    openbox: Option<PathBuf>,
    /// Wayland only.
    sway: Option<PathBuf>,
    /// KWin only (copied into the state dir before it runs: `kwin.rs`).
    kwin: Option<PathBuf>,
    /// Wayland as root only: sway runs in a user namespace.
    unshare: Option<PathBuf>,
    setsid: Option<PathBuf>,
}

impl Binaries {
    fn find(cfg: &SandboxConfig) -> Result<Binaries, SandboxError> {
        let x11 = cfg.display_server == DisplayServer::X11;
        let wayland = cfg.display_server == DisplayServer::Wayland;
        let need = |prog: &str, pkg: &str| {
            which(prog).ok_or_else(|| SandboxError::NotInstalled {
                program: prog.into(),
                hint: format!("apt-get install {pkg}"),
            })
        };
        let launcher = LAUNCHER_PATHS
            .iter()
            .map(PathBuf::from)
            .find(|p| is_executable(p))
            .ok_or_else(|| SandboxError::NotInstalled {
                program: "at-spi-bus-launcher".into(),
                hint: "apt-get install at-spi2-core".into(),
            })?;
        let setsid = which("setsid");
        if setsid.is_none() {
            warn!(
                "setsid (util-linux) not found; sandbox processes get their own process group only"
            );
        }
        let when = |yes: bool, prog: &str, pkg: &str| yes.then(|| need(prog, pkg)).transpose();
        Ok(Binaries {
            xvfb: when(x11, "Xvfb", "xvfb")?,
            dbus_daemon: need("dbus-daemon", "dbus")?,
            launcher,
            openbox: when(x11 && cfg.window_manager, "openbox", "openbox")?,
            sway: when(wayland, "sway", "sway")?,
            kwin: when(
                cfg.display_server == DisplayServer::Kwin,
                kwin::KWIN,
                "kwin-wayland",
            )?,
            unshare: when(
                wayland && wayland::needs_namespace(),
                "unshare",
                "util-linux",
            )?,
            setsid,
        })
    }
}

fn validate(cfg: &SandboxConfig) -> Result<(), SandboxError> {
    if cfg.xwayland && cfg.display_server == DisplayServer::Kwin {
        return Err(SandboxError::InvalidArgument(
            "XWayland is not offered with KWin yet".into(),
        ));
    }
    if cfg.width == 0 || cfg.height == 0 {
        return Err(SandboxError::InvalidArgument(
            "screen size must be non-zero".into(),
        ));
    }
    if ![8, 15, 16, 24, 30, 32].contains(&cfg.depth) {
        return Err(SandboxError::InvalidArgument(format!(
            "unsupported depth {}",
            cfg.depth
        )));
    }
    if cfg.display_min > 60000 {
        return Err(SandboxError::InvalidArgument(
            "display_min too large".into(),
        ));
    }
    Ok(())
}

/// Creates (or reuses) the state dir. Returns (dir, created-by-us, unique id).
fn prepare_state_dir(named: Option<&Path>) -> Result<(PathBuf, bool, String), SandboxError> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let id = format!("{}-{:x}", std::process::id(), nanos);
    if let Some(dir) = named {
        let dir = absolute(dir)?;
        if dir.join(MANIFEST_FILE).exists() {
            let old = Sandbox::attach(&dir)?;
            if old.is_alive() {
                return Err(SandboxError::AlreadyRunning { state_dir: dir });
            }
            info!(state_dir = %dir.display(), "stale sandbox state found; stopping its leftovers");
            old.stop()?;
        }
        make_private_dir(&dir)?;
        return Ok((dir, false, id));
    }
    let tmp = absolute(&std::env::temp_dir())?;
    for attempt in 0..100u32 {
        let dir = tmp.join(format!("{STATE_DIR_PREFIX}{id}-{attempt}"));
        match std::fs::create_dir(&dir) {
            Ok(()) => {
                set_mode_700(&dir)?;
                return Ok((dir, true, id));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(SandboxError::io(format!("creating {}", dir.display()), e)),
        }
    }
    Err(SandboxError::InvalidArgument(format!(
        "could not create a state dir in {}",
        tmp.display()
    )))
}

fn absolute(p: &Path) -> Result<PathBuf, SandboxError> {
    std::path::absolute(p).map_err(|e| SandboxError::io(format!("resolving {}", p.display()), e))
}

fn make_private_dir(dir: &Path) -> Result<(), SandboxError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| SandboxError::io(format!("creating {}", dir.display()), e))?;
    set_mode_700(dir)
}

fn set_mode_700(dir: &Path) -> Result<(), SandboxError> {
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| SandboxError::io(format!("chmod 700 {}", dir.display()), e))
}

/// Removes `path` unless it is absent.
fn remove_if_present(path: &Path) -> Result<(), SandboxError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(SandboxError::io(format!("removing {}", path.display()), e))
        }
        _ => Ok(()),
    }
}

fn is_executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Looks `prog` up on `PATH` (or checks it directly if it contains a `/`).
fn which(prog: &str) -> Option<PathBuf> {
    if prog.contains('/') {
        let p = PathBuf::from(prog);
        return is_executable(&p).then_some(p);
    }
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
    std::env::split_paths(&path)
        .map(|d| d.join(prog))
        .find(|p| is_executable(p))
}

fn resolve(prog: &str) -> Result<PathBuf, SandboxError> {
    which(prog).ok_or_else(|| SandboxError::NotInstalled {
        program: prog.into(),
        hint: "not on PATH".into(),
    })
}

/// Escapes a value for a D-Bus address (`unix:path=...`).
fn dbus_escape(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_/.\\*".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02x}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_dbus_addresses() {
        assert_eq!(dbus_escape("/tmp/a b/s-1_x.y"), "/tmp/a%20b/s-1_x.y");
        assert_eq!(dbus_escape("/x=,;"), "/x%3d%2c%3b");
    }

    #[test]
    fn sandbox_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Sandbox>();
    }

    #[test]
    fn which_finds_sh() {
        assert!(which("sh").is_some());
        assert!(which("definitely-not-a-program-uidriver").is_none());
    }

    #[test]
    fn rejects_bad_config() {
        let cfg = SandboxConfig {
            depth: 7,
            ..SandboxConfig::default()
        };
        assert!(matches!(
            validate(&cfg),
            Err(SandboxError::InvalidArgument(_))
        ));
    }
}
