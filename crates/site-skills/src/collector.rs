//! The pagination collector: runs a list tool, scrolls with the package's
//! scroll tool, runs it again, and keeps every distinct item until `limit`
//! is reached or the list stops growing.
//!
//! - `limit` defaults to 100 and is clamped to `1..=max_limit`;
//! - at most 40 rounds; stop after 4 rounds in a row without a new item, or
//!   after 2 once the scroll tool reported `at_end`;
//! - between rounds wait 700 ms for a tool named `comments`, 900 ms
//!   otherwise;
//! - items are keyed by the first non-empty field of `comment_id, post_id,
//!   video_id, shortcode, id, url`, else by author + text + time; an item
//!   seen again is merged into the first copy (missing fields filled, lists
//!   united), never dropped and never duplicated.

use std::collections::HashMap;
use std::future::Future;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The identity fields, in the order they are tried.
pub const KEY_FIELDS: [&str; 6] = [
    "comment_id",
    "post_id",
    "video_id",
    "shortcode",
    "id",
    "url",
];

/// The collector's numbers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CollectorConfig {
    /// `limit` when the caller gives none.
    pub default_limit: usize,
    /// The largest `limit` honoured.
    pub max_limit: usize,
    /// At most this many extraction rounds.
    pub max_rounds: u32,
    /// Stop after this many rounds in a row without a new item.
    pub max_stalls: u32,
    /// … or after this many once the scroll tool reported `at_end`.
    pub max_stalls_at_end: u32,
    /// Wait after a scroll when the tool is named `comments`.
    pub comments_wait: Duration,
    /// Wait after a scroll otherwise.
    pub other_wait: Duration,
}

impl Default for CollectorConfig {
    fn default() -> Self {
        CollectorConfig {
            default_limit: 100,
            max_limit: 100,
            max_rounds: 40,
            max_stalls: 4,
            max_stalls_at_end: 2,
            comments_wait: Duration::from_millis(700),
            other_wait: Duration::from_millis(900),
        }
    }
}

impl CollectorConfig {
    /// The wait between rounds for a tool of this name.
    pub fn wait_for(&self, tool_name: &str) -> Duration {
        if tool_name == "comments" {
            self.comments_wait
        } else {
            self.other_wait
        }
    }

    /// The target for a requested `limit`: the default when absent, clamped
    /// to `1..=max_limit`.
    pub fn target(&self, limit: Option<u64>) -> usize {
        let wanted = limit.map_or(self.default_limit, |l| {
            usize::try_from(l).unwrap_or(usize::MAX)
        });
        wanted.clamp(1, self.max_limit.max(1))
    }
}

/// Why collection stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CollectStop {
    /// `limit` items were collected.
    LimitReached,
    /// The scroll tool reported the end and nothing new came for
    /// `max_stalls_at_end` rounds.
    EndReached,
    /// Nothing new came for `max_stalls` rounds.
    Stalled,
    /// `max_rounds` rounds ran.
    MaxRounds,
}

/// What a collection gathered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Collected {
    /// The distinct items, in first-seen order, at most `limit`.
    pub items: Vec<Value>,
    /// Extraction rounds run.
    pub rounds: u32,
    /// Items seen again and merged into their first copy.
    pub merged: usize,
    /// Whether the scroll tool last reported the end of the list.
    pub at_end: bool,
    /// Why it stopped.
    pub stop: CollectStop,
}

/// The identity of an item: `field:value` for the first non-empty identity
/// field, else `content:author\ntext\ntime`, else the item's JSON.
pub fn item_key(item: &Value) -> String {
    for field in KEY_FIELDS {
        match item.get(field) {
            Some(Value::String(s)) if !s.trim().is_empty() => return format!("{field}:{s}"),
            Some(Value::Number(n)) => return format!("{field}:{n}"),
            _ => {}
        }
    }
    let author = match item.get("author") {
        Some(Value::String(s)) => s.as_str(),
        Some(Value::Object(o)) => o
            .get("username")
            .or_else(|| o.get("name"))
            .and_then(Value::as_str)
            .unwrap_or(""),
        _ => "",
    };
    let text = item
        .get("text")
        .or_else(|| item.get("title"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let time = ["published_at", "published_label", "time"]
        .iter()
        .find_map(|k| item.get(*k).and_then(Value::as_str))
        .unwrap_or("");
    if !author.is_empty() || !text.is_empty() {
        return format!("content:{author}\n{text}\n{time}");
    }
    item.to_string()
}

fn is_blank(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

/// Merge a later copy of an item into the first: blank fields are filled,
/// lists gain the elements they lack, nested objects merge the same way,
/// other values keep their first-seen value.
pub fn merge_record(into: &mut Value, from: &Value) {
    match (into, from) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                match a.get_mut(k) {
                    None => {
                        a.insert(k.clone(), v.clone());
                    }
                    Some(existing) if is_blank(existing) => *existing = v.clone(),
                    Some(existing) => merge_record(existing, v),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for v in b {
                let key = v.is_object().then(|| item_key(v));
                let position = a.iter().position(|x| match &key {
                    Some(k) => x.is_object() && &item_key(x) == k,
                    None => x == v,
                });
                match position {
                    Some(i) => merge_record(&mut a[i], v),
                    None => a.push(v.clone()),
                }
            }
        }
        _ => {}
    }
}

/// Distinct items by [`item_key`], merging repeats.
#[derive(Debug, Clone, Default)]
pub struct ItemSet {
    items: Vec<Value>,
    index: HashMap<String, usize>,
    merged: usize,
}

impl ItemSet {
    /// An empty set.
    pub fn new() -> Self {
        ItemSet::default()
    }

    /// Add a batch; returns how many items were new.
    pub fn absorb(&mut self, batch: &[Value]) -> usize {
        let before = self.items.len();
        for item in batch {
            let key = item_key(item);
            match self.index.get(&key) {
                Some(&i) => {
                    merge_record(&mut self.items[i], item);
                    self.merged += 1;
                }
                None => {
                    self.index.insert(key, self.items.len());
                    self.items.push(item.clone());
                }
            }
        }
        self.items.len() - before
    }

    /// Distinct items so far.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether nothing was collected.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Repeats merged so far.
    pub fn merged(&self) -> usize {
        self.merged
    }

    /// The items, in first-seen order.
    pub fn into_items(self) -> Vec<Value> {
        self.items
    }
}

/// Run the loop: `fetch` returns one batch of items, `scroll` moves the
/// list one step and returns whether it reported the end; `wait` is slept
/// after each scroll.
pub async fn collect<E, F, FFut, S, SFut>(
    config: &CollectorConfig,
    target: usize,
    wait: Duration,
    mut fetch: F,
    mut scroll: S,
) -> Result<Collected, E>
where
    F: FnMut() -> FFut,
    FFut: Future<Output = Result<Vec<Value>, E>>,
    S: FnMut() -> SFut,
    SFut: Future<Output = Result<bool, E>>,
{
    let mut set = ItemSet::new();
    let mut stalls = 0u32;
    let mut at_end = false;
    let mut rounds = 0u32;
    let mut stop = CollectStop::MaxRounds;
    while rounds < config.max_rounds {
        rounds += 1;
        let batch = fetch().await?;
        let added = set.absorb(&batch);
        if set.len() >= target {
            stop = CollectStop::LimitReached;
            break;
        }
        stalls = if added == 0 { stalls + 1 } else { 0 };
        if at_end && stalls >= config.max_stalls_at_end {
            stop = CollectStop::EndReached;
            break;
        }
        if stalls >= config.max_stalls {
            stop = CollectStop::Stalled;
            break;
        }
        if rounds == config.max_rounds {
            break;
        }
        at_end = scroll().await?;
        tokio::time::sleep(wait).await;
    }
    let merged = set.merged();
    let mut items = set.into_items();
    items.truncate(target);
    Ok(Collected {
        items,
        rounds,
        merged,
        at_end,
        stop,
    })
}
