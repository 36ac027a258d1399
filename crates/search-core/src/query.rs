//! The vocabulary of a query: [`Intent`], [`Mode`], [`Freshness`] and the
//! scoring [`Weights`]. Classification and planning live in `intent` and `plan`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A value that is not one of a vocabulary's names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} {value:?}; expected one of: {expected}")]
pub struct UnknownName {
    /// Which vocabulary (e.g. "intent").
    pub what: &'static str,
    /// The rejected value.
    pub value: String,
    /// The accepted names, comma separated.
    pub expected: &'static str,
}

macro_rules! named_enum {
    ($(#[$meta:meta])* $name:ident, $what:literal, { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "lowercase")]
        #[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The lowercase name used on the command line and in JSON.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = UnknownName;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                let lower = s.trim().to_ascii_lowercase();
                match lower.as_str() {
                    $($text => Ok($name::$variant),)+
                    _ => Err(UnknownName {
                        what: $what,
                        value: s.to_string(),
                        expected: concat!($($text, " "),+),
                    }),
                }
            }
        }
    };
}

named_enum!(
    /// What the user wants from a search. When several
    /// intents' signals match, the priority is Resource > News > Status >
    /// Comparison > Tutorial > Factual > Exploratory; the default is
    /// Exploratory.
    Intent, "intent", {
        /// "What is X": a definition or a single answer.
        Factual => "factual",
        /// "X latest": the current state of something.
        Status => "status",
        /// "X vs Y".
        Comparison => "comparison",
        /// "How to X".
        Tutorial => "tutorial",
        /// Open-ended: "X ecosystem", "deep dive".
        Exploratory => "exploratory",
        /// "X news", "this week".
        News => "news",
        /// "X official site / GitHub / docs / download".
        Resource => "resource",
    }
);

named_enum!(
    /// How broadly to search: `fast` uses the quick neural engine,
    /// `deep` every engine in parallel, `answer` engines that return an AI answer.
    Mode, "mode", {
        /// One quick pass.
        Fast => "fast",
        /// Every source in parallel.
        Deep => "deep",
        /// Answer-producing sources.
        Answer => "answer",
    }
);

named_enum!(
    /// A recency window: past day, week, month or year.
    Freshness, "freshness", {
        /// Past 24 hours.
        Pd => "pd",
        /// Past week.
        Pw => "pw",
        /// Past month.
        Pm => "pm",
        /// Past year.
        Py => "py",
    }
);

impl Freshness {
    /// The window in days (1, 7, 30, 365), as Tavily's `days` takes it.
    pub fn days(self) -> u32 {
        match self {
            Freshness::Pd => 1,
            Freshness::Pw => 7,
            Freshness::Pm => 30,
            Freshness::Py => 365,
        }
    }
}

/// The weights of the intent score `w_k·keyword + w_f·freshness + w_a·authority`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Weights {
    /// Weight of keyword coverage in title and snippet.
    pub keyword: f64,
    /// Weight of recency.
    pub freshness: f64,
    /// Weight of domain authority.
    pub authority: f64,
}

impl Weights {
    /// Build a weights triple.
    pub const fn new(keyword: f64, freshness: f64, authority: f64) -> Self {
        Weights {
            keyword,
            freshness,
            authority,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_str_and_json() {
        for i in Intent::ALL {
            assert_eq!(i.as_str().parse::<Intent>().unwrap(), *i);
            let json = serde_json::to_string(i).unwrap();
            assert_eq!(json, format!("\"{}\"", i.as_str()));
        }
        for m in Mode::ALL {
            assert_eq!(m.as_str().parse::<Mode>().unwrap(), *m);
        }
        for f in Freshness::ALL {
            assert_eq!(f.as_str().parse::<Freshness>().unwrap(), *f);
        }
    }

    #[test]
    fn parsing_is_case_insensitive_and_rejects_unknown_names() {
        assert_eq!("NEWS".parse::<Intent>().unwrap(), Intent::News);
        let err = "gossip".parse::<Intent>().unwrap_err();
        assert!(err.to_string().contains("factual"), "{err}");
        assert!("week".parse::<Freshness>().is_err());
    }

    #[test]
    fn freshness_days() {
        let days: Vec<u32> = Freshness::ALL.iter().map(|f| f.days()).collect();
        assert_eq!(days, vec![1, 7, 30, 365]);
    }
}
