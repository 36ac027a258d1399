//! Byte-level lexing of raw HTML, shared by the passes that run before the
//! parser ([`crate::nesting`] and the extractor's pre-scan): a tag's name,
//! where a tag ends, where a comment ends, where a raw-text element closes.
//!
//! They follow the HTML tokenizer where it matters for finding tags: a `>`
//! inside a quoted attribute value does not end a tag, a quote only opens a
//! value after `=`, and `</scriptx` does not close a `<script>`.

use memchr::{memchr, memchr2};

/// The tag name at the start of `rest` (ASCII letters, digits, `-`, `:`).
pub(crate) fn tag_name(rest: &[u8]) -> &[u8] {
    let len = rest
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'-' || *b == b':'))
        .unwrap_or(rest.len());
    &rest[..len]
}

/// Index just past the `>` that ends a tag whose attributes begin at
/// `from` (or the end of input), skipping quoted attribute values.
pub(crate) fn tag_end(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while let Some(off) = memchr2(b'>', b'=', bytes.get(i..).unwrap_or_default()) {
        let at = i + off;
        if bytes[at] == b'>' {
            return at + 1;
        }
        let value = at
            + 1
            + bytes[at + 1..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
        i = match bytes.get(value) {
            Some(&q @ (b'"' | b'\'')) => match memchr(q, &bytes[value + 1..]) {
                Some(off) => value + off + 2,
                None => return bytes.len(),
            },
            _ => value,
        };
    }
    bytes.len()
}

/// Index just past the end of a comment whose body starts at `body` (just
/// after `<!--`), or the end of input.
pub(crate) fn comment_end(bytes: &[u8], body: usize) -> usize {
    let tail = bytes.get(body..).unwrap_or_default();
    // `<!-->` and `<!--->` are complete (empty) comments.
    if tail.starts_with(b">") {
        return body + 1;
    }
    if tail.starts_with(b"->") {
        return body + 2;
    }
    let mut from = body;
    while let Some(off) = memchr(b'>', bytes.get(from..).unwrap_or_default()) {
        let gt = from + off;
        let before = &bytes[body..gt];
        if before.ends_with(b"--") || before.ends_with(b"--!") {
            return gt + 1;
        }
        from = gt + 1;
    }
    bytes.len()
}

/// Start of the `</name` that closes a raw-text element whose content
/// starts at `from` (or the end of input). `name` is ASCII; case is ignored.
pub(crate) fn find_close_tag(bytes: &[u8], from: usize, name: &[u8]) -> usize {
    let mut pos = from;
    while let Some(off) = memchr(b'<', bytes.get(pos..).unwrap_or_default()) {
        let lt = pos + off;
        let rest = &bytes[lt + 1..];
        if rest.first() == Some(&b'/')
            && rest.len() > name.len()
            && rest[1..=name.len()].eq_ignore_ascii_case(name)
        {
            let after = rest.get(name.len() + 1).copied();
            if matches!(
                after,
                None | Some(b'>' | b'/' | b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')
            ) {
                return lt;
            }
        }
        pos = lt + 1;
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quoted_gt_does_not_end_a_tag_but_a_bare_quote_opens_nothing() {
        let tag = br#"<a title="a>b" data-x = 'c>d'>rest"#;
        assert_eq!(tag_end(tag, 2), tag.len() - 4);
        let bare = b"<a title=don't>x'>";
        assert_eq!(tag_end(bare, 2), 15);
        assert_eq!(tag_end(b"<a href=\"x>", 2), 11);
        assert_eq!(tag_end(b"<a", 2), 2);
    }

    #[test]
    fn comments_end_where_the_tokenizer_ends_them() {
        assert_eq!(comment_end(b"<!-->x", 4), 5);
        assert_eq!(comment_end(b"<!--->x", 4), 6);
        assert_eq!(comment_end(b"<!-- a > b -->x", 4), 14);
        assert_eq!(comment_end(b"<!-- a --!>x", 4), 11);
        assert_eq!(comment_end(b"<!-- open", 4), 9);
    }

    #[test]
    fn a_raw_text_element_closes_at_its_own_end_tag_only() {
        let html = b"<script>a</scripts>b</SCRIPT >";
        assert_eq!(find_close_tag(html, 8, b"script"), 20);
        assert_eq!(find_close_tag(b"<script>x</script", 8, b"script"), 9);
        assert_eq!(find_close_tag(b"<script>x", 8, b"script"), 9);
    }

    #[test]
    fn tag_names_stop_at_the_first_other_byte() {
        assert_eq!(tag_name(b"o:p class=x>"), b"o:p");
        assert_eq!(tag_name(b"x-card>"), b"x-card");
        assert_eq!(tag_name(b"br/>"), b"br");
    }
}
