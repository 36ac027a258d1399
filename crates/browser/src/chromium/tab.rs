//! One browser tab and its watcher task: every request the tab makes is
//! paused (CDP `Fetch` domain), checked by the URL guard and continued or
//! failed; network activity is counted for network-idle waits; the main
//! document's HTTP status is remembered; JavaScript dialogs are accepted so
//! they never block the page.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::fetch::{
    ContinueRequestParams, EnableParams as FetchEnableParams, EventRequestPaused,
    FailRequestParams, RequestPattern,
};
use chromiumoxide::cdp::browser_protocol::network::{
    ErrorReason, EventLoadingFailed, EventLoadingFinished, EventRequestWillBeSent,
    EventResponseReceived, ResourceType,
};
use chromiumoxide::cdp::browser_protocol::page::{
    EventJavascriptDialogOpening, HandleJavaScriptDialogParams,
};
use chromiumoxide::listeners::EventStream;
use ferret_core::guard::UrlGuard;
use futures::StreamExt;
use tokio::task::JoinHandle;

use crate::error::BrowserError;
use crate::runtime::BlockedRequest;

/// What the watcher observed since the last reset.
#[derive(Debug)]
pub(crate) struct TabState {
    inflight: Mutex<HashSet<String>>,
    last_activity: Mutex<Instant>,
    blocked: Mutex<Vec<BlockedRequest>>,
    documents: Mutex<Vec<(String, u16)>>,
}

impl TabState {
    fn new() -> Self {
        TabState {
            inflight: Mutex::new(HashSet::new()),
            last_activity: Mutex::new(Instant::now()),
            blocked: Mutex::new(Vec::new()),
            documents: Mutex::new(Vec::new()),
        }
    }

    /// Forget what was seen (before a navigation).
    pub(crate) fn reset(&self) {
        if let Ok(mut b) = self.blocked.lock() {
            b.clear();
        }
        if let Ok(mut d) = self.documents.lock() {
            d.clear();
        }
        self.touch();
    }

    fn touch(&self) {
        if let Ok(mut t) = self.last_activity.lock() {
            *t = Instant::now();
        }
    }

    /// Requests blocked since the last reset.
    pub(crate) fn blocked(&self) -> Vec<BlockedRequest> {
        self.blocked.lock().map(|b| b.clone()).unwrap_or_default()
    }

    /// The HTTP status of the document response for `url` (else the first
    /// document response seen).
    pub(crate) fn document_status(&self, url: &str) -> Option<u16> {
        let docs = self.documents.lock().ok()?;
        docs.iter()
            .rev()
            .find(|(u, _)| u == url)
            .or_else(|| docs.first())
            .map(|(_, s)| *s)
    }

    /// How long the network has been quiet (zero while requests are in
    /// flight).
    pub(crate) fn network_quiet_for(&self) -> Duration {
        let busy = self.inflight.lock().map(|s| !s.is_empty()).unwrap_or(false);
        if busy {
            return Duration::ZERO;
        }
        self.last_activity
            .lock()
            .map(|t| t.elapsed())
            .unwrap_or_default()
    }
}

/// A request ended: out of the in-flight set, or remembered if its start
/// has not been seen yet.
fn end_request(st: &TabState, early_done: &mut HashSet<String>, id: &str) {
    let removed = st.inflight.lock().map(|mut s| s.remove(id)).unwrap_or(true);
    if !removed {
        if early_done.len() > 1000 {
            early_done.clear();
        }
        early_done.insert(id.to_string());
    }
    st.touch();
}

/// A tab with its watcher.
#[derive(Debug)]
pub(crate) struct Tab {
    pub(crate) page: Page,
    pub(crate) state: Arc<TabState>,
    watcher: JoinHandle<()>,
}

impl Drop for Tab {
    fn drop(&mut self) {
        self.watcher.abort();
    }
}

fn resource_name(r: &ResourceType) -> String {
    // The CDP names: Document, Stylesheet, Image, XHR, Fetch …
    serde_json::to_value(r)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{r:?}"))
}

/// Whether a URL never reaches the network (so the guard does not apply).
fn is_local_scheme(url: &str) -> bool {
    let lower = url.get(..6).unwrap_or(url).to_ascii_lowercase();
    lower.starts_with("data:") || lower.starts_with("blob:") || lower.starts_with("about:")
}

impl Tab {
    /// Wrap `page`, start its watcher, then turn request interception on
    /// for this page only (an attached browser's other tabs are never
    /// paused), so every later request waits for the watcher's verdict.
    pub(crate) async fn watch(
        page: Page,
        guard: UrlGuard,
        call_timeout: Duration,
    ) -> Result<Tab, BrowserError> {
        let events = PageEvents::subscribe(&page).await?;
        let state = Arc::new(TabState::new());
        let watcher = tokio::spawn(events.run(Watcher {
            page: page.clone(),
            state: state.clone(),
            guard,
            call_timeout,
        }));
        if let Err(e) = enable_interception(&page, call_timeout).await {
            watcher.abort();
            return Err(e);
        }
        Ok(Tab {
            page,
            state,
            watcher,
        })
    }
}

/// Turn request interception on for `page`: every request pauses until the
/// watcher continues or fails it.
async fn enable_interception(page: &Page, call_timeout: Duration) -> Result<(), BrowserError> {
    let enable = FetchEnableParams::builder()
        .pattern(RequestPattern::builder().url_pattern("*").build())
        .build();
    match tokio::time::timeout(call_timeout, page.execute(enable)).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(BrowserError::cdp("enabling request interception", e)),
        Err(_) => Err(BrowserError::Timeout {
            operation: "enabling request interception".into(),
            after: call_timeout,
        }),
    }
}

/// The page event streams a tab's watcher reads.
struct PageEvents {
    paused: EventStream<EventRequestPaused>,
    sent: EventStream<EventRequestWillBeSent>,
    finished: EventStream<EventLoadingFinished>,
    failed: EventStream<EventLoadingFailed>,
    responses: EventStream<EventResponseReceived>,
    dialogs: EventStream<EventJavascriptDialogOpening>,
}

/// What the watcher acts with: the page, the shared state, the guard.
struct Watcher {
    page: Page,
    state: Arc<TabState>,
    guard: UrlGuard,
    call_timeout: Duration,
}

impl PageEvents {
    async fn subscribe(page: &Page) -> Result<Self, BrowserError> {
        let cdp = |e| BrowserError::cdp("subscribing to page events", e);
        Ok(PageEvents {
            paused: page.event_listener().await.map_err(cdp)?,
            sent: page.event_listener().await.map_err(cdp)?,
            finished: page.event_listener().await.map_err(cdp)?,
            failed: page.event_listener().await.map_err(cdp)?,
            responses: page.event_listener().await.map_err(cdp)?,
            dialogs: page.event_listener().await.map_err(cdp)?,
        })
    }

    /// Read every stream until one ends (the page is gone).
    async fn run(mut self, w: Watcher) {
        // Request ids that finished before their start event was seen
        // (events arrive on separate streams).
        let mut early_done: HashSet<String> = HashSet::new();
        loop {
            tokio::select! {
                // Start events before end events when both are ready.
                biased;
                ev = self.paused.next() => {
                    let Some(ev) = ev else { break };
                    w.on_paused(&ev);
                }
                ev = self.sent.next() => {
                    let Some(ev) = ev else { break };
                    let id = ev.request_id.inner().clone();
                    // A redirect re-sends the same id; it is still one request.
                    if !early_done.remove(&id)
                        && let Ok(mut s) = w.state.inflight.lock() { s.insert(id); }
                    w.state.touch();
                }
                ev = self.finished.next() => {
                    let Some(ev) = ev else { break };
                    end_request(&w.state, &mut early_done, ev.request_id.inner());
                }
                ev = self.failed.next() => {
                    let Some(ev) = ev else { break };
                    end_request(&w.state, &mut early_done, ev.request_id.inner());
                }
                ev = self.dialogs.next() => {
                    let Some(ev) = ev else { break };
                    w.on_dialog(&ev);
                }
                ev = self.responses.next() => {
                    let Some(ev) = ev else { break };
                    w.on_response(&ev);
                }
            }
        }
    }
}

impl Watcher {
    /// A paused request: continue it when the guard allows its URL, else
    /// fail it and record it as blocked.
    fn on_paused(&self, ev: &EventRequestPaused) {
        let url = ev.request.url.clone();
        let verdict = if is_local_scheme(&url) {
            Ok(())
        } else {
            self.guard.check(&url).map(|_| ())
        };
        let page = self.page.clone();
        let id = ev.request_id.clone();
        let call_timeout = self.call_timeout;
        match verdict {
            Ok(()) => {
                tokio::spawn(async move {
                    let _ = tokio::time::timeout(
                        call_timeout,
                        page.execute(ContinueRequestParams::new(id)),
                    )
                    .await;
                });
            }
            Err(err) => {
                tracing::debug!(target: "ferret_browser::guard", url = %url, reason = %err.reason, "request blocked");
                if let Ok(mut b) = self.state.blocked.lock() {
                    b.push(BlockedRequest {
                        url,
                        reason: err.reason,
                        resource_type: resource_name(&ev.resource_type),
                    });
                }
                tokio::spawn(async move {
                    let _ = tokio::time::timeout(
                        call_timeout,
                        page.execute(FailRequestParams::new(id, ErrorReason::BlockedByClient)),
                    )
                    .await;
                });
            }
        }
    }

    /// alert / confirm / prompt / beforeunload would block the page (and
    /// every evaluation) until answered: accept it.
    fn on_dialog(&self, ev: &EventJavascriptDialogOpening) {
        tracing::debug!(target: "ferret_browser", message = %ev.message, "dialog accepted");
        let page = self.page.clone();
        let call_timeout = self.call_timeout;
        tokio::spawn(async move {
            let _ = tokio::time::timeout(
                call_timeout,
                page.execute(HandleJavaScriptDialogParams::new(true)),
            )
            .await;
        });
    }

    /// Remember each document response's status.
    fn on_response(&self, ev: &EventResponseReceived) {
        if ev.r#type == ResourceType::Document
            && let (Ok(mut d), Ok(status)) = (
                self.state.documents.lock(),
                u16::try_from(ev.response.status),
            )
        {
            d.push((ev.response.url.clone(), status));
        }
    }
}
