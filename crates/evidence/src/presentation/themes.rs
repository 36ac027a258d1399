//! Theme clustering without a model: TF-IDF terms per result, average-link
//! agglomerative grouping by shared salient terms, each group labelled by
//! its top terms.

use std::collections::{HashMap, HashSet};

use ferret_core::plan::stopwords::{clean_cjk, is_stopword};
use ferret_core::tokenize::{Token, tokens};

use crate::evidence_item::terms::{content_terms, token_term};

/// Terms of one result's title and snippet, with counts (title terms count
/// twice: a title says what the page is about).
pub(crate) fn result_terms(title: &str, snippet: &str) -> HashMap<String, f64> {
    let mut tf: HashMap<String, f64> = HashMap::new();
    for (text, weight) in [(title, 2.0), (snippet, 1.0)] {
        let cleaned = clean_cjk(text);
        for t in tokens(&cleaned) {
            let keep = match &t {
                Token::Word(w) => {
                    w.chars().count() > 2
                        && !is_stopword(w)
                        && !w.chars().all(|c| c.is_ascii_digit())
                }
                Token::Cjk(c) => c.chars().count() == 2,
            };
            if keep {
                *tf.entry(token_term(&t)).or_default() += weight;
            }
        }
    }
    tf
}

/// A group of results (indices into the clustered slice).
#[derive(Debug, Clone)]
pub(crate) struct Group {
    pub(crate) members: Vec<usize>,
    pub(crate) terms: Vec<String>,
}

/// Salient terms kept per result.
const SALIENT_TERMS: usize = 8;
/// Terms in a group label.
const LABEL_TERMS: usize = 3;

/// A term-weight vector, sorted by term (so sums run in one order and the
/// result is deterministic).
type Vector = Vec<(String, f64)>;

fn cosine(a: &Vector, b: &Vector) -> f64 {
    let (mut i, mut j, mut dot) = (0, 0, 0.0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                dot += a[i].1 * b[j].1;
                i += 1;
                j += 1;
            }
        }
    }
    let na: f64 = a.iter().map(|(_, w)| w * w).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|(_, w)| w * w).sum::<f64>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}

/// Groups `docs` (title, snippet) about `query`. Groups of two or more
/// come first (by their first member); every result is in exactly one
/// group; singletons are returned as one-member groups after them.
pub(crate) fn cluster(query: &str, docs: &[(&str, &str)], min_similarity: f64) -> Vec<Group> {
    let n = docs.len();
    let query_terms: HashSet<String> = content_terms(query).into_iter().collect();
    let tfs: Vec<HashMap<String, f64>> = docs
        .iter()
        .map(|(title, snippet)| {
            let mut tf = result_terms(title, snippet);
            tf.retain(|t, _| !query_terms.contains(t));
            tf
        })
        .collect();
    let mut df: HashMap<&str, usize> = HashMap::new();
    for tf in &tfs {
        for t in tf.keys() {
            *df.entry(t.as_str()).or_default() += 1;
        }
    }
    // Terms in more than half of the results (with four or more) say
    // nothing about any one group.
    let too_common = |d: usize| n >= 4 && d * 2 > n;
    let vectors: Vec<Vector> = tfs
        .iter()
        .map(|tf| {
            let mut weighted: Vec<(String, f64)> = tf
                .iter()
                .filter(|(t, _)| {
                    let d = df[t.as_str()];
                    d >= 2 && !too_common(d)
                })
                .map(|(t, f)| (t.clone(), f * (n as f64 / df[t.as_str()] as f64).ln()))
                .collect();
            weighted.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            weighted.truncate(SALIENT_TERMS);
            weighted.sort_by(|a, b| a.0.cmp(&b.0));
            weighted
        })
        .collect();
    // Average-link agglomerative clustering over cosine similarity.
    let sim: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| cosine(&vectors[i], &vectors[j])).collect())
        .collect();
    let mut clusters: Vec<Vec<usize>> = (0..n).map(|i| vec![i]).collect();
    loop {
        let mut best: Option<(usize, usize, f64)> = None;
        for a in 0..clusters.len() {
            for b in a + 1..clusters.len() {
                let total: f64 = clusters[a]
                    .iter()
                    .flat_map(|&i| clusters[b].iter().map(move |&j| (i, j)))
                    .map(|(i, j)| sim[i][j])
                    .sum();
                let avg = total / (clusters[a].len() * clusters[b].len()) as f64;
                if avg >= min_similarity && best.is_none_or(|(_, _, s)| avg > s) {
                    best = Some((a, b, avg));
                }
            }
        }
        let Some((a, b, _)) = best else { break };
        let merged = clusters.remove(b);
        clusters[a].extend(merged);
        clusters[a].sort_unstable();
    }
    let mut groups: Vec<Group> = clusters
        .into_iter()
        .map(|members| {
            let terms = label_terms(&members, &vectors, &tfs);
            Group { members, terms }
        })
        .collect();
    groups.sort_by_key(|g| (g.members.len() < 2, g.members[0]));
    groups
}

/// The group's label: the terms with the most weight summed over its
/// members, preferring terms two or more members share.
fn label_terms(members: &[usize], vectors: &[Vector], tfs: &[HashMap<String, f64>]) -> Vec<String> {
    let mut weight: HashMap<&str, (usize, f64)> = HashMap::new();
    for &m in members {
        let mut terms: Vec<(&str, f64)> = if vectors[m].is_empty() {
            tfs[m].iter().map(|(t, w)| (t.as_str(), *w)).collect()
        } else {
            vectors[m].iter().map(|(t, w)| (t.as_str(), *w)).collect()
        };
        terms.sort_by(|a, b| a.0.cmp(b.0));
        for (t, w) in terms {
            let e = weight.entry(t).or_default();
            e.0 += 1;
            e.1 += w;
        }
    }
    let mut ranked: Vec<(&str, (usize, f64))> = weight.into_iter().collect();
    ranked.sort_by(|a, b| {
        (b.1.0 >= 2)
            .cmp(&(a.1.0 >= 2))
            .then(b.1.1.total_cmp(&a.1.1))
            .then_with(|| a.0.cmp(b.0))
    });
    ranked
        .into_iter()
        .take(LABEL_TERMS)
        .map(|(t, _)| t.to_string())
        .collect()
}
