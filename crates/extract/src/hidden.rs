//! Whether an element is hidden from a person reading the page: the one
//! rule the extractor, the safety scan and the table reader share.
//!
//! An element is hidden in one of three ways ([`Hiding`]):
//! - **removed**: not rendered at all — the `hidden` attribute,
//!   `display:none`, `visibility:hidden` or `collapse`, or Bootstrap's
//!   `d-none` unless a responsive class (`d-md-block` …) shows it again.
//!   Its text is not the page's text: the extractor and the table reader
//!   leave it out.
//! - **concealed**: rendered but not visible — `font-size:0`, `opacity:0`,
//!   off-screen indent or position, text coloured like its background, a
//!   zero-size box with `overflow:hidden`, clipped to nothing. The
//!   extractor keeps it (fade-ins and screen-reader text are common); the
//!   safety scan flags it.
//! - **from assistive technology only**: `aria-hidden="true"`.
//!
//! [`element_hiding`] reads an element's own markup; [`style_hiding`] reads
//! declarations, so the safety scan applies it to the page's `<style>`
//! rules too.

use std::collections::HashMap;

use scraper::node::Element;

/// How an element is hidden (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hiding {
    /// Not rendered; the reason (`display:none`, `hidden attribute` …).
    Removed(&'static str),
    /// Rendered but invisible; the technique (`opacity:0` …).
    Concealed(&'static str),
    /// `aria-hidden="true"`: hidden from assistive technology only.
    AriaHidden,
}

impl Hiding {
    /// The technique that hides it from a person (`None` for
    /// [`Hiding::AriaHidden`]).
    pub fn reason(self) -> Option<&'static str> {
        match self {
            Hiding::Removed(r) | Hiding::Concealed(r) => Some(r),
            Hiding::AriaHidden => None,
        }
    }

    /// Not rendered at all.
    pub fn is_removed(self) -> bool {
        matches!(self, Hiding::Removed(_))
    }
}

/// How `el` hides itself, the strongest way first: removed (its inline
/// style, the `hidden` attribute, a display class), then concealed (its
/// inline style), then from assistive technology only
/// (`aria-hidden="true"`).
pub fn element_hiding(el: &Element) -> Option<Hiding> {
    let style = el.attr("style").and_then(style_hiding);
    if style.is_some_and(Hiding::is_removed) {
        return style;
    }
    if let Some(reason) = removed_by_markup(el) {
        return Some(Hiding::Removed(reason));
    }
    if style.is_some() {
        return style;
    }
    aria_hidden(el).then_some(Hiding::AriaHidden)
}

/// Whether `el` is not rendered: [`element_hiding`] is [`Hiding::Removed`].
/// The extractor asks this of every element, so a style that names none of
/// `none`, `hidden` or `collapse` is passed over without being parsed.
pub fn is_removed(el: &Element) -> bool {
    removed_by_markup(el).is_some()
        || el.attr("style").is_some_and(|css| {
            ["none", "hidden", "collapse"]
                .iter()
                .any(|word| contains_ignoring_case(css, word))
                && style_hiding(css).is_some_and(Hiding::is_removed)
        })
}

/// Why `el`'s markup (not its style) removes it: the `hidden` attribute or
/// a display class.
fn removed_by_markup(el: &Element) -> Option<&'static str> {
    if el.attr("hidden").is_some() {
        return Some("hidden attribute");
    }
    el.attr("class")
        .is_some_and(|c| c.contains("d-none") && hidden_by_display_class(c))
        .then_some("display class d-none")
}

/// Whether `text` holds `word` (ASCII, lowercase) in any case.
fn contains_ignoring_case(text: &str, word: &str) -> bool {
    text.as_bytes()
        .windows(word.len())
        .any(|w| w.eq_ignore_ascii_case(word.as_bytes()))
}

/// Whether `el` is marked `aria-hidden="true"`.
pub fn aria_hidden(el: &Element) -> bool {
    el.attr("aria-hidden")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// The display utility classes of Bootstrap, the most used CSS framework:
/// `d-none` hides an element at every width unless a responsive class
/// (`d-md-block`, `d-lg-flex`, …) shows it again from some screen width on.
/// `d-print-*` only applies to print, so it does not.
fn hidden_by_display_class(class: &str) -> bool {
    let mut none = false;
    for token in class.split_ascii_whitespace() {
        if token == "d-none" {
            none = true;
        } else if let Some(rest) = token.strip_prefix("d-")
            && let Some((breakpoint, display)) = rest.split_once('-')
            && matches!(breakpoint, "sm" | "md" | "lg" | "xl" | "xxl")
            && display != "none"
        {
            return false;
        }
    }
    none
}

/// How these declarations (an inline `style` or a CSS rule's body) hide
/// their element, if they do.
pub fn style_hiding(css: &str) -> Option<Hiding> {
    let d = declarations(css);
    let get = |k: &str| d.get(k).map(String::as_str);
    if get("display") == Some("none") {
        return Some(Hiding::Removed("display:none"));
    }
    if matches!(get("visibility"), Some("hidden" | "collapse")) {
        return Some(Hiding::Removed("visibility:hidden"));
    }
    if get("font-size").is_some_and(is_zero_length) {
        return Some(Hiding::Concealed("font-size:0"));
    }
    if get("opacity").and_then(|v| v.parse::<f64>().ok()) == Some(0.0) {
        return Some(Hiding::Concealed("opacity:0"));
    }
    if get("text-indent")
        .and_then(css_length_px)
        .is_some_and(|n| n <= -999.0)
    {
        return Some(Hiding::Concealed("off-screen text-indent"));
    }
    let positioned = matches!(get("position"), Some("absolute" | "fixed"));
    if positioned
        && ["left", "top", "right", "margin-left", "margin-top"]
            .iter()
            .any(|k| get(k).and_then(css_length_px).is_some_and(|n| n <= -999.0))
    {
        return Some(Hiding::Concealed("positioned off-screen"));
    }
    if let Some(color) = get("color") {
        let bg = get("background-color").or_else(|| get("background"));
        if let Some(bg) = bg
            && normalize_color(color) == normalize_color(bg)
        {
            return Some(Hiding::Concealed("text coloured like its background"));
        }
    }
    let zero_box = get("height").is_some_and(is_zero_length)
        || get("max-height").is_some_and(is_zero_length)
        || get("width").is_some_and(is_zero_length);
    if zero_box && get("overflow") == Some("hidden") {
        return Some(Hiding::Concealed("zero-size box with overflow:hidden"));
    }
    if positioned && get("clip").is_some_and(|c| c.replace(' ', "").starts_with("rect(0")) {
        return Some(Hiding::Concealed("clipped to nothing"));
    }
    None
}

/// Parses `prop: value` pairs (lower-cased, `!important` dropped).
fn declarations(css: &str) -> HashMap<String, String> {
    css.split(';')
        .filter_map(|decl| {
            let (k, v) = decl.split_once(':')?;
            let v = v.to_ascii_lowercase().replace("!important", "");
            Some((k.trim().to_ascii_lowercase(), v.trim().to_string()))
        })
        .collect()
}

fn css_length_px(v: &str) -> Option<f64> {
    let v = v.trim();
    let num: String = v
        .chars()
        .take_while(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | '.'))
        .collect();
    let n: f64 = num.parse().ok()?;
    let unit = v[num.len()..].trim();
    Some(match unit {
        "" | "px" => n,
        "em" | "rem" => n * 16.0,
        "pt" => n * 4.0 / 3.0,
        "vw" | "vh" | "%" => n * 10.0,
        _ => n,
    })
}

fn is_zero_length(v: &str) -> bool {
    css_length_px(v).is_some_and(|n| n == 0.0)
}

fn normalize_color(v: &str) -> String {
    let v = v.trim().to_ascii_lowercase().replace(' ', "");
    match v.as_str() {
        "#fff" | "#ffffff" | "white" | "rgb(255,255,255)" => "white".into(),
        "#000" | "#000000" | "black" | "rgb(0,0,0)" => "black".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_classes_hide_unless_a_breakpoint_shows_them() {
        assert!(hidden_by_display_class("d-none"));
        assert!(hidden_by_display_class("label d-none"));
        assert!(hidden_by_display_class("d-none d-print-block"));
        assert!(hidden_by_display_class("d-none d-md-none"));
        assert!(!hidden_by_display_class("d-none d-md-block"));
        assert!(!hidden_by_display_class("d-lg-flex d-none"));
        assert!(!hidden_by_display_class("d-none-ish"));
        assert!(!hidden_by_display_class("d-block"));
    }

    #[test]
    fn is_removed_agrees_with_element_hiding() {
        let html = scraper::Html::parse_fragment(
            r#"<p hidden>a</p><p class="d-none">b</p><p style="DISPLAY: NONE">c</p>
               <p style="opacity:0">d</p><p aria-hidden="true">e</p><p style="color:red">f</p>
               <p class="d-none d-md-block">g</p><p style="visibility: collapse">h</p>"#,
        );
        for node in html.tree.nodes() {
            if let Some(el) = node.value().as_element() {
                assert_eq!(
                    is_removed(el),
                    element_hiding(el).is_some_and(Hiding::is_removed),
                    "{el:?}"
                );
            }
        }
    }

    #[test]
    fn styles_remove_or_conceal() {
        assert_eq!(
            style_hiding("DISPLAY: none !important"),
            Some(Hiding::Removed("display:none"))
        );
        assert_eq!(
            style_hiding("visibility:collapse"),
            Some(Hiding::Removed("visibility:hidden"))
        );
        assert_eq!(
            style_hiding("opacity: 0"),
            Some(Hiding::Concealed("opacity:0"))
        );
        assert_eq!(
            style_hiding("font-size:0px"),
            Some(Hiding::Concealed("font-size:0"))
        );
        assert_eq!(style_hiding("color: red; display: block"), None);
    }
}
