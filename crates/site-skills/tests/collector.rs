//! The pagination collector's rules without a browser: identity keys in
//! their priority order, merging repeats, and the stop conditions of the loop (run
//! on a paused clock; the browser test runs it on a real page).

use std::cell::RefCell;
use std::time::Duration;

use ferret_site_skills::collector::{ItemSet, collect, item_key, merge_record};
use ferret_site_skills::{CollectStop, CollectorConfig};
use serde_json::{Value, json};

#[test]
fn keys_follow_the_identity_field_order() {
    let item = json!({"url": "u", "id": "i", "shortcode": "s", "video_id": "v", "post_id": "p", "comment_id": "c"});
    assert_eq!(item_key(&item), "comment_id:c");
    assert_eq!(
        item_key(&json!({"url": "u", "id": "i", "post_id": "p"})),
        "post_id:p"
    );
    assert_eq!(
        item_key(&json!({"url": "u", "id": "i", "video_id": "v"})),
        "video_id:v"
    );
    assert_eq!(
        item_key(&json!({"url": "u", "id": "i", "shortcode": "s"})),
        "shortcode:s"
    );
    assert_eq!(item_key(&json!({"url": "u", "id": 7})), "id:7");
    assert_eq!(item_key(&json!({"url": "u", "comment_id": ""})), "url:u");
}

#[test]
fn without_an_identity_field_author_text_and_time_are_the_key() {
    let a = json!({"author": "ann", "text": "hello", "time": "2024-01-01"});
    let b =
        json!({"author": {"username": "ann"}, "text": "hello", "time": "2024-01-01", "likes": 3});
    assert_eq!(item_key(&a), item_key(&b));
    let c = json!({"author": "ann", "text": "hello", "time": "2024-01-02"});
    assert_ne!(item_key(&a), item_key(&c));
    assert_eq!(item_key(&json!({"title": "T"})), "content:\nT\n");
}

#[test]
fn repeats_are_merged_into_the_first_copy() {
    let mut first = json!({"comment_id": "1", "text": "hi", "likes": null, "replies": [{"comment_id": "r1", "text": "a"}], "seen": [1]});
    let later = json!({"comment_id": "1", "text": "changed", "likes": 4, "replies": [{"comment_id": "r1", "text": "a", "likes": 2}, {"comment_id": "r2", "text": "b"}], "seen": [1, 2], "extra": true});
    merge_record(&mut first, &later);
    assert_eq!(
        first,
        json!({
            "comment_id": "1",
            "text": "hi",
            "likes": 4,
            "replies": [{"comment_id": "r1", "text": "a", "likes": 2}, {"comment_id": "r2", "text": "b"}],
            "seen": [1, 2],
            "extra": true
        })
    );
}

#[test]
fn an_item_set_counts_new_items_and_merges() {
    let mut set = ItemSet::new();
    assert_eq!(set.absorb(&[json!({"id": "a"}), json!({"id": "b"})]), 2);
    assert_eq!(
        set.absorb(&[json!({"id": "b", "x": 1}), json!({"id": "c"})]),
        1
    );
    assert_eq!(set.len(), 3);
    assert_eq!(set.merged(), 1);
    assert_eq!(set.into_items()[1], json!({"id": "b", "x": 1}));
}

#[test]
fn the_default_loop_limits_and_waits() {
    let c = CollectorConfig::default();
    assert_eq!(c.max_rounds, 40);
    assert_eq!(c.max_stalls, 4);
    assert_eq!(c.max_stalls_at_end, 2);
    assert_eq!(c.wait_for("comments"), Duration::from_millis(700));
    assert_eq!(c.wait_for("searchResults"), Duration::from_millis(900));
    assert_eq!(c.target(None), 100);
    assert_eq!(c.target(Some(0)), 1);
    assert_eq!(c.target(Some(30)), 30);
    assert_eq!(c.target(Some(10_000)), 100);
}

/// A fake list: `pages[i]` is what the i-th extraction sees; scrolling
/// reports the end once the last page is reached.
struct FakeList {
    pages: Vec<Vec<Value>>,
    at: RefCell<usize>,
    scrolls: RefCell<u32>,
    end_known: bool,
}

impl FakeList {
    fn new(pages: Vec<Vec<Value>>, end_known: bool) -> Self {
        FakeList {
            pages,
            at: RefCell::new(0),
            scrolls: RefCell::new(0),
            end_known,
        }
    }

    async fn fetch(&self) -> Result<Vec<Value>, String> {
        let i = (*self.at.borrow()).min(self.pages.len() - 1);
        Ok(self.pages[i].clone())
    }

    async fn scroll(&self) -> Result<bool, String> {
        *self.scrolls.borrow_mut() += 1;
        let mut at = self.at.borrow_mut();
        *at = (*at + 1).min(self.pages.len() - 1);
        Ok(self.end_known && *at == self.pages.len() - 1)
    }
}

fn ids(range: std::ops::Range<u32>) -> Vec<Value> {
    range
        .map(|i| json!({"comment_id": format!("c{i}")}))
        .collect()
}

#[tokio::test(start_paused = true)]
async fn stops_once_the_limit_is_reached() {
    let list = FakeList::new(vec![ids(0..10), ids(5..20), ids(15..30)], false);
    let config = CollectorConfig::default();
    let got = collect(
        &config,
        12,
        config.other_wait,
        || list.fetch(),
        || list.scroll(),
    )
    .await
    .unwrap();
    assert_eq!(got.stop, CollectStop::LimitReached);
    assert_eq!(got.items, ids(0..12));
    assert_eq!(got.rounds, 2);
    assert_eq!(got.merged, 5);
}

#[tokio::test(start_paused = true)]
async fn stops_two_stalls_after_the_end_is_reported() {
    let list = FakeList::new(vec![ids(0..10), ids(8..18), ids(16..21)], true);
    let config = CollectorConfig::default();
    let start = tokio::time::Instant::now();
    let got = collect(
        &config,
        100,
        config.other_wait,
        || list.fetch(),
        || list.scroll(),
    )
    .await
    .unwrap();
    assert_eq!(got.stop, CollectStop::EndReached);
    assert!(got.at_end);
    assert_eq!(got.items, ids(0..21));
    // 3 growing rounds, then 2 stalled ones.
    assert_eq!(got.rounds, 5);
    assert_eq!(*list.scrolls.borrow(), 4);
    assert_eq!(start.elapsed(), Duration::from_millis(900) * 4);
}

#[tokio::test(start_paused = true)]
async fn stops_after_four_stalls_when_the_end_is_never_reported() {
    let list = FakeList::new(vec![ids(0..5)], false);
    let config = CollectorConfig::default();
    let got = collect(
        &config,
        100,
        config.comments_wait,
        || list.fetch(),
        || list.scroll(),
    )
    .await
    .unwrap();
    assert_eq!(got.stop, CollectStop::Stalled);
    assert_eq!(got.rounds, 5);
    assert_eq!(got.items.len(), 5);
}

#[tokio::test(start_paused = true)]
async fn stops_after_forty_rounds() {
    // One new item per round, forever.
    let round = RefCell::new(0u32);
    let config = CollectorConfig::default();
    let got = collect(
        &config,
        100,
        config.other_wait,
        || {
            let n = *round.borrow();
            async move { Ok::<_, String>(ids(n..n + 1)) }
        },
        || {
            *round.borrow_mut() += 1;
            async { Ok(false) }
        },
    )
    .await
    .unwrap();
    assert_eq!(got.stop, CollectStop::MaxRounds);
    assert_eq!(got.rounds, 40);
    assert_eq!(got.items.len(), 40);
}

#[tokio::test(start_paused = true)]
async fn an_extraction_error_ends_the_collection() {
    let config = CollectorConfig::default();
    let result = collect(
        &config,
        100,
        config.other_wait,
        || async { Err::<Vec<Value>, _>("page left the site".to_string()) },
        || async { Ok(false) },
    )
    .await;
    assert_eq!(result.unwrap_err(), "page left the site");
}
