//! Site-skill manifests and packages from strangers: arbitrary bytes and
//! random manifests never panic and give a package or typed violations; a
//! valid manifest round-trips through its JSON; the count limits (domains,
//! notes, browser tools, arguments, files) and the size limits (the whole
//! package, an override root's entries) are enforced with `too_large`
//! violations naming the limit.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ferret_site_skills::manifest::{
    MAX_BROWSER_TOOLS, MAX_DOMAINS, MAX_MANIFEST_BYTES, MAX_NOTES, MAX_PACKAGE_BYTES,
    MAX_PACKAGE_FILES, MAX_RESOURCE_BYTES, MAX_TOOL_ARGS, parse_manifest,
};
use ferret_site_skills::package::{Origin, load_dir, load_embedded};
use ferret_site_skills::registry::{MAX_OVERRIDE_ENTRIES, OverrideRoots, Registry};
use ferret_site_skills::{Rule, Violation};
use proptest::prelude::*;
use serde_json::{Value, json};

/// How many of each part a generated manifest declares.
#[derive(Debug, Clone, Copy)]
struct Counts {
    domains: usize,
    notes: usize,
    tools: usize,
    args: usize,
}

/// A manifest with `counts` parts, each valid on its own (tool `i` runs
/// `t{i}.js`, note `i` is `n{i}.md`).
fn manifest(counts: Counts) -> Value {
    let domains: Vec<String> = (0..counts.domains)
        .map(|i| format!("site{i}.com"))
        .collect();
    let notes: Vec<String> = (0..counts.notes).map(|i| format!("n{i}.md")).collect();
    let args: serde_json::Map<String, Value> = (0..counts.args)
        .map(|i| {
            let spec = json!({"type": "string", "required": false, "description": "an arg"});
            (format!("a{i}"), spec)
        })
        .collect();
    let tools: serde_json::Map<String, Value> = (0..counts.tools)
        .map(|i| {
            let tool = json!({
                "description": "reads the page",
                "path": format!("t{i}.js"),
                "args": args,
                "returns": {"type": "object", "description": "the page"},
            });
            (format!("tool{i}"), tool)
        })
        .collect();
    json!({
        "id": "site",
        "name": "Site",
        "domains": domains,
        "notes": notes,
        "browserTools": tools,
    })
}

fn too_large(violations: &[Violation], field: &str) -> bool {
    violations
        .iter()
        .any(|v| v.rule == Rule::TooLarge && v.field == field)
}

fn counts() -> impl Strategy<Value = Counts> {
    let around = |limit: usize| prop_oneof![0..4usize, (limit - 2)..(limit + 3)];
    (
        prop_oneof![1..4usize, (MAX_DOMAINS - 2)..(MAX_DOMAINS + 3)],
        around(MAX_NOTES),
        around(MAX_BROWSER_TOOLS),
        prop_oneof![0..3usize, (MAX_TOOL_ARGS - 1)..(MAX_TOOL_ARGS + 2)],
    )
        .prop_map(|(domains, notes, tools, args)| Counts {
            domains,
            notes,
            tools: tools.min(if args > 3 { 3 } else { tools }),
            args,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_give_a_manifest_or_violations(raw in prop::collection::vec(any::<u8>(), 0..400)) {
        match parse_manifest(&raw, Some("site")) {
            Ok(parsed) => prop_assert!(!parsed.manifest.domains.is_empty()),
            Err(violations) => {
                prop_assert!(!violations.is_empty());
                prop_assert!(violations.iter().all(|v| v.file == "manifest.json"));
            }
        }
    }

    #[test]
    fn json_wrapped_noise_gives_a_manifest_or_violations(
        noise in "[\\x00-\\x7f]{0,80}",
        key in prop::sample::select(vec!["id", "name", "domains", "notes", "browserTools", "x"]),
    ) {
        let mut value = manifest(Counts { domains: 1, notes: 0, tools: 1, args: 1 });
        value[key] = Value::String(noise);
        let bytes = serde_json::to_vec(&value).unwrap();
        if let Err(violations) = parse_manifest(&bytes, Some("site")) {
            prop_assert!(!violations.is_empty());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every count limit is enforced with a `too_large` violation on its
    /// field, and a manifest within them parses and round-trips.
    #[test]
    fn count_limits_hold_and_valid_manifests_round_trip(c in counts()) {
        let bytes = serde_json::to_vec(&manifest(c)).unwrap();
        let files = c.notes + c.tools;
        let within = c.domains <= MAX_DOMAINS
            && c.notes <= MAX_NOTES
            && c.tools <= MAX_BROWSER_TOOLS
            && (c.args <= MAX_TOOL_ARGS || c.tools == 0)
            && files <= MAX_PACKAGE_FILES
            && bytes.len() as u64 <= MAX_MANIFEST_BYTES;
        match parse_manifest(&bytes, Some("site")) {
            Ok(parsed) => {
                prop_assert!(within, "{:?} accepted", c);
                let again = serde_json::to_vec(&parsed.manifest).unwrap();
                let back = parse_manifest(&again, Some("site")).expect("a manifest re-parses");
                prop_assert_eq!(back.manifest, parsed.manifest);
                prop_assert_eq!(back.patterns, parsed.patterns);
            }
            Err(v) => {
                prop_assert!(!within, "{:?}: {:?}", c, v);
                prop_assert_eq!(too_large(&v, "domains"), c.domains > MAX_DOMAINS);
                prop_assert_eq!(too_large(&v, "notes"), c.notes > MAX_NOTES);
                prop_assert_eq!(too_large(&v, "browserTools"), c.tools > MAX_BROWSER_TOOLS);
                if c.args > MAX_TOOL_ARGS && c.tools > 0 {
                    prop_assert!(too_large(&v, "browserTools.tool0.args"), "{:?}", v);
                }
                prop_assert!(v.iter().all(|x| x.rule != Rule::TooLarge
                    || x.message.contains("at most")));
            }
        }
    }
}

#[test]
fn a_package_naming_too_many_files_is_refused_by_name() {
    let c = Counts {
        domains: 1,
        notes: MAX_NOTES,
        tools: MAX_PACKAGE_FILES - MAX_NOTES + 1,
        args: 0,
    };
    let bytes = serde_json::to_vec(&manifest(c)).unwrap();
    let v = parse_manifest(&bytes, Some("site")).unwrap_err();
    assert!(too_large(&v, ""), "{v:?}");
    assert!(
        v[0].message
            .contains(&format!("at most {MAX_PACKAGE_FILES}")),
        "{v:?}"
    );
}

// ------------------------------------------------------------ on disk

fn temp_dir(label: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "ferret-manifest-props-{label}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A package folder `site` under `root` with `tools` scripts of `size`
/// bytes each.
fn write_package(root: &Path, tools: usize, size: usize) -> PathBuf {
    let dir = root.join("site");
    std::fs::create_dir_all(&dir).unwrap();
    let c = Counts {
        domains: 1,
        notes: 0,
        tools,
        args: 0,
    };
    std::fs::write(dir.join("manifest.json"), manifest(c).to_string()).unwrap();
    let script = format!("async () => ({{}});{}", " ".repeat(size.saturating_sub(20)));
    for i in 0..tools {
        std::fs::write(dir.join(format!("t{i}.js")), &script).unwrap();
    }
    dir
}

#[test]
fn a_package_over_its_total_size_is_refused_and_read_no_further() {
    let root = temp_dir("big");
    let per_file = MAX_RESOURCE_BYTES as usize - 1024;
    let needed = (MAX_PACKAGE_BYTES as usize / per_file) + 2;
    let dir = write_package(&root, needed, per_file);
    let err = load_dir(&dir, Origin::Directory(dir.clone())).unwrap_err();
    let big = err.of(Rule::TooLarge);
    assert_eq!(big.len(), 1, "{err}");
    assert!(big[0].message.contains("8388608 bytes"), "{err}");

    // The same files embedded: the same refusal.
    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = entry.file_name().into_string().unwrap();
        files.insert(name, std::fs::read(entry.path()).unwrap());
    }
    let borrowed: BTreeMap<String, &[u8]> = files
        .iter()
        .map(|(k, v)| (k.clone(), v.as_slice()))
        .collect();
    let err = load_embedded("site", &borrowed).unwrap_err();
    assert_eq!(err.of(Rule::TooLarge).len(), 1, "{err}");
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn a_package_within_its_limits_loads() {
    let root = temp_dir("ok");
    let dir = write_package(&root, 3, 2048);
    let package = load_dir(&dir, Origin::Directory(dir.clone())).expect("valid");
    assert_eq!(package.manifest().browser_tools.len(), 3);
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn an_override_root_past_its_entry_limit_is_not_applied() {
    let root = temp_dir("crowded");
    write_package(&root, 1, 64);
    for i in 0..MAX_OVERRIDE_ENTRIES {
        std::fs::write(root.join(format!("junk-{i}")), b"x").unwrap();
    }
    let registry = Registry::load(&OverrideRoots::none().site_skills_dir(&root));
    assert!(registry.get("site").is_none());
    assert!(registry.get("github").is_some(), "the built-ins stay");
    let issue = registry
        .issues()
        .iter()
        .find(|i| i.violations.iter().any(|v| v.rule == Rule::TooLarge))
        .expect("an issue names the limit");
    assert!(
        issue.violations[0]
            .message
            .contains(&format!("more than {MAX_OVERRIDE_ENTRIES} entries")),
        "{issue:?}"
    );

    // At the limit, the root applies.
    std::fs::remove_file(root.join("junk-0")).unwrap();
    let registry = Registry::load(&OverrideRoots::none().site_skills_dir(&root));
    assert!(registry.get("site").is_some(), "{:?}", registry.issues());
    let _ = std::fs::remove_dir_all(root);
}
