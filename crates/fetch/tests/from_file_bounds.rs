//! A saved page is read like an HTTP body: incrementally, at most the body
//! cap, and only from a regular file.

use ferret_fetch::{FetchOptions, WarningCode, fetch_from_file, fetch_from_file_limited};

#[test]
fn a_file_over_the_cap_is_cut_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.html");
    let para = "<p>The mirror is made of beryllium and weighs twenty kilograms.</p>\n";
    std::fs::write(
        &path,
        format!("<html><body>{}</body></html>", para.repeat(2_000)),
    )
    .unwrap();
    let page = fetch_from_file_limited(&path, None, &FetchOptions::default(), 10_000).unwrap();
    assert!(page.truncated);
    assert!(
        page.warnings
            .iter()
            .any(|w| w.code == WarningCode::BodyTruncated)
    );
    assert!(page.text.len() < 10_000, "{}", page.text.len());
    assert!(page.text.contains("beryllium"));
}

#[test]
fn a_small_file_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small.html");
    std::fs::write(&path, "<html><body><p>Short and whole.</p></body></html>").unwrap();
    let page = fetch_from_file(&path, None, &FetchOptions::default()).unwrap();
    assert!(!page.truncated);
}

#[cfg(unix)]
#[test]
fn devices_and_folders_are_refused() {
    for path in ["/dev/zero", "/dev/urandom", "/tmp"] {
        let err = fetch_from_file(path, None, &FetchOptions::default()).unwrap_err();
        assert!(
            err.to_string().contains("not a regular file"),
            "{path}: {err}"
        );
    }
}
