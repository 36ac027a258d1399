//! `login(url)`: open a visible Chromium window on the persistent profile so
//! a person can sign in; the cookies stay in the profile for the login
//! partition. Needs pro mode and a display.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use chromiumoxide::Browser;
use chromiumoxide::handler::HandlerConfig;
use futures::StreamExt;
use serde::{Deserialize, Serialize};

use crate::chromium::process;
use crate::config::{ChromiumConfig, Profile};
use crate::error::BrowserError;
use crate::pro_mode;

/// `ferret.browser.login.v1`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoginOutput {
    /// `ferret.browser.login.v1`.
    pub schema: String,
    /// The page that was opened.
    pub url: String,
    /// The persistent profile the sign-in was saved to.
    pub profile_dir: String,
    /// The person closed the window (false: `max_wait` ran out and the
    /// window was closed for them).
    pub closed_by_user: bool,
    /// How long the window was open.
    pub elapsed_ms: u64,
}

/// Whether a graphical display is available, judged from the variables a
/// desktop session sets (`DISPLAY`, `WAYLAND_DISPLAY`), read through
/// `lookup`.
pub fn display_available(lookup: impl Fn(&str) -> Option<String>) -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| lookup(v).is_some_and(|s| !s.trim().is_empty()))
}

/// Open `url` in a visible window on the persistent profile under
/// `config.home` and wait until the person closes it (at most `max_wait`).
/// Refused unless pro mode is on; `has_display` is the caller's judgement
/// (see [`display_available`]).
pub async fn login(
    config: &ChromiumConfig,
    url: &str,
    has_display: bool,
    max_wait: Duration,
) -> Result<LoginOutput, BrowserError> {
    pro_mode::require(&config.home, "signing in on the persistent browser profile")?;
    config.guard.check(url)?;
    if !has_display {
        return Err(BrowserError::invalid(
            "signing in opens a visible browser window and needs a display (DISPLAY or \
             WAYLAND_DISPLAY is not set); run `ferret browser login` on a desktop session",
        ));
    }
    let executable: PathBuf = config.executable.clone();
    let mut visible = config.clone();
    visible.headless = false;
    visible.profile = Profile::persistent_in(&config.home);
    let profile_dir = match &visible.profile {
        Profile::Persistent { dir } => dir.display().to_string(),
        Profile::Ephemeral => String::new(),
    };
    let start = Instant::now();
    let mut launched = process::launch(&visible, &executable, None).await?;
    let connected = tokio::time::timeout(
        config.launch_timeout,
        Browser::connect_with_config(launched.ws_url.clone(), HandlerConfig::default()),
    )
    .await;
    let (browser, mut handler) = match connected {
        Ok(Ok(pair)) => pair,
        other => {
            launched.kill().await;
            return Err(BrowserError::LaunchFailed {
                path: executable,
                message: match other {
                    Ok(Err(e)) => format!("could not connect to its DevTools endpoint: {e}"),
                    _ => "its DevTools endpoint did not answer".into(),
                },
            });
        }
    };
    let handler_task = tokio::spawn(async move { while handler.next().await.is_some() {} });
    let opened = tokio::time::timeout(config.call_timeout, browser.new_page(url)).await;
    if !matches!(opened, Ok(Ok(_))) {
        handler_task.abort();
        launched.kill().await;
        return Err(BrowserError::Navigation {
            url: url.to_string(),
            message: "could not open the sign-in page".into(),
        });
    }
    let closed_by_user = tokio::time::timeout(max_wait, launched.child.wait())
        .await
        .is_ok();
    handler_task.abort();
    drop(browser);
    launched.kill().await;
    Ok(LoginOutput {
        schema: "ferret.browser.login.v1".into(),
        url: url.to_string(),
        profile_dir,
        closed_by_user,
        elapsed_ms: start.elapsed().as_millis() as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_detection() {
        assert!(!display_available(|_| None));
        assert!(display_available(|v| (v == "DISPLAY").then(|| ":0".into())));
        assert!(!display_available(|_| Some("  ".into())));
    }

    #[tokio::test]
    async fn refused_without_pro_mode() {
        let dir = tempfile::tempdir().unwrap();
        let config = ChromiumConfig::managed("/usr/bin/chromium").home(dir.path());
        let err = login(
            &config,
            "https://example.com/",
            true,
            Duration::from_secs(1),
        )
        .await
        .unwrap_err();
        assert!(matches!(err, BrowserError::ProModeRequired { .. }));
        assert!(err.to_string().contains("ferret pro enable"));
        // With pro mode on, a missing display is named.
        pro_mode::enable(dir.path()).unwrap();
        let err = login(
            &config,
            "https://example.com/",
            false,
            Duration::from_secs(1),
        )
        .await
        .unwrap_err();
        assert!(err.to_string().contains("display"), "{err}");
        // And the URL guard still applies.
        let err = login(&config, "http://127.0.0.1/", true, Duration::from_secs(1))
            .await
            .unwrap_err();
        assert!(matches!(err, BrowserError::Blocked { .. }));
    }
}
