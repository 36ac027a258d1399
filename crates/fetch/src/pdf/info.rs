//! The PDF's `Info` dictionary: title, author, dates and producer, the
//! dates as ISO 8601.

use lopdf::{Document, Object};

/// What the `Info` dictionary says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Meta {
    pub(super) title: Option<String>,
    pub(super) author: Option<String>,
    pub(super) created: Option<String>,
    pub(super) modified: Option<String>,
    pub(super) producer: Option<String>,
}

impl Meta {
    /// The metadata of `doc` (all `None` without an `Info` dictionary).
    pub(super) fn of(doc: &Document) -> Self {
        let Some(info) = doc
            .trailer
            .get(b"Info")
            .ok()
            .and_then(|o| doc.dereference(o).ok())
            .and_then(|(_, o)| o.as_dict().ok())
        else {
            return Meta::default();
        };
        let text = |key: &[u8]| {
            info.get(key)
                .ok()
                .and_then(|o| doc.dereference(o).ok())
                .and_then(|(_, o)| text_of(o))
        };
        Meta {
            title: text(b"Title"),
            author: text(b"Author"),
            created: text(b"CreationDate").and_then(|d| iso_date(&d)),
            modified: text(b"ModDate").and_then(|d| iso_date(&d)),
            producer: text(b"Producer"),
        }
    }
}

/// A text string (PDFDocEncoding or UTF-16 with its BOM), trimmed; `None`
/// when empty.
fn text_of(object: &Object) -> Option<String> {
    let text = lopdf::decode_text_string(object).ok()?;
    let text = text.trim().trim_matches('\0').trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// A PDF date (`D:YYYYMMDDHHmmSS+HH'mm'`, every part after the year
/// optional) as ISO 8601: `2024-01-15T09:30:00+01:00`, or `2024-01-15`
/// without a time, or `2024` alone.
pub(super) fn iso_date(raw: &str) -> Option<String> {
    let s = raw.trim().strip_prefix("D:").unwrap_or(raw.trim());
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    let part =
        |from: usize, default: &str| digits.get(from..from + 2).unwrap_or(default).to_string();
    let year = digits.get(..4)?;
    if digits.len() < 8 {
        return Some(year.to_string());
    }
    let date = format!("{year}-{}-{}", part(4, "01"), part(6, "01"));
    if digits.len() < 12 {
        return Some(date);
    }
    let time = format!("{}:{}:{}", part(8, "00"), part(10, "00"), part(12, "00"));
    Some(format!("{date}T{time}{}", zone(&s[digits.len()..])))
}

/// The zone suffix of a PDF date (`Z`, `+01'00'`, `-05'30`) as ISO 8601
/// (`Z`, `+01:00`); empty when absent.
fn zone(rest: &str) -> String {
    let mut chars = rest.chars();
    match chars.next() {
        Some('Z') => "Z".to_string(),
        Some(sign @ ('+' | '-')) => {
            let digits: String = chars.filter(char::is_ascii_digit).take(4).collect();
            let hours = digits.get(..2).unwrap_or("00");
            let minutes = digits.get(2..4).unwrap_or("00");
            format!("{sign}{hours}:{minutes}")
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pdf_dates_read_as_iso_8601() {
        assert_eq!(
            iso_date("D:20240115093000+01'00'").as_deref(),
            Some("2024-01-15T09:30:00+01:00")
        );
        assert_eq!(
            iso_date("D:20240115093000Z").as_deref(),
            Some("2024-01-15T09:30:00Z")
        );
        assert_eq!(iso_date("D:20240115").as_deref(), Some("2024-01-15"));
        assert_eq!(iso_date("D:2024").as_deref(), Some("2024"));
        assert_eq!(
            iso_date("20240115120000").as_deref(),
            Some("2024-01-15T12:00:00")
        );
        assert_eq!(iso_date("garbage"), None);
    }
}
