//! Research reads its pages through a `PageSource`: with pages held in
//! memory, the whole loop (candidates, ledger, decision) runs with no HTTP
//! server and no fetcher, and a page the source cannot read is reported for
//! its candidate while the run goes on.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use ferret_evidence::fetch::{BrowserMode, FetchError, FetchOptions, FetchedPage, from_html};
use ferret_evidence::research::{
    EvidenceStatus, PageSource, Research, ResearchOptions, normalize_results,
};

const QUESTION: &str = "Is the Lumen 3 telescope mirror made of beryllium?";

const ANSWER: &str = "<html><head><title>Lumen 3 mirror</title></head><body><article>\
    <h1>Lumen 3 mirror</h1>\
    <p>The Lumen 3 telescope mirror is made of beryllium, polished over eighteen months \
    at the observatory's optics laboratory before it was coated with gold.</p>\
    <p>Engineers chose beryllium because it stays stiff and light at low temperatures, \
    which matters for a mirror that must keep its shape in deep space.</p>\
    </article></body></html>";

/// Pages by URL, read from memory; counts the reads.
struct MemoryPages {
    pages: HashMap<String, String>,
    reads: AtomicUsize,
}

#[async_trait]
impl PageSource for MemoryPages {
    async fn fetch(&self, url: &str, options: &FetchOptions) -> Result<FetchedPage, FetchError> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        match self.pages.get(url) {
            Some(html) => Ok(from_html(html, Some(url), options)),
            None => Err(FetchError::Timeout {
                url: url.to_string(),
                after: Duration::from_secs(1),
            }),
        }
    }

    fn name(&self) -> &str {
        "memory"
    }
}

fn rows(urls: &[&str]) -> String {
    let rows: Vec<serde_json::Value> = urls
        .iter()
        .map(|u| serde_json::json!({"url": u, "title": "Lumen 3", "snippet": "mirror"}))
        .collect();
    serde_json::Value::Array(rows).to_string()
}

#[tokio::test]
async fn research_runs_on_pages_from_memory() {
    let answer = "https://optics.example.org/lumen-3-mirror";
    let missing = "https://gone.example.net/lumen";
    let source = Arc::new(MemoryPages {
        pages: HashMap::from([(answer.to_string(), ANSWER.to_string())]),
        reads: AtomicUsize::new(0),
    });
    let research = Research::reading(source.clone()).build();
    assert_eq!(research.pages().name(), "memory");
    let results = normalize_results(&rows(&[answer, missing]), QUESTION, None);
    let options = ResearchOptions::new()
        .with_browser(BrowserMode::Never)
        .with_rounds(1);
    let report = research
        .run_with_results(QUESTION, results, &options)
        .await
        .expect("research runs");
    assert_eq!(
        source.reads.load(Ordering::SeqCst),
        2,
        "both candidates read"
    );
    assert_eq!(
        report.evidence_status,
        EvidenceStatus::Sufficient,
        "{:#?}",
        report.enrichment.ledger
    );
    let failed = report
        .enrichment
        .candidates
        .iter()
        .find(|c| c.url == missing)
        .expect("the unreadable candidate is reported");
    assert!(!failed.ok);
    assert!(failed.error.is_some(), "{failed:#?}");
}
