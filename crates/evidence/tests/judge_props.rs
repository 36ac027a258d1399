//! Properties of the default judgement over generated pages: a page that
//! states a claim supports it with a verbatim quote wherever the sentence
//! sits; the same page with the sentence negated, or with another number
//! or year, never supports it.

use ferret_core::plan::Constraint;
use ferret_core::{Provenance, Runtime};
use ferret_evidence::ledger::{Claim, Judgement, Ledger, PageEvidence, PageText, judge::judge};
use proptest::prelude::*;

const NAMES: &[&str] = &[
    "Larkspur Mining",
    "Orrin Gale",
    "Tessaly Works",
    "Mount Avel Farms",
    "Brightwater Council",
];
/// (past tense, base form).
const VERBS: &[(&str, &str)] = &[
    ("shipped", "ship"),
    ("sold", "sell"),
    ("built", "build"),
    ("recorded", "record"),
    ("hired", "hire"),
    ("planted", "plant"),
    ("delivered", "deliver"),
];
const UNITS: &[&str] = &[
    "tonnes of ore",
    "electric cars",
    "oak trees",
    "seasonal workers",
    "new homes",
];
const FILLER: &[&str] = &[
    "The weather was mild that season.",
    "Officials praised the effort at a short ceremony.",
    "Local residents had mixed feelings about the plans.",
    "A spokesperson declined to comment further.",
    "The region has a long history of farming and trade.",
    "Critics said the process had been rushed.",
    "Several questions remain about the budget.",
];

#[derive(Debug, Clone)]
struct Case {
    name: &'static str,
    verb: (&'static str, &'static str),
    number: u32,
    unit: &'static str,
    year: u16,
    before: Vec<&'static str>,
    after: Vec<&'static str>,
}

impl Case {
    fn count(&self, n: u32) -> String {
        // Thousands separators half the time: `4,200` and `4200` are one number.
        if n >= 1000 && n.is_multiple_of(2) {
            format!("{},{:03}", n / 1000, n % 1000)
        } else {
            n.to_string()
        }
    }

    fn claim(&self) -> String {
        format!(
            "{} {} {} {} in {}",
            self.name, self.verb.0, self.number, self.unit, self.year
        )
    }

    fn sentence(&self, number: u32, year: u16) -> String {
        format!(
            "In {year}, {} {} {} {}.",
            self.name,
            self.verb.0,
            self.count(number),
            self.unit
        )
    }

    fn negated(&self) -> String {
        format!(
            "In {}, {} did not {} {} {}.",
            self.year,
            self.name,
            self.verb.1,
            self.count(self.number),
            self.unit
        )
    }

    fn page(&self, sentence: &str) -> String {
        let mut parts: Vec<&str> = self.before.clone();
        parts.push(sentence);
        parts.extend(&self.after);
        parts.join(" ")
    }
}

fn case() -> impl Strategy<Value = Case> {
    (
        proptest::sample::select(NAMES),
        proptest::sample::select(VERBS),
        10u32..90_000,
        proptest::sample::select(UNITS),
        1990u16..2030,
        proptest::collection::vec(proptest::sample::select(FILLER), 0..6),
        proptest::collection::vec(proptest::sample::select(FILLER), 0..6),
    )
        .prop_map(|(name, verb, number, unit, year, before, after)| Case {
            name,
            verb,
            number,
            unit,
            year,
            before,
            after,
        })
}

static PUBLIC: Provenance = Provenance::public(Runtime::Http);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_stated_claim_is_supported_with_a_verbatim_quote(c in case()) {
        let page = c.page(&c.sentence(c.number, c.year));
        let claim = c.claim();
        let judged = judge(&Claim::new(&claim), &PageText::text(&page));
        prop_assert_eq!(judged.judgement, Judgement::Supports, "{} on {}: {}", claim, page, judged.reason);
        let mut ledger = Ledger::from_constraints(&[Constraint::new("c1", claim, true)]);
        ledger.add_page(&PageEvidence::new("https://a.example/", "", &page, &PUBLIC));
        let e = &ledger.constraints[0].evidence[0];
        prop_assert_eq!(&page[e.quote.start..e.quote.end], e.quote.text.as_str());
        prop_assert!(e.quote.text.contains(&c.count(c.number)));
    }

    #[test]
    fn negating_the_stating_sentence_never_supports(c in case()) {
        let page = c.page(&c.negated());
        let judged = judge(&Claim::new(&c.claim()), &PageText::text(&page));
        prop_assert_ne!(judged.judgement, Judgement::Supports, "{} on {}", c.claim(), page);
        prop_assert_eq!(judged.judgement, Judgement::Refutes, "{} on {}: {}", c.claim(), page, judged.reason);
    }

    #[test]
    fn another_number_or_year_never_supports(c in case(), delta in 1u32..500, year_delta in 1u16..9) {
        let claim = Claim::new(&c.claim());
        for page in [c.page(&c.sentence(c.number + delta, c.year)), c.page(&c.sentence(c.number, c.year + year_delta))] {
            let judged = judge(&claim, &PageText::text(&page));
            prop_assert_ne!(judged.judgement, Judgement::Supports, "{} on {}", c.claim(), page);
        }
    }
}
