//! Decoding HTML bytes: the character encoding comes from a byte-order mark,
//! the HTTP `Content-Type` charset, a `<meta charset>` / `http-equiv`
//! declaration near the start, or — when nothing is declared — UTF-8 if the
//! bytes are valid UTF-8 and windows-1252 otherwise (the web's legacy
//! default).

use encoding_rs::{Encoding, UTF_8, WINDOWS_1252};
use serde::{Deserialize, Serialize};

/// How many leading bytes are searched for a `<meta>` charset declaration.
const META_PRESCAN_BYTES: usize = 4096;

/// Where the encoding used for decoding came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CharsetSource {
    /// A byte-order mark.
    Bom,
    /// The `charset` parameter of the `Content-Type` header.
    Header,
    /// A `<meta charset>` or `<meta http-equiv="Content-Type">` tag.
    Meta,
    /// Nothing declared; the bytes were valid UTF-8.
    Utf8Default,
    /// Nothing declared and not valid UTF-8: decoded as windows-1252.
    Legacy,
}

/// The result of decoding a page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decoded {
    /// The page as text.
    pub html: String,
    /// Name of the encoding used (WHATWG name, e.g. `"Shift_JIS"`).
    pub encoding: String,
    /// Where that encoding came from.
    pub source: CharsetSource,
    /// Some bytes were malformed and replaced with U+FFFD.
    pub had_errors: bool,
}

/// Decodes HTML bytes; `content_type` is the HTTP header value, if any.
pub fn decode_html(bytes: &[u8], content_type: Option<&str>) -> Decoded {
    let (encoding, source) = if let Some((enc, _)) = Encoding::for_bom(bytes) {
        (enc, CharsetSource::Bom)
    } else if let Some(enc) = content_type.and_then(charset_param).and_then(label) {
        (enc, CharsetSource::Header)
    } else if let Some(enc) = meta_charset(&bytes[..bytes.len().min(META_PRESCAN_BYTES)]) {
        (enc, CharsetSource::Meta)
    } else if std::str::from_utf8(bytes).is_ok() {
        (UTF_8, CharsetSource::Utf8Default)
    } else {
        (WINDOWS_1252, CharsetSource::Legacy)
    };
    // `decode` sniffs (and strips) a BOM itself, which is what we want.
    let (text, used, had_errors) = encoding.decode(bytes);
    Decoded {
        html: text.into_owned(),
        encoding: used.name().to_owned(),
        source,
        had_errors,
    }
}

/// An encoding for a label, applying the HTML rule that UTF-16 declared in
/// ASCII-compatible bytes means UTF-8 and `x-user-defined` means
/// windows-1252.
fn label(raw: &str) -> Option<&'static Encoding> {
    let enc = Encoding::for_label(raw.trim().trim_matches(['"', '\'']).as_bytes())?;
    Some(
        if enc == encoding_rs::UTF_16BE || enc == encoding_rs::UTF_16LE {
            UTF_8
        } else if enc == encoding_rs::X_USER_DEFINED {
            WINDOWS_1252
        } else {
            enc
        },
    )
}

/// The `charset=` parameter of a Content-Type value.
fn charset_param(value: &str) -> Option<&str> {
    value.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim().eq_ignore_ascii_case("charset").then_some(v.trim())
    })
}

/// The charset declared by a `<meta>` tag in `head`.
fn meta_charset(head: &[u8]) -> Option<&'static Encoding> {
    let text = String::from_utf8_lossy(head);
    let lower = text.to_ascii_lowercase();
    let mut from = 0;
    while let Some(off) = lower[from..].find("<meta") {
        let start = from + off;
        let end = lower[start..].find('>').map_or(lower.len(), |e| start + e);
        let tag = &lower[start..end];
        if let Some(pos) = tag.find("charset") {
            let rest = tag[pos + "charset".len()..].trim_start();
            if let Some(rest) = rest.strip_prefix('=') {
                let value: String = rest
                    .trim_start()
                    .trim_start_matches(['"', '\''])
                    .chars()
                    .take_while(|c| !matches!(c, '"' | '\'' | ';' | ' ' | '/' | '>'))
                    .collect();
                if let Some(enc) = label(&value) {
                    return Some(enc);
                }
            }
        }
        from = end;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_charset_is_honoured() {
        let bytes = b"<html><head><meta charset=\"iso-8859-1\"></head><body>caf\xe9</body></html>";
        let d = decode_html(bytes, None);
        assert_eq!(d.source, CharsetSource::Meta);
        assert!(d.html.contains("café"));
    }

    #[test]
    fn http_equiv_charset_is_honoured() {
        let bytes = b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=Shift_JIS\"><p>\x93\xfa\x96\x7b";
        let d = decode_html(bytes, None);
        assert_eq!(d.encoding, "Shift_JIS");
        assert!(d.html.contains("日本"));
    }

    #[test]
    fn header_beats_meta_and_bom_beats_header() {
        let bytes = b"<meta charset=\"utf-8\"><p>caf\xe9";
        let d = decode_html(bytes, Some("text/html; charset=windows-1252"));
        assert_eq!(d.source, CharsetSource::Header);
        assert!(d.html.contains("café"));
        let bom = b"\xef\xbb\xbf<p>caf\xc3\xa9";
        let d = decode_html(bom, Some("text/html; charset=windows-1252"));
        assert_eq!(d.source, CharsetSource::Bom);
        assert!(d.html.contains("café"));
    }

    #[test]
    fn undeclared_invalid_utf8_falls_back_to_windows_1252() {
        let d = decode_html(b"<p>na\xefve", None);
        assert_eq!(d.source, CharsetSource::Legacy);
        assert!(d.html.contains("naïve"));
    }
}
