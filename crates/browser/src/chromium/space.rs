//! A task space: its browser context (when isolated), its active tab, and a
//! bounded pool of reusable worker tabs for renders.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chromiumoxide::Browser;
use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::target::{
    CreateBrowserContextParams, CreateTargetParams,
};
use ferret_core::guard::UrlGuard;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::tab::Tab;
use crate::error::BrowserError;
use crate::runtime::{TaskSpaceInfo, TaskSpaceSpec};

#[derive(Debug)]
pub(crate) struct Space {
    pub(crate) spec: TaskSpaceSpec,
    context: Option<BrowserContextId>,
    active: tokio::sync::Mutex<Option<(Arc<Tab>, OwnedSemaphorePermit)>>,
    idle: Arc<Mutex<Vec<Tab>>>,
    permits: Arc<Semaphore>,
    open_tabs: Arc<AtomicUsize>,
}

/// A worker tab on loan from a space's pool.
pub(crate) struct Lease {
    tab: Option<Tab>,
    idle: Arc<Mutex<Vec<Tab>>>,
    open_tabs: Arc<AtomicUsize>,
    _permit: OwnedSemaphorePermit,
}

impl Lease {
    pub(crate) fn tab(&self) -> &Tab {
        self.tab
            .as_ref()
            .expect("a lease holds its tab until it ends")
    }

    /// Return the tab to the pool for the next render.
    pub(crate) fn give_back(mut self) {
        if let Some(tab) = self.tab.take()
            && let Ok(mut idle) = self.idle.lock()
        {
            idle.push(tab);
        }
    }

    /// Throw the tab away (it may be stuck): closed in the background.
    pub(crate) fn discard(mut self, budget: Duration) {
        if let Some(tab) = self.tab.take() {
            self.open_tabs.fetch_sub(1, Ordering::Relaxed);
            close_tab_later(tab, budget);
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        // A lease dropped mid-render (its future was cancelled): the tab's
        // state is unknown, so it is not reused.
        if let Some(tab) = self.tab.take() {
            self.open_tabs.fetch_sub(1, Ordering::Relaxed);
            close_tab_later(tab, Duration::from_secs(5));
        }
    }
}

fn close_tab_later(tab: Tab, budget: Duration) {
    if let Ok(handle) = tokio::runtime::Handle::try_current() {
        handle.spawn(async move {
            let _ = tokio::time::timeout(budget, tab.page.clone().close()).await;
        });
    }
}

impl Space {
    /// Open a space; with `isolated`, in a browser context of its own.
    pub(crate) async fn open(
        browser: &Browser,
        spec: TaskSpaceSpec,
        isolated: bool,
        call_timeout: Duration,
    ) -> Result<Space, BrowserError> {
        let context = if isolated {
            let id = tokio::time::timeout(
                call_timeout,
                browser.create_browser_context(CreateBrowserContextParams::default()),
            )
            .await
            .map_err(|_| BrowserError::Timeout {
                operation: format!("creating the browser context of {:?}", spec.name),
                after: call_timeout,
            })?
            .map_err(|e| BrowserError::cdp("creating a browser context", e))?;
            Some(id)
        } else {
            None
        };
        Ok(Space {
            permits: Arc::new(Semaphore::new(spec.max_tabs.max(1))),
            spec,
            context,
            active: tokio::sync::Mutex::new(None),
            idle: Arc::new(Mutex::new(Vec::new())),
            open_tabs: Arc::new(AtomicUsize::new(0)),
        })
    }

    pub(crate) fn info(&self) -> TaskSpaceInfo {
        TaskSpaceInfo {
            name: self.spec.name.clone(),
            keep: self.spec.keep,
            max_tabs: self.spec.max_tabs,
            open_tabs: self.open_tabs.load(Ordering::Relaxed),
            isolated_context: self.context.is_some(),
        }
    }

    async fn new_tab(
        &self,
        browser: &Browser,
        guard: &UrlGuard,
        call_timeout: Duration,
    ) -> Result<Tab, BrowserError> {
        let mut params = CreateTargetParams::new("about:blank");
        params.browser_context_id = self.context.clone();
        // Each tab in its own window unless the space asks for background
        // tabs: tabs sharing a window are hidden pages (no animation frames,
        // no visibility-triggered lazy loading), so only the newest of a
        // multi-tab space would render like a page a person looks at.
        // (Background tabs leave the choice to Chromium, which opens the
        // first window itself: the browser starts with none.)
        params.new_window = (!self.spec.background_tabs).then_some(true);
        let page = tokio::time::timeout(call_timeout, browser.new_page(params))
            .await
            .map_err(|_| BrowserError::Timeout {
                operation: format!("opening a tab in {:?}", self.spec.name),
                after: call_timeout,
            })?
            .map_err(|e| BrowserError::cdp("opening a tab", e))?;
        let watched = tokio::time::timeout(
            call_timeout,
            Tab::watch(page.clone(), guard.clone(), call_timeout),
        )
        .await
        .unwrap_or_else(|_| {
            Err(BrowserError::Timeout {
                operation: "setting up a tab".into(),
                after: call_timeout,
            })
        });
        match watched {
            Ok(tab) => {
                self.open_tabs.fetch_add(1, Ordering::Relaxed);
                Ok(tab)
            }
            Err(e) => {
                let _ = tokio::time::timeout(call_timeout, page.close()).await;
                Err(e)
            }
        }
    }

    /// A worker tab (an idle one, or a new one while under the bound).
    pub(crate) async fn lease(
        &self,
        browser: &Browser,
        guard: &UrlGuard,
        call_timeout: Duration,
    ) -> Result<Lease, BrowserError> {
        let permit = self
            .permits
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| BrowserError::ShutDown)?;
        let reused = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let tab = match reused {
            Some(tab) => tab,
            None => self.new_tab(browser, guard, call_timeout).await?,
        };
        Ok(Lease {
            tab: Some(tab),
            idle: self.idle.clone(),
            open_tabs: self.open_tabs.clone(),
            _permit: permit,
        })
    }

    /// The active tab, opened on first use.
    pub(crate) async fn active(
        &self,
        browser: &Browser,
        guard: &UrlGuard,
        call_timeout: Duration,
    ) -> Result<Arc<Tab>, BrowserError> {
        let mut active = self.active.lock().await;
        if let Some((tab, _)) = active.as_ref() {
            return Ok(tab.clone());
        }
        let permit = tokio::time::timeout(call_timeout, self.permits.clone().acquire_owned())
            .await
            .map_err(|_| BrowserError::Timeout {
                operation: format!("waiting for a free tab in {:?}", self.spec.name),
                after: call_timeout,
            })?
            .map_err(|_| BrowserError::ShutDown)?;
        // Prefer an idle worker tab over opening a new one.
        let reused = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let tab = match reused {
            Some(tab) => tab,
            None => self.new_tab(browser, guard, call_timeout).await?,
        };
        let tab = Arc::new(tab);
        *active = Some((tab.clone(), permit));
        Ok(tab)
    }

    /// The active tab if one is open.
    pub(crate) async fn active_if_open(&self) -> Option<Arc<Tab>> {
        self.active.lock().await.as_ref().map(|(t, _)| t.clone())
    }

    /// Close every tab and the context.
    pub(crate) async fn close(&self, browser: &Browser, budget: Duration) {
        self.permits.close();
        let active = self.active.lock().await.take();
        let mut tabs: Vec<chromiumoxide::Page> = Vec::new();
        if let Some((tab, _)) = active {
            tabs.push(tab.page.clone());
        }
        if let Ok(mut idle) = self.idle.lock() {
            tabs.extend(idle.drain(..).map(|t| t.page.clone()));
        }
        for page in tabs {
            let _ = tokio::time::timeout(budget, page.close()).await;
        }
        self.open_tabs.store(0, Ordering::Relaxed);
        if let Some(id) = &self.context {
            let _ = tokio::time::timeout(budget, browser.dispose_browser_context(id.clone())).await;
        }
    }
}
