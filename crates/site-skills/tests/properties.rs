//! Properties of the parsers: the path rules and manifest parsing hold for
//! any input, and parsing never panics.

use ferret_site_skills::Rule;
use ferret_site_skills::manifest::{parse_manifest, path_problem};
use proptest::prelude::*;
use serde_json::Value;

fn segment() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_-][A-Za-z0-9_.-]{0,12}".prop_filter("not a dot segment", |s| s != "." && s != "..")
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "[a-z*./\\\\:-]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("id".to_string()),
                    Just("name".to_string()),
                    Just("domains".to_string()),
                    Just("notes".to_string()),
                    Just("browserTools".to_string()),
                    Just("path".to_string()),
                    Just("binding".to_string()),
                    Just("callable".to_string()),
                    Just("args".to_string()),
                    Just("returns".to_string()),
                    Just("type".to_string()),
                    Just("pagination".to_string()),
                    "[a-z]{1,6}",
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn plain_relative_paths_are_accepted(segments in prop::collection::vec(segment(), 1..5)) {
        let path = segments.join("/");
        prop_assert_eq!(path_problem(&path), None);
    }

    #[test]
    fn a_parent_segment_anywhere_is_refused(
        segments in prop::collection::vec(segment(), 1..5),
        at in 0usize..5,
    ) {
        let mut segments = segments;
        let at = at.min(segments.len());
        segments.insert(at, "..".to_string());
        let (rule, _) = path_problem(&segments.join("/")).expect("refused");
        prop_assert_eq!(rule, Rule::PathParent);
    }

    #[test]
    fn absolute_and_backslashed_paths_are_refused(segments in prop::collection::vec(segment(), 1..4)) {
        let path = segments.join("/");
        prop_assert_eq!(path_problem(&format!("/{path}")).map(|p| p.0), Some(Rule::PathAbsolute));
        prop_assert_eq!(path_problem(&segments.join("\\")).map(|p| p.0), if segments.len() > 1 { Some(Rule::PathBackslash) } else { None });
    }

    #[test]
    fn parsing_any_json_never_panics_and_errors_name_the_manifest(value in json_value()) {
        let bytes = serde_json::to_vec(&value).unwrap();
        if let Err(violations) = parse_manifest(&bytes, Some("site")) {
            prop_assert!(!violations.is_empty());
            prop_assert!(violations.iter().all(|v| v.file == "manifest.json" && !v.message.is_empty()));
        }
    }

    #[test]
    fn parsing_any_bytes_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = parse_manifest(&bytes, None);
    }
}
