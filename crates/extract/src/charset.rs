//! Decoding HTML bytes in the HTML standard's sniffing order: a byte-order
//! mark, the HTTP `Content-Type` charset, a `<meta charset>` /
//! `http-equiv` declaration near the start, and — when nothing is declared —
//! UTF-8 if the bytes are valid UTF-8, otherwise the encoding `chardetng`
//! detects (GBK, Big5, Shift_JIS, EUC-KR, windows-1251, …).
//!
//! One amendment: a declared *legacy* encoding loses to bytes that are valid
//! UTF-8 and hold non-ASCII characters. Such bytes are, in practice, never
//! legacy text (multi-byte UTF-8 sequences do not arise by chance in GBK or
//! Latin-1 prose), while templates that keep an old `<meta charset=gb2312>`
//! above UTF-8 content are common.

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
    /// Nothing declared and not valid UTF-8: the encoding was detected from
    /// the bytes (windows-1252 when nothing better fits).
    Legacy,
    /// A legacy encoding was declared (header or `<meta>`), but the bytes
    /// are valid UTF-8 with non-ASCII characters: decoded as UTF-8.
    Utf8Valid,
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
    let (encoding, source) = choose_encoding(bytes, content_type);
    // `decode` sniffs (and strips) a BOM itself, which is what we want.
    let (text, used, had_errors) = encoding.decode(bytes);
    Decoded {
        html: text.into_owned(),
        encoding: used.name().to_owned(),
        source,
        had_errors,
    }
}

/// The encoding to decode with, in sniffing order (see the module docs).
fn choose_encoding(bytes: &[u8], content_type: Option<&str>) -> (&'static Encoding, CharsetSource) {
    if let Some((enc, _)) = Encoding::for_bom(bytes) {
        return (enc, CharsetSource::Bom);
    }
    let declared = content_type
        .and_then(charset_param)
        .and_then(label)
        .map(|enc| (enc, CharsetSource::Header))
        .or_else(|| {
            meta_charset(&bytes[..bytes.len().min(META_PRESCAN_BYTES)])
                .map(|enc| (enc, CharsetSource::Meta))
        });
    let valid_utf8 = std::str::from_utf8(bytes).is_ok();
    match declared {
        Some((enc, _)) if enc != UTF_8 && valid_utf8 && !bytes.is_ascii() => {
            (UTF_8, CharsetSource::Utf8Valid)
        }
        Some(declared) => declared,
        None if valid_utf8 => (UTF_8, CharsetSource::Utf8Default),
        None => (detect(bytes), CharsetSource::Legacy),
    }
}

/// Fewest non-ASCII bytes detection needs to tell legacy encodings apart;
/// with fewer, the web's legacy default (windows-1252) is the better bet.
const DETECT_MIN_NON_ASCII: usize = 16;

/// The legacy encoding the bytes most likely are in (windows-1252 when
/// nothing fits better or there is too little to go on).
fn detect(bytes: &[u8]) -> &'static Encoding {
    if bytes.iter().filter(|b| !b.is_ascii()).count() < DETECT_MIN_NON_ASCII {
        return WINDOWS_1252;
    }
    use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    detector.feed(bytes, true);
    let guess = detector.guess(None, Utf8Detection::Deny);
    if guess == UTF_8 { WINDOWS_1252 } else { guess }
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

    /// Undeclared pages in each legacy encoding decode to the right text.
    #[test]
    fn undeclared_legacy_encodings_are_detected() {
        let samples = [
            (
                "GBK",
                "中华人民共和国国务院今天发布了关于进一步加强经济工作的通知，要求各地区各部门认真贯彻落实。",
            ),
            (
                "Big5",
                "中華民國行政院今天公布了關於進一步加強經濟工作的通知，要求各地區各部門認真貫徹落實。",
            ),
            (
                "Shift_JIS",
                "日本政府は本日、経済対策の新しい方針を発表しました。東京都の担当者によると、来年から実施される予定です。",
            ),
            (
                "EUC-KR",
                "대한민국 정부는 오늘 새로운 경제 정책을 발표했습니다. 서울시 관계자에 따르면 내년부터 시행될 예정입니다.",
            ),
            (
                "windows-1251",
                "Правительство России сегодня объявило о новых мерах экономической политики, которые вступят в силу в следующем году.",
            ),
        ];
        for (name, text) in samples {
            let enc = Encoding::for_label(name.as_bytes()).unwrap();
            let page = format!("<html><body><p>{text}</p></body></html>");
            let (bytes, _, _) = enc.encode(&page);
            let d = decode_html(&bytes, None);
            assert_eq!(d.source, CharsetSource::Legacy, "{name}");
            assert!(d.html.contains(text), "{name}: decoded as {}", d.encoding);
        }
    }

    /// A wrong legacy declaration (meta or header) loses to valid UTF-8;
    /// a right one is kept.
    #[test]
    fn valid_utf8_beats_a_wrong_legacy_declaration() {
        let page = "<meta charset=gb2312><p>Grüße aus Zürich — 北京欢迎你</p>".as_bytes();
        let d = decode_html(page, None);
        assert_eq!(d.source, CharsetSource::Utf8Valid);
        assert!(d.html.contains("Grüße aus Zürich — 北京欢迎你"));
        let d = decode_html(page, Some("text/html; charset=iso-8859-1"));
        assert_eq!(d.source, CharsetSource::Utf8Valid);
        let (gbk, _, _) = encoding_rs::GBK.encode("<meta charset=gb2312><p>北京欢迎你</p>");
        let d = decode_html(&gbk, None);
        assert_eq!(d.source, CharsetSource::Meta);
        assert!(d.html.contains("北京欢迎你"));
        let ascii = decode_html(b"<meta charset=gb2312><p>plain", None);
        assert_eq!(ascii.source, CharsetSource::Meta);
    }

    #[test]
    fn undeclared_invalid_utf8_falls_back_to_windows_1252() {
        let d = decode_html(b"<p>na\xefve", None);
        assert_eq!(d.source, CharsetSource::Legacy);
        assert!(d.html.contains("naïve"));
    }
}
