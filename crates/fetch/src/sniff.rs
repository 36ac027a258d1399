//! What a body really is, whatever its `Content-Type` says: content
//! sniffing before any judgement, so that a PDF, an archive, an image or
//! random bytes served as `text/html` are never read as text.
//!
//! - [`sniff_body`]: magic numbers at the start of the body (PDF after
//!   leading whitespace, gzip, zip, PNG, JPEG, GIF, WebP, ELF, wasm, 7z, rar,
//!   xz, zstd, bzip2, Ogg, MP4/QuickTime), then in the first 8 KiB the share
//!   of NUL bytes (above 1 %) and of other C0 control bytes (above 5 %):
//!   binary. A UTF-16 body with its BOM is text.
//! - [`degenerate_text`]: decoded text that is not prose — empty, one
//!   repeated token, mostly replacement characters, control characters, or
//!   symbols that only mojibake produces. Such a page is `thin`, never
//!   `ok`.

/// What the first bytes of a body say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sniffed {
    /// A PDF document.
    Pdf,
    /// Another binary format (what it is).
    Binary(&'static str),
    /// Nothing says it is not text.
    Text,
}

/// Bytes scanned for NULs.
const NUL_WINDOW: usize = 8 * 1024;

/// `(offset, magic, what)`: formats recognised by their first bytes.
const MAGIC: &[(usize, &[u8], &str)] = &[
    (0, b"\x1f\x8b", "gzip data"),
    (0, b"PK\x03\x04", "a zip archive"),
    (0, b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (0, b"\xff\xd8\xff", "a JPEG image"),
    (0, b"GIF87a", "a GIF image"),
    (0, b"GIF89a", "a GIF image"),
    (8, b"WEBP", "a WebP image"),
    (0, b"\x7fELF", "an ELF executable"),
    (0, b"\x00asm", "WebAssembly"),
    (0, b"7z\xbc\xaf\x27\x1c", "a 7z archive"),
    (0, b"Rar!\x1a\x07", "a RAR archive"),
    (0, b"\xfd7zXZ\x00", "xz data"),
    (0, b"\x28\xb5\x2f\xfd", "zstd data"),
    (0, b"OggS\x00", "an Ogg stream"),
    (4, b"ftyp", "an MP4/QuickTime file"),
];

/// Sniff `body` (see the module docs).
pub(crate) fn sniff_body(body: &[u8]) -> Sniffed {
    let start = body
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(body.len());
    if body[start..].starts_with(b"%PDF-") {
        return Sniffed::Pdf;
    }
    if let Some((_, _, what)) = MAGIC
        .iter()
        .find(|(at, magic, _)| body.get(*at..*at + magic.len()) == Some(*magic))
    {
        return Sniffed::Binary(what);
    }
    if body.starts_with(b"BZh") && body.get(3).is_some_and(|b| (b'1'..=b'9').contains(b)) {
        return Sniffed::Binary("bzip2 data");
    }
    let utf16 = body.starts_with(b"\xff\xfe") || body.starts_with(b"\xfe\xff");
    let window = &body[..body.len().min(NUL_WINDOW)];
    if utf16 || window.is_empty() {
        return Sniffed::Text;
    }
    let nuls = window.iter().filter(|b| **b == 0).count();
    if nuls * 100 > window.len() {
        return Sniffed::Binary("binary data (NUL bytes)");
    }
    // C0 control bytes other than tab, newlines and form feed never occur in
    // text of any ASCII-compatible encoding.
    let controls = window
        .iter()
        .filter(|b| matches!(b, 0x01..=0x08 | 0x0e..=0x1a | 0x1c..=0x1f | 0x7f))
        .count();
    if controls * 20 > window.len() {
        return Sniffed::Binary("binary data (control bytes)");
    }
    Sniffed::Text
}

/// Tokens looked at for repetition.
const TOKEN_WINDOW: usize = 20_000;

/// Why decoded `text` is not prose, or `None` when it reads as text.
pub(crate) fn degenerate_text(text: &str) -> Option<&'static str> {
    let mut total = 0usize;
    let (mut replacement, mut control, mut odd) = (0usize, 0usize, 0usize);
    for c in text.chars() {
        if c.is_whitespace() {
            continue;
        }
        total += 1;
        if c == '\u{FFFD}' {
            replacement += 1;
        } else if c.is_control() {
            control += 1;
        } else if !(c.is_alphanumeric() || c.is_ascii_punctuation() || is_common_symbol(c)) {
            odd += 1;
        }
    }
    if total == 0 {
        return Some("no text");
    }
    if replacement * 5 > total {
        return Some("mostly replacement characters (U+FFFD): bytes in no text encoding");
    }
    if control * 10 > total {
        return Some("control characters: binary bytes read as text");
    }
    if total >= 200 && odd * 100 > total * 15 {
        return Some("mostly symbols: binary bytes read as text");
    }
    repeated_token(text)
}

/// Punctuation and symbols ordinary prose uses beyond ASCII.
fn is_common_symbol(c: char) -> bool {
    matches!(c,
        '\u{2010}'..='\u{205E}' // dashes, quotes, bullets, ellipsis, primes
        | '\u{3000}'..='\u{303F}' // CJK punctuation
        | '\u{FF00}'..='\u{FFEF}' // full-width forms
        | '\u{20A0}'..='\u{20CF}' // currency
        | '\u{2100}'..='\u{218F}' // letter-like symbols, number forms
        | '\u{2190}'..='\u{23FF}' // arrows, math, technical
        | '\u{2460}'..='\u{27BF}' // enclosed, boxes, dingbats
        | '\u{1F300}'..='\u{1FAFF}' // emoji
        | '«' | '»' | '°' | '©' | '®' | '§' | '¿' | '¡' | '·' | '£' | '¥' | '¢' | '±' | '×' | '÷'
    )
}

/// One token (or two or three, alternating) repeated throughout.
fn repeated_token(text: &str) -> Option<&'static str> {
    let mut distinct: Vec<&str> = Vec::new();
    let mut tokens = 0usize;
    for token in text.split_whitespace().take(TOKEN_WINDOW) {
        tokens += 1;
        if !distinct.contains(&token) {
            if distinct.len() == 3 {
                return None;
            }
            distinct.push(token);
        }
    }
    if tokens >= 50 {
        return Some("one token repeated over and over");
    }
    // A single run without spaces: one character or a short unit repeated.
    let compact: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    if tokens <= 3 && compact.len() >= 200 {
        let unit = (1..=8).find(|n| {
            compact.len().is_multiple_of(*n) && compact.chunks(*n).all(|c| c == &compact[..*n])
        });
        if unit.is_some() {
            return Some("one token repeated over and over");
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_numbers_win_over_the_content_type() {
        assert_eq!(sniff_body(b"%PDF-1.7\n%\xe2\xe3"), Sniffed::Pdf);
        assert_eq!(sniff_body(b"\n  %PDF-1.4"), Sniffed::Pdf);
        assert_eq!(
            sniff_body(b"\x1f\x8b\x08\x00rest"),
            Sniffed::Binary("gzip data")
        );
        assert_eq!(
            sniff_body(b"PK\x03\x04...."),
            Sniffed::Binary("a zip archive")
        );
        assert_eq!(
            sniff_body(b"RIFF\x00\x00\x00\x00WEBPVP8 "),
            Sniffed::Binary("a WebP image")
        );
        assert_eq!(sniff_body(b"<!doctype html><p>PK</p>"), Sniffed::Text);
        assert_eq!(sniff_body(b"BZh is a word"), Sniffed::Text);
    }

    #[test]
    fn nul_bytes_mean_binary_unless_utf16() {
        let mut body = b"<html>".to_vec();
        body.extend(std::iter::repeat_n(0u8, 200));
        body.extend(b"text".repeat(100));
        assert!(matches!(sniff_body(&body), Sniffed::Binary(_)));
        let utf16: Vec<u8> = "\u{FEFF}<p>hi</p>"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(sniff_body(&utf16), Sniffed::Text);
    }

    #[test]
    fn degenerate_texts_are_named() {
        assert!(degenerate_text("").is_some());
        assert!(degenerate_text("\u{FFFD}").is_some());
        assert!(degenerate_text(&"spam ".repeat(5000)).is_some());
        assert!(degenerate_text(&"ab ab cd ".repeat(100)).is_some());
        assert!(degenerate_text(&"x".repeat(10_000)).is_some());
        let mojibake: String = (0..2000u32)
            .map(|i| char::from_u32(0xA0 + (i * 7) % 32).unwrap())
            .collect();
        assert!(degenerate_text(&mojibake).is_some());
    }

    #[test]
    fn prose_in_any_script_is_not_degenerate() {
        for text in [
            "The quick brown fox jumps over the lazy dog. It was 18 °C — “quite warm”, she said.",
            "东京是日本的首都，人口约一千四百万。它也是世界上最大的都市圈之一。",
            "서울은 대한민국의 수도이며, 인구는 약 천만 명이다.",
            "{\"name\": \"ferret\", \"version\": \"0.1.0\", \"tags\": [\"search\", \"agents\"]}",
            "ok",
        ] {
            assert_eq!(degenerate_text(text), None, "{text}");
        }
    }
}
