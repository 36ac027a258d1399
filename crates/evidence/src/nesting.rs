//! A guard against pathological nesting before the HTML5 parser runs.
//!
//! html5ever's scope checks cost time proportional to the depth of the
//! open-element stack, so a page of 100 000 unclosed `<div>`s takes minutes
//! to parse. Real pages stay far below [`MAX_NESTING`]; beyond it, deeper
//! start tags are dropped (their text stays). Pages within the limit are
//! returned untouched, without copying.

use std::borrow::Cow;

/// Deepest element nesting kept.
pub(crate) const MAX_NESTING: usize = 512;

/// Elements that never have content.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr", "param", "keygen", "frame", "basefont", "bgsound",
];

/// Elements whose end tag is usually implied by the next sibling, so a run
/// of them does not nest (`<li>a<li>b`); they do not count towards depth.
const IMPLIED_END: &[&str] = &[
    "p", "li", "dt", "dd", "td", "th", "tr", "option", "optgroup", "tbody", "thead", "tfoot",
    "colgroup", "caption", "rb", "rt", "rp", "rtc",
];

/// Elements whose content is raw text: no tags inside until their end tag.
const RAW_TEXT: &[&str] = &[
    "script",
    "style",
    "textarea",
    "title",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "plaintext",
];

/// `html` with start tags beyond [`MAX_NESTING`] removed; borrowed when
/// nothing had to go.
pub(crate) fn cap_nesting(html: &str) -> Cow<'_, str> {
    if scan(html, None) {
        return Cow::Borrowed(html);
    }
    let mut out = String::with_capacity(html.len());
    scan(html, Some(&mut out));
    Cow::Owned(out)
}

/// Walks the tags; with `out`, copies everything except start tags that
/// would go too deep. Returns true when no tag was (or would be) dropped.
fn scan(html: &str, mut out: Option<&mut String>) -> bool {
    let bytes = html.as_bytes();
    let mut depth = 0usize;
    let mut ok = true;
    let mut copied = 0usize; // bytes of `html` already handled for `out`
    let mut i = 0usize;
    while let Some(off) = memchr::memchr(b'<', &bytes[i..]) {
        let lt = i + off;
        let rest = &bytes[lt + 1..];
        if rest.starts_with(b"!--") {
            i = find(bytes, lt + 4, b"-->").map_or(bytes.len(), |e| e + 3);
            continue;
        }
        if rest.first().is_some_and(|b| *b == b'!' || *b == b'?') {
            i = memchr::memchr(b'>', &bytes[lt..]).map_or(bytes.len(), |e| lt + e + 1);
            continue;
        }
        let closing = rest.first() == Some(&b'/');
        let name_start = lt + 1 + usize::from(closing);
        let name_len = bytes[name_start..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-')
            .count();
        if name_len == 0 || !bytes[name_start].is_ascii_alphabetic() {
            i = lt + 1;
            continue;
        }
        let name = html[name_start..name_start + name_len].to_ascii_lowercase();
        let tag_end = tag_end(bytes, name_start + name_len);
        let self_closing = tag_end >= 2 && bytes[tag_end - 2] == b'/';
        i = tag_end;
        if closing {
            if !VOID.contains(&name.as_str()) && !IMPLIED_END.contains(&name.as_str()) {
                depth = depth.saturating_sub(1);
            }
            continue;
        }
        if RAW_TEXT.contains(&name.as_str()) {
            let close = format!("</{name}");
            i = find_ignore_case(bytes, tag_end, close.as_bytes()).unwrap_or(bytes.len());
            continue;
        }
        if VOID.contains(&name.as_str()) || IMPLIED_END.contains(&name.as_str()) || self_closing {
            continue;
        }
        if depth >= MAX_NESTING {
            ok = false;
            if let Some(o) = out.as_deref_mut() {
                o.push_str(&html[copied..lt]);
                copied = tag_end;
            } else {
                return false;
            }
            continue;
        }
        depth += 1;
    }
    if let Some(o) = out {
        o.push_str(&html[copied..]);
    }
    ok
}

/// Index one past the `>` that ends a tag whose name ends at `from`
/// (quoted attribute values may hold `>`).
fn tag_end(bytes: &[u8], from: usize) -> usize {
    let mut quote: Option<u8> = None;
    for (k, &b) in bytes[from..].iter().enumerate() {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b'>' => return from + k + 1,
            None => {}
        }
    }
    bytes.len()
}

fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

fn find_ignore_case(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
        .map(|p| from + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_pages_are_borrowed() {
        let html = "<ul><li>a<li>b</ul><p>x<p>y<br><img src=a><script>if (a<b) {}</script>";
        assert!(matches!(cap_nesting(html), Cow::Borrowed(_)));
    }

    #[test]
    fn deep_nesting_is_capped_and_text_kept() {
        let html = "<div>".repeat(MAX_NESTING + 100) + "deep text";
        let capped = cap_nesting(&html);
        assert_eq!(capped.matches("<div>").count(), MAX_NESTING);
        assert!(capped.ends_with("deep text"));
    }

    #[test]
    fn quoted_brackets_and_comments_do_not_confuse_it() {
        let html = format!(
            "<a title=\"<div>\">x</a><!-- {} -->",
            "<div>".repeat(MAX_NESTING * 2)
        );
        assert!(matches!(cap_nesting(&html), Cow::Borrowed(_)));
    }
}
