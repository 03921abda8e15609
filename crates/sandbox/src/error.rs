//! Errors of the sandbox crate: one enum so callers (the CLI, the service) can tell a missing
//! package from a component that died during startup from a slow app.

use std::path::PathBuf;
use std::time::Duration;

/// Everything that can go wrong while starting, using or stopping a sandbox.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SandboxError {
    /// A program the sandbox needs is not installed (not found on `PATH` / at its known paths).
    #[error("{program} not found ({hint})")]
    NotInstalled {
        /// Program that was looked for.
        program: String,
        /// Which package usually provides it.
        hint: String,
    },
    /// A file-system or process operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Every display number in the searched range was taken (or Xvfb refused it).
    #[error("no free X display in :{from}..=:{to}")]
    NoFreeDisplay {
        /// First display number tried.
        from: u32,
        /// Last display number tried.
        to: u32,
    },
    /// A sandbox component exited while the sandbox was starting.
    #[error("{component} (pid {pid}) exited during startup; log {log}:\n{log_tail}")]
    ComponentDied {
        /// Which component (Xvfb, dbus-daemon, ...).
        component: String,
        /// Its pid.
        pid: u32,
        /// Path of its log file.
        log: PathBuf,
        /// The last lines of that log.
        log_tail: String,
    },
    /// A component did not become ready within the startup timeout.
    #[error("timed out after {waited:?} waiting for {what}")]
    StartupTimeout {
        /// What was awaited.
        what: String,
        /// How long it was awaited.
        waited: Duration,
    },
    /// A D-Bus call or connection failed.
    #[error("D-Bus: {context}: {message}")]
    DBus {
        /// What was being done.
        context: String,
        /// The zbus error, as text.
        message: String,
    },
    /// An X11 request or connection failed.
    #[error("X11: {context}: {message}")]
    X11 {
        /// What was being done.
        context: String,
        /// The x11rb error, as text.
        message: String,
    },
    /// The Wayland compositor's IPC (sway's socket) failed or answered something unexpected.
    #[error("compositor: {context}: {message}")]
    Compositor {
        /// What was being done.
        context: String,
        /// What went wrong.
        message: String,
    },
    /// The state directory holds no usable manifest.
    #[error("bad sandbox manifest {path}: {message}")]
    Manifest {
        /// Manifest file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The named state directory already belongs to a running sandbox.
    #[error("a sandbox is already running in {state_dir}")]
    AlreadyRunning {
        /// The state directory in use.
        state_dir: PathBuf,
    },
    /// The process whose window was awaited (and all its descendants) exited.
    #[error("process {pid} exited before showing a window")]
    AppExited {
        /// The awaited pid.
        pid: u32,
    },
    /// No showing window of the process appeared on the AT-SPI registry in time.
    #[error("timed out after {waited:?} waiting for a window of pid {pid} ({detail})")]
    AppWindowTimeout {
        /// The awaited pid.
        pid: u32,
        /// How long it was awaited.
        waited: Duration,
        /// What was seen last (registered or not, number of windows).
        detail: String,
    },
    /// Apps the sandbox started are dead or do not answer (`Sandbox::apps_answer`): each
    /// named with its pid and the tail of its log.
    #[error("apps stopped answering:\n{report}")]
    AppsNotAnswering {
        /// One paragraph per dead or frozen app.
        report: String,
    },
    /// An argument was unusable (empty argv, socket path too long, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

impl SandboxError {
    /// Shorthand for [`SandboxError::Io`].
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        SandboxError::Io {
            context: context.into(),
            source,
        }
    }

    /// Shorthand for [`SandboxError::DBus`].
    pub(crate) fn dbus(context: impl Into<String>, err: impl std::fmt::Display) -> Self {
        SandboxError::DBus {
            context: context.into(),
            message: err.to_string(),
        }
    }

    /// Shorthand for [`SandboxError::Compositor`].
    pub(crate) fn compositor(context: impl Into<String>, err: impl std::fmt::Display) -> Self {
        SandboxError::Compositor {
            context: context.into(),
            message: err.to_string(),
        }
    }

    /// Shorthand for [`SandboxError::X11`].
    pub(crate) fn x11(context: impl Into<String>, err: impl std::fmt::Display) -> Self {
        SandboxError::X11 {
            context: context.into(),
            message: err.to_string(),
        }
    }
}
