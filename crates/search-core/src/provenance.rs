//! [`Provenance`]: which partition a hit, result or page came from, which
//! runtime read it, and whether it may be cached or merged.
//!
//! **Set by whoever read the content, when it read it, and carried by
//! type.** There is no default: an engine answer, a source hit, a fused
//! result, a fetched page, a ladder attempt, a verify report, a research
//! candidate and a ledger quote each hold the provenance of the read behind
//! it. The runtime that actually served the read is named ([`Runtime`]).
//!
//! **Login is sticky.** Anything built from a login read is login:
//! [`Provenance::join`] of a login and a public provenance is login, so a
//! fused result with one login hit, a research candidate whose search row
//! came from a logged-in browser, or a report quoting a login page is login
//! data, never cache eligible.
//!
//! **Claims from outside** (rows on stdin, files handed to `ferret merge`,
//! Ferret's own envelopes fed back) are read by [`ProvenanceClaim`]: every
//! field optional, a missing claim means public data supplied by the caller
//! (runtime `rows`), a claim with any login marker is login, and a claim
//! can never upgrade data that is already login.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// The partition a piece of data belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Partition {
    /// Read without any user session: safe to cache and share.
    Public,
    /// Read with a logged-in session (a persistent profile or the user's own
    /// browser): never written to a shared cache.
    Login,
}

impl Partition {
    /// `public` or `login`.
    pub fn as_str(self) -> &'static str {
        match self {
            Partition::Public => "public",
            Partition::Login => "login",
        }
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Partition {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "public" => Ok(Partition::Public),
            "login" => Ok(Partition::Login),
            other => Err(format!(
                "unknown partition {other:?}: use `public` or `login`"
            )),
        }
    }
}

/// What read the content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Runtime {
    /// A plain HTTP request (an engine's API or result page, a fetched page).
    Http,
    /// A site's official API read in place of its page (GitHub, Wikipedia,
    /// arXiv, Hacker News, Reddit, package registries).
    PublicEndpoint,
    /// A Chromium that Ferret launched.
    ChromiumManaged,
    /// A running browser Ferret attached to over CDP (by default the user's
    /// own, with its sessions).
    ChromiumAttached,
    /// A file on this machine (the local index, `--from-file`).
    Local,
    /// Rows the caller supplied, without saying what read them.
    Rows,
    /// A language model asked to search.
    Llm,
    /// A recorded answer played back.
    Replay,
    /// A claim from outside named a runtime Ferret does not know, or none.
    Unknown,
}

impl Runtime {
    /// Every runtime, in declaration order.
    pub const ALL: [Runtime; 9] = [
        Runtime::Http,
        Runtime::PublicEndpoint,
        Runtime::ChromiumManaged,
        Runtime::ChromiumAttached,
        Runtime::Local,
        Runtime::Rows,
        Runtime::Llm,
        Runtime::Replay,
        Runtime::Unknown,
    ];

    /// The name used in JSON (`http`, `public-endpoint`, `chromium-managed`,
    /// `chromium-attached`, `local`, `rows`, `llm`, `replay`, `unknown`).
    pub fn as_str(self) -> &'static str {
        match self {
            Runtime::Http => "http",
            Runtime::PublicEndpoint => "public-endpoint",
            Runtime::ChromiumManaged => "chromium-managed",
            Runtime::ChromiumAttached => "chromium-attached",
            Runtime::Local => "local",
            Runtime::Rows => "rows",
            Runtime::Llm => "llm",
            Runtime::Replay => "replay",
            Runtime::Unknown => "unknown",
        }
    }

    /// The runtime called `name` (case and `_`/`-` insensitive), if known.
    pub fn parse(name: &str) -> Option<Runtime> {
        let wanted = name.trim().to_ascii_lowercase().replace('_', "-");
        Runtime::ALL.into_iter().find(|r| r.as_str() == wanted)
    }
}

impl fmt::Display for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for Runtime {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for Runtime {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Runtime {
    /// A name Ferret does not know reads as [`Runtime::Unknown`] (stored
    /// data written by a newer version stays readable).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Cow::<'de, str>::deserialize(d)?;
        Ok(Runtime::parse(&raw).unwrap_or(Runtime::Unknown))
    }
}

/// Where data came from and what may be done with it.
///
/// `auth_partition` is a `Cow<'static, str>`: the usual labels (`public`,
/// `login`) are static, so the provenance every hit, result and page
/// carries is cloned without allocating.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Provenance {
    /// `public` or `login`.
    pub search_partition: Partition,
    /// Whether a logged-in browser state was used.
    pub login_state_used: bool,
    /// The authentication partition label, `public`, `login` or `login:<site>`.
    pub auth_partition: Cow<'static, str>,
    /// Whether this data may be written to a shared cache.
    pub cache_eligible: bool,
    /// Whether it may be fused with public results for analysis.
    pub merge_with_public_ok: bool,
    /// The runtime that read it.
    pub runtime: Runtime,
}

impl Provenance {
    /// Public-partition data read by `runtime`.
    pub const fn public(runtime: Runtime) -> Self {
        Provenance {
            search_partition: Partition::Public,
            login_state_used: false,
            auth_partition: Cow::Borrowed("public"),
            cache_eligible: true,
            merge_with_public_ok: true,
            runtime,
        }
    }

    /// Login-partition data read by `runtime`: `login_state_used`,
    /// `auth_partition` `login`, never cache eligible, mergeable with public
    /// results for analysis.
    pub const fn login(runtime: Runtime) -> Self {
        Provenance {
            search_partition: Partition::Login,
            login_state_used: true,
            auth_partition: Cow::Borrowed("login"),
            cache_eligible: false,
            merge_with_public_ok: true,
            runtime,
        }
    }

    /// Data of `partition` read by `runtime`.
    pub fn of(partition: Partition, runtime: Runtime) -> Self {
        match partition {
            Partition::Public => Provenance::public(runtime),
            Partition::Login => Provenance::login(runtime),
        }
    }

    /// True when any field marks this as login data, however it was set: the
    /// partition, the login flag, an `auth_partition` starting with `login`,
    /// or `cache_eligible=false`. Caches refuse data for which this is true.
    pub fn is_login(&self) -> bool {
        self.search_partition == Partition::Login
            || self.login_state_used
            || self.auth_partition.starts_with("login")
            || !self.cache_eligible
    }

    /// The partition [`Provenance::is_login`] decides.
    pub fn partition(&self) -> Partition {
        if self.is_login() {
            Partition::Login
        } else {
            Partition::Public
        }
    }

    /// The same provenance with every field agreeing with
    /// [`Provenance::is_login`]: login data gets partition `login`,
    /// `login_state_used`, a `login…` auth partition and no cache
    /// eligibility, whichever single marker made it login.
    pub fn sealed(mut self) -> Self {
        if self.is_login() {
            self.search_partition = Partition::Login;
            self.login_state_used = true;
            self.cache_eligible = false;
            if !self.auth_partition.starts_with("login") {
                self.auth_partition = Cow::Borrowed("login");
            }
        }
        self
    }

    /// The provenance of data built from both reads: login when either is
    /// (sticky), with the login read's runtime and auth partition;
    /// mergeable only when both are. Of two public reads, `self` is kept.
    pub fn join(&self, other: &Provenance) -> Provenance {
        let base = match (self.is_login(), other.is_login()) {
            (false, true) => other,
            _ => self,
        };
        let mut joined = base.clone().sealed();
        joined.merge_with_public_ok = self.merge_with_public_ok && other.merge_with_public_ok;
        joined
    }

    /// [`Provenance::join`] over many reads; `None` for none.
    pub fn join_all<'a>(reads: impl IntoIterator<Item = &'a Provenance>) -> Option<Provenance> {
        reads.into_iter().fold(None, |acc, p| match acc {
            None => Some(p.clone().sealed()),
            Some(a) => Some(a.join(p)),
        })
    }
}

/// The JSON keys of a provenance (flat in a row or envelope, or nested under
/// `provenance`).
pub const PROVENANCE_KEYS: [&str; 6] = [
    "search_partition",
    "login_state_used",
    "auth_partition",
    "cache_eligible",
    "merge_with_public_ok",
    "runtime",
];

/// Provenance fields as a document from outside carried them — every one
/// optional, since hand-written rows and older files may lack any of them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProvenanceClaim {
    /// `search_partition`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_partition: Option<String>,
    /// `login_state_used`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login_state_used: Option<bool>,
    /// `auth_partition`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth_partition: Option<String>,
    /// `cache_eligible`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_eligible: Option<bool>,
    /// `merge_with_public_ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merge_with_public_ok: Option<bool>,
    /// `runtime`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
}

/// A claim resolved into a provenance, with why it was read as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The provenance the data carries from now on.
    pub provenance: Provenance,
    /// Why the claim was not taken as written, when it was not (a public
    /// claim with a login marker, an attempt to upgrade login data, an
    /// unknown runtime or partition).
    pub warning: Option<String>,
}

impl ProvenanceClaim {
    /// The claim in `object`: its flat provenance keys, overlaid by a nested
    /// `provenance` object when there is one (non-object values and values
    /// of the wrong type are ignored).
    pub fn from_object(object: &Map<String, Value>) -> Self {
        let mut claim = ProvenanceClaim::default();
        claim.overlay(object);
        if let Some(Value::Object(nested)) = object.get("provenance") {
            claim.overlay(nested);
        }
        claim
    }

    /// [`ProvenanceClaim::from_object`] of a value (nothing for a
    /// non-object).
    pub fn from_value(value: &Value) -> Self {
        value.as_object().map(Self::from_object).unwrap_or_default()
    }

    fn overlay(&mut self, map: &Map<String, Value>) {
        let text = |k: &str| {
            map.get(k)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let flag = |k: &str| map.get(k).and_then(Value::as_bool);
        self.search_partition = text("search_partition").or(self.search_partition.take());
        self.login_state_used = flag("login_state_used").or(self.login_state_used);
        self.auth_partition = text("auth_partition").or(self.auth_partition.take());
        self.cache_eligible = flag("cache_eligible").or(self.cache_eligible);
        self.merge_with_public_ok = flag("merge_with_public_ok").or(self.merge_with_public_ok);
        self.runtime = text("runtime").or(self.runtime.take());
    }

    /// The claim of a provenance (every field set).
    pub fn of(p: &Provenance) -> Self {
        ProvenanceClaim {
            search_partition: Some(p.search_partition.as_str().to_string()),
            login_state_used: Some(p.login_state_used),
            auth_partition: Some(p.auth_partition.to_string()),
            cache_eligible: Some(p.cache_eligible),
            merge_with_public_ok: Some(p.merge_with_public_ok),
            runtime: Some(p.runtime.as_str().to_string()),
        }
    }

    /// No provenance field at all.
    pub fn is_empty(&self) -> bool {
        *self == ProvenanceClaim::default()
    }

    /// `self` where it says something, else `fallback` (an envelope's claim
    /// for the rows inside it).
    pub fn or(&self, fallback: &ProvenanceClaim) -> ProvenanceClaim {
        ProvenanceClaim {
            search_partition: self
                .search_partition
                .clone()
                .or_else(|| fallback.search_partition.clone()),
            login_state_used: self.login_state_used.or(fallback.login_state_used),
            auth_partition: self
                .auth_partition
                .clone()
                .or_else(|| fallback.auth_partition.clone()),
            cache_eligible: self.cache_eligible.or(fallback.cache_eligible),
            merge_with_public_ok: self.merge_with_public_ok.or(fallback.merge_with_public_ok),
            runtime: self.runtime.clone().or_else(|| fallback.runtime.clone()),
        }
    }

    /// Any field marks login data (the markers of [`Provenance::is_login`]):
    /// partition `login`, `login_state_used`, an `auth_partition` starting
    /// with `login`, or `cache_eligible: false`.
    pub fn says_login(&self) -> bool {
        self.search_partition
            .as_deref()
            .is_some_and(|p| p.eq_ignore_ascii_case("login"))
            || self.login_state_used == Some(true)
            || self
                .auth_partition
                .as_deref()
                .is_some_and(|a| a.to_ascii_lowercase().starts_with("login"))
            || self.cache_eligible == Some(false)
    }

    /// The provenance this claim gives data, never less private than
    /// `floor` (what is already known of it, e.g. the envelope the rows came
    /// in). Without a runtime the data is `default_runtime`'s.
    ///
    /// - No login marker: public (`merge_with_public_ok` as claimed).
    /// - Any login marker: login, whatever else it says; a claim of
    ///   partition `public` together with a login marker gets a warning.
    /// - A floor that is login keeps the data login, with a warning when the
    ///   claim said public.
    pub fn resolve(&self, default_runtime: Runtime, floor: Option<&Provenance>) -> Resolved {
        let mut warnings: Vec<String> = Vec::new();
        let runtime = match self.runtime.as_deref() {
            None => default_runtime,
            Some(name) => Runtime::parse(name).unwrap_or_else(|| {
                warnings.push(format!("unknown runtime {name:?} read as `unknown`"));
                Runtime::Unknown
            }),
        };
        let claimed_public = self
            .search_partition
            .as_deref()
            .is_some_and(|p| p.eq_ignore_ascii_case("public"));
        if let Some(p) = self.search_partition.as_deref()
            && p.parse::<Partition>().is_err()
        {
            warnings.push(format!("unknown search_partition {p:?} ignored"));
        }
        let mut provenance = if self.says_login() {
            if claimed_public {
                warnings.push(format!(
                    "claims search_partition public but {}: treated as login data",
                    self.login_markers().join(", ")
                ));
            }
            let mut p = Provenance::login(runtime);
            if let Some(a) = self
                .auth_partition
                .as_deref()
                .filter(|a| a.to_ascii_lowercase().starts_with("login"))
            {
                p.auth_partition = Cow::Owned(a.to_string());
            }
            p
        } else {
            Provenance::public(runtime)
        };
        if let Some(ok) = self.merge_with_public_ok {
            provenance.merge_with_public_ok = ok;
        }
        if let Some(floor) = floor.filter(|f| f.is_login())
            && !provenance.is_login()
        {
            if !self.is_empty() {
                warnings.push(
                    "claims public, but the document it came in is login data: kept as login"
                        .to_string(),
                );
            }
            provenance = floor.join(&provenance);
            provenance.runtime = runtime;
        }
        Resolved {
            provenance,
            warning: (!warnings.is_empty()).then(|| warnings.join("; ")),
        }
    }

    /// The login markers the claim carries, in words.
    fn login_markers(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.login_state_used == Some(true) {
            out.push("login_state_used is true".to_string());
        }
        if let Some(a) = self
            .auth_partition
            .as_deref()
            .filter(|a| a.to_ascii_lowercase().starts_with("login"))
        {
            out.push(format!("auth_partition is {a:?}"));
        }
        if self.cache_eligible == Some(false) {
            out.push("cache_eligible is false".to_string());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn public_is_cacheable_and_login_is_not() {
        let p = Provenance::public(Runtime::Http);
        assert!(!p.is_login());
        assert!(p.cache_eligible);
        let l = Provenance::login(Runtime::ChromiumManaged);
        assert!(l.is_login());
        assert!(!l.cache_eligible);
        assert!(l.merge_with_public_ok);
    }

    #[test]
    fn any_login_marker_counts() {
        let mut p = Provenance::public(Runtime::Http);
        p.auth_partition = "login:zhihu".into();
        assert!(p.is_login());
        let mut p = Provenance::public(Runtime::Http);
        p.cache_eligible = false;
        assert!(p.is_login());
        let mut p = Provenance::public(Runtime::Http);
        p.login_state_used = true;
        assert!(p.is_login());
        assert_eq!(p.clone().sealed().search_partition, Partition::Login);
        assert!(!p.sealed().cache_eligible);
    }

    #[test]
    fn serialises_with_lowercase_partition_and_runtime_names() {
        let json = serde_json::to_value(Provenance::login(Runtime::ChromiumAttached)).unwrap();
        assert_eq!(json["search_partition"], "login");
        assert_eq!(json["auth_partition"], "login");
        assert_eq!(json["runtime"], "chromium-attached");
        let back: Provenance = serde_json::from_value(json).unwrap();
        assert_eq!(back, Provenance::login(Runtime::ChromiumAttached));
        let endpoint = serde_json::to_value(Provenance::public(Runtime::PublicEndpoint)).unwrap();
        assert_eq!(endpoint["runtime"], "public-endpoint");
    }

    #[test]
    fn an_unknown_runtime_name_reads_as_unknown() {
        let mut json = serde_json::to_value(Provenance::public(Runtime::Http)).unwrap();
        json["runtime"] = json!("quantum-browser");
        let back: Provenance = serde_json::from_value(json).unwrap();
        assert_eq!(back.runtime, Runtime::Unknown);
        for r in Runtime::ALL {
            assert_eq!(Runtime::parse(r.as_str()), Some(r));
        }
        assert_eq!(
            Runtime::parse("Chromium_Attached"),
            Some(Runtime::ChromiumAttached)
        );
    }

    #[test]
    fn join_is_sticky_for_login() {
        let public = Provenance::public(Runtime::Http);
        let login = Provenance::login(Runtime::ChromiumAttached);
        for joined in [public.join(&login), login.join(&public)] {
            assert!(joined.is_login());
            assert_eq!(joined.runtime, Runtime::ChromiumAttached);
            assert!(!joined.cache_eligible);
        }
        assert_eq!(public.join(&public), public);
        let all = Provenance::join_all([&public, &public, &login, &public]).unwrap();
        assert!(all.is_login());
        assert_eq!(Provenance::join_all([]), None);
    }

    #[test]
    fn join_keeps_merge_refusals() {
        let mut isolated = Provenance::login(Runtime::ChromiumAttached);
        isolated.merge_with_public_ok = false;
        let joined = Provenance::public(Runtime::Http).join(&isolated);
        assert!(!joined.merge_with_public_ok);
    }

    #[test]
    fn a_claim_without_fields_is_public_with_the_default_runtime() {
        let r = ProvenanceClaim::default().resolve(Runtime::Rows, None);
        assert_eq!(r.provenance, Provenance::public(Runtime::Rows));
        assert_eq!(r.warning, None);
    }

    #[test]
    fn a_login_claim_keeps_its_runtime_and_site() {
        let claim = ProvenanceClaim::from_value(&json!({
            "search_partition": "login",
            "auth_partition": "login:zhihu",
            "cache_eligible": false,
            "runtime": "chromium-attached",
        }));
        let r = claim.resolve(Runtime::Rows, None);
        assert!(r.provenance.is_login());
        assert_eq!(r.provenance.runtime, Runtime::ChromiumAttached);
        assert_eq!(r.provenance.auth_partition, "login:zhihu");
        assert_eq!(r.warning, None);
    }

    #[test]
    fn a_public_claim_with_a_login_marker_is_login_and_says_why() {
        let claim = ProvenanceClaim::from_value(&json!({
            "search_partition": "public",
            "login_state_used": true,
        }));
        let r = claim.resolve(Runtime::Rows, None);
        assert!(r.provenance.is_login());
        assert!(r.warning.unwrap().contains("login_state_used"));
    }

    #[test]
    fn a_claim_cannot_upgrade_login_data() {
        let floor = Provenance::login(Runtime::ChromiumAttached);
        let claim = ProvenanceClaim::from_value(&json!({"search_partition": "public"}));
        let r = claim.resolve(Runtime::Rows, Some(&floor));
        assert!(r.provenance.is_login());
        assert!(r.warning.is_some());
        let silent = ProvenanceClaim::default().resolve(Runtime::Rows, Some(&floor));
        assert!(silent.provenance.is_login());
    }

    #[test]
    fn nested_provenance_overrides_flat_fields() {
        let claim = ProvenanceClaim::from_value(&json!({
            "runtime": "http",
            "provenance": {"runtime": "chromium-managed", "search_partition": "public"},
        }));
        assert_eq!(claim.runtime.as_deref(), Some("chromium-managed"));
        let r = claim.resolve(Runtime::Rows, None);
        assert_eq!(r.provenance, Provenance::public(Runtime::ChromiumManaged));
    }

    #[test]
    fn the_claim_of_a_provenance_resolves_to_it() {
        for p in [
            Provenance::public(Runtime::Http),
            Provenance::login(Runtime::ChromiumAttached),
            Provenance::public(Runtime::ChromiumAttached),
        ] {
            assert_eq!(
                ProvenanceClaim::of(&p)
                    .resolve(Runtime::Rows, None)
                    .provenance,
                p
            );
        }
    }
}
