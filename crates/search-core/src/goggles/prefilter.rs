//! Which instructions can match a subject, found with one automaton pass
//! per text instead of every pattern tried in turn.
//!
//! Every pattern needs its [`Pattern::required_literal`] to occur in the
//! text it is matched against; the literals of all patterns of one target
//! (URL, title, description, content) form one Aho-Corasick automaton. A
//! subject's texts are scanned once each, and only the instructions whose
//! literal was found — plus those without a usable literal — are matched in
//! full. The outcome is exactly that of trying every instruction; the cost
//! of a goggle is one pass per text plus the patterns that can match.
//!
//! [`Pattern::required_literal`]: super::pattern::Pattern::required_literal

use aho_corasick::AhoCorasick;

use super::rules::{Instruction, Subject, Target};

/// The automaton over one target's literals.
#[derive(Clone, Default)]
struct TargetFilter {
    automaton: Option<AhoCorasick>,
    /// Automaton pattern id → instruction index.
    owner: Vec<usize>,
    /// Instructions of this target without a usable literal: always tried.
    always: Vec<usize>,
}

/// The prefilter of one goggle's scanned instructions.
#[derive(Clone, Default)]
pub(crate) struct Prefilter {
    targets: [TargetFilter; 4],
}

fn slot(target: Target) -> usize {
    match target {
        Target::Url => 0,
        Target::Title => 1,
        Target::Description => 2,
        Target::Content => 3,
    }
}

impl Prefilter {
    /// The prefilter of `scanned` (indices into `instructions`).
    pub(crate) fn build(instructions: &[Instruction], scanned: &[usize]) -> Self {
        let mut literals: [Vec<String>; 4] = Default::default();
        let mut filter = Prefilter::default();
        for &i in scanned {
            let instruction = &instructions[i];
            let t = slot(instruction.target());
            match instruction.pattern().and_then(|p| p.required_literal()) {
                Some(literal) => {
                    literals[t].push(literal);
                    filter.targets[t].owner.push(i);
                }
                None => filter.targets[t].always.push(i),
            }
        }
        for (t, lits) in literals.into_iter().enumerate() {
            if !lits.is_empty() {
                // The literals are plain strings; building cannot fail for
                // the sizes the parser allows, and a failure only means every
                // instruction is tried.
                match AhoCorasick::new(&lits) {
                    Ok(ac) => filter.targets[t].automaton = Some(ac),
                    Err(_) => {
                        let owners = std::mem::take(&mut filter.targets[t].owner);
                        filter.targets[t].always.extend(owners);
                    }
                }
            }
        }
        filter
    }

    /// The instructions that may match `subject`, ascending.
    pub(crate) fn candidates(&self, subject: &Subject) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        for (t, filter) in self.targets.iter().enumerate() {
            out.extend(&filter.always);
            let Some(ac) = &filter.automaton else {
                continue;
            };
            let mut seen = vec![false; filter.owner.len()];
            for text in subject.texts_for(t) {
                for m in ac.find_overlapping_iter(&text) {
                    seen[m.pattern().as_usize()] = true;
                }
            }
            out.extend(
                seen.iter()
                    .enumerate()
                    .filter(|(_, s)| **s)
                    .map(|(id, _)| filter.owner[id]),
            );
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}
