//! What one page may cost before Ferret stops reading it: the per-page
//! budget ([`PageBudget`]) and the deadline type the long loops check
//! ([`Deadline`]).
//!
//! Ferret reads pages chosen by strangers, so no page may hold a call.
//! Two kinds of bound do that:
//!
//! 1. **Size bounds before the HTML parser runs** (one pass over the
//!    markup, in linear time): element nesting past 512 levels is flattened
//!    into the ancestor's text; past [`PageBudget::max_elements`] elements
//!    (default [`DEFAULT_MAX_ELEMENTS`], counting the copies the parser
//!    makes of formatting elements left open) the rest of the page's
//!    markup is flattened to text; past [`PageBudget::max_text_bytes`] bytes of text
//!    (default [`DEFAULT_MAX_TEXT_BYTES`]) the rest of the page is dropped.
//!    The page is then `truncated`, with a `dom_flattened` or
//!    `text_truncated` warning naming the bound. These bounds make the
//!    parse and the extraction of any page bounded and cheap: the parser
//!    never sees a deeper, wider or longer document than this, on every
//!    path (extraction, the safety scan, structured extraction, references).
//!    Real pages stay far below them (the largest page of the extraction
//!    corpora has about 17 000 elements). A budget can lower the size
//!    bounds; the defaults are also the ceiling every parse enforces.
//! 2. **A time budget** ([`PageBudget::time`], default
//!    [`DEFAULT_PAGE_TIME`]) for each stage of reading a page: extraction
//!    with its safety scan, then the highlights, then (in research) the
//!    ledger's reading of the page. A page that runs past it gets the
//!    verdict `too_complex`, keeps no text (nothing half-read is presented
//!    as evidence) and the call goes on with the other pages.
//!
//! Synchronous Rust cannot be preempted, so the time budget is not a
//! timer that interrupts work. It is honest in two ways instead: the size
//! bounds make the worst case of every stage bounded, and a [`Deadline`]
//! is checked after each stage and inside the loops that can be long
//! (highlight indexing over many passages, the ledger's sentence reading
//! and window matching), so a stage overshoots by at most one loop step.
//! Waiting on the network is different: it can be cut, and research cuts
//! it — every page read of a research run runs under a wall-clock deadline
//! (`EnrichOptions::page_timeout`, and the run's own deadline), so a server
//! that hangs or drips one byte a second is reported as a `timeout` and the
//! decision is made about the other pages.

use std::fmt;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// Elements (and comments) kept by default before the rest of a page's
/// markup is flattened to text.
pub const DEFAULT_MAX_ELEMENTS: usize = 100_000;
/// Bytes of text (outside tags) kept by default before the rest of a page
/// is dropped: 2 MiB.
pub const DEFAULT_MAX_TEXT_BYTES: usize = 2 * 1024 * 1024;
/// Time each stage of reading a page may take by default.
pub const DEFAULT_PAGE_TIME: Duration = Duration::from_secs(5);

/// What one page may cost: size bounds before parsing and a time budget
/// per stage of reading (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PageBudget {
    /// Elements kept before the rest of the markup is flattened to text
    /// (default [`DEFAULT_MAX_ELEMENTS`], which is also the most allowed).
    pub max_elements: usize,
    /// Bytes of text kept before the rest of the page is dropped (default
    /// [`DEFAULT_MAX_TEXT_BYTES`], which is also the most allowed).
    pub max_text_bytes: usize,
    /// Time each stage of reading may take (default
    /// [`DEFAULT_PAGE_TIME`]); past it the page is `too_complex`.
    #[serde(rename = "time_ms", with = "millis")]
    pub time: Duration,
}

impl Default for PageBudget {
    fn default() -> Self {
        PageBudget {
            max_elements: DEFAULT_MAX_ELEMENTS,
            max_text_bytes: DEFAULT_MAX_TEXT_BYTES,
            time: DEFAULT_PAGE_TIME,
        }
    }
}

impl PageBudget {
    /// The default budget.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`PageBudget::time`].
    pub fn with_time(mut self, time: Duration) -> Self {
        self.time = time;
        self
    }

    /// Sets [`PageBudget::max_elements`] (at most the default).
    pub fn with_max_elements(mut self, max: usize) -> Self {
        self.max_elements = max;
        self
    }

    /// Sets [`PageBudget::max_text_bytes`] (at most the default).
    pub fn with_max_text_bytes(mut self, max: usize) -> Self {
        self.max_text_bytes = max;
        self
    }

    /// The elements bound in force: the budget's, never above the default.
    pub fn elements(&self) -> usize {
        self.max_elements.min(DEFAULT_MAX_ELEMENTS)
    }

    /// The text bound in force: the budget's, never above the default.
    pub fn text_bytes(&self) -> usize {
        self.max_text_bytes.min(DEFAULT_MAX_TEXT_BYTES)
    }

    /// A deadline [`PageBudget::time`] from now, for one stage.
    pub fn stage_deadline(&self) -> Deadline {
        Deadline::after(self.time)
    }
}

/// A point in time work must not run past, or none. Cheap to copy and to
/// check; loops that can be long check it every step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Deadline(Option<Instant>);

impl Deadline {
    /// No deadline: never expires.
    pub fn none() -> Self {
        Deadline(None)
    }

    /// `after` from now.
    pub fn after(after: Duration) -> Self {
        Deadline(Instant::now().checked_add(after))
    }

    /// At `at`.
    pub fn at(at: Instant) -> Self {
        Deadline(Some(at))
    }

    /// The instant, if any.
    pub fn instant(&self) -> Option<Instant> {
        self.0
    }

    /// Whether it has passed.
    pub fn expired(&self) -> bool {
        self.0.is_some_and(|at| Instant::now() >= at)
    }

    /// Time left (zero once passed); `None` without a deadline.
    pub fn remaining(&self) -> Option<Duration> {
        self.0
            .map(|at| at.saturating_duration_since(Instant::now()))
    }

    /// The earlier of the two.
    pub fn min(self, other: Deadline) -> Deadline {
        match (self.0, other.0) {
            (Some(a), Some(b)) => Deadline(Some(a.min(b))),
            (a, b) => Deadline(a.or(b)),
        }
    }

    /// `Err(OutOfTime { stage })` once passed.
    pub fn check(&self, stage: &'static str) -> Result<(), OutOfTime> {
        if self.expired() {
            Err(OutOfTime { stage })
        } else {
            Ok(())
        }
    }
}

/// Work that ran past its [`Deadline`]: the stage that was cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfTime {
    /// What was running (`extraction`, `highlights`, `ledger` …).
    pub stage: &'static str,
}

impl fmt::Display for OutOfTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ran past the page's time budget", self.stage)
    }
}

impl std::error::Error for OutOfTime {}

/// The verdict reason of a page cut by its time budget.
pub fn too_complex_reason(out: OutOfTime, budget: Duration) -> String {
    format!(
        "too-complex: {} ran past the page's {} ms time budget",
        out.stage,
        budget.as_millis()
    )
}

/// A [`Duration`] as whole milliseconds in JSON.
pub mod millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes `d` as whole milliseconds (saturating).
    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }

    /// Reads whole milliseconds.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_millis(u64::deserialize(d)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_in_the_past_is_expired_and_none_never_is() {
        assert!(Deadline::after(Duration::ZERO).expired());
        assert!(!Deadline::none().expired());
        assert!(Deadline::none().check("x").is_ok());
        let soon = Deadline::after(Duration::from_secs(1));
        let later = Deadline::after(Duration::from_secs(60));
        assert_eq!(soon.min(later), soon);
        assert_eq!(Deadline::none().min(soon), soon);
    }

    #[test]
    fn size_bounds_never_exceed_the_defaults() {
        let b = PageBudget::new()
            .with_max_elements(usize::MAX)
            .with_max_text_bytes(10);
        assert_eq!(b.elements(), DEFAULT_MAX_ELEMENTS);
        assert_eq!(b.text_bytes(), 10);
        let json = serde_json::to_value(b).unwrap();
        assert_eq!(json["time_ms"], 5000);
        let back: PageBudget = serde_json::from_value(json).unwrap();
        assert_eq!(back, b);
    }
}
