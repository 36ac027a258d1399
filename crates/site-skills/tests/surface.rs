//! The agent and CLI surface without a browser: the tool definitions, the
//! argument and result checks, and the `ferret skills list|show|validate`
//! envelopes.

mod support;

use ferret_site_skills::args::{ArgProblem, check_return, validate_args};
use ferret_site_skills::commands::{self, LIST_SCHEMA, SHOW_SCHEMA, VALIDATE_SCHEMA};
use ferret_site_skills::{OverrideRoots, Registry, Rule, SkillError, ValueType, tool_definitions};
use serde_json::{Value, json};
use support::{MINIMAL_SCRIPT, minimal_manifest, write_package};

#[test]
fn the_three_tools_have_json_schema_definitions() {
    let defs = tool_definitions();
    let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        ["navigate_site", "read_site_skills", "run_site_browser_tool"]
    );
    for d in &defs {
        assert_eq!(d.parameters["type"], "object", "{}", d.name);
        assert!(d.parameters["properties"].is_object());
        assert_eq!(d.parameters["additionalProperties"], false);
        assert!(d.description.len() > 40);
    }
    assert_eq!(defs[0].parameters["required"], json!(["url"]));
    assert_eq!(
        defs[2].parameters["required"],
        json!(["site_id", "tool_name"])
    );
    assert_eq!(defs[2].parameters["properties"]["args"]["type"], "object");
    // Round-trips as plain JSON for an agent framework.
    let text = serde_json::to_string(&defs).unwrap();
    let back: Vec<ferret_site_skills::ToolDefinition> = serde_json::from_str(&text).unwrap();
    assert_eq!(back, defs);
}

fn section_tool() -> ferret_site_skills::BrowserTool {
    Registry::builtin()
        .get("wikipedia")
        .unwrap()
        .tool("section")
        .unwrap()
        .clone()
}

fn hn_tool() -> ferret_site_skills::BrowserTool {
    Registry::builtin()
        .get("hackernews")
        .unwrap()
        .tool("item")
        .unwrap()
        .clone()
}

#[test]
fn arguments_are_checked_against_the_declared_schema() {
    let section = section_tool();
    assert_eq!(
        validate_args(&section, Some(&json!({"title": "Cargo"}))).unwrap(),
        json!({"title": "Cargo"}).as_object().unwrap().clone()
    );
    assert_eq!(
        validate_args(&section, None).unwrap_err(),
        [ArgProblem::Missing {
            arg: "title".into()
        }]
    );
    assert_eq!(
        validate_args(&section, Some(&json!({"title": null}))).unwrap_err(),
        [ArgProblem::Missing {
            arg: "title".into()
        }]
    );
    assert_eq!(
        validate_args(&section, Some(&json!({"title": 3, "lang": "en"}))).unwrap_err(),
        [
            ArgProblem::Undeclared {
                arg: "lang".into(),
                declared: vec!["title".into()]
            },
            ArgProblem::WrongType {
                arg: "title".into(),
                expected: ValueType::String,
                got: "number".into()
            },
        ]
    );
    assert_eq!(
        validate_args(&section, Some(&json!(["Cargo"]))).unwrap_err(),
        [ArgProblem::NotAnObject {
            got: "array".into()
        }]
    );

    let hn = hn_tool();
    assert!(validate_args(&hn, Some(&json!({"max_comments": 5}))).is_ok());
    assert!(
        validate_args(&hn, Some(&json!({"max_comments": 5.0}))).is_ok(),
        "5.0 is an integer"
    );
    assert_eq!(
        validate_args(&hn, Some(&json!({"max_comments": 2.5}))).unwrap_err(),
        [ArgProblem::WrongType {
            arg: "max_comments".into(),
            expected: ValueType::Integer,
            got: "number".into()
        }]
    );
    // Optional null arguments are not passed on.
    assert!(
        validate_args(&hn, Some(&json!({"max_comments": null})))
            .unwrap()
            .is_empty()
    );
}

#[test]
fn results_are_checked_against_the_declared_type() {
    let hn = hn_tool();
    assert!(check_return(&hn, &json!({"kind": "story"})).is_ok());
    assert_eq!(check_return(&hn, &json!("story")), Err("string"));
    assert_eq!(check_return(&hn, &Value::Null), Err("null"));
    assert_eq!(check_return(&hn, &json!([])), Err("array"));
}

#[test]
fn list_reports_packages_origins_and_issues() {
    let dir = tempfile::tempdir().unwrap();
    write_package(
        dir.path(),
        "example",
        &minimal_manifest("example", &["example.com"]),
        &[("page.js", MINIMAL_SCRIPT)],
    );
    write_package(
        dir.path(),
        "broken",
        &minimal_manifest("broken", &["Example.com"]),
        &[("page.js", MINIMAL_SCRIPT)],
    );
    let registry = Registry::load(&OverrideRoots::none().site_skills_dir(dir.path()));
    let out = commands::list(&registry, None);
    assert_eq!(out.schema, LIST_SCHEMA);
    let json = serde_json::to_value(&out).unwrap();
    let ids: Vec<&str> = json["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "example",
            "github",
            "hackernews",
            "reddit",
            "stackexchange",
            "wikipedia"
        ]
    );
    assert_eq!(json["skills"][0]["origin"]["kind"], "site_skills_dir");
    assert_eq!(json["skills"][1]["origin"], json!({"kind": "built_in"}));
    assert_eq!(json["skills"][1]["browser_tools"], json!(["thread"]));
    assert_eq!(json["issues"][0]["id"], "broken");
    assert_eq!(json["issues"][0]["removed"], true);
    assert_eq!(
        json["issues"][0]["violations"][0]["rule"],
        "domain_uppercase"
    );
    assert_eq!(json["issues"][0]["violations"][0]["field"], "domains[0]");
}

#[test]
fn show_returns_the_schemas_and_notes() {
    let registry = Registry::builtin();
    let out = commands::show(&registry, "wikipedia").unwrap();
    assert_eq!(out.schema, SHOW_SCHEMA);
    let json = serde_json::to_value(&out).unwrap();
    assert_eq!(json["domains"], json!(["*.wikipedia.org"]));
    assert_eq!(json["knowledge"], json!([]));
    assert_eq!(
        json["browser_tools"]["section"]["args"]["title"]["type"],
        "string"
    );
    assert_eq!(
        json["browser_tools"]["section"]["binding"],
        "window.FerretWikipedia"
    );
    let err = commands::show(&registry, "nope").unwrap_err();
    assert!(matches!(err, SkillError::UnknownSite { .. }));
    assert_eq!(err.envelope().code, "unknown_site");
    assert!(err.to_string().contains("github, hackernews"), "{err}");
}

#[test]
fn validate_returns_every_violation_in_its_envelope() {
    let tmp = tempfile::tempdir().unwrap();
    let mut m = minimal_manifest("example", &["example.com"]);
    m["browserTools"]["readPage"]["path"] = json!("/abs/page.js");
    m["notes"] = json!(["notes.txt"]);
    let dir = write_package(tmp.path(), "example", &m, &[]);
    let out = commands::validate(&dir);
    assert_eq!(out.schema, VALIDATE_SCHEMA);
    assert!(!out.valid);
    let rules: Vec<Rule> = out.violations.iter().map(|v| v.rule).collect();
    assert!(
        rules.contains(&Rule::PathAbsolute) && rules.contains(&Rule::NoteNotMarkdown),
        "{rules:?}"
    );

    let good = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sites/hackernews");
    let out = commands::validate(&good);
    assert!(out.valid, "{:?}", out.violations);
    assert_eq!(out.id.as_deref(), Some("hackernews"));
    assert_eq!(out.browser_tools, ["item"]);
}

#[test]
fn args_json_must_be_an_object() {
    assert_eq!(commands::parse_args_json("").unwrap(), json!({}));
    assert_eq!(
        commands::parse_args_json(r#"{"limit": 3}"#).unwrap(),
        json!({"limit": 3})
    );
    for bad in ["[1]", "3", "{nope"] {
        let err = commands::parse_args_json(bad).unwrap_err();
        assert_eq!(err.code(), "invalid_input", "{bad}");
    }
}
