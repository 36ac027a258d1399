//! Every parser that reads what a stranger wrote, on arbitrary bytes and on
//! structured-but-random input: the URL guard and canonical URLs, result
//! rows, goggles (text, bytes and files). None panics; each answers `Ok` or
//! a typed error; the invariants that hold are checked (a checked URL
//! checks again to itself, canonicalising twice is canonicalising once,
//! rows are accounted for and held to their limits, a goggle read from a
//! file is the goggle parsed from its bytes).

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use ferret_core::canonical::{CanonicalOptions, canonical_url, unwrap_redirect};
use ferret_core::goggles::{
    Goggle, GoggleErrorKind, GoggleLoadError, MAX_FILE_BYTES, MAX_INSTRUCTIONS,
};
use ferret_core::guard::{GuardReason, UrlGuard};
use ferret_core::rows::{
    MAX_ENGINES_PER_ROW, MAX_LABEL_CHARS, MAX_ROWS, MAX_SNIPPET_CHARS, MAX_TITLE_CHARS,
    MAX_URL_BYTES, NormalizedRows, normalize_rows, normalize_rows_str,
};
use proptest::prelude::*;
use serde_json::{Value, json};
use url::Url;

const HEADER: &str = "! name: p\n! description: p\n! public: false\n! author: p\n";

fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..max)
}

/// A fresh file under the temp dir holding `content`.
fn temp_file(content: &[u8]) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("ferret-parsers-props-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("g{}.goggle", N.fetch_add(1, Ordering::SeqCst)));
    std::fs::File::create(&path)
        .and_then(|mut f| f.write_all(content))
        .unwrap();
    path
}

// ------------------------------------------------------------ URLs

/// Text that looks like a URL: a scheme (or none), user-info, a host in
/// many spellings, a port, a path, a query and a fragment.
fn url_like() -> impl Strategy<Value = String> {
    let scheme = prop::sample::select(vec![
        "http://",
        "https://",
        "HTTP://",
        "ftp://",
        "file://",
        "javascript:",
        "//",
        "",
        "data:",
        "gopher://",
    ]);
    let userinfo = prop::sample::select(vec!["", "@", ":@", "u@", "u:p@", "%40@"]);
    let host = prop_oneof![
        "[a-z0-9-]{1,12}(\\.[a-z0-9-]{1,8}){0,3}\\.?",
        Just("127.0.0.1".to_string()),
        Just("0x7f.1".to_string()),
        Just("2130706433".to_string()),
        Just("[::ffff:127.0.0.1]".to_string()),
        Just("[::1]".to_string()),
        Just("localhost".to_string()),
        Just("metadata.google.internal".to_string()),
        Just("xn--bcher-kva.example".to_string()),
        Just("bücher.example".to_string()),
        "[0-9]{1,3}(\\.[0-9]{1,4}){0,3}",
        "\\[[0-9a-f:.]{0,20}\\]",
    ];
    let port = prop::sample::select(vec!["", ":80", ":443", ":0", ":65535", ":99999", ":"]);
    let rest = "[a-zA-Z0-9.:@%/?#&=_~+ \\\\-]{0,30}";
    (scheme, userinfo, host, port, rest).prop_map(|(s, u, h, p, r)| format!("{s}{u}{h}{p}/{r}"))
}

/// The guard's answer on `raw` holds its invariants: a refusal carries a
/// reason, an accepted URL is http(s) with a host and no credentials, and
/// checking what it returned gives the same URL again.
fn check_guard(guard: &UrlGuard, raw: &str) -> Result<(), TestCaseError> {
    match guard.check(raw) {
        Ok(url) => {
            prop_assert!(matches!(url.scheme(), "http" | "https"), "{}", url);
            prop_assert!(url.host_str().is_some_and(|h| !h.is_empty()), "{}", url);
            prop_assert!(
                url.username().is_empty() && url.password().is_none(),
                "{}",
                url
            );
            let again = guard.check(url.as_str());
            prop_assert_eq!(again.as_ref().ok(), Some(&url), "{} -> {:?}", raw, again);
        }
        Err(e) => {
            prop_assert!(!e.detail.is_empty() || e.reason == GuardReason::InvalidUrl);
            prop_assert!(!e.to_string().is_empty());
        }
    }
    let verdict = guard.verdict(raw);
    prop_assert_eq!(verdict.allowed, guard.check(raw).is_ok());
    Ok(())
}

/// Canonicalising holds its invariant: twice is once.
fn check_canonical(raw: &str) -> Result<(), TestCaseError> {
    for strip_www in [true, false] {
        let opts = CanonicalOptions { strip_www };
        if let Ok(key) = canonical_url(raw, opts) {
            let twice = canonical_url(&key, opts);
            prop_assert_eq!(twice.as_ref().ok(), Some(&key), "from {:?}", raw);
        }
    }
    if let Some(target) = unwrap_redirect(raw) {
        prop_assert!(!target.is_empty());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn the_guard_and_canonical_urls_take_arbitrary_bytes(raw in bytes(200)) {
        let text = String::from_utf8_lossy(&raw);
        check_guard(&UrlGuard::default(), &text)?;
        check_guard(&UrlGuard::default().allow_private(true), &text)?;
        check_canonical(&text)?;
    }

    #[test]
    fn the_guard_and_canonical_urls_take_url_like_text(raw in url_like()) {
        let strict = UrlGuard::default();
        let open = UrlGuard::default().allow_private(true);
        check_guard(&strict, &raw)?;
        check_guard(&open, &raw)?;
        // Lifting the private checks only ever allows more.
        if strict.check(&raw).is_ok() {
            prop_assert!(open.check(&raw).is_ok(), "{}", raw);
        }
        check_canonical(&raw)?;
    }

    #[test]
    fn a_redirect_hop_is_checked_like_a_url(location in url_like(), relative in "[a-z/.?#%]{0,20}") {
        let from = Url::parse("https://public.example/a/b").unwrap();
        let guard = UrlGuard::default();
        for loc in [location.as_str(), relative.as_str()] {
            if let Ok(next) = guard.check_redirect(&from, loc) {
                prop_assert!(guard.check(next.as_str()).is_ok(), "{} -> {}", loc, next);
            }
        }
    }
}

// ------------------------------------------------------------ rows

/// Rows are accounted for and held to their limits.
fn check_rows(rows: &NormalizedRows) -> Result<(), TestCaseError> {
    prop_assert!(rows.input_rows >= rows.over_limit);
    prop_assert!(rows.input_rows - rows.over_limit <= MAX_ROWS);
    prop_assert!(rows.dropped.iter().all(|d| d.index < MAX_ROWS));
    for d in &rows.dropped {
        prop_assert!(d.url.as_ref().is_none_or(|u| u.len() <= MAX_URL_BYTES));
    }
    for call in &rows.calls {
        prop_assert!(call.engine.chars().count() <= MAX_LABEL_CHARS);
        for hit in &call.response.hits {
            prop_assert!(hit.url.len() <= MAX_URL_BYTES);
            prop_assert!(hit.title.chars().count() <= MAX_TITLE_CHARS);
            prop_assert!(hit.snippet.chars().count() <= MAX_SNIPPET_CHARS);
            prop_assert!(
                hit.published_at
                    .as_ref()
                    .is_none_or(|d| d.chars().count() <= MAX_LABEL_CHARS)
            );
        }
    }
    Ok(())
}

/// A row with random fields, some of them far past their limits.
fn arb_row() -> impl Strategy<Value = Value> {
    let len = prop::sample::select(vec![0usize, 1, 40, MAX_TITLE_CHARS + 1, MAX_URL_BYTES + 1]);
    (
        0u8..4,
        len.clone(),
        len.clone(),
        len,
        prop::option::of(0usize..(MAX_ENGINES_PER_ROW + 5)),
        any::<u16>(),
    )
        .prop_map(|(url_kind, title_len, snippet_len, path_len, engines, n)| {
            let url = match url_kind {
                0 => json!(format!(
                    "https://site{}.example/{}",
                    n % 50,
                    "p".repeat(path_len)
                )),
                1 => json!("not a url"),
                2 => json!(n),
                _ => json!(format!("http://h{}.example/?q={n}", n % 7)),
            };
            let mut row = json!({
                "url": url,
                "title": "t".repeat(title_len),
                "snippet": "中".repeat(snippet_len),
                "date": "2".repeat(title_len.min(300)),
            });
            if let Some(count) = engines {
                let names: Vec<String> = (0..count).map(|i| format!("e{i}")).collect();
                row["engines"] = json!(names);
            }
            row
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn rows_take_arbitrary_bytes(raw in bytes(400)) {
        let text = String::from_utf8_lossy(&raw);
        let rows = normalize_rows_str(&text, "q");
        check_rows(&rows)?;
        if rows.input_rows == 0 {
            prop_assert!(!rows.warnings.is_empty(), "{:?}", text);
        }
    }

    #[test]
    fn random_rows_stay_within_every_limit(rows in prop::collection::vec(arb_row(), 0..40)) {
        let out = normalize_rows(&Value::Array(rows.clone()), "q");
        prop_assert_eq!(out.input_rows, rows.len());
        prop_assert_eq!(out.over_limit, 0);
        check_rows(&out)?;
    }
}

#[test]
fn rows_past_the_limit_are_counted_and_warned_about_not_read() {
    let rows: Vec<Value> = (0..MAX_ROWS + 250)
        .map(|i| json!({"url": format!("https://a.example/{i}"), "title": "t"}))
        .collect();
    let out = normalize_rows(&Value::Array(rows), "q");
    assert_eq!(out.input_rows, MAX_ROWS + 250);
    assert_eq!(out.over_limit, 250);
    assert_eq!(out.hit_count(), MAX_ROWS);
    assert_eq!(
        out.hit_count() + out.dropped.len() + out.over_limit,
        out.input_rows
    );
    assert!(
        out.warnings
            .iter()
            .any(|w| w.contains("250 rows past the first 1000 were not read")),
        "{:?}",
        out.warnings
    );
}

#[test]
fn long_urls_are_dropped_and_long_fields_are_cut_with_warnings() {
    let long_url = format!("https://a.example/{}", "x".repeat(MAX_URL_BYTES));
    let out = normalize_rows(
        &json!([
            {"url": long_url, "title": "dropped"},
            {
                "url": "https://b.example/",
                "title": "é".repeat(MAX_TITLE_CHARS + 10),
                "snippet": "s".repeat(MAX_SNIPPET_CHARS * 2),
                "engine": "e".repeat(MAX_LABEL_CHARS + 1),
            },
        ]),
        "q",
    );
    assert_eq!(out.dropped.len(), 1);
    assert_eq!(out.dropped[0].reason.as_str(), "missing-or-invalid-url");
    assert_eq!(out.dropped[0].url.as_ref().unwrap().len(), MAX_URL_BYTES);
    let hit = &out.calls[0].response.hits[0];
    assert_eq!(hit.title.chars().count(), MAX_TITLE_CHARS);
    assert_eq!(hit.snippet.chars().count(), MAX_SNIPPET_CHARS);
    assert_eq!(out.calls[0].engine.chars().count(), MAX_LABEL_CHARS);
    let all = out.warnings.join(" | ");
    assert!(all.contains("longer than 8192 bytes"), "{all}");
    assert!(all.contains("3 fields were cut"), "{all}");
}

#[test]
fn a_row_naming_too_many_engines_is_read_for_the_first_ones() {
    let engines: Vec<String> = (0..MAX_ENGINES_PER_ROW + 4)
        .map(|i| format!("e{i}"))
        .collect();
    let out = normalize_rows(
        &json!([{"url": "https://a.example/", "engines": engines}]),
        "q",
    );
    assert_eq!(out.calls.len(), MAX_ENGINES_PER_ROW);
    assert!(
        out.warnings
            .iter()
            .any(|w| w.contains("4 engines past the first 16")),
        "{:?}",
        out.warnings
    );
}

// ------------------------------------------------------------ goggles

/// One random goggle line: an instruction from the grammar's pieces, a
/// comment, metadata or noise.
fn goggle_line() -> impl Strategy<Value = String> {
    let pattern = "[a-z/.^*|$-]{0,12}";
    let option = prop::sample::select(vec![
        "boost",
        "boost=3",
        "boost=11",
        "boost=x",
        "downrank=2",
        "discard",
        "site=a.example",
        "site=",
        "site=..",
        "inurl",
        "intitle",
        "indescription",
        "incontent",
        "",
        "unknown",
        "discard=1",
    ]);
    let options = prop::collection::vec(option, 0..4).prop_map(|o| o.join(","));
    prop_oneof![
        4 => (pattern, prop::option::of(options))
            .prop_map(|(p, o)| o.map_or(p.clone(), |o| format!("{p}${o}"))),
        1 => "! [a-z_]{1,8}: [a-z#0-9 ]{0,8}",
        1 => "[^\n]{0,30}",
    ]
}

/// The parse of `bytes` holds its invariants: an error lists problems in
/// line order, a goggle keeps within the instruction limit.
fn check_goggle(bytes: &[u8]) -> Result<(), TestCaseError> {
    match Goggle::parse_bytes(bytes) {
        Ok(goggle) => prop_assert!(goggle.instructions().len() <= MAX_INSTRUCTIONS),
        Err(errors) => {
            prop_assert!(!errors.errors().is_empty());
            let lines: Vec<usize> = errors.errors().iter().map(|e| e.line).collect();
            prop_assert!(lines.windows(2).all(|w| w[0] <= w[1]), "{:?}", lines);
        }
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        let (a, b) = (Goggle::parse(text), Goggle::parse_bytes(bytes));
        prop_assert_eq!(a.as_ref().ok(), b.as_ref().ok());
        prop_assert_eq!(a.err(), b.err());
    } else {
        let kinds = Goggle::parse_bytes(bytes).unwrap_err().kinds();
        prop_assert!(
            kinds.contains(&GoggleErrorKind::InvalidUtf8)
                || kinds.contains(&GoggleErrorKind::FileTooLarge)
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn goggles_take_arbitrary_bytes(raw in bytes(300), with_header in any::<bool>()) {
        let mut all = if with_header { HEADER.as_bytes().to_vec() } else { Vec::new() };
        all.extend_from_slice(&raw);
        check_goggle(&all)?;
    }

    #[test]
    fn goggles_take_random_lines(lines in prop::collection::vec(goggle_line(), 0..30)) {
        let text = format!("{HEADER}{}\n", lines.join("\n"));
        check_goggle(text.as_bytes())?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A goggle read from a file is the goggle parsed from its bytes.
    #[test]
    fn a_goggle_file_reads_as_its_bytes_parse(lines in prop::collection::vec(goggle_line(), 0..10), noise in bytes(20)) {
        let mut content = format!("{HEADER}{}\n", lines.join("\n")).into_bytes();
        content.extend_from_slice(&noise);
        let path = temp_file(&content);
        let from_file = Goggle::from_file(&path);
        let parsed = Goggle::parse_bytes(&content);
        match (&from_file, &parsed) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Err(GoggleLoadError::Invalid { errors, .. }), Err(b)) => prop_assert_eq!(errors, b),
            _ => prop_assert!(false, "{:?} vs {:?}", from_file.err(), parsed.err()),
        }
        let _ = std::fs::remove_file(path);
    }
}

#[test]
fn a_goggle_file_over_the_limit_is_refused_without_reading_it_all() {
    let mut content = HEADER.as_bytes().to_vec();
    content.resize(MAX_FILE_BYTES + 4096, b'\n');
    let path = temp_file(&content);
    let err = Goggle::from_file(&path).unwrap_err();
    assert!(
        matches!(err, GoggleLoadError::TooLarge { limit, .. } if limit == MAX_FILE_BYTES),
        "{err}"
    );
    assert_eq!(err.code(), "too_large");
    assert!(err.to_string().contains("2097152-byte limit"), "{err}");
    let _ = std::fs::remove_file(path);
}

#[test]
fn a_goggle_that_is_not_a_regular_file_is_refused() {
    for special in ["/dev/zero", "/dev/urandom", "/"] {
        if !std::path::Path::new(special).exists() {
            continue;
        }
        let err = Goggle::from_file(special).unwrap_err();
        assert!(
            matches!(err, GoggleLoadError::NotAFile { .. }),
            "{special}: {err}"
        );
        assert_eq!(err.code(), "not_a_file");
        assert!(err.to_string().contains("not a regular file"), "{err}");
        // `--goggle PATH` goes through the same reader.
        let err = Goggle::resolve(special).unwrap_err();
        assert!(
            matches!(err, GoggleLoadError::NotAFile { .. }),
            "{special}: {err}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_goggle_fifo_is_refused_without_waiting_for_a_writer() {
    let dir = temp_file(b"").with_extension("d");
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("pipe.goggle");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let path = fifo.clone();
    std::thread::spawn(move || tx.send(Goggle::from_file(&path).map(|_| ())).unwrap());
    let answer = rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("from_file on a FIFO returned");
    assert!(
        matches!(answer, Err(GoggleLoadError::NotAFile { .. })),
        "{answer:?}"
    );
    let _ = std::fs::remove_dir_all(dir);
}
