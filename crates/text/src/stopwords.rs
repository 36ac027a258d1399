//! Stopwords for constraint terms and focused queries: English function
//! words, a Korean list (그리고 또는 모두 동시에 확인 필요), and
//! Chinese function words.
//!
//! Chinese has no spaces, so function words are cut out of the text before
//! it is tokenised ([`clean_cjk`]): multi-character stopwords (以及, 什么 …)
//! and single particles (的, 了, 吗 …) become spaces, except inside the
//! listed real words that contain a particle (目的, 和平, 现在 …).

use std::borrow::Cow;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

/// English stopwords, sorted (binary-searched).
pub const EN_STOPWORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are",
    "aren't", "as", "at", "be", "because", "been", "before", "being", "between", "both", "but",
    "by", "can", "can't", "check", "confirm", "could", "did", "do", "does", "doesn't", "doing",
    "don't", "during", "each", "either", "find", "for", "from", "further", "get", "give", "got",
    "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "how's", "i",
    "i'd", "i'm", "i've", "if", "in", "into", "is", "isn't", "it", "it's", "its", "just", "know",
    "let", "like", "list", "look", "may", "me", "might", "more", "most", "must", "my", "need",
    "no", "nor", "not", "of", "off", "on", "once", "only", "or", "other", "our", "out", "over",
    "own", "please", "same", "search", "she", "should", "show", "so", "some", "such", "tell",
    "than", "that", "that's", "the", "their", "them", "then", "there", "there's", "these", "they",
    "this", "those", "through", "to", "too", "under", "until", "up", "us", "very", "want", "was",
    "wasn't", "we", "were", "what", "what's", "whats", "when", "when's", "where", "where's",
    "whether", "which", "while", "who", "who's", "whom", "whose", "why", "will", "with", "would",
    "yes", "you", "you're", "your",
];

/// Multi-character CJK stopwords (Chinese function words and Korean
/// connectives), cut out before tokenising.
pub const CJK_STOPWORDS: &[&str] = &[
    // Korean
    "그리고",
    "또는",
    "모두",
    "동시에",
    "확인",
    "필요",
    // Chinese
    "以及",
    "并且",
    "而且",
    "同时",
    "或者",
    "还是",
    "什么",
    "哪个",
    "哪些",
    "怎么",
    "怎样",
    "如何",
    "为什么",
    "是否",
    "是不是",
    "一个",
    "一些",
    "这个",
    "那个",
    "这些",
    "那些",
    "其中",
    "需要",
    "确认",
    "请问",
    "没有",
    "可以",
    "我们",
    "你们",
    "他们",
    "告诉",
    "查找",
    "找到",
    "一下",
];

/// Single Chinese particles cut out of the text, except inside
/// [`PARTICLE_WORDS`].
pub const CJK_PARTICLES: &[&str] = &[
    "的", "了", "吗", "呢", "吧", "啊", "呀", "和", "与", "或", "及", "是", "在", "并", "请",
];

/// Real words that contain a particle and are kept whole.
pub const PARTICLE_WORDS: &[&str] = &[
    "目的", "的确", "和平", "和谐", "总和", "温和", "柔和", "缓和", "共和", "调和", "饱和", "和解",
    "参与", "给与", "或许", "现在", "存在", "正在", "实在", "在线", "所在", "内在", "潜在", "外在",
    "是非", "但是", "于是", "就是", "并发", "并行", "合并", "并购", "了解", "为了", "除了", "完了",
];

/// Whether `word` (any case) is an English or CJK stopword.
pub fn is_stopword(word: &str) -> bool {
    if word.is_ascii() {
        EN_STOPWORDS
            .binary_search_by(|w| {
                w.bytes()
                    .map(|b| b.to_ascii_lowercase())
                    .cmp(word.bytes().map(|b| b.to_ascii_lowercase()))
            })
            .is_ok()
    } else {
        CJK_STOPWORDS.contains(&word) || CJK_PARTICLES.contains(&word)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum CjkPattern {
    Cut,
    Keep,
}

struct CjkCleaner {
    automaton: Option<AhoCorasick>,
    kinds: Vec<CjkPattern>,
}

fn cleaner() -> &'static CjkCleaner {
    static CLEANER: OnceLock<CjkCleaner> = OnceLock::new();
    CLEANER.get_or_init(|| {
        let mut texts: Vec<&str> = Vec::new();
        let mut kinds = Vec::new();
        for w in PARTICLE_WORDS {
            texts.push(w);
            kinds.push(CjkPattern::Keep);
        }
        for w in CJK_STOPWORDS.iter().chain(CJK_PARTICLES) {
            texts.push(w);
            kinds.push(CjkPattern::Cut);
        }
        let automaton = AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::DFA))
            .match_kind(MatchKind::LeftmostLongest)
            .build(&texts)
            .ok();
        CjkCleaner { automaton, kinds }
    })
}

/// `text` with CJK stopwords and particles replaced by spaces (borrowed
/// when there were none).
pub fn clean_cjk(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    let c = cleaner();
    let Some(ac) = &c.automaton else {
        return Cow::Borrowed(text);
    };
    let mut out: Option<String> = None;
    let mut copied = 0;
    for m in ac.find_iter(text) {
        if c.kinds[m.pattern().as_usize()] == CjkPattern::Keep {
            continue;
        }
        let buf = out.get_or_insert_with(|| String::with_capacity(text.len()));
        buf.push_str(&text[copied..m.start()]);
        buf.push(' ');
        copied = m.end();
    }
    match out {
        Some(mut buf) => {
            buf.push_str(&text[copied..]);
            Cow::Owned(buf)
        }
        None => Cow::Borrowed(text),
    }
}
