//! Recognising pages that are empty JavaScript application shells: almost no
//! text, scripts that would render it, and usually a mount point such as
//! `<div id="root">`. The adaptive fetch ladder escalates those to a browser.

use serde::{Deserialize, Serialize};

use super::dom::{Dom, Tag};

/// Element ids that single-page-application frameworks mount into.
const MOUNT_IDS: &[&str] = &[
    "root",
    "app",
    "__next",
    "__nuxt",
    "___gatsby",
    "svelte",
    "app-root",
    "main-app",
    "react-root",
    "react-app",
    "application",
    "ember-app",
    "q-app",
];

/// Custom elements used as application roots (Angular and friends).
const MOUNT_ELEMENTS: &[&str] = &["app-root", "my-app", "ng-app"];

/// Visible text (whole body) below which a page with shell markers counts as
/// an empty shell.
const SHELL_MAX_BODY_CHARS: u32 = 300;
/// Scripts that, on a page with almost no text, mark it as a shell even
/// without a known mount point.
const SHELL_MIN_SCRIPTS: usize = 3;

/// What the page says about needing JavaScript to show its content.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShellSignals {
    /// Number of `<script>` elements.
    pub script_count: usize,
    /// Bytes of inline script code.
    pub inline_script_bytes: usize,
    /// Visible text in the whole body (before extraction), in characters
    /// with whitespace runs counted once and a CJK character counted as
    /// three (the extractor's text weight: each stands for a syllable or a
    /// word).
    pub body_text_chars: usize,
    /// The id (`#root`) or element name (`<app-root>`) of an application
    /// mount point, if one was found.
    pub mount_point: Option<String>,
    /// A `<noscript>` block asks for JavaScript.
    pub noscript_asks_for_javascript: bool,
    /// The page looks like an empty JavaScript shell: fetch it with a browser.
    pub looks_like_js_shell: bool,
}

/// Computes the shell signals.
pub(crate) fn signals(
    dom: &Dom<'_>,
    body_text_chars: u32,
    main_text_chars: usize,
    script_count: usize,
    inline_script_bytes: usize,
    noscript_asks_for_javascript: bool,
) -> ShellSignals {
    let mut mount_point = None;
    for node in &dom.nodes {
        let Some(el) = node.el else { continue };
        if node.tag == Tag::Custom && MOUNT_ELEMENTS.contains(&el.name()) {
            mount_point = Some(format!("<{}>", el.name()));
            break;
        }
        if let Some(id) = el.id()
            && MOUNT_IDS.iter().any(|m| m.eq_ignore_ascii_case(id))
            && matches!(
                node.tag,
                Tag::Div | Tag::Main | Tag::Section | Tag::Body | Tag::Custom
            )
        {
            mount_point = Some(format!("#{id}"));
            break;
        }
    }
    let thin =
        body_text_chars < SHELL_MAX_BODY_CHARS && main_text_chars < SHELL_MAX_BODY_CHARS as usize;
    let looks_like_js_shell = thin
        && (mount_point.is_some()
            || noscript_asks_for_javascript
            || script_count >= SHELL_MIN_SCRIPTS);
    ShellSignals {
        script_count,
        inline_script_bytes,
        body_text_chars: body_text_chars as usize,
        mount_point,
        noscript_asks_for_javascript,
        looks_like_js_shell,
    }
}
