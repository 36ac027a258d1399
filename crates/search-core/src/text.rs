//! [`Text`]: an immutable string shared by reference count.
//!
//! Engine hits and the results fused from them hold the same titles,
//! snippets and URLs. Holding them as [`Text`] lets a result share its
//! hit's text instead of copying it (a million-hit fusion makes millions of
//! such copies), and makes cloning a result cheap. A [`Text`] reads like a
//! `&str` (it derefs to one), compares with `str`, `&str` and `String`, and
//! serialises as a plain JSON string.

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An immutable, cheaply cloned string (an `Arc<str>`).
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Text(Arc<str>);

impl Text {
    /// The text as a `&str`.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        Text(s.into())
    }
}

impl From<&String> for Text {
    fn from(s: &String) -> Self {
        Text(s.as_str().into())
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Self {
        Text(s.into())
    }
}

impl From<Cow<'_, str>> for Text {
    fn from(s: Cow<'_, str>) -> Self {
        Text(s.into())
    }
}

impl From<Arc<str>> for Text {
    fn from(s: Arc<str>) -> Self {
        Text(s)
    }
}

impl From<Text> for String {
    fn from(t: Text) -> Self {
        t.0.to_string()
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<Text> for str {
    fn eq(&self, other: &Text) -> bool {
        *self == *other.0
    }
}

impl PartialEq<Text> for &str {
    fn eq(&self, other: &Text) -> bool {
        **self == *other.0
    }
}

impl PartialEq<Text> for String {
    fn eq(&self, other: &Text) -> bool {
        **self == *other.0
    }
}

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Arc::<str>::deserialize(deserializer).map(Text)
    }
}

#[cfg(test)]
mod tests {
    use super::Text;

    #[test]
    fn reads_compares_and_serialises_like_a_string() {
        let t = Text::from("Rust 异步");
        let shared = t.clone();
        assert_eq!(t, "Rust 异步");
        assert_eq!("Rust 异步", t);
        assert_eq!(t, String::from("Rust 异步"));
        assert!(t.starts_with("Rust"));
        assert_eq!(t.as_str().len(), shared.len());
        assert_eq!(format!("{t} / {t:?}"), "Rust 异步 / \"Rust 异步\"");
        let json = serde_json::to_string(&t).expect("serialises");
        assert_eq!(json, "\"Rust 异步\"");
        let back: Text = serde_json::from_str(&json).expect("parses");
        assert_eq!(back, t);
        assert!(serde_json::from_str::<Text>("3").is_err());
        assert_eq!(String::from(back), "Rust 异步");
    }
}
