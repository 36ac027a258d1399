//! The package contract, rule by rule: each test writes a real package
//! folder and checks that loading it reports the violation by file, field
//! and rule (and keeps reporting the others).

mod support;

use std::path::Path;

use ferret_site_skills::manifest::{MAX_MANIFEST_BYTES, MAX_RESOURCE_BYTES};
use ferret_site_skills::{Origin, Rule, ValidationError, load_dir};
use serde_json::{Value, json};
use support::{MINIMAL_SCRIPT, minimal_manifest, write_package};

fn load(dir: &Path) -> Result<ferret_site_skills::Package, ValidationError> {
    load_dir(dir, Origin::Directory(dir.to_path_buf()))
}

fn expect_violation(err: &ValidationError, file: &str, field: &str, rule: Rule) {
    assert!(
        err.violations
            .iter()
            .any(|v| v.file == file && v.field == field && v.rule == rule),
        "expected {rule} at {file}:{field}, got {:#?}",
        err.violations
    );
}

/// Write `manifest` (with the minimal script) as package `folder` and load it.
fn check(manifest: Value, folder: &str) -> Result<ferret_site_skills::Package, ValidationError> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = write_package(
        tmp.path(),
        folder,
        &manifest,
        &[("page.js", MINIMAL_SCRIPT)],
    );
    load(&dir)
}

fn with(mut manifest: Value, pointer: &str, value: Value) -> Value {
    *manifest.pointer_mut(pointer).expect("pointer exists") = value;
    manifest
}

#[test]
fn a_manifest_with_a_utf8_byte_order_mark_loads() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = write_package(
        tmp.path(),
        "example",
        &minimal_manifest("example", &["example.com"]),
        &[("page.js", MINIMAL_SCRIPT)],
    );
    let text = std::fs::read(dir.join("manifest.json")).unwrap();
    let mut with_bom = b"\xef\xbb\xbf".to_vec();
    with_bom.extend(text);
    std::fs::write(dir.join("manifest.json"), with_bom).unwrap();
    let p = load(&dir).expect("a BOM is not part of the JSON");
    assert_eq!(p.id(), "example");
}

#[test]
fn a_minimal_package_loads_with_its_script() {
    let p = check(
        minimal_manifest("example", &["example.com", "*.example.com"]),
        "example",
    )
    .expect("valid package");
    assert_eq!(p.id(), "example");
    assert_eq!(
        p.resource("page.js").unwrap().as_bytes(),
        MINIMAL_SCRIPT,
        "the script is read at load time"
    );
    assert!(p.covers_host("example.com"));
    assert!(p.covers_host("www.example.com"));
    assert!(!p.covers_host("example.org"));
}

/// A LinkedIn manifest from the shared test data (its location there is fixed
/// by that data set), with eleven tools.
const LINKEDIN_MANIFEST: &str = "seed-data/socai/linkedin.manifest.json";

#[test]
fn a_real_world_linkedin_manifest_is_valid() {
    let Some(shared) = support::shared_dir() else {
        return;
    };
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(shared.join(LINKEDIN_MANIFEST)).unwrap()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = write_package(
        tmp.path(),
        "linkedin",
        &manifest,
        &[
            ("page_scripts.js", b"window.LinkedInPageScripts = {};"),
            ("knowledge.md", b"# LinkedIn\n"),
        ],
    );
    let p = load(&dir).expect("the LinkedIn manifest fits the contract");
    assert_eq!(p.manifest().browser_tools.len(), 11);
    assert!(p.covers_host("www.linkedin.com"));
    assert!(p.covers_host("linkedin.com"));
    assert_eq!(p.notes()[0].content, "# LinkedIn\n");
}

#[test]
fn id_must_match_the_folder_name() {
    let err = check(minimal_manifest("example", &["example.com"]), "other").unwrap_err();
    expect_violation(&err, "manifest.json", "id", Rule::IdFolderMismatch);
}

#[test]
fn id_allows_only_lowercase_letters_digits_and_hyphens() {
    for bad in ["Example", "ex_ample", "ex.ample", "ex ample", "exämple"] {
        let err = check(minimal_manifest(bad, &["example.com"]), "x").unwrap_err();
        expect_violation(&err, "manifest.json", "id", Rule::IdFormat);
    }
    assert!(check(minimal_manifest("site-2", &["example.com"]), "site-2").is_ok());
}

#[test]
fn id_is_at_most_64_characters() {
    let long = "a".repeat(65);
    let err = check(minimal_manifest(&long, &["example.com"]), &long).unwrap_err();
    expect_violation(&err, "manifest.json", "id", Rule::IdLength);
    let ok = "a".repeat(64);
    assert!(check(minimal_manifest(&ok, &["example.com"]), &ok).is_ok());
}

#[test]
fn id_and_name_are_required() {
    let mut m = minimal_manifest("example", &["example.com"]);
    m.as_object_mut().unwrap().remove("id");
    m.as_object_mut().unwrap().remove("name");
    let err = check(m, "example").unwrap_err();
    expect_violation(&err, "manifest.json", "id", Rule::Required);
    expect_violation(&err, "manifest.json", "name", Rule::Required);
}

#[test]
fn bad_domain_spellings_are_refused_with_their_rule() {
    let cases: &[(&str, Rule)] = &[
        ("GitHub.com", Rule::DomainUppercase),
        ("github.com.", Rule::DomainFormat),
        ("https://github.com", Rule::DomainFormat),
        ("github.com:443", Rule::DomainFormat),
        ("github.com/path", Rule::DomainFormat),
        ("a.*.github.com", Rule::DomainFormat),
        ("*", Rule::DomainFormat),
        ("-github.com", Rule::DomainFormat),
        ("git_hub.com", Rule::DomainFormat),
        ("github..com", Rule::DomainFormat),
        ("127.0.0.1", Rule::DomainFormat),
        ("", Rule::DomainFormat),
        ("*.com", Rule::DomainPublicSuffix),
        ("*.co.uk", Rule::DomainPublicSuffix),
        ("*.github.io", Rule::DomainPublicSuffix),
        ("metadata.google.internal", Rule::DomainNotPublic),
        ("localhost", Rule::DomainNotPublic),
        ("printer.local", Rule::DomainNotPublic),
        ("shop.test", Rule::DomainNotPublic),
        ("*.onion", Rule::DomainPublicSuffix),
        ("abc.onion", Rule::DomainNotPublic),
        ("kubernetes.default.svc", Rule::DomainNotPublic),
        ("*.svc.cluster.local", Rule::DomainNotPublic),
        ("router.home.arpa", Rule::DomainNotPublic),
    ];
    for (domain, rule) in cases {
        let err = check(minimal_manifest("example", &[domain]), "example").unwrap_err();
        expect_violation(&err, "manifest.json", "domains[0]", *rule);
    }
}

#[test]
fn domain_labels_are_at_most_63_and_names_at_most_253_characters() {
    let label64 = format!("{}.com", "a".repeat(64));
    let err = check(minimal_manifest("example", &[&label64]), "example").unwrap_err();
    expect_violation(&err, "manifest.json", "domains[0]", Rule::DomainLabelLength);
    let label63 = format!("{}.com", "a".repeat(63));
    assert!(check(minimal_manifest("example", &[&label63]), "example").is_ok());

    let long = vec!["a".repeat(60); 5].join(".") + ".com"; // 304 characters
    let err = check(minimal_manifest("example", &[&long]), "example").unwrap_err();
    expect_violation(&err, "manifest.json", "domains[0]", Rule::DomainLength);
}

#[test]
fn domains_must_be_present_non_empty_and_distinct() {
    let mut m = minimal_manifest("example", &[]);
    let err = check(m.clone(), "example").unwrap_err();
    expect_violation(&err, "manifest.json", "domains", Rule::DomainsEmpty);
    m.as_object_mut().unwrap().remove("domains");
    let err = check(m, "example").unwrap_err();
    expect_violation(&err, "manifest.json", "domains", Rule::Required);
    let err = check(
        minimal_manifest("example", &["example.com", "example.com"]),
        "example",
    )
    .unwrap_err();
    expect_violation(&err, "manifest.json", "domains[1]", Rule::DomainDuplicate);
    // The Unicode and punycode spellings are the same domain.
    let err = check(
        minimal_manifest("example", &["bücher.example", "xn--bcher-kva.example"]),
        "example",
    )
    .unwrap_err();
    expect_violation(&err, "manifest.json", "domains[1]", Rule::DomainDuplicate);
}

#[test]
fn a_unicode_domain_is_stored_in_punycode() {
    let p = check(minimal_manifest("example", &["bücher.example"]), "example").unwrap();
    assert_eq!(p.patterns()[0].to_string(), "xn--bcher-kva.example");
    assert!(p.covers_host("xn--bcher-kva.example"));
    assert!(p.covers_host("BÜCHER.example."));
}

#[test]
fn notes_must_be_markdown_files_in_the_package() {
    let m = with(
        minimal_manifest("example", &["example.com"]),
        "/notes",
        json!(["notes/site.txt", "guide.md"]),
    );
    let tmp = tempfile::tempdir().unwrap();
    let dir = write_package(
        tmp.path(),
        "example",
        &m,
        &[("page.js", MINIMAL_SCRIPT), ("notes/site.txt", b"x")],
    );
    let err = load(&dir).unwrap_err();
    expect_violation(&err, "manifest.json", "notes[0]", Rule::NoteNotMarkdown);

    let m = with(m, "/notes", json!(["notes/site.md"]));
    let tmp = tempfile::tempdir().unwrap();
    let dir = write_package(
        tmp.path(),
        "example",
        &m,
        &[
            ("page.js", MINIMAL_SCRIPT),
            ("notes/site.md", b"Verified fact."),
        ],
    );
    let p = load(&dir).unwrap();
    assert_eq!(p.notes()[0].path, "notes/site.md");
    assert_eq!(p.notes()[0].content, "Verified fact.");
}

#[test]
fn a_missing_note_is_reported_by_its_path() {
    let m = with(
        minimal_manifest("example", &["example.com"]),
        "/notes",
        json!(["knowledge.md"]),
    );
    let err = check(m, "example").unwrap_err();
    expect_violation(&err, "knowledge.md", "", Rule::MissingFile);
}

#[test]
fn an_absolute_path_is_refused() {
    for path in ["/etc/passwd", "C:/tools/page.js"] {
        let m = with(
            minimal_manifest("example", &["example.com"]),
            "/browserTools/readPage/path",
            json!(path),
        );
        let err = check(m, "example").unwrap_err();
        expect_violation(
            &err,
            "manifest.json",
            "browserTools.readPage.path",
            Rule::PathAbsolute,
        );
    }
}

#[test]
fn a_backslash_in_a_path_is_refused() {
    let m = with(
        minimal_manifest("example", &["example.com"]),
        "/browserTools/readPage/path",
        json!("scripts\\page.js"),
    );
    let err = check(m, "example").unwrap_err();
    expect_violation(
        &err,
        "manifest.json",
        "browserTools.readPage.path",
        Rule::PathBackslash,
    );
}

#[test]
fn a_parent_segment_in_a_path_is_refused() {
    for path in ["../page.js", "scripts/../../page.js"] {
        let m = with(
            minimal_manifest("example", &["example.com"]),
            "/browserTools/readPage/path",
            json!(path),
        );
        let err = check(m, "example").unwrap_err();
        expect_violation(
            &err,
            "manifest.json",
            "browserTools.readPage.path",
            Rule::PathParent,
        );
    }
    let m = with(
        minimal_manifest("example", &["example.com"]),
        "/notes",
        json!(["../x.md"]),
    );
    let err = check(m, "example").unwrap_err();
    expect_violation(&err, "manifest.json", "notes[0]", Rule::PathParent);
}

#[test]
fn dot_and_empty_segments_are_refused() {
    for path in ["./page.js", "scripts//page.js", ""] {
        let m = with(
            minimal_manifest("example", &["example.com"]),
            "/browserTools/readPage/path",
            json!(path),
        );
        let err = check(m, "example").unwrap_err();
        assert!(
            err.has(Rule::PathNotNormal) || err.has(Rule::PathEmpty) || err.has(Rule::Empty),
            "{path:?}: {err}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_symlink_that_escapes_the_package_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = tmp.path().join("secret.js");
    std::fs::write(&outside, b"window.ExampleTools = {};").unwrap();
    let dir = write_package(
        tmp.path(),
        "example",
        &minimal_manifest("example", &["example.com"]),
        &[],
    );
    std::os::unix::fs::symlink(&outside, dir.join("page.js")).unwrap();
    let err = load(&dir).unwrap_err();
    expect_violation(&err, "page.js", "", Rule::SymlinkEscape);

    // A symlinked folder on the way out is caught too.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("elsewhere")).unwrap();
    std::fs::write(tmp.path().join("elsewhere/page.js"), MINIMAL_SCRIPT).unwrap();
    let m = with(
        minimal_manifest("example", &["example.com"]),
        "/browserTools/readPage/path",
        json!("lib/page.js"),
    );
    let dir = write_package(tmp.path(), "example", &m, &[]);
    std::os::unix::fs::symlink(tmp.path().join("elsewhere"), dir.join("lib")).unwrap();
    let err = load(&dir).unwrap_err();
    expect_violation(&err, "lib/page.js", "", Rule::SymlinkEscape);
}

#[cfg(unix)]
#[test]
fn a_symlink_that_stays_inside_the_package_is_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = write_package(
        tmp.path(),
        "example",
        &minimal_manifest("example", &["example.com"]),
        &[("src/real.js", MINIMAL_SCRIPT)],
    );
    std::os::unix::fs::symlink(dir.join("src/real.js"), dir.join("page.js")).unwrap();
    let p = load(&dir).expect("an in-package symlink is fine");
    assert_eq!(p.resource("page.js").unwrap().as_bytes(), MINIMAL_SCRIPT);
}

#[cfg(unix)]
#[test]
fn a_symlinked_package_folder_or_escaping_manifest_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let real = write_package(
        tmp.path(),
        "real",
        &minimal_manifest("example", &["example.com"]),
        &[("page.js", MINIMAL_SCRIPT)],
    );
    let link = tmp.path().join("example");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let err = load(&link).unwrap_err();
    expect_violation(&err, ".", "", Rule::PackageSymlink);

    let dir = tmp.path().join("other");
    std::fs::create_dir(&dir).unwrap();
    std::os::unix::fs::symlink(real.join("manifest.json"), dir.join("manifest.json")).unwrap();
    let err = load(&dir).unwrap_err();
    expect_violation(&err, "manifest.json", "", Rule::SymlinkEscape);
}

#[test]
fn a_resource_that_is_a_folder_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = write_package(
        tmp.path(),
        "example",
        &minimal_manifest("example", &["example.com"]),
        &[("page.js/inner.js", b"x")],
    );
    let err = load(&dir).unwrap_err();
    expect_violation(&err, "page.js", "", Rule::NotAFile);
}

#[test]
fn a_resource_over_1_mib_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let big = vec![b'/'; MAX_RESOURCE_BYTES as usize + 1];
    let dir = write_package(
        tmp.path(),
        "example",
        &minimal_manifest("example", &["example.com"]),
        &[("page.js", &big)],
    );
    let err = load(&dir).unwrap_err();
    expect_violation(&err, "page.js", "", Rule::TooLarge);

    let tmp = tempfile::tempdir().unwrap();
    let exact = vec![b'/'; MAX_RESOURCE_BYTES as usize];
    let dir = write_package(
        tmp.path(),
        "example",
        &minimal_manifest("example", &["example.com"]),
        &[("page.js", &exact)],
    );
    assert!(load(&dir).is_ok(), "exactly 1 MiB is allowed");
}

#[test]
fn a_manifest_over_256_kib_is_refused() {
    let padding = "x".repeat(MAX_MANIFEST_BYTES as usize);
    let m = with(
        minimal_manifest("example", &["example.com"]),
        "/browserTools/readPage/description",
        json!(padding),
    );
    let err = check(m, "example").unwrap_err();
    expect_violation(&err, "manifest.json", "", Rule::TooLarge);
}

#[test]
fn a_resource_that_is_not_utf8_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = write_package(
        tmp.path(),
        "example",
        &minimal_manifest("example", &["example.com"]),
        &[("page.js", &[0xff, 0xfe, 0x00])],
    );
    let err = load(&dir).unwrap_err();
    expect_violation(&err, "page.js", "", Rule::NotUtf8);
}

#[test]
fn binding_and_callable_come_together() {
    let mut m = minimal_manifest("example", &["example.com"]);
    m["browserTools"]["readPage"]
        .as_object_mut()
        .unwrap()
        .remove("callable");
    let err = check(m, "example").unwrap_err();
    expect_violation(
        &err,
        "manifest.json",
        "browserTools.readPage.binding",
        Rule::BindingWithoutCallable,
    );

    let mut m = minimal_manifest("example", &["example.com"]);
    m["browserTools"]["readPage"]
        .as_object_mut()
        .unwrap()
        .remove("binding");
    let err = check(m, "example").unwrap_err();
    expect_violation(
        &err,
        "manifest.json",
        "browserTools.readPage.callable",
        Rule::CallableWithoutBinding,
    );

    // Neither: the script is one function.
    let mut m = minimal_manifest("example", &["example.com"]);
    let tool = m["browserTools"]["readPage"].as_object_mut().unwrap();
    tool.remove("binding");
    tool.remove("callable");
    assert!(check(m, "example").is_ok());
}

#[test]
fn binding_and_callable_must_be_javascript_names() {
    let m = with(
        minimal_manifest("example", &["example.com"]),
        "/browserTools/readPage/binding",
        json!("window['x']"),
    );
    let m = with(m, "/browserTools/readPage/callable", json!("read-page"));
    let err = check(m, "example").unwrap_err();
    expect_violation(
        &err,
        "manifest.json",
        "browserTools.readPage.binding",
        Rule::JsIdentifier,
    );
    expect_violation(
        &err,
        "manifest.json",
        "browserTools.readPage.callable",
        Rule::JsIdentifier,
    );
}

#[test]
fn an_unknown_argument_or_return_type_is_refused() {
    let m = with(
        minimal_manifest("example", &["example.com"]),
        "/browserTools/readPage/args",
        json!({"when": {"type": "date", "required": false, "description": "A day."}}),
    );
    let m = with(m, "/browserTools/readPage/returns/type", json!("map"));
    let err = check(m, "example").unwrap_err();
    expect_violation(
        &err,
        "manifest.json",
        "browserTools.readPage.args.when.type",
        Rule::UnknownType,
    );
    expect_violation(
        &err,
        "manifest.json",
        "browserTools.readPage.returns.type",
        Rule::UnknownType,
    );
}

#[test]
fn every_declared_type_is_accepted() {
    let args: serde_json::Map<String, Value> =
        ["string", "number", "integer", "boolean", "array", "object"]
            .iter()
            .map(|t| {
                (
                    format!("a_{t}"),
                    json!({"type": t, "required": false, "description": "An argument."}),
                )
            })
            .collect();
    let m = with(
        minimal_manifest("example", &["example.com"]),
        "/browserTools/readPage/args",
        Value::Object(args),
    );
    let p = check(m, "example").unwrap();
    assert_eq!(p.tool("readPage").unwrap().args.len(), 6);
}

#[test]
fn argument_specs_need_a_boolean_required_and_a_description() {
    let m = with(
        minimal_manifest("example", &["example.com"]),
        "/browserTools/readPage/args",
        json!({
            "limit": {"type": "integer", "required": "yes", "description": "How many."},
            "query": {"type": "string"}
        }),
    );
    let err = check(m, "example").unwrap_err();
    expect_violation(
        &err,
        "manifest.json",
        "browserTools.readPage.args.limit.required",
        Rule::WrongType,
    );
    expect_violation(
        &err,
        "manifest.json",
        "browserTools.readPage.args.query.required",
        Rule::Required,
    );
    expect_violation(
        &err,
        "manifest.json",
        "browserTools.readPage.args.query.description",
        Rule::Required,
    );
}

#[test]
fn tools_need_a_description_a_path_and_returns() {
    let m = with(
        minimal_manifest("example", &["example.com"]),
        "/browserTools/readPage",
        json!({"binding": "window.X", "callable": "y"}),
    );
    let err = check(m, "example").unwrap_err();
    for field in ["description", "path", "returns"] {
        expect_violation(
            &err,
            "manifest.json",
            &format!("browserTools.readPage.{field}"),
            Rule::Required,
        );
    }
}

#[test]
fn tool_names_are_letters_digits_underscores_and_hyphens() {
    let mut m = minimal_manifest("example", &["example.com"]);
    let tool = m["browserTools"]["readPage"].clone();
    m["browserTools"]
        .as_object_mut()
        .unwrap()
        .insert("read page!".into(), tool);
    let err = check(m, "example").unwrap_err();
    expect_violation(
        &err,
        "manifest.json",
        "browserTools.read page!",
        Rule::ToolName,
    );
}

#[test]
fn unknown_fields_are_named() {
    let mut m = minimal_manifest("example", &["example.com"]);
    m["browsertools"] = json!({});
    m["browserTools"]["readPage"]["bindings"] = json!("x");
    let err = check(m, "example").unwrap_err();
    expect_violation(&err, "manifest.json", "browsertools", Rule::UnknownField);
    expect_violation(
        &err,
        "manifest.json",
        "browserTools.readPage.bindings",
        Rule::UnknownField,
    );
}

#[test]
fn wrong_json_types_and_invalid_json_are_reported() {
    let m = with(
        minimal_manifest("example", &["example.com"]),
        "/domains",
        json!("example.com"),
    );
    let m = with(m, "/notes", json!({}));
    let err = check(m, "example").unwrap_err();
    expect_violation(&err, "manifest.json", "domains", Rule::WrongType);
    expect_violation(&err, "manifest.json", "notes", Rule::WrongType);

    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("example");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("manifest.json"), b"{\"id\": \"example\",").unwrap();
    let err = load(&dir).unwrap_err();
    expect_violation(&err, "manifest.json", "", Rule::InvalidJson);
}

#[test]
fn a_folder_without_a_manifest_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("example");
    std::fs::create_dir(&dir).unwrap();
    let err = load(&dir).unwrap_err();
    expect_violation(&err, "manifest.json", "", Rule::MissingFile);
    let file = tmp.path().join("plain");
    std::fs::write(&file, b"x").unwrap();
    let err = load(&file).unwrap_err();
    expect_violation(&err, ".", "", Rule::PackageNotDirectory);
}

#[test]
fn pagination_needs_a_declared_scroll_tool_an_array_and_a_limit() {
    let mut m = minimal_manifest("example", &["example.com"]);
    m["browserTools"]["readPage"]["pagination"] = json!({"scrollTool": "scrollDown"});
    let err = check(m, "example").unwrap_err();
    expect_violation(
        &err,
        "manifest.json",
        "browserTools.readPage.pagination.scrollTool",
        Rule::Pagination,
    );
    expect_violation(
        &err,
        "manifest.json",
        "browserTools.readPage.returns.type",
        Rule::Pagination,
    );
    expect_violation(
        &err,
        "manifest.json",
        "browserTools.readPage.args.limit",
        Rule::Pagination,
    );
}

#[test]
fn every_violation_is_collected_not_only_the_first() {
    let m = json!({
        "id": "Bad_Id",
        "name": "",
        "domains": ["Example.com", "*.com"],
        "notes": ["notes.txt"],
        "browserTools": {
            "readPage": {
                "description": "Read.",
                "path": "../page.js",
                "binding": "window.X",
                "args": {"n": {"type": "int", "required": true, "description": "N."}},
                "returns": {"type": "object", "description": "State."}
            }
        }
    });
    let err = check(m, "bad").unwrap_err();
    let rules: Vec<Rule> = err.violations.iter().map(|v| v.rule).collect();
    for rule in [
        Rule::IdFormat,
        Rule::Empty,
        Rule::DomainUppercase,
        Rule::DomainPublicSuffix,
        Rule::NoteNotMarkdown,
        Rule::PathParent,
        Rule::BindingWithoutCallable,
        Rule::UnknownType,
    ] {
        assert!(rules.contains(&rule), "{rule} missing from {rules:?}");
    }
    // The message names the file, the field and the rule.
    let text = err.to_string();
    assert!(
        text.contains("manifest.json: browserTools.readPage.path:"),
        "{text}"
    );
    assert!(text.contains("[path_parent]"), "{text}");
    assert!(text.contains("manifest.json: domains[0]:"), "{text}");
}

#[test]
fn missing_files_are_all_reported_together() {
    let mut m = minimal_manifest("example", &["example.com"]);
    m["notes"] = json!(["a.md", "b.md"]);
    let tmp = tempfile::tempdir().unwrap();
    let dir = write_package(tmp.path(), "example", &m, &[]);
    let err = load(&dir).unwrap_err();
    let missing: Vec<&str> = err
        .of(Rule::MissingFile)
        .iter()
        .map(|v| v.file.as_str())
        .collect();
    assert_eq!(missing, ["a.md", "b.md", "page.js"]);
}
