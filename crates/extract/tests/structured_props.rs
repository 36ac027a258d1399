//! `ferret_extract::structured` never panics, whatever the HTML and the
//! schema, and never returns data that breaks the schema.

use ferret_extract::structured::{ExtractVerdict, extract_structured};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        "[a-zA-Z0-9 $€,.@#/_-]{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("object"),
            Just("array"),
            Just("string"),
            Just("number"),
            Just("integer"),
            Just("boolean"),
            Just("null"),
            Just("text"),
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        let key = prop_oneof![
            Just("type".to_owned()),
            Just("properties".to_owned()),
            Just("required".to_owned()),
            Just("items".to_owned()),
            Just("minItems".to_owned()),
            Just("maxItems".to_owned()),
            Just("enum".to_owned()),
            Just("pattern".to_owned()),
            Just("$ref".to_owned()),
            Just("oneOf".to_owned()),
            Just("@type".to_owned()),
            Just("@graph".to_owned()),
            Just("@id".to_owned()),
            Just("name".to_owned()),
            Just("price".to_owned()),
            Just("offers".to_owned()),
            "[a-z]{1,6}",
        ];
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::vec((key, inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<String, Value>>())),
        ]
    })
}

/// A schema that is mostly well-formed, so mapping actually runs.
fn schema_value() -> impl Strategy<Value = Value> {
    let scalar = prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": "number"})),
        Just(json!({"type": "integer"})),
        Just(json!({"type": "boolean"})),
        Just(json!({"type": ["string", "null"]})),
        Just(json!({"enum": ["InStock", "OutOfStock", 1]})),
        Just(json!({"type": "array", "items": {"type": "string"}, "minItems": 1})),
        json_value(),
    ];
    let names = prop_oneof![
        Just("name"),
        Just("price"),
        Just("price_currency"),
        Just("Users"),
        Just("sku"),
        Just("ingredients"),
        Just("author"),
        Just("Plan"),
    ];
    (
        proptest::collection::vec((names, scalar), 0..5),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(props, array_root, require_all)| {
            let mut properties = Map::new();
            for (n, s) in props {
                properties.insert(n.to_owned(), s);
            }
            let required: Vec<Value> = if require_all {
                properties.keys().cloned().map(Value::from).collect()
            } else {
                Vec::new()
            };
            let obj = json!({"type": "object", "properties": properties, "required": required});
            if array_root {
                json!({"type": "array", "items": obj})
            } else {
                obj
            }
        })
}

fn html_page() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        json_value().prop_map(|v| format!("<script type=\"application/ld+json\">{v}</script>")),
        Just("<script type=\"application/ld+json\">{\"@type\": ".to_owned()),
        Just("<table>".to_owned()),
        Just("</table>".to_owned()),
        Just("<thead>".to_owned()),
        Just("<tr>".to_owned()),
        Just("</tr>".to_owned()),
        "<t[hd]( colspan=\"[0-9]{1,3}\")?( rowspan=\"[0-9]{1,3}\")?>".prop_map(String::from),
        Just("<ul><li>a</li><li>b</li></ul>".to_owned()),
        Just("<br>".to_owned()),
        Just("<caption>Plans</caption>".to_owned()),
        Just("<h2>Pricing</h2>".to_owned()),
        Just("<sup class=reference>[1]</sup>".to_owned()),
        Just("<span style=\"display:none\">x</span>".to_owned()),
        "[a-zA-Z0-9 $€,.]{0,12}".prop_map(String::from),
        "<[a-z]{1,5}>".prop_map(String::from),
        Just("</div>".to_owned()),
    ];
    proptest::collection::vec(piece, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn arbitrary_html_and_arbitrary_schema_never_panic(html in html_page(), schema in json_value()) {
        let o = extract_structured(&html, None, &schema);
        if o.verdict != ExtractVerdict::Extracted {
            prop_assert_eq!(o.data, Value::Null);
        }
    }

    #[test]
    fn extracted_data_always_validates(html in html_page(), schema in schema_value()) {
        let o = extract_structured(&html, None, &schema);
        match o.verdict {
            ExtractVerdict::Extracted => {
                prop_assert!(o.source.is_some());
                prop_assert!(o.missing.is_empty());
                let validator = jsonschema::validator_for(&schema).unwrap();
                prop_assert!(validator.is_valid(&o.data), "{}", o.data);
            }
            ExtractVerdict::NoMappableStructure => prop_assert_eq!(o.data, Value::Null),
            ExtractVerdict::InputUnreadable => prop_assert!(o.reason.is_some()),
            other => prop_assert!(false, "unexpected verdict {other:?}"),
        }
    }
}
