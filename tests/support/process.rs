//! Running the built `ferret` example as a process, hermetically: shared by
//! the CLI test binaries (`tests/cli.rs`, `tests/cli_research.rs`).
//!
//! `cargo test` builds the examples before running tests; the binary is
//! found next to the test's own (`target/<profile>/examples/ferret`).

#![allow(dead_code)] // each test binary uses its own subset

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The built `ferret` binary.
pub fn ferret_bin() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>");
    let bin = profile_dir.join("examples").join("ferret");
    assert!(
        bin.exists(),
        "{} is missing: build it with `cargo build --example ferret`",
        bin.display()
    );
    bin
}

/// Variables that would make a test reach a real service, or loosen the
/// URL guard, when inherited from the caller's environment.
pub const NETWORK_VARS: &[&str] = &[
    "BRAVE_API_KEY",
    "EXA_API_KEY",
    "TAVILY_API_KEY",
    "GROK_API_URL",
    "GROK_API_KEY",
    "GROK_MODEL",
    "CHATGPT_API_URL",
    "SEARXNG_URL",
    "GITHUB_TOKEN",
    "FERRET_REDIS_URL",
    "FERRET_CDP_URL",
    "FERRET_ALLOW_PRIVATE_URLS",
    "FERRET_STRICT_SSRF",
];

/// Every keyless engine at a closed loopback port, so a test that searches
/// exercises the "unreachable engine" path without leaving the machine.
pub const UNREACHABLE: &[(&str, &str)] = &[
    ("DUCKDUCKGO_API_BASE", "http://127.0.0.1:9"),
    ("BING_API_BASE", "http://127.0.0.1:9"),
    ("WIKIPEDIA_API_BASE", "http://127.0.0.1:9"),
    ("GITHUB_API_BASE", "http://127.0.0.1:9"),
];

/// A `std::process::Command` for the binary with the network variables
/// removed, the keyless engines unreachable and `FERRET_HOME` set.
pub fn hermetic_command(home: &std::path::Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(ferret_bin());
    for var in NETWORK_VARS {
        cmd.env_remove(var);
    }
    cmd.envs(UNREACHABLE.iter().copied())
        .env("FERRET_HOME", home);
    cmd
}

/// Run `cmd` to its end with `stdin` written to its standard input (none:
/// an empty one), capturing its output.
pub fn output_with_stdin(
    mut cmd: std::process::Command,
    stdin: Option<&str>,
) -> std::process::Output {
    use std::io::Write;
    use std::process::Stdio;
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn ferret");
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .expect("piped stdin")
            .write_all(text.as_bytes())
            .expect("write ferret's stdin");
    }
    child.wait_with_output().expect("ferret output")
}

/// A fresh folder under the system temp dir, unique per call.
pub fn temp_dir(label: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "ferret-{label}-{}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
