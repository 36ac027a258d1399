//! The one stemmer: an irregular English form's base (`won` → `win`), else
//! Snowball's English stem (`directed`, `directs` → `direct`), then the head
//! of the synonym group the stem belongs to (`film` and `movie` meet).
//! Claims and pages are stemmed alike, so a claim meets a page written
//! with other inflections.

use std::collections::HashMap;
use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};

/// Irregular English forms and their base.
const IRREGULAR: &[(&str, &str)] = &[
    ("won", "win"),
    ("lost", "lose"),
    ("began", "begin"),
    ("begun", "begin"),
    ("took", "take"),
    ("taken", "take"),
    ("made", "make"),
    ("said", "say"),
    ("told", "tell"),
    ("gave", "give"),
    ("given", "give"),
    ("went", "go"),
    ("gone", "go"),
    ("came", "come"),
    ("saw", "see"),
    ("seen", "see"),
    ("found", "find"),
    ("held", "hold"),
    ("led", "lead"),
    ("left", "leave"),
    ("met", "meet"),
    ("paid", "pay"),
    ("ran", "run"),
    ("sold", "sell"),
    ("sent", "send"),
    ("spent", "spend"),
    ("stood", "stand"),
    ("thought", "think"),
    ("wrote", "write"),
    ("written", "write"),
    ("drove", "drive"),
    ("driven", "drive"),
    ("rose", "rise"),
    ("risen", "rise"),
    ("fell", "fall"),
    ("fallen", "fall"),
    ("grew", "grow"),
    ("grown", "grow"),
    ("knew", "know"),
    ("known", "know"),
    ("lit", "light"),
    ("built", "build"),
    ("bought", "buy"),
    ("brought", "bring"),
    ("caught", "catch"),
    ("chose", "choose"),
    ("chosen", "choose"),
    ("fought", "fight"),
    ("flew", "fly"),
    ("flown", "fly"),
    ("kept", "keep"),
    ("struck", "strike"),
    ("taught", "teach"),
    ("threw", "throw"),
    ("thrown", "throw"),
    ("beaten", "beat"),
    ("ate", "eat"),
    ("eaten", "eat"),
    ("drew", "draw"),
    ("drawn", "draw"),
    ("broke", "break"),
    ("broken", "break"),
    ("spoke", "speak"),
    ("spoken", "speak"),
    ("became", "become"),
    ("sat", "sit"),
    ("set", "set"),
    ("felt", "feel"),
    ("heard", "hear"),
    ("meant", "mean"),
    ("dealt", "deal"),
    ("sought", "seek"),
    ("won't", "will"),
    ("children", "child"),
    ("men", "man"),
    ("women", "woman"),
    ("people", "person"),
    ("mice", "mouse"),
];

/// Words a paraphrase swaps for each other, each group under its first
/// word's stem: `acquired` meets `purchased`, `defeated` meets `beat`.
const SYNONYMS: &[&[&str]] = &[
    &["buy", "purchase", "acquire"],
    &["beat", "defeat", "overcome"],
    &["begin", "start", "launch", "commence", "open"],
    &["end", "finish", "conclude"],
    &["rise", "increase", "grow", "climb", "gain", "jump"],
    &["fall", "decrease", "decline", "drop", "slide", "dip"],
    &["say", "tell", "announce"],
    &["appoint", "name"],
    &["choose", "select", "pick"],
    &["show", "reveal", "indicate"],
    &["receive", "get"],
    &["give", "grant", "award"],
    &["make", "create", "produce", "build"],
    &["die", "dead", "death"],
    &["kill", "slay"],
    &["sue", "lawsuit"],
    &["hire", "employ"],
    &["fire", "dismiss", "sack"],
    &["ban", "prohibit"],
    &["allow", "permit", "let"],
    &["cost", "price"],
    &["large", "big"],
    &["small", "little"],
    &["car", "vehicle", "automobile"],
    &["firm", "company", "business"],
    &["film", "movie"],
    &["job", "position", "role"],
    &["chief", "head", "leader"],
];

/// The stem of one word: an irregular form's base, else Snowball's English
/// stem (`directed`, `directs`, `directing` → `direct`), then the stem of
/// the synonym group it belongs to.
pub fn stem(word: &str) -> String {
    static STEMS: LazyLock<(Stemmer, HashMap<String, String>)> = LazyLock::new(|| {
        let stemmer = Stemmer::create(Algorithm::English);
        let groups = SYNONYMS
            .iter()
            .flat_map(|group| {
                let head = stemmer.stem(group[0]).into_owned();
                group.iter().map(move |w| (w.to_string(), head.clone()))
            })
            .map(|(w, head)| {
                (
                    Stemmer::create(Algorithm::English).stem(&w).into_owned(),
                    head,
                )
            })
            .collect();
        (stemmer, groups)
    });
    let w = word.to_lowercase();
    let base = IRREGULAR
        .iter()
        .find(|(form, _)| *form == w)
        .map_or(w.as_str(), |(_, base)| base);
    if !base.is_ascii() {
        return base.to_string();
    }
    let (stemmer, groups) = &*STEMS;
    let stemmed = stemmer.stem(base);
    match groups.get(stemmed.as_ref()) {
        Some(head) => head.clone(),
        None => stemmed.into_owned(),
    }
}

/// Lowercase prefixes (at most four characters) of every form a page
/// could use for `word` and still meet its stem: the word, its base and
/// stem, the irregular forms of that base and the words of its synonym
/// group. A sentence that contains none of them cannot hold the word.
pub fn surface_cues(word: &str) -> Vec<String> {
    let w = word.to_lowercase();
    let base = IRREGULAR
        .iter()
        .find(|(form, _)| *form == w)
        .map_or(w.clone(), |(_, b)| (*b).to_string());
    let mut forms = vec![w.clone(), base.clone(), stem(&w)];
    if let Some(group) = SYNONYMS
        .iter()
        .find(|g| g.iter().any(|m| stem(m) == stem(&base)))
    {
        forms.extend(group.iter().map(|m| m.to_string()));
    }
    let bases: Vec<String> = forms.clone();
    for (form, b) in IRREGULAR {
        if bases.iter().any(|x| x == b) {
            forms.push((*form).to_string());
        }
    }
    let mut out: Vec<String> = forms.iter().map(|f| f.chars().take(4).collect()).collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_meet_across_inflections() {
        assert_eq!(stem("directed"), stem("directs"));
        assert_eq!(stem("cases"), stem("case"));
        assert_eq!(stem("studies"), stem("study"));
        assert_eq!(stem("won"), stem("win"));
        assert_eq!(stem("lit"), stem("light"));
        assert_eq!(stem("runtimes"), stem("runtime"));
    }

    #[test]
    fn surface_cues_cover_irregular_forms() {
        let cues = surface_cues("win");
        assert!(cues.iter().any(|c| c == "won"), "{cues:?}");
    }
}
