//! Each rule of the default judgement, in English and in Chinese or
//! Japanese, through the public API: co-location, normalised numbers and
//! dates, the named entity in its place, polarity relative to the claim,
//! direction and order, and bad input.

use ferret_evidence::ledger::{Claim, Judged, Judgement, PageText, judge::judge};

fn verdict(claim: &str, page: &str) -> Judged {
    judge(&Claim::new(claim), &PageText::text(page))
}

fn assert_verdict(claim: &str, page: &str, want: Judgement, reason_starts: &str) {
    let j = verdict(claim, page);
    assert_eq!(j.judgement, want, "{claim:?} on {page:?}: {}", j.reason);
    assert!(
        j.reason.starts_with(reason_starts),
        "{claim:?} on {page:?}: {}",
        j.reason
    );
    if want != Judgement::Unrelated {
        let window = j.window.expect("a verdict names its window");
        assert!(
            page.get(window).is_some(),
            "the window is a slice of the page"
        );
    }
}

use Judgement::{Refutes, Supports, Unrelated};

#[test]
fn facts_must_be_stated_together() {
    assert_verdict(
        "The Larkspur cooperative pays a quarterly dividend of 42 credits",
        "Minutes. The Larkspur cooperative pays members a quarterly dividend of 42 credits, the board said.",
        Supports,
        "facts_colocated",
    );
    assert_verdict(
        "The Lumen 3 mirror is made of beryllium",
        "The mirror is made of glass ceramic. Many telescopes use beryllium. Lumen 3 opened in 2024. Its dome is white.",
        Unrelated,
        "facts_not_colocated",
    );
    assert_verdict(
        "那家公司有十五名员工",
        "据报道，那家公司有15名员工。",
        Supports,
        "facts_colocated",
    );
    assert_verdict(
        "那家公司在2019年有十五名员工",
        "那家公司成立于2019年。它的总部在上海。员工人数没有公布。今天有15名游客来访。",
        Unrelated,
        "",
    );
}

#[test]
fn numbers_dates_and_units_must_match_after_normalising() {
    assert_verdict(
        "The company raised $9.5B from 1000 investors on March 3, 2019",
        "The company raised 9.5 billion dollars from 1,000 investors on 3 March 2019.",
        Supports,
        "facts_colocated",
    );
    assert_verdict(
        "There were 64 animal cases",
        "Officials counted 12 human cases and 46 animal cases this year.",
        Refutes,
        "number_mismatch: 46 vs 64",
    );
    // `64 human cases and 46 animal cases` does not state 64 animal cases.
    let j = verdict(
        "There were 64 animal cases",
        "Officials counted 64 human cases and 46 animal cases.",
    );
    assert_ne!(j.judgement, Supports, "{}", j.reason);
    assert_verdict(
        "那家公司有十五名员工",
        "那家公司有12名员工。",
        Refutes,
        "number_mismatch",
    );
    assert_verdict(
        "会社は2019年3月3日に設立された",
        "その会社は2019年3月3日に設立された。",
        Supports,
        "facts_colocated",
    );
    assert_verdict(
        "会社は2019年3月3日に設立された",
        "その会社は2019年3月5日に設立された。",
        Refutes,
        "date_mismatch",
    );
    assert_verdict(
        "The new tariffs take effect on Dec. 1",
        "The new tariffs take effect on Dec. 15, officials said.",
        Refutes,
        "date_mismatch",
    );
    assert_verdict(
        "The 8-speed gearbox weighs 30,000 grams",
        "Its 8-speed gearbox weighs 30000 grams.",
        Supports,
        "facts_colocated",
    );
}

#[test]
fn the_named_entity_in_the_claims_place_must_be_the_same() {
    assert_verdict(
        "Star Trek Beyond was directed by J.J. Abrams",
        "J.J. Abrams directed the first two films of the reboot. Star Trek Beyond was directed by Justin Lin.",
        Refutes,
        "entity_mismatch: Justin Lin vs J.J. Abrams",
    );
    assert_verdict(
        "Star Trek Beyond was directed by Justin Lin",
        "The first two films were directed by J.J. Abrams, while Star Trek Beyond was directed by Justin Lin.",
        Supports,
        "facts_colocated",
    );
    assert_verdict(
        "映画「星の旅」は「山田」が監督した",
        "映画「星の旅」は「田中」が監督した。",
        Refutes,
        "entity_mismatch",
    );
    // Another name in a list is not another name in the claim's place.
    let j = verdict(
        "Argentina defeated Chile 3-0 in Group C",
        "Argentina comfortably got past Chile 3-0 in Group C, with Guido Pella beating Nicolas Jarry.",
    );
    assert_eq!(j.judgement, Supports, "{}", j.reason);
}

#[test]
fn polarity_is_read_relative_to_the_claim() {
    assert_verdict(
        "Mourinho has never won the Champions League",
        "Mourinho won the Champions League twice, with Porto and with Inter.",
        Refutes,
        "negated",
    );
    assert_verdict(
        "The striker did not win the award in 2019",
        "The striker did not win the award in 2019.",
        Supports,
        "facts_colocated",
    );
    assert_verdict(
        "The striker won the award in 2019",
        "The striker did not win the award in 2019.",
        Refutes,
        "negated: the page says \"not\"",
    );
    assert_verdict(
        "他赢得了2019年的比赛",
        "他没有赢得2019年的比赛。",
        Refutes,
        "negated",
    );
    assert_verdict(
        "他没有赢得2019年的比赛",
        "他没有赢得2019年的比赛。",
        Supports,
        "facts_colocated",
    );
    assert_verdict(
        "会社は2019年に設立されなかった",
        "その会社は2019年に設立された。",
        Refutes,
        "negated",
    );
    // A negation elsewhere in the text does not flip the claim.
    assert_verdict(
        "Apple's 16-inch MacBook Pro starts at $2,400",
        "I'm not complaining. The 16-inch MacBook Pro from Apple looks great for a starting price of $2,400.",
        Supports,
        "facts_colocated",
    );
    // `BPA-free` says the opposite of `contains BPA`.
    assert_verdict(
        "The bottles are made from PET plastic that contains BPA",
        "Their bottles are made from BPA-free PET plastic.",
        Refutes,
        "negated",
    );
}

#[test]
fn a_reversed_direction_or_order_refutes() {
    assert_verdict(
        "Sales fell 18% in the second quarter",
        "Sales rose 18% in the second quarter.",
        Refutes,
        "reversed",
    );
    assert_verdict(
        "The NFL moved the rematch from a 1 p.m. start to a 4:25 kickoff",
        "The NFL moved the rematch from a 4:25 kickoff to a 1 p.m. start.",
        Refutes,
        "reversed",
    );
    // A passive with its names the other way round says the same.
    assert_verdict(
        "The Chargers were beaten 24-17 by the Chiefs",
        "The Chiefs beat the Chargers 24-17 on Monday night.",
        Supports,
        "facts_colocated",
    );
    assert_verdict(
        "Patton beat Gantenbein in the 100 yard backstroke",
        "In the 100 yard backstroke, Patton was beaten out by Gantenbein.",
        Refutes,
        "reversed",
    );
    assert_verdict(
        "销售额在2019年增加了18%",
        "销售额在2019年减少了18%。",
        Refutes,
        "reversed",
    );
    assert_verdict(
        "売上高は2019年に18%増えた",
        "売上高は2019年に18%減った。",
        Refutes,
        "reversed",
    );
    assert_verdict(
        "売上高は2019年に18%増えた",
        "売上高は2019年に18%増えた。",
        Supports,
        "facts_colocated",
    );
}

#[test]
fn hedged_statements_do_not_state_the_fact() {
    assert_verdict(
        "The merger will close in March 2025",
        "The merger might close in March 2025 if regulators agree.",
        Unrelated,
        "hedged",
    );
}

#[test]
fn bad_input_gets_a_verdict_not_a_panic() {
    assert_verdict("", "some text", Unrelated, "the constraint names no fact");
    assert_verdict(
        "the of and",
        "the of and",
        Unrelated,
        "the constraint names no fact",
    );
    assert_verdict(
        "The mirror is made of beryllium",
        "",
        Unrelated,
        "the page has no text",
    );
    assert_verdict(
        "The mirror is made of beryllium",
        "  \n\t ",
        Unrelated,
        "the page has no text",
    );
    let long = "word ".repeat(20_000);
    assert_eq!(verdict(&long, "a page of words").judgement, Unrelated);
    let claim = "The Lumen 3 mirror is made of beryllium";
    assert_eq!(
        verdict(claim, &"ü€😀 \u{0} ".repeat(5_000)).judgement,
        Unrelated
    );
    assert_eq!(
        verdict(claim, "Lumen 3 の鏡はベリリウム製です。").judgement,
        Unrelated
    );
}
