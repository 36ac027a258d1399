//! The default judgement: does a fetched page **support** a constraint,
//! **refute** it, or neither (**unrelated**)? Every verdict comes with a
//! reason a person can check.
//!
//! A constraint is read once into a [`Claim`]: its facts
//! ([`ferret_core::plan::facts`]: numbers, dates, times, names — each
//! normalised), its content words (stems, without function words), its
//! polarity (how many negations) and the direction words it uses (`rose`,
//! `more`, `before` …).
//!
//! A page is read window by window: every sentence, every two adjacent
//! sentences, and every clause of a sentence (cut at `; , while , but …`).
//! A window **supports** the claim when
//!
//! 1. every fact of the claim is stated in it (equal after normalisation:
//!    `1,000` = `1000`, `9.5B` = `9.5 billion`, `十五` = `15`, dates that
//!    agree on every part), a number stated next to the word it qualifies
//!    in the claim (`64 animal cases` is not stated by `64 human cases and
//!    46 animal cases`), and two names joined by a claim word in the claim
//!    joined by one in the window too;
//! 2. enough of its content words are there (half when the claim has
//!    facts; three quarters, and at least two, when it has none) — the
//!    facts must be *co-located*, not scattered over the page;
//! 3. its polarity is the claim's (`did not win` supports `did not win`,
//!    refutes `won`), and it does not use the opposite direction word.
//!
//! A window **refutes** it when it is about the same thing (at most one
//! fact missing, half the content words present) and states the opposite:
//! a different number, date or time where the claim's would be
//! (`number_mismatch: 46 vs 64`), another name where the claim's would be
//! (`entity_mismatch: Justin Lin vs J.J. Abrams`), the opposite polarity
//! (`negated: "did not"`), or the opposite direction or order
//! (`reversed: fell vs rose`).
//!
//! The page's verdict is its strongest window's. A refutation found in a
//! clause or sentence inside a supporting window wins over that window
//! (the more specific text says what the broader one only seems to).
//! Anything else is `unrelated` (`facts_not_colocated` when the facts are
//! on the page but never together), and `unrelated` never counts.

use std::collections::HashSet;
use std::ops::Range;
use std::sync::LazyLock;

use ferret_core::plan::facts::{Fact, Spanned, facts_of, polarity_of};
use serde::{Deserialize, Serialize};

use ferret_core::plan::stopwords::is_stopword;

use crate::budget::Deadline;
use ferret_text::sentences::{clauses, sentences};
use ferret_text::stem::{stem, surface_cues};
use ferret_text::tokenize::mostly_cjk;
use ferret_text::words::{Word, words};

/// The three-way verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Judgement {
    /// The page states the claim.
    Supports,
    /// The page states something the claim cannot also be.
    Refutes,
    /// The page does not state it (it may still be on the topic).
    Unrelated,
}

/// A constraint read for judging.
#[derive(Debug, Clone)]
pub struct Claim {
    text: String,
    facts: Vec<Spanned>,
    content: Vec<Word>,
    /// Every word of the claim, in order.
    all: Vec<Word>,
    polarity: usize,
    directions: Vec<(usize, i8)>,
    /// The stems of the words the claim negates (`was not fired` → `fire`).
    negated: Vec<String>,
    cjk: bool,
}

/// A window's (or a page's) verdict with its evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// Supports, refutes or unrelated.
    pub judgement: Judgement,
    /// Why, in a few words a person can check.
    pub reason: String,
    /// The window the verdict rests on (bytes of the page text), when one.
    pub window: Option<Range<usize>>,
    /// The claim's facts and words found in that window.
    pub matched: Vec<String>,
    /// How much of the claim the window holds (facts count double).
    pub strength: f64,
}

impl Judged {
    fn unrelated(reason: impl Into<String>) -> Self {
        Judged {
            judgement: Judgement::Unrelated,
            reason: reason.into(),
            window: None,
            matched: Vec::new(),
            strength: 0.0,
        }
    }
}

/// Words that say a quantity went up, and words that say it went down: one
/// direction dimension of many words (stems compared).
const UP: &[&str] = &[
    "increase", "rise", "rose", "risen", "grow", "grew", "gain", "up", "raise", "more", "higher",
    "expand", "boost", "climb", "jump", "surge", "add", "exceed", "beat", "top", "larger",
    "bigger", "greater", "premium", "lead",
];
const DOWN: &[&str] = &[
    "decrease",
    "fall",
    "fell",
    "fallen",
    "drop",
    "decline",
    "reduce",
    "reduction",
    "cut",
    "down",
    "lower",
    "less",
    "fewer",
    "shrink",
    "slump",
    "plunge",
    "sink",
    "miss",
    "trail",
    "smaller",
    "discount",
];

/// Opposite direction words: each pair's first word has sign +1, the
/// second −1 (stems compared).
const DIRECTIONS: &[(&str, &str)] = &[
    ("gain", "loss"),
    ("gained", "lost"),
    ("win", "lose"),
    ("won", "lost"),
    ("beat", "lost"),
    ("defeat", "lose"),
    ("before", "after"),
    ("earlier", "later"),
    ("larger", "smaller"),
    ("bigger", "smaller"),
    ("faster", "slower"),
    ("most", "least"),
    ("best", "worst"),
    ("double", "half"),
    ("support", "oppose"),
    ("approve", "reject"),
    ("accept", "reject"),
    ("ahead", "behind"),
    ("wetter", "drier"),
    ("wet", "dry"),
    ("thicker", "thinner"),
    ("thick", "thin"),
    ("hotter", "colder"),
    ("warmer", "cooler"),
    ("longer", "shorter"),
    ("older", "younger"),
    ("heavier", "lighter"),
    ("stronger", "weaker"),
    ("richer", "poorer"),
    ("easier", "harder"),
    ("cheaper", "pricier"),
    ("greater", "lesser"),
    ("wider", "narrower"),
    ("deeper", "shallower"),
    ("louder", "quieter"),
    ("closer", "farther"),
    ("inside", "outside"),
    ("positive", "negative"),
    ("success", "failure"),
    ("succeed", "fail"),
    ("profit", "loss"),
    ("surplus", "deficit"),
    ("upgrade", "downgrade"),
    ("buy", "sell"),
    ("import", "export"),
    ("hire", "fire"),
    ("arrive", "depart"),
    ("allow", "ban"),
    ("allow", "forbid"),
    ("legal", "illegal"),
    ("guilty", "innocent"),
    ("convict", "acquit"),
    ("majority", "minority"),
    ("maximum", "minimum"),
];

/// CJK direction morphemes, found as substrings (CJK words are not
/// delimited): each pair's first says up, the second down.
const CJK_DIRECTIONS: &[(&str, &str)] = &[
    ("增", "减"),
    ("増", "減"),
    ("涨", "跌"),
    ("上升", "下降"),
    ("上昇", "下落"),
    ("提高", "降低"),
    ("高于", "低于"),
    ("上回", "下回"),
    ("赢", "输"),
    ("勝", "負"),
    ("증가", "감소"),
    ("상승", "하락"),
];

/// Words that qualify a quantity or pad a sentence without carrying its
/// fact: never content words.
const SOFT_WORDS: &[&str] = &[
    "around",
    "nearly",
    "almost",
    "approximately",
    "roughly",
    "some",
    "just",
    "only",
    "also",
    "even",
    "still",
    "already",
    "least",
    "total",
    "per",
    "each",
    "every",
    "another",
    "other",
    "said",
    "says",
    "according",
    "reportedly",
    "currently",
    "now",
    "new",
    "year",
    "years",
    "percent",
    "per cent",
];

/// Words that make a statement conditional or uncertain: a sentence that
/// only says a fact *might* hold does not state it.
const HEDGES: &[&str] = &[
    "if",
    "unless",
    "whether",
    "might",
    "may",
    "could",
    "would",
    "perhaps",
    "possibly",
    "rumored",
    "rumoured",
    "reportedly",
    "allegedly",
    "speculated",
    "hopes",
    "hope",
    "wish",
];

/// Idioms that contain a negation word but do not negate.
const NOT_NEGATIONS: &[&str] = &[
    "not only",
    "not just",
    "no doubt",
    "not least",
    "nothing but",
    "no wonder",
    "not to mention",
];

/// Prepositions that give a fact its role (`from 1 p.m. to 4:25`).
const ROLE_WORDS: &[&str] = &[
    "from", "to", "before", "after", "than", "since", "until", "by",
];

impl Claim {
    /// Read `text` (a constraint) for judging.
    pub fn new(text: &str) -> Claim {
        let text = without_attribution(text);
        let facts = facts_of(text);
        let in_fact = |r: &Range<usize>| {
            facts
                .iter()
                .any(|f| f.span.start <= r.start && r.end <= f.span.end)
        };
        let all = words(text);
        let content: Vec<Word> = all
            .iter()
            .filter(|w| {
                !w.stop
                    && !in_fact(&w.span)
                    && !w.stem.chars().all(|c| c.is_ascii_digit())
                    && !SOFT_WORDS.contains(&text[w.span.clone()].to_lowercase().as_str())
                    && polarity_of(&text[w.span.clone()]) == 0
                    && direction_words(std::slice::from_ref(*w)).is_empty()
            })
            .cloned()
            .collect();
        let directions = direction_words(&all);
        let negated = negated_words(&all, text);
        Claim {
            text: text.to_string(),
            polarity: polarity_of(text),
            facts,
            content: dedup_stems(content),
            directions,
            negated,
            all,
            cjk: mostly_cjk(text),
        }
    }

    /// The claim as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Its facts.
    pub fn facts(&self) -> Vec<&Fact> {
        self.facts.iter().map(|s| &s.fact).collect()
    }

    /// Whether the claim gives enough to judge by: a fact, or at least two
    /// content words.
    pub fn is_judgeable(&self) -> bool {
        !self.facts.is_empty() || self.content.len() >= 2
    }
}

/// The first content word after each English negation of the claim
/// (within three words): what the claim says did not happen.
fn negated_words(all: &[Word], text: &str) -> Vec<String> {
    let is_negation = |w: &Word| {
        let raw = text[w.span.clone()].to_lowercase().replace('’', "'");
        ferret_text::facts::is_negation(&raw)
    };
    all.iter()
        .enumerate()
        .filter(|(_, w)| is_negation(w))
        .filter_map(|(at, _)| {
            all[at + 1..]
                .iter()
                .take(3)
                .find(|n| !n.stop && !is_negation(n) && !n.stem.chars().all(|c| c.is_ascii_digit()))
                .map(|n| n.stem.clone())
        })
        .collect()
}

/// A claim without its attribution (`According to Wired, …`, `…, the report
/// said`): the source of a fact is the page, not part of the fact.
fn without_attribution(text: &str) -> &str {
    let t = text.trim();
    let lower = t.to_lowercase();
    if lower.starts_with("according to ")
        && let Some(comma) = t.find(',')
        && comma < 80
    {
        return t[comma + 1..].trim_start();
    }
    t
}

fn dedup_stems(words: Vec<Word>) -> Vec<Word> {
    let mut out: Vec<Word> = Vec::new();
    for w in words {
        if !out.iter().any(|o| o.stem == w.stem) {
            out.push(w);
        }
    }
    out
}

/// The pair index of the up/down dimension.
const QUANTITY: usize = usize::MAX;

fn direction_words(words: &[Word]) -> Vec<(usize, i8)> {
    direction_words_at(words)
        .into_iter()
        .map(|(_, pair, sign)| (pair, sign))
        .collect()
}

/// The direction words of `words`: (index of the word, dimension, sign).
fn direction_words_at(words: &[Word]) -> Vec<(usize, usize, i8)> {
    static SETS: LazyLock<DirectionStems> = LazyLock::new(DirectionStems::new);
    let mut out = Vec::new();
    for (at, w) in words.iter().enumerate() {
        let Some(dims) = SETS.0.get(&w.stem) else {
            continue;
        };
        // `beaten by`, `defeated 24-17 by`: the subject is the one who lost.
        let passive = if is_passive_win(words, at) { -1 } else { 1 };
        out.extend(dims.iter().map(|(dim, sign)| (at, *dim, sign * passive)));
    }
    out
}

/// The stems of every inflection of the direction words (a stemmer does
/// not always bring `added` and `add` to one stem), each with the
/// dimensions it is a direction in and its sign there: a quantity
/// ([`QUANTITY`]) or one of [`DIRECTIONS`] (its index).
struct DirectionStems(std::collections::HashMap<String, Vec<(usize, i8)>>);

impl DirectionStems {
    fn new() -> Self {
        let mut map: std::collections::HashMap<String, Vec<(usize, i8)>> = Default::default();
        let mut add = |words: &[&str], dim: usize, sign: i8| {
            for f in words.iter().flat_map(|w| inflections(w)) {
                let entry = map.entry(stem(&f)).or_default();
                if !entry.contains(&(dim, sign)) {
                    entry.push((dim, sign));
                }
            }
        };
        add(UP, QUANTITY, 1);
        add(DOWN, QUANTITY, -1);
        for (i, (up, down)) in DIRECTIONS.iter().enumerate() {
            add(&[up], i, 1);
            add(&[down], i, -1);
        }
        // A stem in both sets of one dimension says nothing there.
        for dims in map.values_mut() {
            let both: Vec<usize> = dims
                .iter()
                .filter(|(d, s)| *s > 0 && dims.contains(&(*d, -1)))
                .map(|(d, _)| *d)
                .collect();
            dims.retain(|(d, s)| !(*s < 0 && both.contains(d)));
        }
        DirectionStems(map)
    }
}

/// A word and its regular inflections: `add` → `adds`, `added`,
/// `adding`; a final `e` dropped before `ed` / `ing` (`rise` → `rising`),
/// a final consonant doubled (`drop` → `dropped`).
fn inflections(word: &str) -> Vec<String> {
    let root = word.strip_suffix('e').unwrap_or(word);
    let mut out = vec![
        word.to_string(),
        format!("{word}s"),
        format!("{word}es"),
        format!("{root}ed"),
        format!("{root}ing"),
    ];
    if let Some(last) = word.chars().last().filter(|c| !"aeiouwy".contains(*c)) {
        out.push(format!("{word}{last}ed"));
        out.push(format!("{word}{last}ing"));
    }
    out
}

/// Verbs of winning whose passive (`beaten by`) turns the winner round.
const WIN_VERBS: &[&str] = &[
    "beat",
    "beaten",
    "defeated",
    "topped",
    "overtaken",
    "outscored",
    "edged",
    "upset",
];

/// `words[at]` is a win verb's participle followed by `by` within two
/// words (scores skipped).
fn is_passive_win(words: &[Word], at: usize) -> bool {
    static WIN_STEMS: LazyLock<HashSet<String>> =
        LazyLock::new(|| WIN_VERBS.iter().map(|v| stem(v)).collect());
    WIN_STEMS.contains(&words[at].stem)
        && words[at + 1..]
            .iter()
            .filter(|n| !n.stem.chars().all(|c| c.is_ascii_digit()))
            .take(2)
            .any(|n| n.stem == "by")
}

/// A page as the judgement reads it: its title (context only: it names
/// what the page is about, it never states a fact) and its text.
#[derive(Debug, Clone, Copy)]
pub struct PageText<'a> {
    /// The fetched title (empty when none).
    pub title: &'a str,
    /// The fetched, extracted text.
    pub text: &'a str,
}

impl<'a> PageText<'a> {
    /// A page without a title.
    pub fn text(text: &'a str) -> Self {
        PageText { title: "", text }
    }
}

/// One window of the page, read.
#[derive(Debug)]
struct Window<'a> {
    range: Range<usize>,
    text: &'a str,
    words: Vec<Word>,
    facts: Vec<Spanned>,
    /// Index of the sentence it starts in, and of the one it ends in.
    sentences: (usize, usize),
    /// A clause of one sentence.
    clause: bool,
    /// For two sentences, where the second starts (bytes of the page).
    second: Option<usize>,
    /// Its capitalised tokens as name keys (`J.J.` → `jj`), with their
    /// bytes in the page: a name is stated where its keys follow each
    /// other, even where the name scanner saw none (a sentence's first
    /// word).
    name_tokens: Vec<(Range<usize>, String)>,
}

/// A page read once — its windows, their words and facts, the context a
/// window may lean on — to be judged for many claims.
#[derive(Debug)]
pub struct ReadText<'a> {
    page: PageText<'a>,
    windows: Vec<Window<'a>>,
    /// The content stems of each sentence (a window none of whose
    /// sentences holds a claim word is skipped).
    sentence_stems: Vec<HashSet<String>>,
    context: Context,
    /// Past it, sentences are no longer read and windows no longer judged
    /// (the page's time budget, [`crate::budget`]).
    deadline: Deadline,
}

impl<'a> ReadText<'a> {
    /// Reads all of `page`.
    pub fn new(page: &PageText<'a>) -> Self {
        Self::read(page, None, Deadline::none())
    }

    /// Reads `page` for `claims` only: a sentence none of whose words can
    /// be a claim's word, fact or name is not read (its windows judge
    /// nothing for these claims). The verdicts are those of
    /// [`Self::new`]; a long page costs far less.
    pub fn for_claims(page: &PageText<'a>, claims: &[Claim]) -> Self {
        Self::read(page, Some(claims), Deadline::none())
    }

    /// [`Self::for_claims`] within `deadline`: past it, the rest of the
    /// page is not read and judging stops, so a caller that finds the
    /// deadline passed after judging must discard the verdicts.
    pub fn for_claims_within(page: &PageText<'a>, claims: &[Claim], deadline: Deadline) -> Self {
        Self::read(page, Some(claims), deadline)
    }

    fn read(page: &PageText<'a>, claims: Option<&[Claim]>, deadline: Deadline) -> Self {
        let cues = claims.and_then(Cues::of);
        let (windows, sentence_stems) = windows(page.text, cues.as_ref(), deadline);
        let context = Context::of(page, &windows);
        ReadText {
            page: *page,
            windows,
            sentence_stems,
            context,
            deadline,
        }
    }

    /// The page as given.
    pub fn page(&self) -> &PageText<'a> {
        &self.page
    }

    /// Whether window `w` can hold anything of `claim`: a claim word in one
    /// of its sentences (a claim with no content word, or in CJK, is read
    /// everywhere).
    fn may_hold(&self, claim: &Claim, w: &Window<'_>) -> bool {
        if claim.cjk || claim.content.is_empty() {
            return true;
        }
        let (a, b) = w.sentences;
        claim.content.iter().any(|c| {
            self.sentence_stems[a].contains(&c.stem) || self.sentence_stems[b].contains(&c.stem)
        })
    }
}

/// Judge `page` for `claim` (see the module docs). To judge one page for
/// many claims, read it once with [`ReadText::new`] and call
/// [`judge_read`].
pub fn judge(claim: &Claim, page: &PageText<'_>) -> Judged {
    judge_read(claim, &ReadText::new(page))
}

/// Judge a page read with [`ReadText::new`] for `claim`.
pub fn judge_read(claim: &Claim, page: &ReadText<'_>) -> Judged {
    if !claim.is_judgeable() {
        return Judged::unrelated(
            "the constraint names no fact and fewer than two content words to look for",
        );
    }
    if page.page.text.trim().is_empty() {
        return Judged::unrelated("the page has no text");
    }
    let context = &page.context;
    let mut best_support: Option<(Judged, (usize, usize), bool)> = None;
    let mut refutations: Vec<(Judged, (usize, usize), bool)> = Vec::new();
    let mut nearest: Option<Judged> = None;
    for w in page.windows.iter().filter(|w| page.may_hold(claim, w)) {
        if page.deadline.expired() {
            break;
        }
        let judged = judge_window(claim, w, context);
        match judged.judgement {
            Judgement::Supports => {
                if best_support
                    .as_ref()
                    .is_none_or(|(b, _, _)| judged.strength > b.strength)
                {
                    best_support = Some((judged, w.sentences, w.clause));
                }
            }
            Judgement::Refutes => refutations.push((judged, w.sentences, w.clause)),
            Judgement::Unrelated => {
                if judged.window.is_some()
                    && nearest
                        .as_ref()
                        .is_none_or(|n| judged.strength > n.strength)
                {
                    nearest = Some(judged);
                }
            }
        }
    }
    let strongest_refutation = refutations
        .into_iter()
        .max_by(|a, b| a.0.strength.total_cmp(&b.0.strength));
    match (best_support, strongest_refutation) {
        (Some((s, span, _)), Some((r, rspan, rclause))) => {
            // A refutation inside the supporting window (a clause of it, or
            // one of its sentences) is the more specific reading.
            let inside = rspan.0 >= span.0 && rspan.1 <= span.1 && (rclause || rspan != span);
            // A page that seems to state the claim somewhere and states its
            // opposite elsewhere is read as refuting it: a wrong
            // `sufficient` costs more than a missed one.
            let _ = inside;
            if r.strength >= 0.8 * s.strength { r } else { s }
        }
        (Some((s, _, _)), None) => s,
        (None, Some((r, _, _))) => r,
        // The nearest miss, with its window, so a person can see why.
        (None, None) => nearest.unwrap_or_else(|| Judged::unrelated("not_stated")),
    }
}

impl Window<'_> {
    /// Two sentences rather than one.
    fn pair(&self) -> bool {
        self.sentences.0 != self.sentences.1
    }
}

/// What one sentence holds (byte offsets in the page).
struct Piece {
    words: Vec<Word>,
    facts: Vec<Spanned>,
    name_tokens: Vec<(Range<usize>, String)>,
}

impl Piece {
    /// A sentence not read.
    fn empty() -> Piece {
        Piece {
            words: Vec::new(),
            facts: Vec::new(),
            name_tokens: Vec::new(),
        }
    }

    fn read(text: &str, range: Range<usize>) -> Piece {
        let slice = &text[range.clone()];
        let shift = |r: Range<usize>| r.start + range.start..r.end + range.start;
        Piece {
            words: words(slice)
                .into_iter()
                .map(|w| Word {
                    span: shift(w.span.clone()),
                    ..w
                })
                .collect(),
            facts: facts_of(slice)
                .into_iter()
                .map(|f| Spanned {
                    span: shift(f.span.clone()),
                    ..f
                })
                .collect(),
            name_tokens: name_tokens(slice, range.start),
        }
    }

    /// The part of the piece inside `range`.
    fn within(&self, range: &Range<usize>) -> Piece {
        let inside = |r: &Range<usize>| range.start <= r.start && r.end <= range.end;
        Piece {
            words: self
                .words
                .iter()
                .filter(|w| inside(&w.span))
                .cloned()
                .collect(),
            facts: self
                .facts
                .iter()
                .filter(|f| inside(&f.span))
                .cloned()
                .collect(),
            name_tokens: self
                .name_tokens
                .iter()
                .filter(|(r, _)| inside(r))
                .cloned()
                .collect(),
        }
    }

    /// This piece followed by `next`.
    fn then(&self, next: &Piece) -> Piece {
        let join = |a: &[Word], b: &[Word]| a.iter().chain(b).cloned().collect();
        Piece {
            words: join(&self.words, &next.words),
            facts: self.facts.iter().chain(&next.facts).cloned().collect(),
            name_tokens: self
                .name_tokens
                .iter()
                .chain(&next.name_tokens)
                .cloned()
                .collect(),
        }
    }
}

/// What a sentence must contain (ASCII case aside) to be read for some
/// claims: a cue of one of their words ([`surface_cues`]), a digit run of
/// one of their facts, or a name's word.
struct Cues(aho_corasick::AhoCorasick);

impl Cues {
    /// `None` when every sentence must be read (a CJK claim, whose words
    /// are not spaced, or nothing to look for).
    fn of(claims: &[Claim]) -> Option<Cues> {
        if claims.iter().any(|c| c.cjk) {
            return None;
        }
        let mut patterns: Vec<String> = Vec::new();
        for claim in claims {
            // A window that supports or refutes holds half the claim's
            // content words or more; a claim of facts alone is looked for
            // by its numbers too.
            let digits_too = claim.content.is_empty();
            for w in claim.all.iter().filter(|w| !w.stop) {
                let digits = w.stem.chars().all(|c| c.is_ascii_digit());
                if digits_too || !digits {
                    patterns.extend(surface_cues(&claim.text[w.span.clone()]));
                }
            }
        }
        patterns.retain(|p| !p.is_empty());
        patterns.sort();
        patterns.dedup();
        if patterns.is_empty() {
            return None;
        }
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(&patterns)
            .ok()
            .map(Cues)
    }

    /// Whether each sentence is to be read: it holds a cue, or the one
    /// before or after it does (the two may be read together). A claim's
    /// names are cues, so a sentence that names them as context is read.
    fn mark(&self, text: &str, spans: &[Range<usize>]) -> Vec<bool> {
        let mut cued = vec![false; spans.len()];
        for m in self.0.find_overlapping_iter(text) {
            let i = spans.partition_point(|s| s.end <= m.start());
            if let Some(flag) = cued.get_mut(i) {
                *flag = true;
            }
        }
        (0..spans.len())
            .map(|i| cued[i] || cued.get(i + 1).copied().unwrap_or(false) || (i > 0 && cued[i - 1]))
            .collect()
    }
}

/// Every sentence, every two adjacent sentences, every clause of a
/// sentence that has more than one — each sentence read once (with
/// `cues`, only the sentences that hold one) — and the content stems of
/// each sentence.
fn windows<'t>(
    text: &'t str,
    cues: Option<&Cues>,
    deadline: Deadline,
) -> (Vec<Window<'t>>, Vec<HashSet<String>>) {
    let spans = sentences(text);
    let wanted = cues.map_or_else(|| vec![true; spans.len()], |c| c.mark(text, &spans));
    let pieces: Vec<Piece> = spans
        .iter()
        .zip(&wanted)
        .map(|(s, want)| {
            // Past the deadline the rest is left unread (cheaply).
            if *want && !deadline.expired() {
                Piece::read(text, s.clone())
            } else {
                Piece::empty()
            }
        })
        .collect();
    let stems = pieces
        .iter()
        .map(|p| {
            p.words
                .iter()
                .filter(|w| !w.stop)
                .map(|w| w.stem.clone())
                .collect()
        })
        .collect();
    let make = |range: Range<usize>,
                piece: Piece,
                sentences: (usize, usize),
                clause: bool,
                second: Option<usize>| Window {
        text: &text[range.clone()],
        range,
        words: piece.words,
        facts: piece.facts,
        name_tokens: piece.name_tokens,
        sentences,
        clause,
        second,
    };
    let mut out = Vec::with_capacity(spans.len() * 3);
    for (i, s) in spans.iter().enumerate() {
        let piece = &pieces[i];
        out.push(make(s.clone(), piece.within(s), (i, i), false, None));
        let parts = if wanted[i] {
            clauses(text, s.clone())
        } else {
            Vec::new()
        };
        if parts.len() > 1 {
            for c in parts {
                out.push(make(c.clone(), piece.within(&c), (i, i), true, None));
            }
        }
        if let Some(next) = spans.get(i + 1).filter(|_| wanted[i] || wanted[i + 1]) {
            out.push(make(
                s.start..next.end,
                piece.then(&pieces[i + 1]),
                (i, i + 1),
                false,
                Some(next.start),
            ));
        }
    }
    (out, stems)
}

/// Capitalised (or CJK) whitespace tokens of `text` as name keys, with
/// their bytes offset by `offset`.
fn name_tokens(text: &str, offset: usize) -> Vec<(Range<usize>, String)> {
    text.split_whitespace()
        .filter_map(|t| {
            let at = t.as_ptr() as usize - text.as_ptr() as usize;
            let core = t.trim_matches(|c: char| !c.is_alphanumeric());
            let lead = t.find(core).unwrap_or(0);
            let capitalised = core
                .chars()
                .next()
                .is_some_and(|c| c.is_uppercase() || c.is_numeric());
            let key = ferret_core::plan::facts::name_key(core);
            (capitalised && !key.is_empty())
                .then(|| (offset + at + lead..offset + at + lead + core.len(), key))
        })
        .collect()
}

/// Where the window states the claim's fact `f`: a window fact that states
/// it in the claim's place and role, or for a name its key words in a row.
fn stated_span(claim: &Claim, f: &Spanned, w: &Window<'_>) -> Option<Range<usize>> {
    let by_fact = w
        .facts
        .iter()
        .filter(|g| f.fact.stated_by(&g.fact))
        .find(|g| attached_here(claim, f, w, g) && same_role(claim, f, w, g))
        .map(|g| g.span.clone());
    let Fact::Name { key, text } = &f.fact else {
        return by_fact;
    };
    by_fact.or_else(|| {
        if !text.is_ascii() {
            return w
                .text
                .find(text.as_str())
                .map(|at| w.range.start + at..w.range.start + at + text.len());
        }
        let wanted: Vec<&str> = key.split(' ').collect();
        let whole = w
            .name_tokens
            .windows(wanted.len())
            .find(|run| run.iter().zip(&wanted).all(|((_, k), want)| k == want))
            .map(|run| run[0].0.start..run[run.len() - 1].0.end);
        // `Netanyahu` for `Benjamin Netanyahu`: the last word alone, not
        // the end of another name (`Venus Williams` is not `Serena Williams`).
        let surname = || {
            let last = *wanted.last()?;
            (wanted.len() > 1).then_some(())?;
            w.name_tokens.iter().enumerate().find_map(|(i, (span, k))| {
                let joined = i > 0
                    && w.text
                        [w.name_tokens[i - 1].0.end - w.range.start..span.start - w.range.start]
                        .trim()
                        .is_empty();
                (k == last && !joined).then(|| span.clone())
            })
        };
        whole.or_else(surname)
    })
}

/// How the claim's facts fare in one window.
struct FactCheck {
    stated: Vec<String>,
    /// Where in the window the stated facts sit.
    stated_spans: Vec<Range<usize>>,
    missing: Vec<usize>,
    /// A claim fact (index) and the window fact that says otherwise.
    contradicted: Vec<(usize, String)>,
    /// A claim name (index) missing, and another name in its place.
    other_name: Vec<(usize, String)>,
    /// A claim fact (index) stated in the opposite role (`from` ↔ `to`).
    role_swapped: Vec<(usize, String)>,
    /// Claim facts (indices) not in the window but stated as context
    /// elsewhere on the page.
    context: Vec<usize>,
}

impl FactCheck {
    /// Where polarity and direction are read: around the stated values
    /// when there are any (a name may sit in another clause or a heading),
    /// else around the stated names.
    fn focus_spans(&self, claim: &Claim) -> Vec<Range<usize>> {
        let is_value = |text: &String| {
            claim
                .facts
                .iter()
                .any(|f| f.fact.text() == text && !matches!(f.fact, Fact::Name { .. }))
        };
        let values: Vec<Range<usize>> = self
            .stated
            .iter()
            .zip(&self.stated_spans)
            .filter(|(t, _)| is_value(t))
            .map(|(_, s)| s.clone())
            .collect();
        if values.is_empty() {
            self.stated_spans.clone()
        } else {
            values
        }
    }
}

/// Sentences before a window whose names (and years) can stand as its
/// context: a pronoun or a short form refers to what was just said.
const CONTEXT_SENTENCES: usize = 3;

/// What a window's context may state: the title, and the facts of each
/// sentence (for the few before the window).
#[derive(Debug)]
struct Context {
    title: Vec<Spanned>,
    sentences: Vec<Vec<Spanned>>,
}

impl Context {
    fn of(page: &PageText<'_>, windows: &[Window<'_>]) -> Self {
        let sentences = windows
            .iter()
            .filter(|w| !w.clause && !w.pair())
            .map(|w| w.facts.clone())
            .collect();
        Context {
            title: facts_of(page.title),
            sentences,
        }
    }

    /// Whether `f` — a name, or a year alone (`the 2020 Nissan Sentra`) —
    /// is stated by the title or by one of the sentences just before
    /// sentence `at`.
    fn states(&self, f: &Fact, at: usize) -> bool {
        let contextual = matches!(
            f,
            Fact::Name { .. }
                | Fact::Date {
                    month: None,
                    day: None,
                    ..
                }
        );
        let before = self.sentences
            [at.saturating_sub(CONTEXT_SENTENCES)..at.min(self.sentences.len())]
            .iter()
            .flatten();
        contextual
            && self
                .title
                .iter()
                .chain(before)
                .any(|g| f.stated_by(&g.fact))
    }
}

fn check_facts(claim: &Claim, w: &Window<'_>, context: &Context) -> FactCheck {
    let mut check = FactCheck {
        stated: Vec::new(),
        stated_spans: Vec::new(),
        missing: Vec::new(),
        contradicted: Vec::new(),
        other_name: Vec::new(),
        role_swapped: Vec::new(),
        context: Vec::new(),
    };
    for (i, f) in claim.facts.iter().enumerate() {
        if let Some(span) = stated_span(claim, f, w) {
            check.stated.push(f.fact.text().to_string());
            check.stated_spans.push(span);
            continue;
        }
        let elsewhere = !completes_predicate(claim, f) && context.states(&f.fact, w.sentences.0);
        let replaced_name = (matches!(f.fact, Fact::Name { .. }) && !is_modifier(claim, f))
            .then(|| name_in_place(claim, f, w))
            .flatten();
        if elsewhere && replaced_name.is_none() {
            check.context.push(i);
            continue;
        }
        check.missing.push(i);
        if let Some(g) = w
            .facts
            .iter()
            .find(|g| f.fact.stated_by(&g.fact) && !same_role(claim, f, w, g))
        {
            let role = role_before(w.text, w.range.start, &g.span).unwrap_or_default();
            check
                .role_swapped
                .push((i, format!("{role} {}", g.fact.text())));
        } else if w.facts.iter().any(|g| f.fact.stated_by(&g.fact)) {
            // Stated, though not next to the claim's word: not a contradiction.
        } else if let Some(g) = w.facts.iter().find(|g| {
            f.fact.contradicted_by(&g.fact)
                && comparable(claim, f, w, g)
                && !claim.facts.iter().any(|o| o.fact.stated_by(&g.fact))
        }) {
            check.contradicted.push((i, g.fact.text().to_string()));
        } else if let Some(g) = replaced_name {
            check.other_name.push((i, g));
        }
    }
    check
}

/// Prepositions whose name completes the claim's predicate (`held in
/// Nashville`, `directed by Justin Lin`, `beat Spain with Real Madrid`).
const PREDICATE_PREPOSITIONS: &[&str] = &[
    "in", "at", "by", "from", "to", "with", "for", "against", "near", "into",
];

/// A name right after one of [`PREDICATE_PREPOSITIONS`] in the claim: it
/// must be stated with the rest of the claim, not only near it (a place or
/// an agent is not what a pronoun later refers back to).
fn completes_predicate(claim: &Claim, f: &Spanned) -> bool {
    matches!(f.fact, Fact::Name { .. })
        && last_word(&claim.text[..f.span.start])
            .is_some_and(|(_, w)| PREDICATE_PREPOSITIONS.contains(&w.as_str()))
}

/// The claim word next to a fact in the claim, with its side (+1 after
/// the fact, −1 before): the first content word on either side, skipping
/// function words, within two words, not past another fact.
fn attachment(claim: &Claim, f: &Spanned) -> Option<(String, i8)> {
    let all = &claim.all;
    let in_other_fact = |w: &Word| {
        claim
            .facts
            .iter()
            .any(|g| g.span != f.span && g.span.start <= w.span.start && w.span.end <= g.span.end)
    };
    let is_content = |w: &Word| claim.content.iter().any(|c| c.stem == w.stem);
    let find = |side: &mut dyn Iterator<Item = &Word>| -> Option<String> {
        for (seen, w) in side.enumerate() {
            if seen >= 3 || in_other_fact(w) {
                return None;
            }
            if is_content(w) {
                return Some(w.stem.clone());
            }
        }
        None
    };
    let mut after = all.iter().filter(|w| w.span.start >= f.span.end);
    let mut before = all.iter().rev().filter(|w| w.span.end <= f.span.start);
    find(&mut after)
        .map(|s| (s, 1))
        .or_else(|| find(&mut before).map(|s| (s, -1)))
}

/// A number is stated where the claim puts it: when the claim word it
/// qualifies is in the window, the number nearest that word on the same
/// side is this one.
fn attached_here(claim: &Claim, f: &Spanned, w: &Window<'_>, g: &Spanned) -> bool {
    if !matches!(f.fact, Fact::Number { .. }) {
        return true;
    }
    let Some((anchor, side)) = attachment(claim, f) else {
        return true;
    };
    let anchors: Vec<&Word> = w.words.iter().filter(|x| x.stem == anchor).collect();
    if anchors.is_empty() {
        return true;
    }
    anchors.iter().any(|a| {
        let nearest = nearest_number(w, a, side);
        nearest.is_none_or(|n| n.span == g.span)
    })
}

/// The number nearest `anchor` within three words, on the claim's side
/// when there is one there, else on the other side (a paraphrase may put
/// the word before or after its number).
fn nearest_number<'w>(w: &'w Window<'_>, anchor: &Word, side: i8) -> Option<&'w Spanned> {
    nearest_number_on(w, anchor, side).or_else(|| nearest_number_on(w, anchor, -side))
}

fn nearest_number_on<'w>(w: &'w Window<'_>, anchor: &Word, side: i8) -> Option<&'w Spanned> {
    let numbers = w
        .facts
        .iter()
        .filter(|g| matches!(g.fact, Fact::Number { .. }));
    let gap = |g: &&Spanned| -> Option<usize> {
        let between = if side > 0 {
            (g.span.end <= anchor.span.start)
                .then(|| &w.text[g.span.end - w.range.start..anchor.span.start - w.range.start])
        } else {
            (g.span.start >= anchor.span.end)
                .then(|| &w.text[anchor.span.end - w.range.start..g.span.start - w.range.start])
        }?;
        let n = between.split_whitespace().count();
        (n <= 3).then_some(n)
    };
    numbers
        .filter_map(|g| gap(&g).map(|n| (n, g)))
        .min_by_key(|(n, _)| *n)
        .map(|(_, g)| g)
}

/// The role word right before a fact (`from`, `to`, `before` …), if any;
/// an article between them (`to a £3m fee`) is skipped.
fn role_before(text: &str, offset: usize, span: &Range<usize>) -> Option<String> {
    let before = &text[..span.start - offset];
    let (rest, word) = last_word(before)?;
    let word = if matches!(word.as_str(), "a" | "an" | "the") {
        last_word(rest)?.1
    } else {
        word
    };
    ROLE_WORDS.contains(&word.as_str()).then_some(word)
}

/// The last alphanumeric word of `text`, lowercased, and the text before it.
fn last_word(text: &str) -> Option<(&str, String)> {
    let end = text
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_alphanumeric())
        .map(|(i, c)| i + c.len_utf8())?;
    let start = text[..end]
        .char_indices()
        .rev()
        .find(|(_, c)| !c.is_alphanumeric())
        .map_or(0, |(i, c)| i + c.len_utf8());
    Some((&text[..start], text[start..end].to_lowercase()))
}

/// A fact with a role word in the claim (`to 4:25`) keeps it in the window
/// when the window gives the fact one.
fn same_role(claim: &Claim, f: &Spanned, w: &Window<'_>, g: &Spanned) -> bool {
    let Some(want) = role_before(&claim.text, 0, &f.span) else {
        return true;
    };
    match role_before(w.text, w.range.start, &g.span) {
        Some(have) => {
            have == want
                || !matches!(
                    (want.as_str(), have.as_str()),
                    ("from", "to") | ("to", "from") | ("before", "after") | ("after", "before")
                )
        }
        None => true,
    }
}

/// A window fact can stand where the claim's would: same kind and, for
/// numbers, the same unit when both have one and the same qualified word
/// nearby.
fn comparable(claim: &Claim, f: &Spanned, w: &Window<'_>, g: &Spanned) -> bool {
    match (&f.fact, &g.fact) {
        (
            Fact::Number {
                unit: ua,
                currency: ca,
                ..
            },
            Fact::Number {
                unit: ub,
                currency: cb,
                ..
            },
        ) => {
            if ca.is_some() && cb.is_some() && ca != cb {
                return false;
            }
            if ua.is_some() && ub.is_some() && ua != ub {
                return false;
            }
            // The number next to the claim's word in the window, when one
            // is; else one with the same unit.
            let nearest: Vec<&Spanned> = match attachment(claim, f) {
                Some((anchor, side)) => w
                    .words
                    .iter()
                    .filter(|x| x.stem == anchor)
                    .filter_map(|a| nearest_number(w, a, side))
                    .collect(),
                None => Vec::new(),
            };
            if nearest.is_empty() {
                (ua.is_some() && ua == ub) || (ca.is_some() && ca == cb)
            } else {
                nearest.iter().any(|n| n.span == g.span)
            }
        }
        (Fact::Date { .. }, Fact::Date { .. }) | (Fact::Time { .. }, Fact::Time { .. }) => true,
        _ => false,
    }
}

/// Another name where the claim's name `f` would be: right next to a claim
/// word that sits next to `f` in the claim (same side, at most two words
/// and no punctuation between), sharing no word with the claim's names.
fn name_in_place(claim: &Claim, f: &Spanned, w: &Window<'_>) -> Option<String> {
    let (anchor, side) = attachment(claim, f)?;
    let claim_words: Vec<&str> = claim
        .facts
        .iter()
        .filter_map(|s| match &s.fact {
            Fact::Name { key, .. } => Some(key.split(' ')),
            _ => None,
        })
        .flatten()
        .collect();
    let slice = |r: Range<usize>| &w.text[r.start - w.range.start..r.end - w.range.start];
    // An appositive (`Chris Early, the CEO`) keeps its comma in the page.
    let claim_between = claim_gap(claim, f, &anchor, side);
    for a in w.words.iter().filter(|x| x.stem == anchor) {
        for g in w.facts.iter() {
            let Fact::Name { key, text } = &g.fact else {
                continue;
            };
            if key.split(' ').any(|k| claim_words.contains(&k)) {
                continue;
            }
            let between = if side > 0 {
                (g.span.end <= a.span.start).then(|| slice(g.span.end..a.span.start))
            } else {
                (g.span.start >= a.span.end).then(|| slice(a.span.end..g.span.start))
            };
            let adjacent = between.is_some_and(|b| {
                let b = if claim_between.contains(',') {
                    b.replacen(',', "", 1)
                } else {
                    b.to_string()
                };
                b.split_whitespace().count() <= 2
                    && !b.contains([',', ';', ':', '.', '(', ')', '—', '–'])
            });
            if adjacent {
                return Some(text.clone());
            }
        }
    }
    None
}

/// A one-word name used as an adjective (`Chinese purchases`, `Democratic
/// nominee`): an attribute of the next word, not an entity another name
/// could stand in for.
fn is_modifier(claim: &Claim, f: &Spanned) -> bool {
    let one_word = !f.fact.text().contains(char::is_whitespace);
    let next = claim.text[f.span.end..]
        .split_whitespace()
        .next()
        .unwrap_or_default();
    one_word
        && next.starts_with(|c: char| c.is_lowercase())
        && !PREDICATE_PREPOSITIONS.contains(&next)
        && !is_stopword(next)
}

/// The claim's text between fact `f` and its anchor word.
fn claim_gap<'c>(claim: &'c Claim, f: &Spanned, anchor: &str, side: i8) -> &'c str {
    let all = &claim.all;
    let found = if side > 0 {
        all.iter()
            .find(|x| x.span.start >= f.span.end && x.stem == anchor)
            .map(|x| f.span.end..x.span.start)
    } else {
        all.iter()
            .rev()
            .find(|x| x.span.end <= f.span.start && x.stem == anchor)
            .map(|x| x.span.end..f.span.start)
    };
    found.map_or("", |r| &claim.text[r])
}

/// The share of the claim's content words in the window (CJK: the share
/// of its character bigrams).
fn coverage(claim: &Claim, w: &Window<'_>) -> (f64, Vec<String>) {
    if claim.cjk {
        let grams: Vec<String> = claim
            .content
            .windows(2)
            .filter(|p| p[0].span.end == p[1].span.start)
            .map(|p| format!("{}{}", p[0].stem, p[1].stem))
            .collect();
        if grams.is_empty() {
            return (1.0, Vec::new());
        }
        let lower = w.text.to_lowercase();
        let found: Vec<String> = grams
            .iter()
            .filter(|g| lower.contains(g.as_str()))
            .cloned()
            .collect();
        return (found.len() as f64 / grams.len() as f64, found);
    }
    if claim.content.is_empty() {
        return (1.0, Vec::new());
    }
    let found: Vec<String> = claim
        .content
        .iter()
        .filter(|c| w.words.iter().any(|x| x.stem == c.stem))
        .map(|c| c.stem.clone())
        .collect();
    (found.len() as f64 / claim.content.len() as f64, found)
}

/// What one window holds of a claim, before any verdict.
struct Reading<'w> {
    window: &'w Window<'w>,
    facts: FactCheck,
    /// The share of the claim's content words in the window.
    cov: f64,
    /// The claim's numbers, dates and times (its names are the rest).
    values: usize,
    /// Every fact stated and enough words for the claim's kind.
    enough: bool,
    /// The window itself states a value (or a name) of the claim.
    anchored: bool,
    strength: f64,
    matched: Vec<String>,
}

impl<'w> Reading<'w> {
    fn of(claim: &Claim, w: &'w Window<'w>, context: &Context) -> Self {
        let facts = check_facts(claim, w, context);
        let (cov, found) = coverage(claim, w);
        let strength = 2.0 * facts.stated.len() as f64 + cov * claim.content.len().max(1) as f64;
        let values = claim
            .facts
            .iter()
            .filter(|f| !matches!(f.fact, Fact::Name { .. }))
            .count();
        // Numbers, dates and times are checkable values; a claim of names
        // and words only needs more of itself in one sentence.
        let names = claim.facts.len() - values;
        let enough = if values > 0 {
            // Values: half the words besides.
            cov >= 0.5
        } else if names > 0 {
            // Names and words only: every name and three quarters of the
            // words, in one sentence.
            cov >= 0.75 && !w.pair()
        } else {
            // Words only: nearly all of them, in one sentence.
            cov >= 0.9 && found.len() + claim.directions.len().min(1) >= 3 && !w.pair()
        };
        // Context facts may sit elsewhere on the page, but the window must
        // state at least one of the claim's values (or its names) itself.
        let anchored = if values > 0 {
            facts
                .stated_spans
                .len()
                .saturating_sub(names_stated(claim, w))
                > 0
        } else {
            names == 0 || names_stated(claim, w) > 0
        };
        let mut matched = facts.stated.clone();
        matched.extend(found);
        Reading {
            window: w,
            facts,
            cov,
            values,
            enough,
            anchored,
            strength,
            matched,
        }
    }

    fn verdict(&self, judgement: Judgement, reason: String) -> Judged {
        Judged {
            judgement,
            reason,
            window: Some(self.window.range.clone()),
            matched: self.matched.clone(),
            strength: self.strength,
        }
    }

    /// Every fact stated, enough words, one of them in the window itself.
    fn states_the_facts(&self) -> bool {
        self.facts.missing.is_empty() && self.enough && self.anchored
    }

    /// The nearest miss, and what it lacks.
    fn miss(&self, claim: &Claim) -> Judged {
        if self.facts.stated.is_empty() && self.cov == 0.0 {
            return Judged::unrelated("not_stated");
        }
        let missing: Vec<&str> = self
            .facts
            .missing
            .iter()
            .map(|i| claim.facts[*i].fact.text())
            .collect();
        let why = if !missing.is_empty() {
            format!("not here: {}", missing.join(", "))
        } else if !self.enough || !self.anchored {
            format!("{:.0}% of the words", self.cov * 100.0)
        } else {
            "context only".to_string()
        };
        self.verdict(Judgement::Unrelated, format!("facts_not_colocated ({why})"))
    }
}

fn judge_window(claim: &Claim, w: &Window<'_>, context: &Context) -> Judged {
    let r = Reading::of(claim, w, context);
    // Neither support (every fact, enough words) nor a reversal or a
    // refutation (half the words or more) can come from this window.
    if !(r.facts.missing.is_empty() && r.enough) && r.cov < 0.5 {
        return r.miss(claim);
    }
    if r.states_the_facts() && words_of_the_claim_here(claim, w) {
        return polarity_and_predicate(claim, &r);
    }
    contradiction(claim, &r).unwrap_or_else(|| r.miss(claim))
}

/// The claim's negated words and direction words are in the window
/// (either way round): `was not fired` is not stated by a sentence about
/// a search, `rose` is read against `fell`.
fn words_of_the_claim_here(claim: &Claim, w: &Window<'_>) -> bool {
    let negated_here = claim
        .negated
        .iter()
        .all(|n| w.words.iter().any(|x| x.stem == *n));
    let window_dims: Vec<usize> = direction_words(&w.words)
        .into_iter()
        .map(|(d, _)| d)
        .collect();
    let directions_here = claim.cjk
        || claim
            .directions
            .iter()
            .all(|(d, _)| window_dims.contains(d));
    negated_here && directions_here
}

/// A window that states the facts: supports unless its polarity or
/// direction is the opposite, its names are not joined as the claim's, or
/// it only says the claim might be so.
fn polarity_and_predicate(claim: &Claim, r: &Reading<'_>) -> Judged {
    let w = r.window;
    // A claim without values is read over the whole window (its names may
    // sit in another clause than its verb).
    let focus_parts = if r.values == 0 {
        vec![w.range.clone()]
    } else {
        focus_of(w, &r.facts.focus_spans(claim), claim.cjk)
    };
    let focus = focus_text(w, &focus_parts);
    if claim.polarity % 2 != scoped_polarity(&focus) % 2 {
        return r.verdict(
            Judgement::Refutes,
            format!("negated: {}", negation_shown(claim, &focus)),
        );
    }
    if let Some(why) = reversed_direction(claim, w, &focus_parts) {
        return r.verdict(Judgement::Refutes, format!("reversed: {why}"));
    }
    if !one_sentence_states_the_predicate(claim, w, &r.facts) || !names_linked(claim, w) {
        return r.verdict(
            Judgement::Unrelated,
            "facts_not_colocated (names not joined)".into(),
        );
    }
    if let Some(h) = hedged(claim, &focus) {
        return r.verdict(Judgement::Unrelated, format!("hedged: {h:?}"));
    }
    r.verdict(Judgement::Supports, "facts_colocated".into())
}

/// A refutation by value or name: the claim's facts in swapped roles, or —
/// in a window about the claim (every other fact, most words) — another
/// number, date, time or name where the claim's would be.
fn contradiction(claim: &Claim, r: &Reading<'_>) -> Option<Judged> {
    let facts = &r.facts;
    let swapped_all =
        !facts.role_swapped.is_empty() && facts.role_swapped.len() == facts.missing.len();
    if swapped_all && r.cov >= 0.5 {
        let (i, page) = &facts.role_swapped[0];
        let role = role_before(&claim.text, 0, &claim.facts[*i].span).unwrap_or_default();
        let claimed = claim.facts[*i].fact.text();
        return Some(r.verdict(
            Judgement::Refutes,
            format!("reversed: {page} vs {role} {claimed}"),
        ));
    }
    let about = r.cov >= 0.6
        && facts.missing.len() <= 1
        && (!facts.stated.is_empty() || claim.facts.len() == 1);
    if !about {
        return None;
    }
    if let Some((i, other)) = facts.contradicted.first() {
        let kind = match claim.facts[*i].fact {
            Fact::Number { .. } => "number_mismatch",
            Fact::Date { .. } => "date_mismatch",
            _ => "time_mismatch",
        };
        let claimed = claim.facts[*i].fact.text();
        return Some(r.verdict(Judgement::Refutes, format!("{kind}: {other} vs {claimed}")));
    }
    let (i, other) = facts.other_name.first()?;
    let claimed = claim.facts[*i].fact.text();
    Some(r.verdict(
        Judgement::Refutes,
        format!("entity_mismatch: {other} vs {claimed}"),
    ))
}

/// The parts of the window a claim's polarity and direction are read in:
/// around each stated fact, six words either side within its own clause,
/// or the whole window when the claim has no fact stated there — so that
/// a negation in another clause or sentence ("I'm not complaining. The
/// laptop starts at $2,400") does not flip the claim. In CJK (words are
/// characters) the clause holding a fact is read whole.
fn focus_of(w: &Window<'_>, stated: &[Range<usize>], cjk: bool) -> Vec<Range<usize>> {
    if stated.is_empty() {
        return vec![w.range.clone()];
    }
    let page_offset = w.range.start;
    let pieces: Vec<Range<usize>> = sentences(w.text)
        .into_iter()
        .flat_map(|s| clauses(w.text, s))
        .map(|c| c.start + page_offset..c.end + page_offset)
        .collect();
    let mut parts: Vec<Range<usize>> = stated
        .iter()
        .filter_map(|fact| {
            let piece = pieces
                .iter()
                .find(|p| p.start <= fact.start && fact.end <= p.end)?;
            Some(if cjk {
                piece.clone()
            } else {
                around(w, piece, fact)
            })
        })
        .collect();
    parts.sort_by_key(|p| p.start);
    // Overlapping parts are read once (a negation between two facts counts
    // once).
    let mut merged: Vec<Range<usize>> = Vec::new();
    for p in parts {
        match merged.last_mut() {
            Some(last) if p.start <= last.end => last.end = last.end.max(p.end),
            _ => merged.push(p),
        }
    }
    merged
}

/// The focus's text, its parts joined by ` | `.
fn focus_text(w: &Window<'_>, focus: &[Range<usize>]) -> String {
    focus
        .iter()
        .map(|p| &w.text[p.start - w.range.start..p.end - w.range.start])
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Six words either side of `fact`, inside `piece`.
fn around(w: &Window<'_>, piece: &Range<usize>, fact: &Range<usize>) -> Range<usize> {
    let inside = |x: &&Word| piece.start <= x.span.start && x.span.end <= piece.end;
    let before: Vec<&Word> = w
        .words
        .iter()
        .filter(inside)
        .filter(|x| x.span.end <= fact.start)
        .collect();
    let after: Vec<&Word> = w
        .words
        .iter()
        .filter(inside)
        .filter(|x| x.span.start >= fact.end)
        .collect();
    let start = before
        .iter()
        .rev()
        .nth(5)
        .or(before.first())
        .map_or(fact.start, |x| x.span.start);
    let end = after
        .get(5)
        .or(after.last())
        .map_or(fact.end, |x| x.span.end);
    start..end
}

/// A hedge word the focus uses and the claim does not.
fn hedged(claim: &Claim, focus: &str) -> Option<&'static str> {
    let has = |text: &str, h: &str| {
        text.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w == h)
    };
    HEDGES
        .iter()
        .find(|h| has(focus, h) && !has(&claim.text, h))
        .copied()
}

/// Negations in `text` that negate (idioms such as "not only" removed).
fn scoped_polarity(text: &str) -> usize {
    let lower = text.to_lowercase();
    let idioms: usize = NOT_NEGATIONS.iter().map(|i| lower.matches(i).count()).sum();
    polarity_of(text).saturating_sub(idioms)
}

/// How many of the claim's names the window states itself.
fn names_stated(claim: &Claim, w: &Window<'_>) -> usize {
    claim
        .facts
        .iter()
        .filter(|f| matches!(f.fact, Fact::Name { .. }))
        .filter(|f| stated_span(claim, f, w).is_some())
        .count()
}

/// The negation the window uses and the claim does not (or the other way
/// round), quoted.
fn negation_shown(claim: &Claim, focus: &str) -> String {
    let (has, text) = if polarity_of(focus) > claim.polarity {
        (true, focus)
    } else {
        (false, claim.text.as_str())
    };
    let lower = text.to_lowercase();
    let marker = ferret_core::plan::facts::NEGATIONS
        .iter()
        .chain(ferret_core::plan::facts::CJK_NEGATIONS)
        .filter(|m| {
            if m.is_ascii() {
                lower
                    .split(|c: char| !(c.is_alphanumeric() || c == '\''))
                    .any(|word| word == **m)
            } else {
                lower.contains(**m)
            }
        })
        .min_by_key(|m| lower.find(**m).unwrap_or(usize::MAX))
        .copied()
        .unwrap_or("not");
    if has {
        format!("the page says {marker:?}")
    } else {
        format!("the claim says {marker:?} and the page does not")
    }
}

/// The focus uses the opposite of one of the claim's direction words and
/// not the word itself.
fn reversed_direction(claim: &Claim, w: &Window<'_>, focus: &[Range<usize>]) -> Option<String> {
    // Read over the whole window (a passive's `by` may sit past the
    // focus), kept where the focus is.
    let in_focus = |at: usize| {
        let span = &w.words[at].span;
        focus
            .iter()
            .any(|f| f.start <= span.start && span.end <= f.end)
    };
    let window_dirs: Vec<(usize, i8)> = direction_words_at(&w.words)
        .into_iter()
        .filter(|(at, _, _)| in_focus(*at))
        .map(|(_, pair, sign)| (pair, sign))
        .collect();
    if claim.cjk {
        let text = focus_text(w, focus);
        for (up, down) in CJK_DIRECTIONS {
            for (mine, other) in [(up, down), (down, up)] {
                if claim.text.contains(mine) && text.contains(other) && !text.contains(mine) {
                    return Some(format!("{other} vs {mine}"));
                }
            }
        }
    }
    for (pair, sign) in &claim.directions {
        let same = window_dirs.iter().any(|(p, s)| p == pair && s == sign);
        let opposite = window_dirs.iter().any(|(p, s)| p == pair && s != sign);
        if opposite && !same && !roles_swapped(claim, w) {
            let (up, down) = if *pair == QUANTITY {
                ("up", "down")
            } else {
                DIRECTIONS[*pair]
            };
            let (page, claim_word) = if *sign > 0 { (down, up) } else { (up, down) };
            return Some(format!("{page} vs {claim_word}"));
        }
    }
    None
}

/// The claim's first two names stand in the window in the other order
/// (`A was beaten by B` and `B beat A` say one thing).
fn roles_swapped(claim: &Claim, w: &Window<'_>) -> bool {
    let mut names = claim
        .facts
        .iter()
        .filter(|f| matches!(f.fact, Fact::Name { .. }));
    let (Some(a), Some(b)) = (names.next(), names.next()) else {
        return false;
    };
    match (stated_span(claim, a, w), stated_span(claim, b, w)) {
        (Some(ga), Some(gb)) => gb.start < ga.start,
        _ => false,
    }
}

/// In two sentences, a name that completes the claim's predicate may sit
/// in the other sentence than the claim's values only when the values'
/// sentence names no one else (`Mourinho managed Real Madrid. He won it in
/// 2010 with Inter` does not state that he won it with Real Madrid; `The
/// base is in Syria. Some 200 troops remain there` does state where).
fn one_sentence_states_the_predicate(claim: &Claim, w: &Window<'_>, facts: &FactCheck) -> bool {
    let Some(second) = w.second else {
        return true;
    };
    let side_of = |f: &Spanned| {
        let at = facts.stated.iter().position(|t| t == f.fact.text())?;
        Some(facts.stated_spans[at].start >= second)
    };
    let value_sides: Vec<bool> = claim
        .facts
        .iter()
        .filter(|f| !matches!(f.fact, Fact::Name { .. }))
        .filter_map(side_of)
        .collect();
    let claim_names: Vec<&Fact> = claim.facts.iter().map(|f| &f.fact).collect();
    let names_someone_else = |in_second: bool| {
        w.facts.iter().any(|g| {
            matches!(g.fact, Fact::Name { .. })
                && (g.span.start >= second) == in_second
                && !claim_names
                    .iter()
                    .any(|c| c.stated_by(&g.fact) || g.fact.stated_by(c))
        })
    };
    claim
        .facts
        .iter()
        .filter(|f| completes_predicate(claim, f))
        .filter_map(side_of)
        .all(|name_side| {
            value_sides
                .iter()
                .all(|v| *v == name_side || !names_someone_else(*v))
        })
}

/// Two names the claim joins with a claim word between them are joined in
/// the window too: by that word (or a synonym), or directly — a few words
/// with no punctuation and no other name between them. So `A, like B, who
/// directed C` does not state `A directed B`, while `Argentina got past
/// Chile` states `Argentina defeated Chile`.
fn names_linked(claim: &Claim, w: &Window<'_>) -> bool {
    let names: Vec<&Spanned> = claim
        .facts
        .iter()
        .filter(|f| matches!(f.fact, Fact::Name { .. }))
        .collect();
    let claim_names: Vec<&Fact> = names.iter().map(|f| &f.fact).collect();
    names.windows(2).all(|pair| {
        let (a, b) = (pair[0], pair[1]);
        let linking: Vec<Word> = words(&claim.text[a.span.end..b.span.start])
            .into_iter()
            .filter(|x| !x.stop)
            .collect();
        let (Some(ga), Some(gb)) = (stated_span(claim, a, w), stated_span(claim, b, w)) else {
            // One of them is context from elsewhere on the page.
            return true;
        };
        if linking.is_empty() {
            return true;
        }
        let (lo, hi) = if ga.end <= gb.start {
            (ga.end, gb.start)
        } else {
            (gb.end, ga.start)
        };
        if lo > hi {
            return false;
        }
        let inner = &w.text[lo - w.range.start..hi - w.range.start];
        let inner_words = words(inner);
        let by_word = inner_words.len() <= 12
            && inner_words
                .iter()
                .any(|x| linking.iter().any(|l| l.stem == x.stem));
        let other_name = w.facts.iter().any(|g| {
            matches!(g.fact, Fact::Name { .. })
                && lo <= g.span.start
                && g.span.end <= hi
                && !claim_names
                    .iter()
                    .any(|c| c.stated_by(&g.fact) || g.fact.stated_by(c))
        });
        let direct = inner_words.len() <= 8
            && !other_name
            && !inner.contains([',', ';', ':', '(', ')', '—', '–']);
        by_word || direct
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(claim: &str, page: &str) -> (Judgement, String) {
        let c = Claim::new(claim);
        let j = judge(&c, &PageText::text(page));
        eprintln!(
            "CLAIM {:?} content {:?}\n -> {:?} {} {:?}",
            c.facts(),
            c.content.iter().map(|w| &w.stem).collect::<Vec<_>>(),
            j.judgement,
            j.reason,
            j.window.as_ref().map(|r| &page[r.clone()])
        );
        (j.judgement, j.reason)
    }

    #[test]
    fn a_sentence_with_every_fact_supports() {
        let (j, r) = verdict(
            "The Larkspur cooperative pays a quarterly dividend of 42 credits",
            "Minutes. The Larkspur cooperative pays members a quarterly dividend of 42 credits, the board said.",
        );
        assert_eq!(j, Judgement::Supports, "{r}");
    }

    #[test]
    fn a_changed_number_refutes() {
        let (j, r) = verdict(
            "There were 64 animal cases",
            "Officials counted 12 human cases and 46 animal cases this year.",
        );
        assert_eq!(j, Judgement::Refutes, "{r}");
        assert!(r.starts_with("number_mismatch: 46 vs 64"), "{r}");
        // The claimed number on another noun is not support (and, as the
        // sentence also states it, not read as a refutation either).
        let (j, _) = verdict(
            "There were 64 animal cases",
            "Officials counted 64 human cases and 46 animal cases this year.",
        );
        assert_ne!(j, Judgement::Supports);
    }

    #[test]
    fn another_name_in_the_claimed_role_refutes() {
        let page = "J.J. Abrams directed the first two films of the reboot. Star Trek Beyond was directed by Justin Lin.";
        let (j, r) = verdict("Star Trek Beyond was directed by J.J. Abrams", page);
        assert_eq!(j, Judgement::Refutes, "{r}");
        assert!(r.contains("Justin Lin"), "{r}");
        let page = "The first two films were directed by J.J. Abrams, while Star Trek Beyond was directed by Justin Lin.";
        let (j, r) = verdict("Star Trek Beyond was directed by J.J. Abrams", page);
        assert_eq!(j, Judgement::Refutes, "{r}");
    }

    #[test]
    fn polarity_relative_to_the_claim() {
        let page = "Mourinho won the Champions League twice, with Porto and with Inter.";
        let (j, r) = verdict("Mourinho has never won the Champions League", page);
        assert_eq!(j, Judgement::Refutes, "{r}");
        assert!(r.starts_with("negated"), "{r}");
        let (j, _) = verdict("Mourinho won the Champions League", page);
        assert_eq!(j, Judgement::Supports);
        let page = "The striker did not win the award in 2019.";
        assert_eq!(
            verdict("The striker did not win the award in 2019", page).0,
            Judgement::Supports
        );
        assert_eq!(
            verdict("The striker won the award in 2019", page).0,
            Judgement::Refutes
        );
    }

    #[test]
    fn facts_scattered_over_the_page_do_not_support() {
        let page = "The mirror is made of glass ceramic. Many telescopes use beryllium. Lumen 3 opened in 2024.";
        let (j, r) = verdict("The Lumen 3 mirror is made of beryllium", page);
        assert_ne!(j, Judgement::Supports, "{r}");
    }

    #[test]
    fn equivalent_spellings_of_facts_support() {
        let page = "The company raised 9.5 billion dollars from 1,000 investors on 3 March 2019.";
        let (j, r) = verdict(
            "The company raised $9.5B from 1000 investors on March 3, 2019",
            page,
        );
        assert_eq!(j, Judgement::Supports, "{r}");
        let (j, r) = verdict("那家公司有十五名员工", "那家公司有15名员工。");
        assert_eq!(j, Judgement::Supports, "{r}");
    }

    #[test]
    fn a_reversed_direction_or_order_refutes() {
        let page = "The NFL moved the rematch from a 4:25 kickoff to a 1 p.m. start.";
        let (j, r) = verdict(
            "The NFL moved the rematch from a 1 p.m. start to a 4:25 kickoff",
            page,
        );
        assert_eq!(j, Judgement::Refutes, "{r}");
        let page = "Sales rose 18% in the second quarter.";
        let (j, r) = verdict("Sales fell 18% in the second quarter", page);
        assert_eq!(j, Judgement::Refutes, "{r}");
    }

    #[test]
    fn bad_input_is_unrelated_not_a_panic() {
        assert_eq!(verdict("", "some text").0, Judgement::Unrelated);
        assert_eq!(verdict("the of and", "the of and").0, Judgement::Unrelated);
        assert_eq!(verdict("Something was claimed", "").0, Judgement::Unrelated);
        let long = "word ".repeat(20_000);
        assert_eq!(verdict(&long, "a page of words").0, Judgement::Unrelated);
    }
}
