//! [`ResultFilters`]: the domain and date controls applied to fused
//! results, so that they hold whatever each engine pushed down.

use chrono::{DateTime, NaiveDate, Utc};

use super::{ControlError, check_dates, host_matches, normalize_domains};
use crate::authority::registrable_domain;
use crate::dates;
use crate::response::{DropReason, DroppedRow};
use crate::result::{SearchResult, SourceHit};

/// The domain and date controls of a search, normalised and checked.
///
/// [`ResultFilters::apply`] removes every fused result they rule out and
/// reports it as a [`DroppedRow`]:
///
/// - a result on an excluded domain: [`DropReason::ExcludedDomain`];
/// - with domains to include, a result on none of them:
///   [`DropReason::OutsideIncludedDomains`];
/// - a result published before `since` or after `until`:
///   [`DropReason::PublishedBeforeSince`] / [`DropReason::PublishedAfterUntil`].
///   A result without a readable publication date is kept and counted in
///   [`Filtered::undated`].
///
/// When a result is removed for its domain but one of its near-duplicates
/// is on an allowed domain, that near-duplicate takes its place (it shares
/// the result's text, scores and flags; its own title, URL and sources;
/// no date). Near-duplicates on a ruled-out domain are removed from the
/// results they were folded into, and reported too.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResultFilters {
    include: Vec<String>,
    exclude: Vec<String>,
    since: Option<NaiveDate>,
    until: Option<NaiveDate>,
}

/// What [`ResultFilters::date_verdict`] says of one publication date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateVerdict {
    /// Inside the range (or no range was asked for).
    InRange,
    /// No readable date: kept, and counted.
    Undated,
    /// Published before `since`.
    BeforeSince,
    /// Published after `until`.
    AfterUntil,
}

/// The results [`ResultFilters::apply`] kept, the ones it removed, and how
/// many kept ones had no date to check.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filtered {
    /// The kept results, in their order.
    pub results: Vec<SearchResult>,
    /// One row per removed result or near-duplicate; `index` is the
    /// result's position among the fused results.
    pub dropped: Vec<DroppedRow>,
    /// Kept results that had no readable publication date while a date
    /// range was asked for.
    pub undated: usize,
}

impl ResultFilters {
    /// Filters for these domains and dates: each domain normalised
    /// ([`super::normalize_domain`]), the range checked; a domain in both
    /// lists is [`ControlError::IncludedAndExcluded`].
    pub fn new<I: AsRef<str>, E: AsRef<str>>(
        include: &[I],
        exclude: &[E],
        since: Option<NaiveDate>,
        until: Option<NaiveDate>,
    ) -> Result<Self, ControlError> {
        let include = normalize_domains(include)?;
        let exclude = normalize_domains(exclude)?;
        if let Some(domain) = include.iter().find(|d| exclude.contains(d)) {
            return Err(ControlError::IncludedAndExcluded {
                domain: domain.clone(),
            });
        }
        check_dates(since, until)?;
        Ok(ResultFilters {
            include,
            exclude,
            since,
            until,
        })
    }

    /// The domains to include, normalised.
    pub fn include_domains(&self) -> &[String] {
        &self.include
    }

    /// The domains to exclude, normalised.
    pub fn exclude_domains(&self) -> &[String] {
        &self.exclude
    }

    /// The first day asked for.
    pub fn since(&self) -> Option<NaiveDate> {
        self.since
    }

    /// The last day asked for.
    pub fn until(&self) -> Option<NaiveDate> {
        self.until
    }

    /// Whether the filters rule nothing out.
    pub fn is_empty(&self) -> bool {
        self.include.is_empty()
            && self.exclude.is_empty()
            && self.since.is_none()
            && self.until.is_none()
    }

    /// Why a result on `host` is ruled out, if it is (an exclusion wins).
    pub fn domain_verdict(&self, host: &str) -> Option<DropReason> {
        if self.exclude.iter().any(|d| host_matches(host, d)) {
            Some(DropReason::ExcludedDomain)
        } else if !self.include.is_empty() && !self.include.iter().any(|d| host_matches(host, d)) {
            Some(DropReason::OutsideIncludedDomains)
        } else {
            None
        }
    }

    /// Where a publication date falls; `now` reads relative dates
    /// ("3 days ago").
    pub fn date_verdict(
        &self,
        published_at: Option<&str>,
        now: Option<DateTime<Utc>>,
    ) -> DateVerdict {
        if self.since.is_none() && self.until.is_none() {
            return DateVerdict::InRange;
        }
        let Some(date) = published_at
            .and_then(|p| dates::parse(p, now))
            .map(|d| d.date())
        else {
            return DateVerdict::Undated;
        };
        if self.since.is_some_and(|since| date < since) {
            DateVerdict::BeforeSince
        } else if self.until.is_some_and(|until| date > until) {
            DateVerdict::AfterUntil
        } else {
            DateVerdict::InRange
        }
    }

    /// Apply the filters to fused `results` (see the type's docs).
    pub fn apply(&self, results: Vec<SearchResult>, now: Option<DateTime<Utc>>) -> Filtered {
        let mut out = Filtered::default();
        if self.is_empty() {
            out.results = results;
            return out;
        }
        for (index, result) in results.into_iter().enumerate() {
            let Some(mut result) = self.keep_by_domain(result, index, &mut out.dropped) else {
                continue;
            };
            self.drop_near_duplicates(&mut result, index, &mut out.dropped);
            let reason = match self.date_verdict(result.published_at.as_deref(), now) {
                DateVerdict::InRange => None,
                DateVerdict::Undated => {
                    out.undated += 1;
                    None
                }
                DateVerdict::BeforeSince => Some(DropReason::PublishedBeforeSince),
                DateVerdict::AfterUntil => Some(DropReason::PublishedAfterUntil),
            };
            match reason {
                None => out.results.push(result),
                Some(reason) => out.dropped.push(dropped_row(
                    index,
                    &result.original_url,
                    &result.sources,
                    reason,
                )),
            }
        }
        out
    }

    /// `result` when its domain is allowed; otherwise it is reported and
    /// its first near-duplicate on an allowed domain takes its place, if
    /// there is one (the others that are ruled out are reported too).
    fn keep_by_domain(
        &self,
        mut result: SearchResult,
        index: usize,
        dropped: &mut Vec<DroppedRow>,
    ) -> Option<SearchResult> {
        let Some(reason) = self.domain_verdict(&host_of(&result.url, &result.original_url)) else {
            return Some(result);
        };
        dropped.push(dropped_row(
            index,
            &result.original_url,
            &result.sources,
            reason,
        ));
        let allowed = result.near_duplicates.iter().position(|d| {
            self.domain_verdict(&host_of(&d.url, &d.original_url))
                .is_none()
        });
        match allowed {
            Some(k) => Some(promote(result, k)),
            None => {
                self.drop_near_duplicates(&mut result, index, dropped);
                None
            }
        }
    }

    /// Remove (and report) the near-duplicates of `result` on a ruled-out
    /// domain.
    fn drop_near_duplicates(
        &self,
        result: &mut SearchResult,
        index: usize,
        dropped: &mut Vec<DroppedRow>,
    ) {
        result.near_duplicates.retain(|d| {
            match self.domain_verdict(&host_of(&d.url, &d.original_url)) {
                None => true,
                Some(reason) => {
                    dropped.push(dropped_row(index, &d.original_url, &d.sources, reason));
                    false
                }
            }
        });
    }
}

/// The host of a result: from its canonical URL, else its URL as given.
fn host_of(url: &str, original_url: &str) -> String {
    [url, original_url]
        .iter()
        .find_map(|u| {
            url::Url::parse(u)
                .ok()
                .and_then(|u| u.host_str().map(str::to_string))
        })
        .unwrap_or_default()
}

/// The row reporting one removed result (or near-duplicate).
fn dropped_row(index: usize, url: &str, sources: &[SourceHit], reason: DropReason) -> DroppedRow {
    DroppedRow {
        index,
        engine: sources.first().map(|s| s.engine.to_string()),
        url: Some(url.to_string()),
        reason,
    }
}

/// `result` with its `k`-th near-duplicate in its place: the duplicate's
/// URL, title, sources and domain; the result's text, scores and flags;
/// no date (the duplicate's own is unknown); the other duplicates kept.
fn promote(mut result: SearchResult, k: usize) -> SearchResult {
    let member = result.near_duplicates.remove(k);
    let host = host_of(&member.url, &member.original_url);
    let provenance = member
        .sources
        .first()
        .map_or_else(|| result.provenance.clone(), |s| s.provenance.clone());
    SearchResult {
        url: member.url,
        original_url: member.original_url,
        title: member.title,
        published_at: None,
        domain: registrable_domain(&host),
        sources: member.sources,
        score_basis: None,
        provenance,
        ..result
    }
}
