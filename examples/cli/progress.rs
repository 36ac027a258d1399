//! What the CLI says on stderr besides errors: log lines (`-v`, `RUST_LOG`),
//! its own `· …` notes and progress steps. On a terminal a step is a
//! spinner that is cleared when the command ends; otherwise it is a plain
//! `· …` line; with `-q` there are neither steps nor notes (warnings and
//! errors are always said).

use std::io::IsTerminal;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// `-q`: no notes, no steps, logs at error level only.
static QUIET: AtomicBool = AtomicBool::new(false);

/// The spinner of the running command, when stderr is a terminal and a
/// step has been shown.
static SPINNER: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Ferret's own crates, whose log level `-v` raises (other libraries stay
/// at warn; `RUST_LOG` reaches them). A target prefix: it covers
/// `ferret_core`, `ferret_engines` … and the CLI itself.
const OWN_TARGETS: &str = "ferret";

/// Libraries whose log lines are expected noise rather than news (the CDP
/// client reports every closed browser connection as an error; the HTML
/// parser warns about markup it repairs as the standard says, such as text
/// moved out of a table): off unless `RUST_LOG` names them.
const QUIET_TARGETS: &[&str] = &["chromiumoxide", "html5ever"];

/// How much the CLI says on stderr (`-v` counted, `-q`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Verbosity {
    /// How many `-v`: 1 info, 2 debug, 3 or more trace.
    pub verbose: u8,
    /// `-q`: errors and warnings only.
    pub quiet: bool,
}

impl Verbosity {
    /// The log filter when `RUST_LOG` is not set: warn, or error with
    /// `-q`; `-v` raises Ferret's own crates to info, debug or trace.
    fn default_filter(self) -> String {
        let base = match (self.quiet, self.verbose) {
            (true, _) => "error".to_string(),
            (false, 0) => "warn".to_string(),
            (false, 1) => format!("warn,{OWN_TARGETS}=info"),
            (false, 2) => format!("warn,{OWN_TARGETS}=debug"),
            (false, _) => format!("warn,{OWN_TARGETS}=trace"),
        };
        QUIET_TARGETS
            .iter()
            .fold(base, |filter, target| format!("{filter},{target}=off"))
    }
}

/// Set up stderr for this run: the quiet switch and the log subscriber
/// (`RUST_LOG` wins over `-v`/`-q` when set).
pub fn init(verbosity: Verbosity) {
    QUIET.store(verbosity.quiet, Ordering::Relaxed);
    let filter = log_filter(verbosity);
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| LogWriter)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
}

/// `RUST_LOG` when it is set and parses, else the flags' filter.
fn log_filter(verbosity: Verbosity) -> tracing_subscriber::EnvFilter {
    use tracing_subscriber::EnvFilter;
    let default = || EnvFilter::new(verbosity.default_filter());
    match std::env::var("RUST_LOG") {
        Ok(spec) if !spec.trim().is_empty() => EnvFilter::try_new(&spec).unwrap_or_else(|e| {
            eprintln!("ferret: warning: RUST_LOG={spec:?} is not a log filter ({e}); ignored");
            default()
        }),
        _ => default(),
    }
}

/// Whether `-q` was given.
pub fn is_quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// One of the CLI's own lines (`· message`) that stays on screen; nothing
/// with `-q`.
pub fn note(message: impl std::fmt::Display) {
    if !is_quiet() {
        say_on_stderr(&format!("· {message}"));
    }
}

/// A warning (`ferret: warning: message`), said even with `-q`.
pub fn warn(message: impl std::fmt::Display) {
    say_on_stderr(&format!("ferret: warning: {message}"));
}

/// A step of a long command: the spinner's message on a terminal, else a
/// `· message` line; nothing with `-q`.
pub fn step(message: impl std::fmt::Display) {
    if is_quiet() {
        return;
    }
    if std::io::stderr().is_terminal() {
        show_on_spinner(message.to_string());
    } else {
        eprintln!("· {message}");
    }
}

/// A passing detail of the current step (engine calls answered …): shown
/// by the spinner only, never as a line.
pub fn tick(message: impl std::fmt::Display) {
    if !is_quiet() && std::io::stderr().is_terminal() {
        show_on_spinner(message.to_string());
    }
}

/// Clear the spinner, if any: before a command prints its result, and when
/// it ends.
pub fn done() {
    if let Some(bar) = lock_spinner().take() {
        bar.finish_and_clear();
    }
}

fn lock_spinner() -> std::sync::MutexGuard<'static, Option<ProgressBar>> {
    SPINNER.lock().unwrap_or_else(|p| p.into_inner())
}

/// Put `message` on the spinner, starting it if needed.
fn show_on_spinner(message: String) {
    let mut spinner = lock_spinner();
    if let Some(bar) = spinner.as_ref() {
        bar.set_message(message);
        return;
    }
    let bar = ProgressBar::new_spinner().with_message(message);
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {elapsed:.dim}") {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(120));
    *spinner = Some(bar);
}

/// Write a whole line to stderr above the spinner (or plainly without one).
fn say_on_stderr(line: &str) {
    match lock_spinner().as_ref() {
        Some(bar) => bar.suspend(|| eprintln!("{line}")),
        None => eprintln!("{line}"),
    }
}

/// Log output: stderr, written above the spinner when one is shown.
struct LogWriter;

impl std::io::Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        let write = || std::io::stderr().lock().write_all(buf);
        match lock_spinner().as_ref() {
            Some(bar) => bar.suspend(write),
            None => write(),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flags_pick_the_default_log_filter() {
        let of = |verbose, quiet| Verbosity { verbose, quiet }.default_filter();
        assert_eq!(of(0, false), "warn,chromiumoxide=off");
        assert_eq!(of(1, false), "warn,ferret=info,chromiumoxide=off");
        assert_eq!(of(2, false), "warn,ferret=debug,chromiumoxide=off");
        assert_eq!(of(5, false), "warn,ferret=trace,chromiumoxide=off");
        assert_eq!(of(0, true), "error,chromiumoxide=off");
    }
}
