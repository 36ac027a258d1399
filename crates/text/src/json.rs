//! JSON values named in words, for messages about JSON a caller handed in.

use serde_json::Value;

/// What kind of JSON value `value` is, for error messages about JSON a
/// caller handed in ("a string", "an array", "null" …).
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_read_as_words() {
        assert_eq!(json_kind(&serde_json::json!([1])), "an array");
        assert_eq!(json_kind(&Value::Null), "null");
    }
}
