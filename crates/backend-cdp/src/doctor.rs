//! The browser backend's environment check for `uidriver doctor`: the configured Chromium runs
//! and says its version. Through the port ([`uidriver_core::Backend::doctor`]) or standalone.

use std::time::Duration;

use uidriver_core::Check;

use crate::config::CdpConfig;

/// How long `chromium --version` may take.
const VERSION_WAIT: Duration = Duration::from_secs(10);

/// Chromium's check.
pub struct CdpDoctor {
    config: CdpConfig,
}

impl CdpDoctor {
    /// The check for the browser `config` launches.
    pub fn new(config: CdpConfig) -> Self {
        CdpDoctor { config }
    }
}

#[async_trait::async_trait]
impl uidriver_core::Doctor for CdpDoctor {
    async fn checks(&self) -> Vec<Check> {
        let path = &self.config.chromium;
        let out = tokio::time::timeout(
            VERSION_WAIT,
            tokio::process::Command::new(path)
                .arg("--version")
                .kill_on_drop(true)
                .output(),
        )
        .await;
        vec![match out {
            Ok(Ok(o)) if o.status.success() => Check::pass(
                "chromium",
                String::from_utf8_lossy(&o.stdout).trim().to_string(),
            ),
            _ => Check::fail(
                "chromium",
                format!("{} is missing or does not run", path.display()),
                "apt-get install --no-install-recommends chromium",
            ),
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidriver_core::Doctor;

    #[tokio::test]
    async fn a_missing_chromium_fails_with_its_fix_and_is_not_essential() {
        let config = CdpConfig {
            chromium: "/nonexistent/chromium".into(),
            ..CdpConfig::default()
        };
        let d = CdpDoctor::new(config);
        let checks = d.checks().await;
        assert_eq!(checks.len(), 1);
        assert!(!checks[0].ok, "{checks:?}");
        assert!(checks[0].detail.contains("/nonexistent/chromium"));
        assert!(checks[0].fix.as_deref().unwrap_or("").contains("apt-get"));
        assert!(!d.essential("chromium"));
    }
}
