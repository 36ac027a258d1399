//! Ledger invariants over arbitrary pages: every quote is a verbatim slice
//! of its field and at most 200 characters; support follows seed 003's
//! threshold exactly; adding pages never takes support away.

use ferret_core::{Provenance, Runtime};

const PUBLIC: Provenance = Provenance::public(Runtime::Http);

use ferret_core::ledger::{
    Ledger, MAX_QUOTE_CHARS, PageEvidence, QuoteField, match_constraint, normalize_for_match,
};
use ferret_core::plan::Constraint;
use proptest::prelude::*;

const VOCABULARY: &[&str] = &[
    "beryllium",
    "mirror",
    "mirrors",
    "telescope",
    "kelvin",
    "40",
    "cooled",
    "lumen",
    "tokio",
    "runtime",
    "异步",
    "运行",
    "调度",
    "Deno",
    "don't",
    "not",
    "the",
    "a",
    "of",
];

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(VOCABULARY).prop_map(str::to_string),
        1 => "[a-zA-Z]{1,8}",
        1 => "\\PC{1,6}",
    ]
}

fn separator() -> impl Strategy<Value = String> {
    proptest::sample::select(vec![
        " ", "  ", ", ", ". ", "\n", "\n\n", "—", "、", "。", "",
    ])
    .prop_map(str::to_string)
}

fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec((word(), separator()), 0..120)
        .prop_map(|parts| parts.into_iter().map(|(w, s)| w + &s).collect())
}

fn constraint_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(VOCABULARY), 1..6)
        .prop_map(|words| words.join(" "))
}

fn constraint(id: &str, text: String) -> Constraint {
    Constraint {
        id: id.into(),
        text,
        terms: Vec::new(),
        mandatory: true,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_quote_is_a_verbatim_slice_of_its_field(
        title in text(),
        body in text(),
        c1 in constraint_text(),
        c2 in constraint_text(),
    ) {
        let mut ledger = Ledger::from_constraints(&[constraint("c1", c1), constraint("c2", c2)]);
        ledger.add_page(&PageEvidence::new("https://p.example/", &title, &body, &PUBLIC));
        for c in &ledger.constraints {
            for e in &c.evidence {
                let field = match e.quote.field {
                    QuoteField::Text => &body,
                    QuoteField::Title => &title,
                };
                prop_assert!(field.is_char_boundary(e.quote.start) && field.is_char_boundary(e.quote.end));
                prop_assert_eq!(&field[e.quote.start..e.quote.end], e.quote.text.as_str());
                prop_assert!(e.quote.text.chars().count() <= MAX_QUOTE_CHARS);
                prop_assert!(!e.quote.text.trim().is_empty());
                prop_assert!(!e.quote.terms.is_empty());
                for t in &e.quote.terms {
                    prop_assert!(e.matched_terms.contains(t));
                }
            }
        }
    }

    #[test]
    fn support_follows_the_seed_threshold(title in text(), body in text(), c in constraint_text()) {
        let terms = ferret_core::ledger::match_terms(&constraint("c1", c.clone()));
        let m = match_constraint(&terms, &c, &title, &body);
        let threshold = terms.len().min(2);
        prop_assert_eq!(m.threshold, threshold);
        prop_assert_eq!(m.hits, m.matched_terms.len());
        prop_assert!(m.hits <= terms.len());
        prop_assert_eq!(m.supported, threshold > 0 && m.hits >= threshold);
        prop_assert_eq!(m.weak, m.supported && m.hits == threshold);
        prop_assert_eq!(m.quote.is_some(), m.supported);
        // Every term written as a whole word is found; every term found
        // occurs in the normalised haystack (as itself, or its plural or
        // singular form).
        let hay = format!(" {} ", normalize_for_match(&format!("{title}\n{body}")));
        let title_hay = format!(" {} ", normalize_for_match(&title));
        let body_hay = format!(" {} ", normalize_for_match(&body));
        for t in &terms {
            let spaced = format!(" {t} ");
            let whole = title_hay.contains(&spaced) || body_hay.contains(&spaced);
            if whole && !t.chars().any(ferret_core::tokenize::is_cjk) {
                prop_assert!(m.matched_terms.contains(t), "{} missed in {:?}", t, hay);
            }
            if m.matched_terms.contains(t) {
                let stem = t.trim_end_matches('s');
                prop_assert!(hay.contains(stem), "{} not in {:?}", t, hay);
            }
        }
    }

    #[test]
    fn adding_pages_never_takes_support_away(pages in proptest::collection::vec((text(), text()), 1..5), c in constraint_text()) {
        let mut ledger = Ledger::from_constraints(&[constraint("c1", c)]);
        let mut was_supported = false;
        for (i, (title, body)) in pages.iter().enumerate() {
            let url = format!("https://p{i}.example/");
            ledger.add_page(&PageEvidence::new(&url, title, body, &PUBLIC));
            let now = ledger.constraints[0].status.is_supported();
            prop_assert!(now || !was_supported);
            prop_assert_eq!(ledger.ready, now);
            was_supported = now;
        }
        prop_assert_eq!(ledger.pages_read, pages.len());
    }
}
