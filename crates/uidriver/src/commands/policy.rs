//! `uidriver policy check FILE`, and loading the `--policy FILE` of the commands that run or
//! reach a service. The rules and their matching live in the service (`service/src/policy.rs`).

use std::sync::Arc;

use uidriver_service::Policy;

use super::exit;
use crate::cli::{PolicyAction, PolicyArgs, ServiceFlags};

pub fn run(a: PolicyArgs) -> u8 {
    match a.action {
        PolicyAction::Check { file } => match Policy::load(&file) {
            Ok(p) => {
                super::say(p.summary().trim_end());
                exit::OK
            }
            Err(e) => {
                eprintln!("uidriver policy check: {}\nhint: {}", e.message, e.hint);
                exit::USAGE
            }
        },
    }
}

/// The `--policy` of `flags`, loaded; an unusable file is reported (naming `cmd`) as a usage
/// error, so nothing runs under a policy other than the one asked for.
pub fn load(cmd: &str, flags: &ServiceFlags) -> Result<Option<Arc<Policy>>, u8> {
    let Some(path) = &flags.policy else {
        return Ok(None);
    };
    match Policy::load(path) {
        Ok(p) => Ok(Some(Arc::new(p))),
        Err(e) => {
            eprintln!("uidriver {cmd}: {}\nhint: {}", e.message, e.hint);
            Err(exit::USAGE)
        }
    }
}
