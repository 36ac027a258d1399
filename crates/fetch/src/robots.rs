//! robots.txt for page fetches (RFC 9309): fetched once per origin through
//! the same guarded client as pages, read up to [`ROBOTS_BODY_LIMIT`],
//! cached in the fetcher, and matched against the product token
//! [`ROBOTS_TOKEN`](super::ROBOTS_TOKEN).
//!
//! What each answer means:
//!
//! | robots.txt answer | rules | cached for |
//! |---|---|---|
//! | 2xx | the file (the first [`ROBOTS_BODY_LIMIT`] bytes of it) | `Cache-Control: max-age`, else [`ROBOTS_DEFAULT_TTL`] (clamped to 1 min … 24 h) |
//! | 3xx | followed (≤ 5 hops, each guard-checked); too many is "unavailable" | as the final answer |
//! | 4xx except 429 ("unavailable") | allow all | as 2xx |
//! | 429, 5xx ("unreachable") | disallow all — RFC 9309 §2.3.1.4 | [`ROBOTS_ERROR_TTL`] |
//! | timeout, connection failure | the HTTP step fails with that error, as the page itself would (the ladder goes on as for any HTTP failure) | not cached |
//!
//! Public endpoints are APIs, not pages: they are never robots-checked.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use texting_robots::Robot;
use url::{Position, Url};

use super::error::FetchError;
use super::http::{self, ACCEPT_ANY, Request};
use super::{Fetcher, ROBOTS_TOKEN};

/// The most of a robots.txt that is read (RFC 9309 asks for at least
/// 500 KiB); the rules are parsed from that much.
pub const ROBOTS_BODY_LIMIT: usize = 512 * 1024;
/// How long rules are kept without a `Cache-Control: max-age`.
pub const ROBOTS_DEFAULT_TTL: Duration = Duration::from_secs(3600);
/// How long a disallow-all from a server error (429, 5xx) is kept.
pub const ROBOTS_ERROR_TTL: Duration = Duration::from_secs(600);
/// The longest a robots.txt is kept (RFC 9309: at most 24 hours).
const MAX_TTL: Duration = Duration::from_secs(24 * 3600);
/// The shortest, whatever `max-age` says (to stay polite to the host).
const MIN_TTL: Duration = Duration::from_secs(60);
/// The time budget of one robots.txt fetch (or the fetch timeout, if
/// shorter).
const ROBOTS_TIMEOUT: Duration = Duration::from_secs(10);
/// Redirects followed for robots.txt (RFC 9309: at least five).
const ROBOTS_REDIRECTS: usize = 5;
/// Origins kept before expired entries are dropped.
const MAX_ORIGINS: usize = 1024;

/// What a robots.txt says for Ferret.
#[derive(Debug)]
enum Rules {
    /// No usable file (4xx, empty, unparsable): everything is allowed.
    AllowAll,
    /// The file could not be had (429, 5xx): nothing is allowed.
    DisallowAll(String),
    /// The parsed file and its text (for naming the matched rule).
    Parsed { robot: Robot, text: String },
}

impl Rules {
    /// `Err(rule)` when `url` is disallowed.
    fn check(&self, url: &Url) -> Result<(), String> {
        match self {
            Rules::AllowAll => Ok(()),
            Rules::DisallowAll(why) => Err(why.clone()),
            Rules::Parsed { robot, text } => {
                if robot.allowed(url.as_str()) {
                    return Ok(());
                }
                let path = &url[Position::BeforePath..Position::AfterQuery];
                Err(matched_rule(text, path)
                    .unwrap_or_else(|| format!("a rule for User-agent {ROBOTS_TOKEN} or *")))
            }
        }
    }
}

/// One origin's cached rules.
#[derive(Debug)]
struct Entry {
    rules: Arc<Rules>,
    expires: Instant,
}

/// One origin's slot: locked while its robots.txt is read, so concurrent
/// fetches of one site read it once.
type Slot = Arc<tokio::sync::Mutex<Option<Entry>>>;

/// The per-origin cache.
#[derive(Debug, Clone, Default)]
pub(crate) struct RobotsCache {
    slots: Arc<Mutex<HashMap<String, Slot>>>,
}

impl RobotsCache {
    /// The slot for `origin` (created empty), dropping expired slots when
    /// the cache is full.
    fn slot(&self, origin: &str) -> Slot {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        if slots.len() >= MAX_ORIGINS && !slots.contains_key(origin) {
            let now = Instant::now();
            slots.retain(|_, slot| {
                slot.try_lock()
                    .map_or(true, |e| e.as_ref().is_some_and(|e| e.expires > now))
            });
            if slots.len() >= MAX_ORIGINS {
                slots.clear();
            }
        }
        slots.entry(origin.to_string()).or_default().clone()
    }
}

/// The robots.txt URL of `url`'s origin.
fn robots_url(url: &Url) -> Option<Url> {
    let mut robots = url.clone();
    robots.set_path("/robots.txt");
    robots.set_query(None);
    robots.set_fragment(None);
    (robots.host_str().is_some()).then_some(robots)
}

impl Fetcher {
    /// `Ok` when robots.txt allows `url` for Ferret (or robots are not
    /// respected); [`FetchError::RobotsDisallowed`] with the matched rule
    /// otherwise. A robots.txt that cannot be reached fails with that
    /// error.
    pub(crate) async fn robots_allow(&self, url: &Url) -> Result<(), FetchError> {
        if !self.config().respect_robots {
            return Ok(());
        }
        let Some(robots) = robots_url(url) else {
            return Ok(());
        };
        let rules = self.robots_rules(&robots).await?;
        rules
            .check(url)
            .map_err(|rule| FetchError::RobotsDisallowed {
                url: url.to_string(),
                robots_url: robots.to_string(),
                rule,
            })
    }

    /// The cached rules of `robots`' origin, fetched when missing or stale.
    async fn robots_rules(&self, robots: &Url) -> Result<Arc<Rules>, FetchError> {
        let slot = self.config().robots.slot(robots.as_str());
        let mut entry = slot.lock().await;
        if let Some(e) = entry.as_ref().filter(|e| e.expires > Instant::now()) {
            return Ok(e.rules.clone());
        }
        let (rules, ttl) = self.fetch_robots(robots).await?;
        let rules = Arc::new(rules);
        *entry = Some(Entry {
            rules: rules.clone(),
            expires: Instant::now() + ttl,
        });
        Ok(rules)
    }

    /// GETs `robots` (guarded like a page, with its own small body cap and
    /// time budget) and reads the answer into rules and a cache time.
    async fn fetch_robots(&self, robots: &Url) -> Result<(Rules, Duration), FetchError> {
        let config = self.config();
        let timeout = config.timeout.min(ROBOTS_TIMEOUT);
        let request = Request {
            url: robots.clone(),
            accept: ACCEPT_ANY,
            user_agent: &config.user_agent,
            bearer: None,
            body_limit: ROBOTS_BODY_LIMIT,
            extra_headers: &[],
        };
        match http::get(
            self.client(),
            &config.guard,
            ROBOTS_REDIRECTS,
            timeout,
            request,
        )
        .await
        {
            Ok(response) => Ok(rules_of(&response)),
            // Too many or unusable redirects: "unavailable", allow all.
            Err(FetchError::TooManyRedirects { .. } | FetchError::InvalidRedirect { .. }) => {
                Ok((Rules::AllowAll, ROBOTS_DEFAULT_TTL))
            }
            Err(e) => Err(e),
        }
    }
}

/// The rules and cache time an answer gives (see the module docs).
fn rules_of(response: &http::Response) -> (Rules, Duration) {
    let status = response.status;
    if status == 429 || status >= 500 {
        let why = format!(
            "robots.txt answered HTTP {status}, which RFC 9309 reads as disallow-all for now"
        );
        return (Rules::DisallowAll(why), ROBOTS_ERROR_TTL);
    }
    let ttl = max_age(&response.headers)
        .unwrap_or(ROBOTS_DEFAULT_TTL)
        .clamp(MIN_TTL, MAX_TTL);
    if !(200..300).contains(&status) || response.body.is_empty() {
        return (Rules::AllowAll, ttl);
    }
    match Robot::new(ROBOTS_TOKEN, &response.body) {
        Ok(robot) => {
            let text = String::from_utf8_lossy(&response.body).into_owned();
            (Rules::Parsed { robot, text }, ttl)
        }
        Err(e) => {
            tracing::debug!(error = %e, "robots.txt does not parse; allowing all");
            (Rules::AllowAll, ttl)
        }
    }
}

/// `Cache-Control: max-age=N`, when given (in any of the header's values).
fn max_age(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    headers
        .get_all(reqwest::header::CACHE_CONTROL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|v| {
            http::cache_directive(v, "max-age")
                .flatten()
                .and_then(http::delta_seconds)
        })
}

/// One `User-agent` group of a robots.txt: its agents and `Disallow`
/// patterns.
#[derive(Debug, Default)]
struct Group {
    agents: Vec<String>,
    disallows: Vec<String>,
    has_rules: bool,
}

/// The groups of a robots.txt, as the parser reads them (consecutive
/// `User-agent` lines share a group).
fn groups(text: &str) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or_default();
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim().to_string();
        match key.trim().to_ascii_lowercase().as_str() {
            "user-agent" => {
                if groups.last().is_none_or(|g| g.has_rules) {
                    groups.push(Group::default());
                }
                if let Some(g) = groups.last_mut() {
                    g.agents.push(value);
                }
            }
            "disallow" | "allow" => {
                if let Some(g) = groups.last_mut() {
                    g.has_rules = true;
                    if key.trim().eq_ignore_ascii_case("disallow") && !value.is_empty() {
                        g.disallows.push(value);
                    }
                }
            }
            _ => {}
        }
    }
    groups
}

/// The `Disallow` rule that refuses `path` (the longest match), named with
/// its group: `Disallow: /private/ (User-agent: *)`. Ferret's own groups
/// win over `*`.
fn matched_rule(text: &str, path: &str) -> Option<String> {
    let groups = groups(text);
    let ours = |g: &&Group| {
        g.agents
            .iter()
            .any(|a| a.eq_ignore_ascii_case(ROBOTS_TOKEN))
    };
    let star = |g: &&Group| g.agents.iter().any(|a| a == "*");
    let chosen: Vec<&Group> = if groups.iter().any(|g| ours(&g)) {
        groups.iter().filter(ours).collect()
    } else {
        groups.iter().filter(star).collect()
    };
    let agent = if chosen.iter().any(ours) {
        ROBOTS_TOKEN
    } else {
        "*"
    };
    chosen
        .iter()
        .flat_map(|g| g.disallows.iter())
        .filter(|p| pattern_matches(p, path))
        .max_by_key(|p| p.len())
        .map(|p| format!("Disallow: {p} (User-agent: {agent})"))
}

/// Whether a robots.txt path pattern (`*` any run of characters, a final
/// `$` anchors the end) matches `path` from its start.
fn pattern_matches(pattern: &str, path: &str) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix('$') {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    let parts: Vec<&str> = pattern.split('*').collect();
    let Some(mut rest) = path.strip_prefix(parts[0]) else {
        return false;
    };
    if parts.len() == 1 {
        return !anchored || rest.is_empty();
    }
    for (i, part) in parts.iter().enumerate().skip(1) {
        if anchored && i == parts.len() - 1 {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    const TXT: &str = "User-agent: *\nDisallow: /private/\nDisallow: /*.pdf$\n\n\
                       User-agent: OtherBot\nDisallow: /\n";

    fn parsed(text: &str) -> Rules {
        Rules::Parsed {
            robot: Robot::new(ROBOTS_TOKEN, text.as_bytes()).unwrap(),
            text: text.to_string(),
        }
    }

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn the_star_group_applies_and_names_the_matched_rule() {
        let rules = parsed(TXT);
        assert_eq!(rules.check(&u("https://a.example/public/x")), Ok(()));
        assert_eq!(
            rules.check(&u("https://a.example/private/x?y=1")),
            Err("Disallow: /private/ (User-agent: *)".to_string())
        );
        assert_eq!(
            rules.check(&u("https://a.example/docs/a.pdf")),
            Err("Disallow: /*.pdf$ (User-agent: *)".to_string())
        );
        assert_eq!(rules.check(&u("https://a.example/docs/a.pdf?x")), Ok(()));
    }

    #[test]
    fn a_ferret_group_wins_over_star() {
        let rules = parsed("User-agent: *\nDisallow: /\n\nUser-agent: ferret\nDisallow: /tmp\n");
        assert_eq!(rules.check(&u("https://a.example/page")), Ok(()));
        assert_eq!(
            rules.check(&u("https://a.example/tmp/1")),
            Err("Disallow: /tmp (User-agent: Ferret)".to_string())
        );
    }

    #[test]
    fn patterns_match_like_robots_txt() {
        assert!(pattern_matches("/a", "/abc"));
        assert!(pattern_matches("/a*c", "/abbbc/d"));
        assert!(pattern_matches("/a*c$", "/abbbc"));
        assert!(!pattern_matches("/a*c$", "/abbbc/d"));
        assert!(!pattern_matches("/b", "/abc"));
        assert!(pattern_matches("/x$", "/x"));
        assert!(!pattern_matches("/x$", "/xy"));
    }

    #[test]
    fn max_age_is_read_from_cache_control() {
        let mut h = reqwest::header::HeaderMap::new();
        h.insert(
            reqwest::header::CACHE_CONTROL,
            "public, max-age=120".parse().unwrap(),
        );
        assert_eq!(max_age(&h), Some(Duration::from_secs(120)));
        assert_eq!(max_age(&reqwest::header::HeaderMap::new()), None);
    }
}
