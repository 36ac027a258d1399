//! The goggle parser through the public API: the shared test material
//! (../shared/bench/goggles/own: every valid file parses, every invalid
//! file is rejected with the limit it breaks), and our own small goggles
//! for each rule of the grammar, the metadata and the limits.

use std::path::PathBuf;

use ferret_core::goggles::{
    Action, Goggle, GoggleErrorKind as K, GoggleErrors, GoggleLoadError, MAX_FILE_BYTES,
    MAX_INSTRUCTION_CHARS, MAX_INSTRUCTIONS, Target,
};

const HEADER: &str =
    "! name: test\n! description: a test goggle\n! public: false\n! author: tests\n";

fn goggle(body: &str) -> Result<Goggle, GoggleErrors> {
    Goggle::parse(&format!("{HEADER}{body}"))
}

fn kinds(body: &str) -> Vec<K> {
    goggle(body).expect_err("should be rejected").kinds()
}

fn one(body: &str) -> ferret_core::goggles::Instruction {
    let g = goggle(body).unwrap_or_else(|e| panic!("{body:?}: {e}"));
    assert_eq!(g.instructions().len(), 1);
    g.instructions()[0].clone()
}

fn own_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("FERRET_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let own = dir.join("bench/goggles/own");
    if own.is_dir() {
        Some(own)
    } else {
        eprintln!("skipped: ../shared not present");
        None
    }
}

fn goggle_files(dir: PathBuf) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "goggle"))
        .collect();
    files.sort();
    files
}

// --- the shared test material -------------------------------------------------------

#[test]
fn every_shared_valid_goggle_parses() {
    let Some(own) = own_dir() else { return };
    let files = goggle_files(own.join("valid"));
    assert!(files.len() >= 3, "{files:?}");
    for path in files {
        let g = Goggle::from_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(!g.instructions().is_empty(), "{}", path.display());
    }
}

#[test]
fn the_shared_all_features_goggle_keeps_every_construct() {
    let Some(own) = own_dir() else { return };
    let g = Goggle::from_file(own.join("valid/all_features.goggle")).unwrap();
    let m = g.metadata();
    assert_eq!(m.name, "All features (test)");
    assert!(!m.public);
    assert_eq!(m.avatar.as_deref(), Some("#336699"));
    assert_eq!(m.homepage.as_deref(), Some("https://example.com/goggles"));
    assert_eq!(
        m.issues.as_deref(),
        Some("https://example.com/goggles/issues")
    );
    assert_eq!(m.license.as_deref(), Some("CC0-1.0"));
    let find = |text: &str| {
        g.instructions()
            .iter()
            .find(|i| i.text() == text)
            .unwrap_or_else(|| panic!("no instruction {text:?}"))
    };
    assert_eq!(find("/docs/api/").action(), Action::Boost(1));
    assert_eq!(
        find("$boost=10,site=rust-lang.org").action(),
        Action::Boost(10)
    );
    assert_eq!(find("$site=docs.rs,boost=4").action(), Action::Boost(4));
    assert_eq!(find("$site=docs.rs,boost=4").site(), Some("docs.rs"));
    assert_eq!(
        find("$downrank=5,site=another-farm.example").action(),
        Action::Downrank(5)
    );
    assert_eq!(find("/ads/$discard").action(), Action::Discard);
    assert_eq!(find("/guide/$inurl,boost=3").target(), Target::Url);
    assert_eq!(find("/blog/*/2024/*").pattern().unwrap().wildcards(), 2);
    assert!(
        find("|https://example.net/|")
            .pattern()
            .unwrap()
            .anchored_end()
    );
    assert!(!g.has_generic_discard());
}

#[test]
fn the_shared_allowlist_goggle_has_a_generic_discard() {
    let Some(own) = own_dir() else { return };
    let g = Goggle::from_file(own.join("valid/allowlist.goggle")).unwrap();
    assert!(g.has_generic_discard());
    assert!(g.metadata().public);
}

#[test]
fn every_shared_invalid_goggle_is_rejected_with_the_limit_it_breaks() {
    let Some(own) = own_dir() else { return };
    let expected = [
        ("boost_11.goggle", K::StrengthOutOfRange, 6),
        ("downrank_11.goggle", K::StrengthOutOfRange, 6),
        ("long_instruction.goggle", K::InstructionTooLong, 6),
        ("missing_name.goggle", K::MissingMetadata, 0),
        ("three_carets.goggle", K::TooManyCarets, 6),
        ("three_wildcards.goggle", K::TooManyWildcards, 6),
        ("unknown_option.goggle", K::UnknownOption, 6),
    ];
    let files = goggle_files(own.join("invalid"));
    assert_eq!(files.len(), expected.len(), "{files:?}");
    for path in files {
        let file = path.file_name().unwrap().to_str().unwrap();
        let (_, kind, line) = expected
            .iter()
            .find(|(name, _, _)| *name == file)
            .unwrap_or_else(|| panic!("no expectation for {file}"));
        let err = Goggle::from_file(&path).expect_err(file);
        let errors = err.goggle_errors().expect("a parse error, not I/O");
        assert_eq!(errors.kinds(), vec![*kind], "{file}: {errors}");
        assert_eq!(errors.errors()[0].line, *line, "{file}: {errors}");
    }
}

// --- lines, comments, metadata ------------------------------------------------------

#[test]
fn blank_lines_and_comments_are_ignored() {
    let g = goggle("\n   \n! a comment\n!another: with a colon\n$site=a.example\n\n").unwrap();
    assert_eq!(g.instructions().len(), 1);
    assert_eq!(g.instructions()[0].line(), 9);
}

#[test]
fn metadata_is_read_and_the_optional_keys_are_kept() {
    let g = Goggle::parse(
        "! name: N\n! description: D\n! public: true\n! author: A\n! homepage: https://h.example\n\
         ! issues: https://h.example/issues\n! transferred_to: someone\n! avatar: #0a7c41\n\
         ! license: MIT\n$site=x.example\n",
    )
    .unwrap();
    let m = g.metadata();
    assert_eq!((m.name.as_str(), m.description.as_str()), ("N", "D"));
    assert!(m.public);
    assert_eq!(m.author, "A");
    assert_eq!(m.transferred_to.as_deref(), Some("someone"));
    assert_eq!(m.avatar.as_deref(), Some("#0a7c41"));
    assert_eq!(m.license.as_deref(), Some("MIT"));
    assert_eq!(g.name(), "N");
}

#[test]
fn each_missing_required_key_is_its_own_error() {
    let errors = Goggle::parse("! name: only a name\n$site=x.example\n").unwrap_err();
    let missing: Vec<&str> = errors
        .errors()
        .iter()
        .filter(|e| e.kind == K::MissingMetadata)
        .map(|e| e.message.as_str())
        .collect();
    assert_eq!(missing.len(), 3, "{errors}");
    for key in ["description", "public", "author"] {
        assert!(missing.iter().any(|m| m.contains(key)), "{key}: {errors}");
    }
}

#[test]
fn metadata_after_the_first_instruction_is_only_a_comment() {
    let errors = Goggle::parse(
        "! description: D\n! public: true\n! author: A\n$site=x.example\n! name: late\n",
    )
    .unwrap_err();
    assert_eq!(errors.kinds(), vec![K::MissingMetadata]);
}

#[test]
fn malformed_metadata_values_are_rejected() {
    let with = |line: &str| {
        Goggle::parse(&format!(
            "! name: N\n! description: D\n! author: A\n{line}\n$site=x.example\n"
        ))
    };
    assert_eq!(
        with("! public: maybe").unwrap_err().kinds(),
        vec![K::InvalidMetadata]
    );
    let base = "! public: true\n";
    for bad in [
        "! avatar: red",
        "! avatar: #12345",
        "! homepage: not a url",
        "! issues: ftp://x.example/",
        "! license:",
    ] {
        let errors = with(&format!("{base}{bad}")).unwrap_err();
        assert_eq!(errors.kinds(), vec![K::InvalidMetadata], "{bad}: {errors}");
        assert_eq!(errors.errors()[0].line, 5, "{bad}");
    }
    assert!(with("! public: true\n! avatar: #abc").is_ok());
}

#[test]
fn a_metadata_key_given_twice_is_rejected() {
    let errors = goggle("! name: again\n$site=x.example\n").unwrap_err();
    assert_eq!(errors.kinds(), vec![K::DuplicateMetadata]);
    assert_eq!(errors.errors()[0].line, 5);
}

#[test]
fn a_byte_order_mark_and_crlf_line_ends_are_accepted() {
    let text = format!(
        "\u{feff}{}$site=x.example\r\n",
        HEADER.replace('\n', "\r\n")
    );
    let g = Goggle::parse(&text).unwrap();
    assert_eq!(g.name(), "test");
    assert_eq!(g.instructions()[0].site(), Some("x.example"));
}

// --- instructions ---------------------------------------------------------------------

#[test]
fn a_pattern_alone_is_a_boost_of_strength_one_on_the_url() {
    let i = one("/r/brave_browser/\n");
    assert_eq!(i.action(), Action::Boost(1));
    assert_eq!(i.target(), Target::Url);
    assert_eq!(i.pattern().unwrap().as_str(), "/r/brave_browser/");
    assert_eq!(i.site(), None);
}

#[test]
fn options_alone_target_a_site() {
    let i = one("$site=Brave.com\n");
    assert!(i.pattern().is_none());
    assert_eq!(i.site(), Some("brave.com"));
    assert_eq!(i.action(), Action::Boost(1));
}

#[test]
fn options_may_come_in_any_order() {
    let a = one("/p/$boost=2,site=x.example,intitle\n");
    let b = one("/p/$intitle,site=x.example,boost=2\n");
    assert_eq!(
        (a.action(), a.site(), a.target()),
        (b.action(), b.site(), b.target())
    );
    assert_eq!(a.action(), Action::Boost(2));
    assert_eq!(a.target(), Target::Title);
}

#[test]
fn each_target_option_is_read() {
    for (opt, target) in [
        ("inurl", Target::Url),
        ("intitle", Target::Title),
        ("indescription", Target::Description),
        ("incontent", Target::Content),
    ] {
        assert_eq!(one(&format!("x$downrank,{opt}\n")).target(), target);
    }
}

#[test]
fn strengths_default_to_one_and_go_up_to_ten() {
    assert_eq!(one("$boost,site=a.example\n").action(), Action::Boost(1));
    assert_eq!(
        one("$downrank,site=a.example\n").action(),
        Action::Downrank(1)
    );
    assert_eq!(
        one("$boost=10,site=a.example\n").action(),
        Action::Boost(10)
    );
    assert_eq!(
        one("$downrank=10,site=a.example\n").action(),
        Action::Downrank(10)
    );
    assert_eq!(
        kinds("$boost=11,site=a.example\n"),
        vec![K::StrengthOutOfRange]
    );
    assert_eq!(
        kinds("$downrank=0,site=a.example\n"),
        vec![K::StrengthOutOfRange]
    );
    assert_eq!(
        kinds("$boost=99999999999999999999999,site=a.example\n"),
        vec![K::StrengthOutOfRange]
    );
    for bad in ["boost=", "boost=high", "downrank=-1", "boost=2.5"] {
        assert_eq!(
            kinds(&format!("${bad},site=a.example\n")),
            vec![K::InvalidStrength],
            "{bad}"
        );
    }
}

#[test]
fn the_generic_discard_is_an_instruction_of_its_own() {
    let g = goggle("$discard\n$boost,site=a.example\n").unwrap();
    assert!(g.has_generic_discard());
    assert!(g.instructions()[0].is_generic_discard());
    assert!(!g.instructions()[1].is_generic_discard());
}

#[test]
fn the_options_start_at_the_last_dollar() {
    let i = one("/price$5/$downrank\n");
    assert_eq!(i.pattern().unwrap().as_str(), "/price$5/");
    assert_eq!(i.action(), Action::Downrank(1));
    // Without an options part, the text after a `$` is read as options.
    assert_eq!(kinds("/price$5\n"), vec![K::UnknownOption]);
}

#[test]
fn two_stars_and_two_carets_are_allowed_but_not_three() {
    assert!(goggle("/a/*/b/*\n/a^b^\n").is_ok());
    assert_eq!(kinds("/a/*/b/*/c/*\n"), vec![K::TooManyWildcards]);
    assert_eq!(kinds("/a^b^c^\n"), vec![K::TooManyCarets]);
}

#[test]
fn an_instruction_may_have_500_characters_but_not_501() {
    let ok = format!("/{}\n", "a".repeat(MAX_INSTRUCTION_CHARS - 1));
    assert!(goggle(&ok).is_ok());
    let long = format!("/{}\n", "a".repeat(MAX_INSTRUCTION_CHARS));
    assert_eq!(kinds(&long), vec![K::InstructionTooLong]);
    // Characters, not bytes: 500 CJK characters are fine.
    let cjk = format!("{}$intitle\n", "中".repeat(MAX_INSTRUCTION_CHARS - 8));
    assert!(goggle(&cjk).is_ok());
}

#[test]
fn bad_options_are_each_reported() {
    assert_eq!(kinds("/x/$frobnicate\n"), vec![K::UnknownOption]);
    assert_eq!(kinds("/x/$BOOST\n"), vec![K::UnknownOption]);
    assert_eq!(kinds("/x/$boost,discard\n"), vec![K::DuplicateOption]);
    assert_eq!(kinds("/x/$intitle,inurl\n"), vec![K::DuplicateOption]);
    assert_eq!(
        kinds("$site=a.example,site=b.example\n"),
        vec![K::DuplicateOption]
    );
    assert_eq!(kinds("/x/$boost,,site=a.example\n"), vec![K::EmptyOption]);
    assert_eq!(kinds("/x/$boost,\n"), vec![K::EmptyOption]);
    assert_eq!(kinds("/x/$\n"), vec![K::EmptyOption]);
    assert_eq!(kinds("/x/$discard=2\n"), vec![K::UnexpectedValue]);
    assert_eq!(kinds("/x/$intitle=yes\n"), vec![K::UnexpectedValue]);
    assert_eq!(kinds("$intitle,boost\n"), vec![K::TargetWithoutPattern]);
    assert_eq!(kinds("||$boost\n"), vec![K::EmptyPattern]);
    for bad in [
        "site=",
        "site",
        "site=*.a.example",
        "site=https://a.example/",
        "site=a b",
        "site=a..b",
    ] {
        assert_eq!(kinds(&format!("${bad}\n")), vec![K::InvalidSite], "{bad}");
    }
}

#[test]
fn every_problem_in_a_file_is_collected_in_line_order() {
    let errors = goggle("$boost=11\n$site=ok.example\n/a*b*c*d$frob\n").unwrap_err();
    let found: Vec<(usize, K)> = errors.errors().iter().map(|e| (e.line, e.kind)).collect();
    assert_eq!(
        found,
        vec![
            (5, K::StrengthOutOfRange),
            (7, K::TooManyWildcards),
            (7, K::UnknownOption)
        ]
    );
    let text = errors.to_string();
    assert!(
        text.contains("3 problems") && text.contains("line 7"),
        "{text}"
    );
}

#[test]
fn error_messages_say_what_to_do() {
    let errors = kinds_and_messages("$boost=11,site=a.example\n");
    assert!(errors[0].contains("1 to 10"), "{errors:?}");
    let errors = kinds_and_messages("$site=*.a.example\n");
    assert!(errors[0].contains("site=a.example"), "{errors:?}");
}

fn kinds_and_messages(body: &str) -> Vec<String> {
    goggle(body)
        .unwrap_err()
        .errors()
        .iter()
        .map(|e| e.message.clone())
        .collect()
}

// --- file limits ----------------------------------------------------------------------

#[test]
fn a_file_over_two_mebibytes_is_rejected_before_parsing() {
    let mut text = HEADER.to_string();
    while text.len() <= MAX_FILE_BYTES {
        text.push_str("! padding padding padding padding padding padding padding padding\n");
    }
    let errors = Goggle::parse(&text).unwrap_err();
    assert_eq!(errors.kinds(), vec![K::FileTooLarge]);
    assert_eq!(errors.errors()[0].line, 0);
    assert_eq!(
        Goggle::parse_bytes(text.as_bytes()).unwrap_err().kinds(),
        vec![K::FileTooLarge]
    );
}

#[test]
fn more_than_100000_instructions_are_rejected_at_the_first_one_too_many() {
    let mut text = HEADER.to_string();
    for i in 0..MAX_INSTRUCTIONS {
        text.push_str(&format!("$site=s{i}.x\n"));
    }
    let g = Goggle::parse(&text).unwrap();
    assert_eq!(g.instructions().len(), MAX_INSTRUCTIONS);
    text.push_str("$site=one-more.example\n$site=and-another.example\n");
    let errors = Goggle::parse(&text).unwrap_err();
    assert_eq!(errors.kinds(), vec![K::TooManyInstructions]);
    assert_eq!(errors.errors().len(), 1);
    assert_eq!(errors.errors()[0].line, 4 + MAX_INSTRUCTIONS + 1);
}

#[test]
fn bytes_that_are_not_utf8_are_rejected() {
    let mut bytes = HEADER.as_bytes().to_vec();
    bytes.extend_from_slice(b"/caf\xe9/\n");
    assert_eq!(
        Goggle::parse_bytes(&bytes).unwrap_err().kinds(),
        vec![K::InvalidUtf8]
    );
}

// --- loading ----------------------------------------------------------------------------

fn temp_file(name: &str, content: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferret-goggles-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path
}

#[test]
fn from_file_reads_a_goggle_and_reports_io_and_parse_errors() {
    let path = temp_file("ok.goggle", format!("{HEADER}$site=a.example\n").as_bytes());
    assert_eq!(Goggle::from_file(&path).unwrap().name(), "test");

    let missing = path.with_file_name("missing.goggle");
    let err = Goggle::from_file(&missing).unwrap_err();
    assert!(matches!(err, GoggleLoadError::Io { .. }), "{err}");
    assert!(err.to_string().contains("missing.goggle"), "{err}");

    let bad = temp_file("bad.goggle", format!("{HEADER}$boost=11\n").as_bytes());
    let err = Goggle::from_file(&bad).unwrap_err();
    assert_eq!(
        err.goggle_errors().unwrap().kinds(),
        vec![K::StrengthOutOfRange]
    );
    assert!(err.to_string().contains("bad.goggle"), "{err}");
}

#[test]
fn resolve_takes_a_builtin_name_or_a_path() {
    assert_eq!(
        Goggle::resolve("general-tech").unwrap().name(),
        "general-tech"
    );
    assert_eq!(Goggle::resolve("zh-tech").unwrap().name(), "zh-tech");
    let path = temp_file(
        "mine.goggle",
        format!("{HEADER}$site=a.example\n").as_bytes(),
    );
    assert_eq!(
        Goggle::resolve(path.to_str().unwrap()).unwrap().name(),
        "test"
    );
    let err = Goggle::resolve("no-such-goggle").unwrap_err();
    assert!(matches!(err, GoggleLoadError::UnknownName { .. }), "{err}");
    assert!(err.to_string().contains("general-tech"), "{err}");
    let err = Goggle::resolve("./nowhere/x.goggle").unwrap_err();
    assert!(matches!(err, GoggleLoadError::Io { .. }), "{err}");
}
