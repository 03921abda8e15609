//! Taking one part of a running sandbox away and bringing it back, for tests of how a
//! long-running client survives it: the X server, the Wayland compositor, or the accessibility
//! bus (launcher, its dbus-daemon and the registry). Only processes the sandbox recorded are
//! signalled, by pid and start time; a part comes back on the same display or bus address, so
//! the sandbox's env stays true. Apps are not restarted: what happens to them is what a test
//! observes.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use tracing::info;

use crate::manifest::ProcessRecord;
use crate::procfs::{self, Sig};
use crate::{dbus, roles, wayland, x11, Sandbox, SandboxError};

/// How long a SIGKILLed process may take to be gone.
const DEATH_WAIT: Duration = Duration::from_secs(5);
/// How long an X client may take to notice its server died (openbox: at once, on its next read).
const CLIENT_GRACE: Duration = Duration::from_secs(2);
/// How long a restarted part may take to be ready.
const READY_WAIT: Duration = Duration::from_secs(20);

/// A part of the desktop that can be taken away and brought back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Component {
    /// Xvfb. Its clients (the window manager, apps) lose their display with it.
    XServer,
    /// at-spi-bus-launcher, the accessibility dbus-daemon it runs and at-spi2-registryd.
    AccessibilityBus,
    /// The Wayland compositor (sway). Its clients lose their display with it, XWayland too.
    Compositor,
}

impl Component {
    fn roles(self) -> &'static [&'static str] {
        match self {
            Component::XServer => &[roles::XVFB],
            Component::AccessibilityBus => &[roles::AT_SPI_LAUNCHER, roles::AT_SPI_CHILD],
            Component::Compositor => &[roles::COMPOSITOR],
        }
    }
}

impl Sandbox {
    /// SIGKILLs the live processes of `component` that this sandbox recorded and waits until
    /// they are gone (reaped when they are its children); returns their pids. Their records
    /// stay until [`Sandbox::restart`] replaces them: `stop` skips dead ones.
    ///
    /// # Errors
    /// [`SandboxError::InvalidArgument`] when none of them is running; a process that outlives
    /// [`DEATH_WAIT`] is reported as [`SandboxError::StartupTimeout`] naming it.
    pub fn kill(&self, component: Component) -> Result<Vec<u32>, SandboxError> {
        let live: Vec<ProcessRecord> = self
            .processes()
            .into_iter()
            .filter(|p| component.roles().contains(&p.role.as_str()))
            .filter(|p| procfs::alive_same(p.pid, p.start_time))
            .collect();
        if live.is_empty() {
            return Err(SandboxError::InvalidArgument(format!(
                "no process of {component:?} is running"
            )));
        }
        for p in &live {
            procfs::signal(p.pid, Sig::Kill);
        }
        let until = Instant::now() + DEATH_WAIT;
        for p in &live {
            while procfs::alive_same(p.pid, p.start_time) {
                if Instant::now() >= until {
                    return Err(SandboxError::StartupTimeout {
                        what: format!("{} {} to die on SIGKILL", p.role, p.pid),
                        waited: DEATH_WAIT,
                    });
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        // A zombie still holds its pid: Xvfb would take a lock file naming it for a live server.
        self.reap_children();
        let pids: Vec<u32> = live.iter().map(|p| p.pid).collect();
        info!(?component, ?pids, "killed a sandbox component");
        Ok(pids)
    }

    /// Starts `component` again as it was first started (same program and arguments, so the
    /// same display or bus address), and what died with it: after the X server, the window
    /// manager and, if it exited, the accessibility bus. Returns when each is ready.
    ///
    /// # Errors
    /// [`SandboxError::InvalidArgument`] when the component is still running or was never
    /// started; startup errors as [`Sandbox::start`] reports them.
    pub fn restart(&self, component: Component) -> Result<(), SandboxError> {
        match component {
            Component::XServer => {
                self.reap_children();
                self.respawn(roles::XVFB, |sb, pid, log| {
                    let display = sb.display().to_string();
                    sb.wait_until("Xvfb", pid, log, READY_WAIT, || {
                        x11::server_answers(&display)
                    })
                })?;
                if self.dies_soon(roles::WM) {
                    self.respawn(roles::WM, |sb, pid, log| {
                        let display = sb.display().to_string();
                        sb.wait_until("openbox (EWMH)", pid, log, READY_WAIT, || {
                            x11::ewmh_wm_present(&display).unwrap_or(false)
                        })
                    })?;
                }
                if self.dies_soon(roles::AT_SPI_LAUNCHER) {
                    self.restart_at_spi()?;
                }
                Ok(())
            }
            Component::AccessibilityBus => self.restart_at_spi(),
            Component::Compositor => self.restart_compositor(),
        }
    }

    /// Starts sway again with its recorded argv and config; it must come back on the socket
    /// name the sandbox's env says (libwayland takes the first free name, and a dead
    /// compositor's lock is free again), with its IPC socket where `SWAYSOCK` says.
    fn restart_compositor(&self) -> Result<(), SandboxError> {
        if self.display_server() == crate::DisplayServer::Kwin {
            return Err(SandboxError::InvalidArgument(
                "restarting KWin in place is not supported".into(),
            ));
        }
        self.reap_children();
        let ipc = PathBuf::from(self.env_var("SWAYSOCK").unwrap_or_default());
        let want = self
            .env_var("WAYLAND_DISPLAY")
            .unwrap_or_default()
            .to_string();
        // sway takes SWAYSOCK only when nothing is there: the dead one's socket is.
        if let Err(e) = std::fs::remove_file(&ipc) {
            if e.kind() != std::io::ErrorKind::NotFound {
                return Err(SandboxError::io(format!("removing {}", ipc.display()), e));
            }
        }
        let want_x = self.env_var("DISPLAY").map(String::from);
        let env = wayland::compositor_env(self.env(), &ipc);
        let runtime = ipc.parent().map(PathBuf::from).unwrap_or_default();
        let pid = self.respawn_in(roles::COMPOSITOR, &env, |sb, pid, log| {
            sb.wait_until("sway", pid, log, READY_WAIT, || {
                wayland::output_size(&ipc).ok().flatten().is_some()
                    && wayland::socket_name(&runtime).is_some()
                    && (want_x.is_none() || wayland::xwayland_display(pid).is_some())
            })
        })?;
        let got = wayland::socket_name(&runtime).unwrap_or_default();
        let got_x = want_x
            .as_ref()
            .and_then(|_| wayland::xwayland_display(pid))
            .map(|n| format!(":{n}"));
        if got != want || got_x != want_x {
            return Err(SandboxError::InvalidArgument(format!(
                "the restarted compositor is at {got} {got_x:?}, not at {want} {want_x:?} as the \
                 sandbox's env says"
            )));
        }
        Ok(())
    }

    /// Whether `role` is dead or dies within [`CLIENT_GRACE`]: an X client learns that its
    /// server is gone only at its next read, so right after a kill it may still be running.
    fn dies_soon(&self, role: &str) -> bool {
        let until = Instant::now() + CLIENT_GRACE;
        while !self.is_dead(role) {
            if Instant::now() >= until {
                return false;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        true
    }

    /// Whether `role` was started and none of its recorded processes is alive.
    fn is_dead(&self, role: &str) -> bool {
        let of: Vec<ProcessRecord> = self
            .processes()
            .into_iter()
            .filter(|p| p.role == role)
            .collect();
        !of.is_empty() && of.iter().all(|p| !procfs::alive_same(p.pid, p.start_time))
    }

    /// The last recorded start of `role`, refusing while one of its processes still runs.
    fn last_start(&self, role: &str) -> Result<ProcessRecord, SandboxError> {
        let of: Vec<ProcessRecord> = self
            .processes()
            .into_iter()
            .filter(|p| p.role == role && !p.argv.is_empty())
            .collect();
        if of.iter().any(|p| procfs::alive_same(p.pid, p.start_time)) {
            return Err(SandboxError::InvalidArgument(format!(
                "{role} is still running"
            )));
        }
        of.last().cloned().ok_or_else(|| {
            SandboxError::InvalidArgument(format!("{role} was never started in this sandbox"))
        })
    }

    /// Starts `role` again with its recorded argv, output to a fresh log; `ready` waits.
    fn respawn(
        &self,
        role: &str,
        ready: impl FnOnce(&Sandbox, u32, &str) -> Result<(), SandboxError>,
    ) -> Result<u32, SandboxError> {
        self.respawn_in(role, self.env(), ready)
    }

    /// [`Sandbox::respawn`] with `env` instead of the sandbox's.
    fn respawn_in(
        &self,
        role: &str,
        env: &[(String, String)],
        ready: impl FnOnce(&Sandbox, u32, &str) -> Result<(), SandboxError>,
    ) -> Result<u32, SandboxError> {
        let last = self.last_start(role)?;
        let (program, args) = last
            .argv
            .split_first()
            .ok_or_else(|| SandboxError::InvalidArgument(format!("{role} has no argv")))?;
        let log = restart_log(role, &last.log);
        self.forget_dead(role);
        let pid = self.spawn_component(role, &PathBuf::from(program), args, &log, env)?;
        ready(self, pid, &log)?;
        info!(role, pid, "restarted a sandbox component");
        Ok(pid)
    }

    /// Brings the accessibility bus back: the launcher with its recorded argv, the registry
    /// activated, and every new process of it recorded. The address must be the one in the
    /// sandbox's env (at-spi2-core puts it under `XDG_RUNTIME_DIR`), or apps could not find it.
    fn restart_at_spi(&self) -> Result<(), SandboxError> {
        let last = self.last_start(roles::AT_SPI_LAUNCHER)?;
        let (program, args) = last
            .argv
            .split_first()
            .ok_or_else(|| SandboxError::InvalidArgument("the launcher has no argv".into()))?;
        let log = restart_log(roles::AT_SPI_LAUNCHER, &last.log);
        let env = self.env().to_vec();
        let session_addr = self
            .env_var("DBUS_SESSION_BUS_ADDRESS")
            .unwrap_or_default()
            .to_string();
        let want = self.env_var("AT_SPI_BUS_ADDRESS").map(String::from);
        self.forget_dead(roles::AT_SPI_LAUNCHER);
        self.forget_dead(roles::AT_SPI_CHILD);
        let program = PathBuf::from(program);
        let (address, launcher_pid) = dbus::block_on(|| async {
            let session = dbus::connect(&session_addr).await?;
            self.start_at_spi(&session, &program, args, &log, &env, READY_WAIT)
                .await
        })?;
        let table = procfs::table();
        for p in procfs::descendants(&table, launcher_pid) {
            if !self.processes().iter().any(|r| r.pid == p) {
                self.record(roles::AT_SPI_CHILD, p, Vec::new(), None)?;
            }
        }
        if want
            .as_deref()
            .is_some_and(|w| w != dbus::without_guid(&address))
        {
            return Err(SandboxError::InvalidArgument(format!(
                "the restarted accessibility bus is at {address}, not at {} as the sandbox's env says",
                want.unwrap_or_default()
            )));
        }
        info!(launcher_pid, %address, "restarted the accessibility bus");
        Ok(())
    }

    /// Drops the records of `role` whose processes are dead (a later start replaces them).
    fn forget_dead(&self, role: &str) {
        for p in self.processes() {
            if p.role == role && !procfs::alive_same(p.pid, p.start_time) {
                self.forget(p.pid);
            }
        }
    }
}

/// `xvfb.log` → `xvfb-restart-<ms>.log`: a restart never truncates the log of the first start.
fn restart_log(role: &str, first: &Option<PathBuf>) -> String {
    let stem = first
        .as_ref()
        .and_then(|p| p.file_stem())
        .and_then(|s| s.to_str())
        .unwrap_or(role)
        .to_string();
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    format!("{stem}-restart-{ms}.log")
}
