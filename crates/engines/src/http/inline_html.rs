//! Inline markup in API snippets (`<strong>Laravel</strong>`,
//! `<span class="searchmatch">caffeine</span>`, `&quot;`) turned into
//! plain text.

/// `text` without tags, with character references decoded and whitespace
/// collapsed to single spaces.
pub fn to_text(text: &str) -> String {
    let mut stripped = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' if !in_tag => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if in_tag => {}
            c => stripped.push(c),
        }
    }
    collapse_whitespace(&decode_entities(&stripped))
}

/// Whitespace runs collapsed to one space, ends trimmed.
pub fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

const NAMED: &[(&str, char)] = &[
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("nbsp", ' '),
    ("hellip", '…'),
    ("mdash", '—'),
    ("ndash", '–'),
    ("middot", '·'),
    ("rsquo", '’'),
    ("lsquo", '‘'),
    ("rdquo", '”'),
    ("ldquo", '“'),
];

/// Decode `&name;`, `&#NN;` and `&#xHH;` references; unknown ones stay.
pub fn decode_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let window = tail
            .char_indices()
            .take_while(|(i, _)| *i < 12)
            .last()
            .map_or(0, |(i, c)| i + c.len_utf8());
        let end = tail[..window].find(';');
        let decoded = end.and_then(|end| {
            let name = &tail[1..end];
            let c = if let Some(num) = name.strip_prefix("#x").or_else(|| name.strip_prefix("#X")) {
                u32::from_str_radix(num, 16).ok().and_then(char::from_u32)
            } else if let Some(num) = name.strip_prefix('#') {
                num.parse::<u32>().ok().and_then(char::from_u32)
            } else {
                NAMED.iter().find(|(n, _)| *n == name).map(|(_, c)| *c)
            };
            c.map(|c| (c, end + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &tail[len..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn strips_highlight_markup_and_decodes_entities() {
        assert_eq!(
            to_text("<strong>Laravel</strong> is a PHP  framework &amp; more"),
            "Laravel is a PHP framework & more"
        );
        assert_eq!(
            to_text(
                r#"<span class="searchmatch">Caffeine</span>-induced &quot;sleep&quot; &#39;x&#x27;"#
            ),
            r#"Caffeine-induced "sleep" 'x'"#
        );
        assert_eq!(decode_entities("AT&T &bogus; &"), "AT&T &bogus; &");
    }

    proptest! {
        #[test]
        fn never_panics_and_is_trimmed(s in "\\PC{0,80}") {
            let t = to_text(&s);
            prop_assert!(!t.starts_with(' ') && !t.ends_with(' '));
        }
    }
}
