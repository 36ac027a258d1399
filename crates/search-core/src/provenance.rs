//! [`Provenance`]: which partition a result or page came from, and whether it
//! may be cached or merged. Every search hit, result and fetched page carries
//! one (DESIGN.md, "Provenance and partitions").

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// The partition a piece of data belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Partition {
    /// Fetched without any user session: safe to cache and share.
    #[default]
    Public,
    /// Fetched with a logged-in session (a persistent profile or an attached
    /// browser): never written to a shared cache.
    Login,
}

/// Where data came from and what may be done with it.
///
/// The two labels are `Cow<'static, str>`: the usual ones (`public`,
/// `login`, `http`, …) are static strings, so the provenance every hit,
/// result and page carries is cloned without allocating. Set them with
/// `.into()` from a `&'static str` or a `String`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// What produced it: `http`, `local`, `replay`, `chromium-managed`,
    /// `chromium-attached`, …
    pub runtime: Cow<'static, str>,
}

impl Provenance {
    /// Public-partition data produced by `runtime`.
    pub fn public(runtime: impl Into<Cow<'static, str>>) -> Self {
        Provenance {
            search_partition: Partition::Public,
            login_state_used: false,
            auth_partition: Cow::Borrowed("public"),
            cache_eligible: true,
            merge_with_public_ok: true,
            runtime: runtime.into(),
        }
    }

    /// Login-partition data produced by `runtime` (seed 000's provenance:
    /// `login_state_used=true`, `auth_partition="login"`,
    /// `cache_eligible=false`, `merge_with_public_ok=true`).
    pub fn login(runtime: impl Into<Cow<'static, str>>) -> Self {
        Provenance {
            search_partition: Partition::Login,
            login_state_used: true,
            auth_partition: Cow::Borrowed("login"),
            cache_eligible: false,
            merge_with_public_ok: true,
            runtime: runtime.into(),
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
}

impl Default for Provenance {
    fn default() -> Self {
        Provenance::public("http")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_is_cacheable_and_login_is_not() {
        let p = Provenance::public("http");
        assert!(!p.is_login());
        assert!(p.cache_eligible);
        let l = Provenance::login("chromium-managed");
        assert!(l.is_login());
        assert!(!l.cache_eligible);
        assert!(l.merge_with_public_ok);
    }

    #[test]
    fn any_login_marker_counts() {
        let mut p = Provenance::public("http");
        p.auth_partition = "login:zhihu".into();
        assert!(p.is_login());
        let mut p = Provenance::public("http");
        p.cache_eligible = false;
        assert!(p.is_login());
        let mut p = Provenance::public("http");
        p.login_state_used = true;
        assert!(p.is_login());
    }

    #[test]
    fn serialises_with_lowercase_partition() {
        let json = serde_json::to_value(Provenance::login("chromium-attached")).unwrap();
        assert_eq!(json["search_partition"], "login");
        assert_eq!(json["auth_partition"], "login");
        let back: Provenance = serde_json::from_value(json).unwrap();
        assert_eq!(back, Provenance::login("chromium-attached"));
    }
}
