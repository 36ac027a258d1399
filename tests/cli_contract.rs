//! The `ferret` command line's contract with people and scripts: exit codes
//! (0 ok, 1 failure, 2 usage error, 3 a verdict that is not ok), the
//! `ferret.error.v1` object on stdout for every failure of a command given
//! `--json` (or `--format json`) beside the one `ferret: error:` line on
//! stderr, `--version`, `-q` and `-v`, and the binary working once copied
//! out of the build tree.
//!
//! Every run is offline (`FERRET_OFFLINE=1`, the keyless engines at a closed
//! loopback port) with a fresh `FERRET_HOME`; only the Chromium discovery
//! check starts a browser.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

#[path = "support/process.rs"]
mod process;

/// A hermetic, offline `ferret` with a fresh home.
fn ferret(home: &Path, args: &[&str]) -> Command {
    let mut cmd = process::hermetic_command(home);
    cmd.env("FERRET_OFFLINE", "1")
        .env_remove("RUST_LOG")
        .env_remove("FERRET_CHROMIUM")
        .args(args);
    cmd
}

fn run_with(home: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    process::output_with_stdin(ferret(home, args), stdin)
}

fn run(args: &[&str], stdin: Option<&str>) -> Output {
    run_with(&process::temp_dir("cli-contract"), args, stdin)
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
            stdout(out),
            stderr(out)
        )
    })
}

/// The `ferret: error:` lines on stderr (progress and warnings may stand
/// beside them).
fn error_lines(out: &Output) -> Vec<String> {
    stderr(out)
        .lines()
        .filter(|l| l.starts_with("ferret: error: "))
        .map(str::to_string)
        .collect()
}

/// A failure that must exit `code` with a `ferret.error.v1` of `kind`.
struct Failure {
    args: &'static [&'static str],
    stdin: Option<&'static str>,
    code: i32,
    kind: &'static str,
}

const fn fails(args: &'static [&'static str], code: i32, kind: &'static str) -> Failure {
    Failure {
        args,
        stdin: None,
        code,
        kind,
    }
}

/// At least one failure of every subcommand (and of the command line
/// itself), each given `--json` or `--format json`.
const FAILURES: &[Failure] = &[
    fails(&["--json", "no-such-command"], 2, "usage"),
    // plan
    fails(&["plan", "", "--json"], 2, "usage"),
    fails(&["plan", "x", "--intent", "gossip", "--json"], 2, "usage"),
    // search
    fails(
        &["search", "x", "--engines", "nosuch", "--json"],
        2,
        "usage",
    ),
    fails(&["search", "", "--json"], 2, "usage"),
    fails(&["search", "x", "--timeout", "0", "--json"], 2, "usage"),
    fails(&["search", "x", "--mode", "warp", "--json"], 2, "usage"),
    Failure {
        stdin: Some("{not json"),
        ..fails(&["search", "x", "--stdin-results", "--json"], 1, "input")
    },
    // fetch
    fails(&["fetch", "--json"], 2, "usage"),
    fails(
        &[
            "fetch",
            "http://127.0.0.1:9/",
            "--browser",
            "never",
            "--json",
        ],
        1,
        "guard",
    ),
    fails(
        &[
            "fetch",
            "--from-file",
            "/no/such/page.html",
            "--format",
            "json",
        ],
        1,
        "input",
    ),
    fails(
        &["fetch", "https://example.com/", "--persistent", "--json"],
        1,
        "guard",
    ),
    // verify
    fails(&["verify", "--json"], 2, "usage"),
    fails(
        &[
            "verify",
            "https://example.com/",
            "--browser",
            "sometimes",
            "--json",
        ],
        2,
        "usage",
    ),
    // extract
    fails(&["extract", "--json"], 2, "usage"),
    // refs
    fails(
        &["refs", "https://example.com/not/a/thread", "--json"],
        2,
        "usage",
    ),
    // research
    fails(&["research", "", "--json"], 2, "usage"),
    fails(
        &["research", "q", "--max-results", "0", "--json"],
        2,
        "usage",
    ),
    fails(
        &[
            "research",
            "q",
            "--engines",
            "nosuch",
            "--browser",
            "never",
            "--json",
        ],
        2,
        "usage",
    ),
    Failure {
        stdin: Some("this is not json"),
        ..fails(
            &[
                "research",
                "q",
                "--stdin-results",
                "--browser",
                "never",
                "--json",
            ],
            1,
            "input",
        )
    },
    Failure {
        stdin: Some("[{\"url\": "),
        ..fails(&["research", "normalize-results", "--json"], 1, "input")
    },
    // check-url
    fails(&["check-url", "--json"], 2, "usage"),
    // index
    fails(&["index", "add", "/no/such/folder", "--json"], 1, "input"),
    fails(&["index", "--json"], 2, "usage"),
    // browser
    fails(
        &["browser", "search", "x", "--engine", "nosuch", "--json"],
        2,
        "usage",
    ),
    fails(
        &[
            "browser",
            "fetch",
            "https://example.com/",
            "--persistent",
            "--json",
        ],
        1,
        "guard",
    ),
    // merge
    fails(
        &[
            "merge",
            "--public",
            "/no/such/a.json",
            "--login",
            "/no/such/b.json",
            "--json",
        ],
        1,
        "input",
    ),
    fails(&["merge", "--public", "x.json", "--json"], 2, "usage"),
    // pro
    fails(&["pro", "--json"], 2, "usage"),
    fails(&["pro", "bogus", "--json"], 2, "usage"),
    // skills
    fails(&["skills", "show", "nosuch", "--json"], 2, "usage"),
    fails(
        &[
            "skills",
            "navigate",
            "http://github.com/rust-lang",
            "--json",
        ],
        1,
        "guard",
    ),
];

/// Checks one failure: the exit code, the JSON error on stdout, the one
/// error line on stderr saying the same.
fn check_failure(f: &Failure, out: &Output) {
    let label = f.args.join(" ");
    assert_eq!(
        out.status.code(),
        Some(f.code),
        "`ferret {label}`: stderr {}",
        stderr(out)
    );
    let v = json(out);
    assert_eq!(v["schema"], "ferret.error.v1", "`ferret {label}`: {v}");
    assert_eq!(v["kind"], f.kind, "`ferret {label}`: {v}");
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 3, "`ferret {label}`: {v}");
    let message = v["message"].as_str().unwrap();
    assert!(
        !message.is_empty() && !message.contains('\n'),
        "`ferret {label}`: {v}"
    );
    assert_eq!(
        stdout(out).trim_end().lines().count(),
        1,
        "`ferret {label}`: one JSON line"
    );
    assert_eq!(
        error_lines(out),
        vec![format!("ferret: error: {message}")],
        "`ferret {label}`: {}",
        stderr(out)
    );
}

#[test]
fn every_subcommand_fails_with_its_exit_code_and_a_json_error() {
    for f in FAILURES {
        check_failure(f, &run(f.args, f.stdin));
    }
    // Every subcommand has a case.
    for sub in [
        "plan",
        "search",
        "fetch",
        "verify",
        "extract",
        "refs",
        "research",
        "check-url",
        "index",
        "browser",
        "merge",
        "pro",
        "skills",
    ] {
        assert!(
            FAILURES.iter().any(|f| f.args[0] == sub),
            "no case for {sub}"
        );
    }
}

#[test]
fn without_json_a_failure_is_only_the_error_line_with_the_same_exit_code() {
    for f in FAILURES.iter().filter(|f| f.args.contains(&"--json")) {
        let args: Vec<&str> = f.args.iter().copied().filter(|a| *a != "--json").collect();
        let out = run(&args, f.stdin);
        let label = args.join(" ");
        assert_eq!(out.status.code(), Some(f.code), "`ferret {label}`");
        assert!(out.stdout.is_empty(), "`ferret {label}`: {}", stdout(&out));
        // A command group without its subcommand shows a person its help.
        let help = stderr(&out).contains("Usage:") && error_lines(&out).is_empty();
        assert!(
            help || error_lines(&out).len() == 1,
            "`ferret {label}`: {}",
            stderr(&out)
        );
    }
}

#[test]
fn words_after_a_double_dash_do_not_ask_for_json() {
    // `--json` after `--` is a value: the usage error is not JSON.
    let out = run(&["plan", "x", "--", "--json"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "{}", stdout(&out));
    assert_eq!(error_lines(&out).len(), 1, "{}", stderr(&out));
}

#[test]
fn a_file_that_is_not_json_is_an_input_error() {
    let dir = process::temp_dir("cli-contract-files");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{not json").unwrap();
    let bad = bad.to_str().unwrap();
    let out = run(&["merge", "--public", bad, "--login", bad, "--json"], None);
    check_failure(&fails(&["merge"], 1, "input"), &out);
    let out = run(
        &[
            "research",
            "browse-plan",
            "--plan",
            bad,
            "--enrichment",
            bad,
            "--json",
        ],
        None,
    );
    check_failure(&fails(&["research"], 1, "input"), &out);
}

#[test]
fn an_unusable_home_is_an_internal_failure() {
    // FERRET_HOME is a file: pro mode cannot keep its state there.
    let dir = process::temp_dir("cli-contract-home");
    let file = dir.join("not-a-folder");
    std::fs::write(&file, "x").unwrap();
    let out = run_with(&file, &["pro", "enable", "--json"], None);
    check_failure(&fails(&["pro"], 1, "internal"), &out);
}

// ------------------------------------------------------------ verdicts

#[test]
fn a_negative_verdict_exits_3_with_its_own_envelope() {
    let out = run(&["check-url", "http://127.0.0.1/", "--json"], None);
    assert_eq!(out.status.code(), Some(3));
    let v = json(&out);
    assert_eq!(v["allowed"], false);
    assert!(error_lines(&out).is_empty(), "{}", stderr(&out));

    let out = run(
        &[
            "verify",
            "http://127.0.0.1:9/",
            "--browser",
            "never",
            "--json",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["schema"], "ferret.verify.v1");
    assert_eq!(v["ok"], false);
}

// ------------------------------------------------------------ successes

#[test]
fn cheap_commands_succeed_with_exit_0() {
    let dir = process::temp_dir("cli-contract-ok");
    let page = dir.join("page.html");
    std::fs::write(
        &page,
        "<html><head><title>Ferrets</title></head><body><article><p>Ferrets sleep \
         for fourteen to eighteen hours a day and are most active at dawn and dusk.</p>\
         </article></body></html>",
    )
    .unwrap();
    let rows = dir.join("rows.json");
    std::fs::write(
        &rows,
        r#"[{"url": "https://example.com/ferrets", "title": "Ferrets", "snippet": "sleep"}]"#,
    )
    .unwrap();
    let (page, rows) = (page.to_str().unwrap(), rows.to_str().unwrap());
    let home = process::temp_dir("cli-contract-ok-home");
    let cases: &[&[&str]] = &[
        &["plan", "how do ferrets sleep", "--json"],
        &["check-url", "https://example.com/", "--json"],
        &["fetch", "--from-file", page, "--format", "json"],
        &["merge", "--public", rows, "--login", rows, "--json"],
        &["pro", "status", "--json"],
        &["skills", "list", "--json"],
        &["index", "status", "--json"],
    ];
    for args in cases {
        let out = run_with(&home, args, None);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert!(json(&out).is_object(), "{args:?}");
    }
    let stdin_rows = r#"[{"url": "https://example.com/ferrets", "title": "Ferrets sleep"}]"#;
    let out = run_with(
        &home,
        &["search", "ferrets", "--stdin-results", "--json"],
        Some(stdin_rows),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out)["schema"], "ferret.search.v1");
}

#[test]
fn version_prints_the_name_and_the_version() {
    let out = run(&["--version"], None);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out).trim_end(),
        format!("ferret {}", env!("CARGO_PKG_VERSION"))
    );
    let out = run(&["search", "--version"], None);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).starts_with("ferret"), "{}", stdout(&out));
}

// ------------------------------------------------------------ stderr

/// A folder with one Markdown page.
fn notes_folder() -> PathBuf {
    let notes = process::temp_dir("cli-contract-notes");
    std::fs::write(
        notes.join("otters.md"),
        "# Otters\n\nSea otters hold hands while they sleep so they do not drift apart.",
    )
    .unwrap();
    notes
}

#[test]
fn quiet_silences_progress_and_notes_but_not_errors() {
    // Without -q: the seeding note, the plan line, the indexing step.
    let out = run(&["search", "pro mode", "--engines", "local"], None);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.lines().any(|l| l.starts_with("· ")), "{err}");
    let notes = notes_folder();
    let out = run(&["index", "add", notes.to_str().unwrap()], None);
    assert!(stderr(&out).contains("· indexing"), "{}", stderr(&out));

    // With -q (before or after the subcommand): none of them.
    for args in [
        vec!["-q", "search", "pro mode", "--engines", "local"],
        vec!["search", "pro mode", "--engines", "local", "--quiet"],
        vec!["-q", "index", "add", notes.to_str().unwrap()],
        vec!["-q", "plan", "x"],
    ] {
        let out = run(&args, None);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert!(
            !out.stdout.is_empty(),
            "{args:?}: the result is still printed"
        );
        assert_eq!(stderr(&out), "", "{args:?}");
    }

    // Errors are still said.
    let out = run(&["-q", "search", "", "--json"], None);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(error_lines(&out).len(), 1, "{}", stderr(&out));
    assert_eq!(json(&out)["kind"], "usage");
    // -q and -v contradict each other.
    let out = run(&["-q", "-v", "plan", "x"], None);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn verbose_raises_the_log_level_and_rust_log_wins() {
    let rows = r#"[{"url": "https://example.com/a", "title": "a"}]"#;
    let args = ["search", "a", "--stdin-results", "--json"];
    let has_info = |out: &Output| stderr(out).contains(" INFO ");
    let out = run(&args, Some(rows));
    assert!(!has_info(&out), "{}", stderr(&out));
    let verbose: Vec<&str> = std::iter::once("-v").chain(args).collect();
    let out = run(&verbose, Some(rows));
    assert!(out.status.success());
    assert!(has_info(&out), "{}", stderr(&out));
    // The logs are on stderr: stdout is still the envelope alone.
    assert_eq!(json(&out)["schema"], "ferret.search.v1");
    let mut cmd = ferret(&process::temp_dir("cli-contract-log"), &verbose);
    cmd.env("RUST_LOG", "off");
    let out = process::output_with_stdin(cmd, Some(rows));
    assert!(!has_info(&out), "{}", stderr(&out));
}

// ------------------------------------------------------------ installed

#[test]
fn a_copied_binary_answers_from_another_directory() {
    let bin_dir = process::temp_dir("cli-contract-bin");
    let bin = bin_dir.join("ferret");
    std::fs::copy(process::ferret_bin(), &bin).unwrap();
    let elsewhere = process::temp_dir("cli-contract-cwd");
    let home = process::temp_dir("cli-contract-fresh-home");
    let mut cmd = Command::new(&bin);
    for var in process::NETWORK_VARS {
        cmd.env_remove(var);
    }
    let out = cmd
        .args(["search", "URL guard", "--engines", "local", "--json"])
        .current_dir(&elsewhere)
        .env("FERRET_HOME", &home)
        .env("FERRET_OFFLINE", "1")
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    // The first run seeds the local index with the user guide embedded in
    // the binary, written out under FERRET_HOME (not the build tree).
    assert!(
        !v["results"].as_array().unwrap().is_empty(),
        "no results from the seeded index: {}",
        stderr(&out)
    );
    let top = v["results"][0]["url"].as_str().unwrap_or_default();
    let guide = format!("{}/guide/", home.display());
    assert!(top.contains(&guide), "{top} is not in {guide}");
}

#[test]
fn browser_status_finds_chromium_through_path() {
    let chromium = Path::new("/usr/bin/chromium");
    if std::env::var("FERRET_SKIP_BROWSER_TESTS").is_ok_and(|v| v == "1") || !chromium.exists() {
        eprintln!("skipped: no /usr/bin/chromium or FERRET_SKIP_BROWSER_TESTS=1");
        return;
    }
    let dir = process::temp_dir("cli-contract-path");
    let link = dir.join("chromium");
    std::os::unix::fs::symlink(chromium, &link).unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path =
        std::env::join_paths(std::iter::once(dir.clone()).chain(std::env::split_paths(&path)))
            .unwrap();
    let mut cmd = ferret(
        &process::temp_dir("cli-contract-status"),
        &["browser", "status", "--json"],
    );
    cmd.env("PATH", path);
    let out = process::output_with_stdin(cmd, None);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    let managed = &v["runtimes"]["managed"];
    assert_eq!(managed["location"], link.to_str().unwrap(), "{v}");
    assert_eq!(managed["usable"], true, "{v}");
}

#[test]
fn stdin_over_the_input_cap_is_an_input_error_not_unbounded_memory() {
    use std::io::Write;
    use std::process::Stdio;
    let home = process::temp_dir("contract-stdin-cap");
    for args in [
        &["search", "x", "--stdin-results", "--json"][..],
        &[
            "research",
            "x",
            "--stdin-results",
            "--json",
            "--browser",
            "never",
        ][..],
    ] {
        let mut child = ferret(&home, args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        // The binary stops reading at the cap; the rest may meet a closed pipe.
        let writer = std::thread::spawn(move || {
            let chunk = vec![b' '; 1 << 20];
            for _ in 0..20 {
                if input.write_all(&chunk).is_err() {
                    break;
                }
            }
        });
        let out = child.wait_with_output().unwrap();
        let _ = writer.join();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        let error = json(&out);
        assert_eq!(error["kind"], "input", "{args:?}");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("larger than 16 MiB")
        );
    }
    let _ = std::fs::remove_dir_all(home);
}
