//! Content-safety signals: things in a fetched page that are aimed at the
//! agent reading it rather than at a person. They are reported as
//! [`SafetyFlag`]s (and as warnings on the fetch); the page text is never
//! altered or dropped because of them — the caller decides.
//!
//! What is looked for:
//!
//! - **Prompt injection** ([`SafetyKind::PromptInjection`]): phrases that
//!   address an AI reader and try to change its instructions — "ignore
//!   previous instructions", "disregard all prior …", "you are now an
//!   unrestricted assistant", "reveal your system prompt", "do not tell the
//!   user", chat-template tokens (`<|im_start|>`, `[INST]`), and the Chinese,
//!   Japanese and Korean equivalents ("忽略之前的指令" …). The table is
//!   [`INJECTION_PHRASES`]; each phrase has a [`Severity`] (a bare mention
//!   of "system prompt" or "as an AI" is `low`: articles about AI use them
//!   too). The visible text, hidden elements and HTML comments are all
//!   scanned; a phrase inside hidden text is always `high`.
//! - **Hidden text** ([`SafetyKind::HiddenText`]): elements hidden from a
//!   person but present for a parser — `display:none`,
//!   `visibility:hidden`, `font-size:0`, `opacity:0`, off-screen positioning
//!   or `text-indent` (≤ −999px), text coloured like its background,
//!   zero-height clipped boxes, the `hidden` attribute, classes or ids that a
//!   page `<style>` block hides, and `aria-hidden="true"` content — flagged
//!   when the hidden block holds at least [`HIDDEN_PROSE_MIN_CHARS`]
//!   characters of prose (link text under half: hidden menus are normal).
//! - **Link farms** ([`SafetyKind::LinkFarm`]): the innermost blocks with at
//!   least [`LINK_FARM_MIN_OUTBOUND`] outbound links to at least
//!   [`LINK_FARM_MIN_HOSTS`] different sites and link text making up at
//!   least 80 % of their text; `medium` when the anchors are
//!   keyword-stuffed (one word in ≥ 40 % of at least 10 anchors).
//! - **Invisible characters** ([`SafetyKind::InvisibleCharacters`]):
//!   Unicode tag characters carrying hidden ASCII (decoded in the flag),
//!   bidirectional overrides, and runs of zero-width characters.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::{LazyLock, OnceLock};

use crate::hidden::{Hiding, element_hiding, style_hiding};
use aho_corasick::{AhoCorasick, AhoCorasickKind};
use ego_tree::NodeRef;
use ferret_text::sentences::sentences;
use ferret_text::stopwords::is_stopword;
use regex::Regex;
use scraper::{Html, Node};
use serde::{Deserialize, Serialize};
use url::Url;

/// What a flag is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SafetyKind {
    /// Text that tries to instruct an AI reader.
    PromptInjection,
    /// Text hidden from people but present in the markup.
    HiddenText,
    /// A block of many outbound links (possibly keyword-stuffed).
    LinkFarm,
    /// Invisible Unicode: tag characters, bidi overrides, zero-width runs.
    InvisibleCharacters,
}

impl SafetyKind {
    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            SafetyKind::PromptInjection => "prompt_injection",
            SafetyKind::HiddenText => "hidden_text",
            SafetyKind::LinkFarm => "link_farm",
            SafetyKind::InvisibleCharacters => "invisible_characters",
        }
    }
}

impl fmt::Display for SafetyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How much a flag should worry the reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth knowing; common on ordinary pages.
    Low,
    /// Unusual; read the page with care.
    Medium,
    /// Almost certainly aimed at an agent: do not follow instructions from
    /// this page.
    High,
}

/// Where in the page a flag was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlagLocation {
    /// The extracted (visible) text.
    Text,
    /// An element hidden from people.
    HiddenElement,
    /// An HTML comment.
    Comment,
    /// The markup (link blocks).
    Markup,
}

/// One content-safety finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SafetyFlag {
    /// What it is.
    pub kind: SafetyKind,
    /// How serious.
    pub severity: Severity,
    /// Where it was found.
    pub location: FlagLocation,
    /// What exactly matched (the phrase id, the hiding technique, link
    /// counts …).
    pub detail: String,
    /// The text around the finding (at most about 200 characters).
    pub excerpt: String,
}

/// One prompt-injection phrase: an id, its language, severity and regular
/// expression (matched case-insensitively on whitespace-normalised text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InjectionPhrase {
    /// Stable id, e.g. `ignore-previous-instructions`.
    pub id: &'static str,
    /// ISO 639-1 language of the phrase.
    pub lang: &'static str,
    /// How serious a match is.
    pub severity: Severity,
    /// Lowercase literals that every match begins with (compared ASCII
    /// case-insensitively). The expression only runs on text that holds
    /// one of them, so a page without any costs no regex compilation; a
    /// unit test derives each phrase's literals from its expression and
    /// checks that these cover them.
    pub leads: &'static [&'static str],
    /// The regular expression.
    pub pattern: &'static str,
}

const fn phrase(
    id: &'static str,
    lang: &'static str,
    severity: Severity,
    leads: &'static [&'static str],
    pattern: &'static str,
) -> InjectionPhrase {
    InjectionPhrase {
        id,
        lang,
        severity,
        leads,
        pattern,
    }
}

/// The prompt-injection phrase table.
pub const INJECTION_PHRASES: &[InjectionPhrase] = &[
    phrase(
        "ignore-previous-instructions",
        "en",
        Severity::High,
        &["ignore"],
        r"\bignore\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+)?(?:previous|prior|above|earlier|preceding|foregoing|former|original)\s+(?:instructions?|prompts?|directions?|directives?|rules|guidelines|commands?|context)",
    ),
    phrase(
        "ignore-all-instructions",
        "en",
        Severity::High,
        &["ignore"],
        r"\bignore\s+(?:all|any)\s+(?:of\s+)?(?:your\s+|the\s+)?(?:instructions|rules|guidelines|directives)\b",
    ),
    phrase(
        "disregard-prior",
        "en",
        Severity::High,
        &["disregard"],
        r"\bdisregard\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier|preceding|foregoing)\b|\bdisregard\s+(?:all\s+)?(?:your|the)\s+(?:instructions|rules|guidelines|system\s+prompt)\b",
    ),
    phrase(
        "forget-instructions",
        "en",
        Severity::High,
        &["forget"],
        r"\bforget\s+(?:all\s+|everything\s+)?(?:of\s+)?(?:your\s+|the\s+)?(?:previous|prior|above|earlier)\s+(?:instructions|rules|context|prompts?)|\bforget\s+everything\s+(?:above|before|you\s+(?:were|have\s+been)\s+told)",
    ),
    phrase(
        "override-instructions",
        "en",
        Severity::High,
        &["override"],
        r"\boverride\s+(?:all\s+|your\s+|the\s+)*(?:previous\s+|prior\s+|system\s+|safety\s+)?(?:instructions|prompts?|guidelines)\b",
    ),
    phrase(
        "new-instructions-header",
        "en",
        Severity::High,
        &["actual", "new", "real", "revised", "updated"],
        r"\b(?:new|updated|revised|real|actual)\s+(?:system\s+)?instructions\s*:",
    ),
    phrase(
        "reveal-system-prompt",
        "en",
        Severity::High,
        &[
            "display", "dump", "leak", "output", "print", "repeat", "reveal", "show",
        ],
        r"\b(?:reveal|print|show|output|repeat|leak|display|dump)\s+(?:me\s+)?(?:your|the)\s+(?:full\s+|entire\s+|original\s+|hidden\s+|initial\s+)?(?:system\s+prompt|initial\s+instructions|hidden\s+instructions|instructions\s+above)",
    ),
    phrase(
        "hide-from-user",
        "en",
        Severity::High,
        &["do", "never"],
        r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention\s+(?:this\s+)?to|reveal\s+(?:this\s+)?to|show\s+(?:this\s+)?to)\s+(?:the\s+)?user\b",
    ),
    phrase(
        "exfiltrate-secrets",
        "en",
        Severity::Medium,
        &["email", "exfiltrate", "forward", "post", "send", "upload"],
        r"\b(?:send|post|forward|upload|exfiltrate|email)\s+(?:me\s+|us\s+)?(?:the\s+|your\s+|all\s+)*(?:user'?s?\s+)?(?:api[\s_-]?keys?|passwords?|credentials|access[\s_-]?tokens?|session\s+cookies|cookies|secrets?|private[\s_-]?keys?|ssh[\s_-]?keys?)\b",
    ),
    phrase(
        "chat-template-tokens",
        "en",
        Severity::Medium,
        &[
            "<<sys>>",
            "<|eot_id|>",
            "<|im_end|>",
            "<|im_start|>",
            "<|start_header_id|>",
            "<|system|>",
            "[/inst]",
            "[inst]",
        ],
        r"<\|im_start\|>|<\|im_end\|>|<\|system\|>|\[/?INST\]|<<SYS>>|<\|start_header_id\|>|<\|eot_id\|>",
    ),
    phrase(
        "you-are-now",
        "en",
        Severity::Medium,
        &["you"],
        r"\byou\s+are\s+now\s+(?:(?:a|an|the|my)\s+)?(?:[a-z-]+\s+){0,2}?(?:assistant|ai|agent|model|chatbot|bot|dan|jailbroken|unrestricted|unfiltered|in\s+developer\s+mode)\b",
    ),
    phrase(
        "addressed-to-ai",
        "en",
        Severity::Medium,
        &[
            "ai",
            "attention",
            "if",
            "instruction",
            "llm",
            "message",
            "note",
        ],
        r"\bif\s+you\s+are\s+(?:an?\s+)?(?:ai|llm|large\s+language\s+model|language\s+model|ai\s+(?:assistant|agent|model)|chatbot|automated\s+agent)\b|\b(?:attention|note|message|instructions?)\s+(?:to|for)\s+(?:all\s+|any\s+)?(?:ais|llms?|language\s+models?|ai\s+(?:assistants?|agents?|models?)|chatbots?)\b|\b(?:ai|llm)s?\s+(?:reading|processing|summari[sz]ing|crawling)\s+this\b",
    ),
    phrase(
        "pretend-role",
        "en",
        Severity::Medium,
        &["pretend"],
        r"\bpretend\s+(?:that\s+)?(?:you\s+are|to\s+be)\s+(?:an?\s+)?(?:human|user|admin|administrator|developer|system|different\s+ai)\b",
    ),
    phrase(
        "jailbreak-terms",
        "en",
        Severity::Low,
        &["dan", "developer", "do", "jailbreak"],
        r"\b(?:developer\s+mode|jailbreak(?:ing)?|do\s+anything\s+now|dan\s+mode)\b",
    ),
    phrase(
        "system-prompt-mention",
        "en",
        Severity::Low,
        &["system"],
        r"\bsystem\s+prompts?\b",
    ),
    phrase(
        "as-an-ai",
        "en",
        Severity::Low,
        &["as"],
        r"\bas\s+an\s+ai(?:\s+language\s+model|\s+assistant|\s+model)?\b",
    ),
    phrase(
        "zh-ignore-instructions",
        "zh",
        Severity::High,
        &["不要", "忽略", "忽视", "无视"],
        r"(?:忽略|无视|忽视|不要理会|不要理睬)(?:掉)?(?:你)?(?:之前|以上|上面|前面|先前|此前|上述|所有|全部|一切)(?:的)?(?:所有|全部|一切)?(?:的)?(?:指令|指示|提示词?|规则|说明|要求|设定)",
    ),
    phrase(
        "zh-forget-instructions",
        "zh",
        Severity::High,
        &["忘掉", "忘记"],
        r"忘(?:记|掉)(?:你)?(?:之前|以上|上面|前面|先前|所有|全部)(?:的)?(?:所有)?(?:指令|指示|提示词?|规则|设定|对话)",
    ),
    phrase(
        "zh-reveal-system-prompt",
        "zh",
        Severity::High,
        &["告诉", "打印", "显示", "泄露", "输出", "透露", "重复"],
        r"(?:泄露|输出|显示|打印|告诉我|透露|重复)(?:一下)?(?:你的)?(?:系统提示词?|系统指令|初始指令|提示词)",
    ),
    phrase(
        "zh-you-are-now",
        "zh",
        Severity::Medium,
        &["从现", "现在"],
        r"(?:从现在(?:开始|起)|现在)(?:，|,)?\s*你(?:是|将是|要扮演|扮演|变成)",
    ),
    phrase(
        "zh-addressed-to-ai",
        "zh",
        Severity::Medium,
        &[
            "写给", "如果", "致a", "致一", "致人", "致大", "致所", "致智", "致语",
        ],
        r"(?:如果你是|致|写给)(?:一个|所有)?(?:AI|人工智能|大模型|语言模型|大语言模型|智能体|AI助手)",
    ),
    phrase(
        "zh-system-prompt-mention",
        "zh",
        Severity::Low,
        &["系统"],
        r"系统提示词?",
    ),
    phrase(
        "zh-as-an-ai",
        "zh",
        Severity::Low,
        &["作为"],
        r"作为(?:一个|一名)?(?:AI|人工智能)(?:语言模型|助手|模型)?",
    ),
    phrase(
        "zh-hant-ignore-instructions",
        "zh",
        Severity::High,
        &["不要", "忽略", "忽視", "無視"],
        r"(?:忽略|無視|忽視|不要理會)(?:掉)?(?:你)?(?:之前|以上|上面|前面|先前|此前|上述|所有|全部|一切)(?:的)?(?:所有|全部|一切)?(?:的)?(?:指令|指示|提示詞?|規則|說明|要求|設定)",
    ),
    phrase(
        "zh-hant-reveal-system-prompt",
        "zh",
        Severity::High,
        &[
            "列印", "告訴", "洩漏", "洩露", "輸出", "透露", "重複", "顯示",
        ],
        r"(?:洩露|洩漏|輸出|顯示|列印|告訴我|透露|重複)(?:一下)?(?:你的)?(?:系統提示詞?|系統指令|初始指令|提示詞)",
    ),
    phrase(
        "zh-hide-from-user",
        "zh",
        Severity::High,
        &[
            "不要", "切勿", "別告", "別讓", "別让", "別透", "别告", "别讓", "别让", "别透",
        ],
        r"(?:不要|别|別|切勿)(?:告诉|告訴|透露给|透露給|让|讓)(?:用户|用戶|使用者)",
    ),
    phrase(
        "ja-ignore-instructions",
        "ja",
        Severity::High,
        &[
            "これ", "すべ", "上記", "今ま", "以前", "先ほ", "全て", "前の",
        ],
        r"(?:これまで|今まで|以前|前|上記|先ほど|すべて|全て)の(?:指示|命令|指令|プロンプト|ルール|設定)(?:は|を)?(?:すべて|全て)?(?:無視|忘れ)",
    ),
    phrase(
        "ja-ignore-the-instructions",
        "ja",
        Severity::High,
        &["プロ", "ルー", "命令", "指令", "指示"],
        r"(?:指示|命令|指令|プロンプト|ルール)(?:は|を)(?:すべて|全て)?(?:無視|忘れ)(?:して|しろ|せよ|しなさい|てください|てくれ)",
    ),
    phrase(
        "ja-reveal-system-prompt",
        "ja",
        Severity::High,
        &["シス", "初期", "隠さ"],
        r"(?:システムプロンプト|初期指示|隠された指示)(?:を|の内容を)?(?:表示|出力|教え|見せ|開示|繰り返)",
    ),
    phrase(
        "ja-hide-from-user",
        "ja",
        Severity::High,
        &["ユー"],
        r"ユーザー(?:に|には)(?:言わない|伝えない|知らせない|教えない|言うな|伝えるな)",
    ),
    phrase(
        "ja-you-are-now",
        "ja",
        Severity::Medium,
        &["これ", "今か", "今後"],
        r"(?:今から|これから|今後)(?:、|,)?\s*(?:あなた|君|お前)は",
    ),
    phrase(
        "ja-addressed-to-ai",
        "ja",
        Severity::Medium,
        &["ai", "あな", "チャ", "人工", "言語"],
        r"(?:あなたが)?(?:AI|人工知能|言語モデル|チャットボット)(?:である|なら|ならば|の場合)",
    ),
    phrase(
        "ko-ignore-instructions",
        "ko",
        Severity::High,
        &["모든", "앞의", "위", "이전", "지금"],
        r"(?:이전|모든|위의?|앞의|지금까지의?)\s*(?:지시|명령|지침|프롬프트|규칙|설정)(?:사항)?(?:들)?(?:을|를|은|는)?\s*(?:모두\s*|전부\s*)?(?:무시|잊어|잊고)",
    ),
    phrase(
        "ko-ignore-the-instructions",
        "ko",
        Severity::High,
        &["명령", "지시", "지침", "프롬"],
        r"(?:지시|명령|지침|프롬프트)(?:사항)?(?:을|를)\s*(?:모두\s*|전부\s*)?무시(?:하고|하세요|해|해라|하십시오|할\s*것)",
    ),
    phrase(
        "ko-reveal-system-prompt",
        "ko",
        Severity::High,
        &["시스"],
        r"시스템\s*프롬프트(?:를|을)?\s*(?:보여|출력|공개|알려|반복)",
    ),
    phrase(
        "ko-hide-from-user",
        "ko",
        Severity::High,
        &["사용"],
        r"사용자(?:에게|한테)\s*(?:말하지|알리지|알려주지|보여주지)\s*(?:마|말)",
    ),
    phrase(
        "ko-you-are-now",
        "ko",
        Severity::Medium,
        &["이제", "지금"],
        r"(?:지금부터|이제부터|이제)\s*(?:당신은|너는|넌)",
    ),
    phrase(
        "ko-addressed-to-ai",
        "ko",
        Severity::Medium,
        &["너가", "네가", "당신"],
        r"(?:당신이|네가|너가)\s*(?:AI|인공지능|언어\s*모델|챗봇)(?:라면|이라면)",
    ),
];

/// The phrase table's matchers: one Aho-Corasick automaton over every
/// phrase's leads, and each phrase's expression, compiled the first time
/// text holds one of its leads.
struct PhraseMatchers {
    leads: AhoCorasick,
    /// The phrase of each lead, in the automaton's pattern order.
    lead_phrase: Vec<usize>,
    each: Vec<OnceLock<Regex>>,
}

impl PhraseMatchers {
    fn new() -> Self {
        let (lead_phrase, words): (Vec<usize>, Vec<&str>) = INJECTION_PHRASES
            .iter()
            .enumerate()
            .flat_map(|(i, p)| p.leads.iter().map(move |w| (i, *w)))
            .unzip();
        PhraseMatchers {
            leads: AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .kind(Some(AhoCorasickKind::NoncontiguousNFA))
                .build(words)
                .expect("the injection phrase leads are valid literals"),
            lead_phrase,
            each: INJECTION_PHRASES.iter().map(|_| OnceLock::new()).collect(),
        }
    }

    /// The phrases whose leads occur in `text`, in table order. Text with a
    /// non-ASCII letter that folds to an ASCII one (the Kelvin sign, the
    /// long s) could match without an ASCII lead: every phrase is tried.
    fn candidates(&self, text: &str) -> Vec<usize> {
        if text.contains(['\u{212A}', '\u{017F}']) {
            return (0..INJECTION_PHRASES.len()).collect();
        }
        let mut seen = vec![false; INJECTION_PHRASES.len()];
        for m in self.leads.find_overlapping_iter(text) {
            seen[self.lead_phrase[m.pattern().as_usize()]] = true;
        }
        (0..seen.len()).filter(|&i| seen[i]).collect()
    }

    /// Phrase `i`'s expression (case-insensitive, ASCII word boundaries so
    /// the fast DFA engines stay usable on non-ASCII text).
    fn regex(&self, i: usize) -> &Regex {
        self.each[i].get_or_init(|| {
            let pattern = INJECTION_PHRASES[i].pattern.replace(r"\b", r"(?-u:\b)");
            Regex::new(&format!("(?i){pattern}"))
                .expect("the injection phrase table holds valid regexes")
        })
    }
}

/// Builds the scan's fixed matchers now (once per process), so that their
/// one-time cost is never charged to a page's time budget. The phrases'
/// expressions are compiled on first need.
pub fn prepare() {
    LazyLock::force(&PHRASES);
}

static PHRASES: LazyLock<PhraseMatchers> = LazyLock::new(PhraseMatchers::new);

/// Hidden blocks with at least this many characters of prose are flagged.
pub const HIDDEN_PROSE_MIN_CHARS: usize = 200;
/// A hidden block counts as prose when link text is under this share.
pub const HIDDEN_PROSE_MAX_LINK_SHARE: f64 = 0.5;
/// Outbound links a block needs to be a link farm.
pub const LINK_FARM_MIN_OUTBOUND: usize = 20;
/// Different outbound sites a block needs to be a link farm.
pub const LINK_FARM_MIN_HOSTS: usize = 10;
/// Share of a link farm's text that is link text.
pub const LINK_FARM_MIN_LINK_SHARE: f64 = 0.8;
/// Anchors needed before keyword stuffing is judged.
pub const STUFFING_MIN_ANCHORS: usize = 10;
/// Share of anchors one word must appear in to count as stuffing.
pub const STUFFING_MIN_SHARE: f64 = 0.4;
/// Zero-width characters needed for a flag.
pub const ZERO_WIDTH_MIN: usize = 10;
/// At most this many flags of one kind are reported per page.
pub const MAX_FLAGS_PER_KIND: usize = 10;
/// Characters of context on each side of a match in an excerpt.
const EXCERPT_CONTEXT: usize = 80;

/// Whether a page with these flags must be read as untrusted: it carries a
/// prompt-injection phrase of medium or high severity (low ones — a bare
/// "system prompt" or "as an AI" — are common in articles about AI). Such a
/// page's text is marked `untrusted` wherever it appears, and it is never
/// the sole support of a `sufficient` decision.
pub fn is_untrusted(flags: &[SafetyFlag]) -> bool {
    flags
        .iter()
        .any(|f| f.kind == SafetyKind::PromptInjection && f.severity >= Severity::Medium)
}

/// Scans a page: the extracted `text`, and when given its `html` (hidden
/// elements, comments, link blocks). `page_url` tells outbound links from
/// internal ones.
pub fn scan(text: &str, html: Option<&str>, page_url: Option<&Url>) -> Vec<SafetyFlag> {
    let bounded = html.map(crate::nesting::cap_nesting);
    scan_bounded(text, bounded.as_deref(), page_url)
}

/// [`scan`] of markup already within the parser's bounds
/// ([`crate::nesting`]; the fetch path bounds each page once).
pub fn scan_bounded(
    text: &str,
    bounded_html: Option<&str>,
    page_url: Option<&Url>,
) -> Vec<SafetyFlag> {
    let mut flags = scan_text(text);
    if let Some(html) = bounded_html {
        flags.extend(scan_bounded_html(html, page_url));
    }
    flags
}

/// Scans plain text for injection phrases and invisible characters.
pub fn scan_text(text: &str) -> Vec<SafetyFlag> {
    let mut flags = Vec::new();
    let invisible = invisible_characters(text);
    let cleaned = strip_invisible(text);
    flags.extend(injection_flags(&cleaned, FlagLocation::Text, None));
    if let Some(hidden_ascii) = &invisible.tag_ascii {
        for mut f in injection_flags(hidden_ascii, FlagLocation::Text, Some(Severity::High)) {
            f.detail = format!("{} (hidden in Unicode tag characters)", f.detail);
            flags.push(f);
        }
    }
    flags.extend(invisible.flags);
    cap_per_kind(flags)
}

/// Scans HTML for hidden text (and injection phrases inside it or in
/// comments) and link farms.
pub fn scan_html(html: &str, page_url: Option<&Url>) -> Vec<SafetyFlag> {
    scan_bounded_html(&crate::nesting::cap_nesting(html), page_url)
}

/// [`scan_html`] of markup already within the parser's bounds.
fn scan_bounded_html(html: &str, page_url: Option<&Url>) -> Vec<SafetyFlag> {
    let doc = Html::parse_document(html);
    let css = HidingRules::from_document(&doc);
    let flat = Flat::build(&doc, &css, page_url);
    let mut flags = Vec::new();
    flags.extend(hidden_flags(&flat));
    flags.extend(comment_flags(&flat));
    flags.extend(link_farm_flags(&flat));
    cap_per_kind(flags)
}

fn cap_per_kind(flags: Vec<SafetyFlag>) -> Vec<SafetyFlag> {
    let mut counts: HashMap<SafetyKind, usize> = HashMap::new();
    let mut seen: HashSet<(SafetyKind, FlagLocation, String, String)> = HashSet::new();
    flags
        .into_iter()
        .filter(|f| seen.insert((f.kind, f.location, f.detail.clone(), f.excerpt.clone())))
        .filter(|f| {
            let n = counts.entry(f.kind).or_default();
            *n += 1;
            *n <= MAX_FLAGS_PER_KIND
        })
        .collect()
}

/// Injection phrases in `text`, sentence by sentence (Latin and CJK sentence
/// ends), so that an injected sentence in any of the table's languages is
/// found wherever it sits and whatever the page's own language: one flag
/// per phrase and sentence.
fn injection_flags(text: &str, location: FlagLocation, force: Option<Severity>) -> Vec<SafetyFlag> {
    let normalized = collapse_whitespace(text);
    let m = &*PHRASES;
    let present: Vec<usize> = m
        .candidates(&normalized)
        .into_iter()
        .filter(|&i| m.regex(i).is_match(&normalized))
        .collect();
    if present.is_empty() {
        return Vec::new();
    }
    let mut flags = Vec::new();
    for range in sentences(&normalized) {
        let (start, sentence) = (range.start, &normalized[range]);
        for &i in &present {
            let phrase = &INJECTION_PHRASES[i];
            let Some(found) = m.regex(i).find(sentence) else {
                continue;
            };
            flags.push(SafetyFlag {
                kind: SafetyKind::PromptInjection,
                severity: force.unwrap_or(phrase.severity),
                location,
                detail: format!(
                    "phrase {} ({}): {:?}",
                    phrase.id,
                    phrase.lang,
                    found.as_str()
                ),
                excerpt: excerpt_around(&normalized, start + found.start(), start + found.end()),
            });
        }
    }
    flags
}

fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// The match with up to [`EXCERPT_CONTEXT`] bytes of context each side,
/// cut on character boundaries.
fn excerpt_around(text: &str, start: usize, end: usize) -> String {
    let from = floor_boundary(text, start.saturating_sub(EXCERPT_CONTEXT));
    let to = ceil_boundary(text, end.saturating_add(EXCERPT_CONTEXT));
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    out.push_str(text[from..to].trim());
    if to < text.len() {
        out.push('…');
    }
    out
}

/// The start of `text` (whitespace collapsed), at most about 160 characters.
fn short_excerpt(text: &str) -> String {
    let t = collapse_whitespace(text);
    let max = 2 * EXCERPT_CONTEXT;
    if t.chars().count() <= max {
        return t;
    }
    let mut out: String = t.chars().take(max).collect();
    out.push('…');
    out
}

// ---------------------------------------------------------------------------
// Invisible characters

fn is_zero_width(c: char) -> bool {
    matches!(c, '\u{200B}' | '\u{2060}' | '\u{FEFF}' | '\u{180E}')
}

fn is_bidi_override(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn is_tag_char(c: char) -> bool {
    ('\u{E0000}'..='\u{E007F}').contains(&c)
}

fn strip_invisible(text: &str) -> String {
    text.chars()
        .filter(|c| !is_zero_width(*c) && !is_bidi_override(*c) && !is_tag_char(*c))
        .collect()
}

struct Invisible {
    flags: Vec<SafetyFlag>,
    /// ASCII hidden in tag characters outside emoji flag sequences.
    tag_ascii: Option<String>,
}

fn invisible_characters(text: &str) -> Invisible {
    let mut zero_width = 0usize;
    let mut overrides = 0usize;
    let mut tag_ascii = String::new();
    let mut in_flag_sequence = false;
    let mut first_override_at: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if c == '\u{1F3F4}' {
            // Black flag: starts an emoji subdivision-flag tag sequence.
            in_flag_sequence = true;
            continue;
        }
        if is_tag_char(c) {
            if !in_flag_sequence {
                let v = c as u32 - 0xE0000;
                if (0x20..0x7F).contains(&v) {
                    tag_ascii.push(char::from(v as u8));
                }
            }
            if c == '\u{E007F}' {
                in_flag_sequence = false;
            }
            continue;
        }
        in_flag_sequence = false;
        if is_zero_width(c) && !(c == '\u{FEFF}' && i == 0) {
            zero_width += 1;
        }
        if matches!(c, '\u{202D}' | '\u{202E}') {
            overrides += 1;
            first_override_at.get_or_insert(i);
        }
    }
    let mut flags = Vec::new();
    let tag_ascii = tag_ascii.trim().to_string();
    if !tag_ascii.is_empty() {
        flags.push(SafetyFlag {
            kind: SafetyKind::InvisibleCharacters,
            severity: Severity::High,
            location: FlagLocation::Text,
            detail: format!(
                "{} characters of ASCII hidden in Unicode tag characters",
                tag_ascii.chars().count()
            ),
            excerpt: tag_ascii.chars().take(2 * EXCERPT_CONTEXT).collect(),
        });
    }
    if overrides > 0 {
        let at = first_override_at.unwrap_or(0);
        let cleaned_context = strip_invisible(
            &text[floor_boundary(text, at.saturating_sub(EXCERPT_CONTEXT))
                ..ceil_boundary(text, at + EXCERPT_CONTEXT)],
        );
        flags.push(SafetyFlag {
            kind: SafetyKind::InvisibleCharacters,
            severity: Severity::Medium,
            location: FlagLocation::Text,
            detail: format!(
                "{overrides} bidirectional override character(s) (U+202D/U+202E): displayed order differs from the text"
            ),
            excerpt: collapse_whitespace(&cleaned_context),
        });
    }
    if zero_width >= ZERO_WIDTH_MIN {
        flags.push(SafetyFlag {
            kind: SafetyKind::InvisibleCharacters,
            severity: Severity::Low,
            location: FlagLocation::Text,
            detail: format!("{zero_width} zero-width characters in the text"),
            excerpt: String::new(),
        });
    }
    Invisible {
        flags,
        tag_ascii: (!tag_ascii.is_empty()).then_some(tag_ascii),
    }
}

// ---------------------------------------------------------------------------
// CSS hiding rules

/// Classes and ids a page's `<style>` blocks hide.
#[derive(Debug, Default)]
struct HidingRules {
    classes: HashMap<String, Hiding>,
    ids: HashMap<String, Hiding>,
}

static CSS_RULE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"([^{}]+)\{([^{}]*)\}").expect("valid CSS rule regex"));

impl HidingRules {
    fn from_document(doc: &Html) -> Self {
        let mut rules = HidingRules::default();
        for node in doc.tree.root().descendants() {
            let Node::Element(el) = node.value() else {
                continue;
            };
            if el.name() != "style" {
                continue;
            }
            let css: String = node
                .children()
                .filter_map(|c| c.value().as_text().map(|t| t.to_string()))
                .collect();
            for cap in CSS_RULE.captures_iter(&css) {
                let Some(hiding) = style_hiding(&cap[2]) else {
                    continue;
                };
                for selector in cap[1].split(',') {
                    let s = selector.trim();
                    let simple = |name: &str| {
                        !name.is_empty()
                            && name
                                .chars()
                                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                    };
                    if let Some(class) = s.strip_prefix('.')
                        && simple(class)
                    {
                        rules.classes.insert(class.to_string(), hiding);
                    } else if let Some(id) = s.strip_prefix('#')
                        && simple(id)
                    {
                        rules.ids.insert(id.to_string(), hiding);
                    }
                }
            }
        }
        rules
    }
}

// ---------------------------------------------------------------------------
// The flattened document

/// One node of the document in pre-order.
struct FlatNode<'a> {
    parent: Option<usize>,
    /// Index of the last node in this node's subtree.
    end: usize,
    /// Text content (text nodes outside scripts and styles).
    text: Option<&'a str>,
    /// Comment content.
    comment: Option<&'a str>,
    /// The node is inside a link.
    in_link: bool,
    /// This element is a link to another site (its host).
    outbound_host: Option<String>,
    /// Why this element is hidden (own styles or attributes).
    hiding: Option<Hiding>,
    /// An ancestor is hidden.
    inside_hidden: bool,
    /// Element name (`None` for text and comments).
    name: Option<&'a str>,
}

struct Flat<'a> {
    nodes: Vec<FlatNode<'a>>,
}

/// Elements whose content is never displayed text.
const INERT: &[&str] = &[
    "script", "style", "noscript", "template", "head", "svg", "math", "iframe", "object", "select",
    "option", "textarea",
];

fn host_key(host: &str) -> String {
    let h = host.trim_end_matches('.').to_ascii_lowercase();
    psl::domain_str(&h).unwrap_or(&h).to_string()
}

impl<'a> Flat<'a> {
    fn build(doc: &'a Html, css: &HidingRules, page_url: Option<&Url>) -> Self {
        let page_site = page_url.and_then(|u| u.host_str()).map(host_key);
        let mut nodes: Vec<FlatNode<'a>> = Vec::new();
        // (node, parent index, in_link, inside_hidden)
        let mut stack: Vec<(NodeRef<'a, Node>, Option<usize>, bool, bool)> =
            vec![(doc.tree.root(), None, false, false)];
        while let Some((node, parent, in_link, inside_hidden)) = stack.pop() {
            let idx = nodes.len();
            let mut entry = FlatNode {
                parent,
                end: idx,
                text: None,
                comment: None,
                in_link,
                outbound_host: None,
                hiding: None,
                inside_hidden,
                name: None,
            };
            let mut descend = true;
            let mut child_in_link = in_link;
            match node.value() {
                Node::Text(t) => entry.text = Some(&**t),
                Node::Comment(c) => entry.comment = Some(&**c),
                Node::Element(el) => {
                    let name = el.name();
                    entry.name = Some(name);
                    if INERT.contains(&name) {
                        descend = false;
                    }
                    entry.hiding = page_hiding(el, css);
                    if name == "a"
                        && let Some(href) = el.attr("href")
                    {
                        child_in_link = true;
                        entry.outbound_host = outbound_host(href, page_url, page_site.as_deref());
                    }
                }
                _ => {}
            }
            let hidden_below = inside_hidden || entry.hiding.is_some();
            nodes.push(entry);
            if descend {
                let children: Vec<_> = node.children().collect();
                for child in children.into_iter().rev() {
                    stack.push((child, Some(idx), child_in_link, hidden_below));
                }
            }
        }
        // Subtree ends: in pre-order a node's subtree ends where its last
        // descendant is; walk backwards propagating ends to parents.
        for i in (0..nodes.len()).rev() {
            let end = nodes[i].end;
            if let Some(p) = nodes[i].parent
                && nodes[p].end < end
            {
                nodes[p].end = end;
            }
        }
        Flat { nodes }
    }

    fn subtree(&self, i: usize) -> &[FlatNode<'a>] {
        &self.nodes[i..=self.nodes[i].end]
    }

    /// Text of a subtree (text nodes joined by spaces) and its link-text
    /// characters.
    fn text_of(&self, i: usize) -> (String, usize) {
        let mut out = String::new();
        let mut link_chars = 0;
        for n in self.subtree(i) {
            if let Some(t) = n.text {
                let t = t.trim();
                if t.is_empty() {
                    continue;
                }
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(t);
                if n.in_link {
                    link_chars += t.chars().count();
                }
            }
        }
        (out, link_chars)
    }
}

/// How `el` is hidden: by itself ([`element_hiding`]: its style, the
/// `hidden` attribute, a display class), else by the page's own `<style>`
/// rules for its classes or id, else from assistive technology only.
fn page_hiding(el: &scraper::node::Element, css: &HidingRules) -> Option<Hiding> {
    let own = element_hiding(el);
    if own.is_some_and(|h| h.reason().is_some()) {
        return own;
    }
    let by_rule = el
        .classes()
        .find_map(|class| css.classes.get(class))
        .or_else(|| el.id().and_then(|id| css.ids.get(id)));
    by_rule.copied().or(own)
}

/// The site of an outbound link, or `None` for internal, relative and
/// non-http links.
fn outbound_host(href: &str, page_url: Option<&Url>, page_site: Option<&str>) -> Option<String> {
    let href = href.trim();
    let target = match page_url {
        Some(base) => base.join(href).ok()?,
        None => Url::parse(href).ok()?,
    };
    if !matches!(target.scheme(), "http" | "https") {
        return None;
    }
    let site = host_key(target.host_str()?);
    if page_site == Some(site.as_str()) {
        return None;
    }
    Some(site)
}

// ---------------------------------------------------------------------------
// Hidden text

fn hidden_flags(flat: &Flat<'_>) -> Vec<SafetyFlag> {
    let mut flags = Vec::new();
    for (i, node) in flat.nodes.iter().enumerate() {
        let Some(hiding) = node.hiding else { continue };
        if node.inside_hidden {
            continue; // only the outermost hidden element
        }
        let (text, link_chars) = flat.text_of(i);
        if text.is_empty() {
            continue;
        }
        let chars = text.chars().count();
        // An injection phrase anywhere in hidden text is always serious.
        let injections =
            injection_flags(&strip_invisible(&text), FlagLocation::HiddenElement, None);
        let serious: Vec<SafetyFlag> = injections
            .into_iter()
            .filter(|f| f.severity >= Severity::Medium)
            .map(|mut f| {
                f.severity = Severity::High;
                f
            })
            .collect();
        let prose = (link_chars as f64) < HIDDEN_PROSE_MAX_LINK_SHARE * chars as f64;
        let (technique, severity) = match hiding.reason() {
            Some(reason) => (reason, Severity::Medium),
            None => ("aria-hidden=\"true\"", Severity::Low),
        };
        if !serious.is_empty() || (prose && chars >= HIDDEN_PROSE_MIN_CHARS) {
            flags.push(SafetyFlag {
                kind: SafetyKind::HiddenText,
                severity: if serious.is_empty() {
                    severity
                } else {
                    Severity::High
                },
                location: FlagLocation::HiddenElement,
                detail: format!(
                    "<{}> hidden by {technique}: {chars} characters{}",
                    node.name.unwrap_or("?"),
                    if serious.is_empty() {
                        String::new()
                    } else {
                        " containing instructions for an AI reader".to_string()
                    }
                ),
                excerpt: short_excerpt(&text),
            });
        }
        flags.extend(serious);
    }
    flags
}

fn comment_flags(flat: &Flat<'_>) -> Vec<SafetyFlag> {
    flat.nodes
        .iter()
        .filter_map(|n| n.comment)
        .flat_map(|c| injection_flags(&strip_invisible(c), FlagLocation::Comment, None))
        .filter(|f| f.severity >= Severity::Medium)
        .collect()
}

// ---------------------------------------------------------------------------
// Link farms

/// Words of link anchors that do not count for keyword stuffing, beside
/// the stopwords ([`is_stopword`]).
const ANCHOR_NOISE: &[&str] = &[
    "more", "click", "here", "read", "www", "com", "http", "https",
];

/// Blocks of many outbound links to many sites, keyword-stuffed ones
/// flagged higher.
fn link_farm_flags(flat: &Flat<'_>) -> Vec<SafetyFlag> {
    let counts = LinkCounts::of(flat);
    link_farm_blocks(flat, &counts)
        .into_iter()
        .map(|(i, hosts)| link_farm_flag(flat, &counts, i, hosts))
        .collect()
}

/// Per node, over its subtree: text characters, link-text characters and
/// outbound links.
struct LinkCounts {
    text_chars: Vec<usize>,
    link_chars: Vec<usize>,
    outbound: Vec<usize>,
}

impl LinkCounts {
    /// Sums the counts bottom-up in one reverse pass.
    fn of(flat: &Flat<'_>) -> Self {
        let n = flat.nodes.len();
        let mut text_chars = vec![0usize; n];
        let mut link_chars = vec![0usize; n];
        let mut outbound = vec![0usize; n];
        for i in (0..n).rev() {
            let node = &flat.nodes[i];
            if let Some(t) = node.text {
                let c = t.trim().chars().count();
                text_chars[i] += c;
                if node.in_link {
                    link_chars[i] += c;
                }
            }
            if node.outbound_host.is_some() {
                outbound[i] += 1;
            }
            if let Some(p) = node.parent {
                text_chars[p] += text_chars[i];
                link_chars[p] += link_chars[i];
                outbound[p] += outbound[i];
            }
        }
        LinkCounts {
            text_chars,
            link_chars,
            outbound,
        }
    }
}

/// The innermost elements that qualify as link farms (enough outbound
/// links, mostly link text, enough distinct sites), with their distinct
/// host counts.
fn link_farm_blocks(flat: &Flat<'_>, counts: &LinkCounts) -> Vec<(usize, usize)> {
    // Candidates by counts and link share, then by distinct sites.
    let qualifies = |i: usize| -> Option<HashSet<&str>> {
        let node = &flat.nodes[i];
        node.name?;
        if counts.outbound[i] < LINK_FARM_MIN_OUTBOUND || counts.text_chars[i] == 0 {
            return None;
        }
        if (counts.link_chars[i] as f64) < LINK_FARM_MIN_LINK_SHARE * counts.text_chars[i] as f64 {
            return None;
        }
        let hosts: HashSet<&str> = flat
            .subtree(i)
            .iter()
            .filter_map(|n| n.outbound_host.as_deref())
            .collect();
        (hosts.len() >= LINK_FARM_MIN_HOSTS).then_some(hosts)
    };
    let mut qualifying: Vec<(usize, usize)> = Vec::new(); // (index, distinct hosts)
    for i in 0..flat.nodes.len() {
        if let Some(hosts) = qualifies(i) {
            qualifying.push((i, hosts.len()));
        }
    }
    // Keep the innermost: drop any block that contains another qualifying one.
    qualifying
        .iter()
        .copied()
        .filter(|&(i, _)| {
            !qualifying
                .iter()
                .any(|&(j, _)| j > i && j <= flat.nodes[i].end)
        })
        .collect()
}

/// The flag of the link farm at `i`: medium when its anchors repeat a
/// keyword, low otherwise.
fn link_farm_flag(flat: &Flat<'_>, counts: &LinkCounts, i: usize, hosts: usize) -> SafetyFlag {
    let anchors = anchors_of(flat, i);
    let stuffing = stuffed_keyword(&anchors);
    let (text, _) = flat.text_of(i);
    let share = counts.link_chars[i] as f64 / counts.text_chars[i].max(1) as f64;
    SafetyFlag {
        kind: SafetyKind::LinkFarm,
        severity: if stuffing.is_some() {
            Severity::Medium
        } else {
            Severity::Low
        },
        location: FlagLocation::Markup,
        detail: format!(
            "<{}> with {} outbound links to {hosts} sites, {:.0}% link text{}",
            flat.nodes[i].name.unwrap_or("?"),
            counts.outbound[i],
            share * 100.0,
            match &stuffing {
                Some((word, k, total)) =>
                    format!("; keyword-stuffed anchors: {word:?} in {k} of {total}"),
                None => String::new(),
            }
        ),
        excerpt: short_excerpt(&text),
    }
}

/// The texts of outbound anchors in a subtree.
fn anchors_of(flat: &Flat<'_>, i: usize) -> Vec<String> {
    let mut out = Vec::new();
    let end = flat.nodes[i].end;
    let mut k = i;
    while k <= end {
        let node = &flat.nodes[k];
        if node.outbound_host.is_some() {
            let (t, _) = flat.text_of(k);
            out.push(t);
            k = node.end + 1;
        } else {
            k += 1;
        }
    }
    out
}

/// The word that appears in the largest share of anchors, when that share
/// reaches [`STUFFING_MIN_SHARE`] of at least [`STUFFING_MIN_ANCHORS`]
/// anchors: `(word, anchors with it, anchors)`.
fn stuffed_keyword(anchors: &[String]) -> Option<(String, usize, usize)> {
    if anchors.len() < STUFFING_MIN_ANCHORS {
        return None;
    }
    let mut counts: HashMap<String, usize> = HashMap::new();
    for a in anchors {
        let words: HashSet<String> = a
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() >= 3)
            .map(str::to_lowercase)
            .filter(|w| !is_stopword(w) && !ANCHOR_NOISE.contains(&w.as_str()))
            .collect();
        for w in words {
            *counts.entry(w).or_default() += 1;
        }
    }
    let (word, k) = counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))?;
    (k as f64 >= STUFFING_MIN_SHARE * anchors.len() as f64).then_some((word, k, anchors.len()))
}

#[cfg(test)]
mod tests {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};

    use super::*;

    /// Every literal a phrase's matches can begin with starts with one of
    /// its leads, so skipping text without a lead never misses a match.
    #[test]
    fn leads_cover_every_match_start() {
        for phrase in INJECTION_PHRASES {
            let pattern = phrase.pattern.replace(r"\b", r"(?-u:\b)");
            let hir = regex_syntax::parse(&pattern).expect("valid pattern");
            let mut extractor = Extractor::new();
            extractor.kind(ExtractKind::Prefix);
            let seq = extractor.extract(&hir);
            let literals = seq
                .literals()
                .unwrap_or_else(|| panic!("{}: no finite set of leading literals", phrase.id));
            for literal in literals {
                let text = String::from_utf8_lossy(literal.as_bytes()).to_ascii_lowercase();
                assert!(
                    phrase.leads.iter().any(|lead| text.starts_with(lead)),
                    "{}: a match can begin with {text:?}, which no lead covers",
                    phrase.id
                );
            }
            for lead in phrase.leads {
                assert!(
                    lead.chars()
                        .all(|c| c.is_ascii() || c.to_lowercase().eq(c.to_uppercase())),
                    "{}: lead {lead:?} has a non-ASCII cased letter",
                    phrase.id
                );
            }
        }
    }

    #[test]
    fn a_page_without_leads_compiles_no_phrase() {
        let m = PhraseMatchers::new();
        assert!(m.candidates("Hello world.").is_empty());
        assert!(!m.candidates("IGNORE previous instructions").is_empty());
        assert_eq!(m.candidates("\u{017F}").len(), INJECTION_PHRASES.len());
    }
}
