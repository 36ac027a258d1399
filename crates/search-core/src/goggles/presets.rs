//! The five built-in goggles: domain presets written in the Goggles
//! language and embedded from `crates/search-core/data/goggles/*.goggle`.
//!
//! How the preset domain tables are written as goggle rules (each file says
//! it again in its comments):
//!
//! | preset table | goggle |
//! |---|---|
//! | BOOST `example.com` | `$boost,site=example.com` (+2) |
//! | DOWNRANK `example.com` | `$downrank,site=example.com` (−1) |
//! | DISCARD `example.com` | `$discard,site=example.com` |
//! | `*.dev`, `*.edu`, `*.security` | `site=dev` / `site=edu` / `site=security` (a TLD) |
//! | `docs.*`, `developer.*`, `scholar.google.*`, `security.<vendor>.com` | prefix patterns `\|https://docs.` and `\|http://docs.` |
//! | `*.ac.*` | `site=ac.uk`, `site=ac.jp`, … (common country codes) |
//! | `*.io/docs`, `baidu.com/bjh`, `kuaishou.com/article/*` | URL patterns (`.io/docs^`, `/bjh^` on `site=baidu.com`, …) |
//! | title patterns (一文, 最全, 万字, "Top N alternatives") | `$intitle` rules (`最*的*个`, `top*alternatives to`) |
//! | URL patterns `?ref=`, `?aff=` | `^ref=`, `^aff=` (`^` covers `?`, `&`, `/`) |
//! | notes (`<product>.com`, "G2 pages with ratings only", …) | comments: not expressible as rules |
//!
//! Only bare `$boost` / `$downrank` are used, so the FinalScore weights are
//! exactly the presets' +2 / −1 (see [`super::final_score`]).

use std::sync::LazyLock;

use super::Goggle;

/// The built-in goggles' names, in presentation order.
pub const BUILTIN_NAMES: &[&str] = &[
    "general-tech",
    "academic",
    "product-research",
    "security",
    "zh-tech",
];

/// The built-in goggles' texts, by name.
pub(crate) const BUILTIN_SOURCES: &[(&str, &str)] = &[
    (
        "general-tech",
        include_str!("../../data/goggles/general-tech.goggle"),
    ),
    (
        "academic",
        include_str!("../../data/goggles/academic.goggle"),
    ),
    (
        "product-research",
        include_str!("../../data/goggles/product-research.goggle"),
    ),
    (
        "security",
        include_str!("../../data/goggles/security.goggle"),
    ),
    ("zh-tech", include_str!("../../data/goggles/zh-tech.goggle")),
];

static BUILTINS: LazyLock<Vec<(&'static str, Goggle)>> = LazyLock::new(|| {
    BUILTIN_SOURCES
        .iter()
        .filter_map(|(name, text)| match Goggle::parse(text) {
            Ok(goggle) => Some((*name, goggle)),
            Err(errors) => {
                // A unit test parses every preset, so this cannot ship.
                tracing::error!(goggle = name, %errors, "built-in goggle does not parse");
                None
            }
        })
        .collect()
});

/// The built-in goggle named `name`.
pub(crate) fn builtin(name: &str) -> Option<&'static Goggle> {
    BUILTINS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name.trim()))
        .map(|(_, g)| g)
}

/// The text of the built-in goggle named `name`.
pub fn source(name: &str) -> Option<&'static str> {
    BUILTIN_SOURCES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name.trim()))
        .map(|(_, text)| *text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_parses_and_is_named_after_its_file() {
        for (name, text) in BUILTIN_SOURCES {
            let goggle = Goggle::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(goggle.name(), *name);
        }
        assert_eq!(BUILTINS.len(), BUILTIN_NAMES.len());
    }
}
