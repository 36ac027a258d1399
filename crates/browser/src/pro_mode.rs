//! Pro mode: the gate in front of the login partition, off by default. The
//! state is `{enabled, enabled_at}` in `<FERRET_HOME>/pro-mode.json`; a missing or corrupt file counts as off.
//! Only a person turns it on (`ferret pro enable`); agents must not.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::BrowserError;

/// The state file's name under the Ferret home.
pub const STATE_FILE: &str = "pro-mode.json";

/// The command a person runs to turn pro mode on (named in refusals).
pub const ENABLE_COMMAND: &str = "ferret pro enable";

/// The stored state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ProModeState {
    /// Whether pro mode is on.
    pub enabled: bool,
    /// When it was last turned on.
    pub enabled_at: Option<DateTime<Utc>>,
}

/// `ferret pro status` envelope (`ferret.pro.v1`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProModeStatus {
    /// `ferret.pro.v1`.
    pub schema: String,
    /// Whether pro mode is on.
    pub enabled: bool,
    /// When it was turned on.
    pub enabled_at: Option<DateTime<Utc>>,
    /// The state file.
    pub state_file: String,
    /// Why the file was ignored (unreadable or corrupt), if it was.
    pub warning: Option<String>,
    /// The command that turns it on.
    pub enable_command: String,
}

/// The state file under `home`.
pub fn state_path(home: &Path) -> PathBuf {
    home.join(STATE_FILE)
}

fn read(home: &Path) -> (ProModeState, Option<String>) {
    let path = state_path(home);
    match std::fs::read(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (ProModeState::default(), None),
        Err(e) => (
            ProModeState::default(),
            Some(format!(
                "could not read {}: {e}; treated as off",
                path.display()
            )),
        ),
        Ok(bytes) => match serde_json::from_slice::<ProModeState>(&bytes) {
            Ok(state) => (state, None),
            Err(e) => (
                ProModeState::default(),
                Some(format!(
                    "{} is corrupt ({e}); treated as off",
                    path.display()
                )),
            ),
        },
    }
}

/// Whether pro mode is on (missing or corrupt state = off).
pub fn is_enabled(home: &Path) -> bool {
    read(home).0.enabled
}

/// The current state as an envelope.
pub fn status(home: &Path) -> ProModeStatus {
    let (state, warning) = read(home);
    ProModeStatus {
        schema: "ferret.pro.v1".to_string(),
        enabled: state.enabled,
        enabled_at: state.enabled_at,
        state_file: state_path(home).display().to_string(),
        warning,
        enable_command: ENABLE_COMMAND.to_string(),
    }
}

fn write(home: &Path, state: &ProModeState) -> Result<(), BrowserError> {
    let path = state_path(home);
    let io = |action: &str, e: std::io::Error| BrowserError::Io {
        action: action.to_string(),
        path: path.clone(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(home).map_err(|e| io("creating the folder of", e))?;
    let json = serde_json::to_vec_pretty(state).map_err(|e| BrowserError::Io {
        action: "serialising pro-mode state for".into(),
        path: path.clone(),
        message: e.to_string(),
    })?;
    // Write beside, then rename: a crash never leaves a half-written file.
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, json).map_err(|e| io("writing pro-mode state to", e))?;
    std::fs::rename(&tmp, &path).map_err(|e| io("writing pro-mode state to", e))?;
    Ok(())
}

/// Turn pro mode on (a person's decision; `ferret pro enable`).
pub fn enable(home: &Path) -> Result<ProModeStatus, BrowserError> {
    write(
        home,
        &ProModeState {
            enabled: true,
            enabled_at: Some(Utc::now()),
        },
    )?;
    Ok(status(home))
}

/// Turn pro mode off.
pub fn disable(home: &Path) -> Result<ProModeStatus, BrowserError> {
    write(home, &ProModeState::default())?;
    Ok(status(home))
}

/// `Ok` when pro mode is on, else [`BrowserError::ProModeRequired`] naming
/// `what` and the enable command.
pub fn require(home: &Path, what: &str) -> Result<(), BrowserError> {
    if is_enabled(home) {
        Ok(())
    } else {
        Err(BrowserError::ProModeRequired {
            what: what.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_corrupt_enable_disable() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("nested/home");
        assert!(!is_enabled(&home));
        assert!(status(&home).warning.is_none());
        let err = require(&home, "the persistent profile").unwrap_err();
        assert!(err.to_string().contains(ENABLE_COMMAND), "{err}");

        let s = enable(&home).unwrap();
        assert!(s.enabled && s.enabled_at.is_some());
        assert!(is_enabled(&home));
        require(&home, "x").unwrap();

        std::fs::write(state_path(&home), b"{not json").unwrap();
        assert!(!is_enabled(&home));
        assert!(status(&home).warning.unwrap().contains("corrupt"));

        enable(&home).unwrap();
        let s = disable(&home).unwrap();
        assert!(!s.enabled);
        assert!(!is_enabled(&home));
    }
}
