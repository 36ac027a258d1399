//! Matching the schema's property names to the keys a page uses:
//! case- and format-insensitive (`priceCurrency` ~ `price_currency` ~
//! "Price currency"), with a small table of schema.org aliases.

/// Names a caller is likely to use for a schema.org property, normalized
/// (see [`normalize`]): `(caller's name, schema.org names tried after it)`.
pub(crate) const ALIASES: &[(&str, &[&str])] = &[
    ("title", &["headline", "name"]),
    ("headline", &["name"]),
    ("name", &["headline"]),
    ("published", &["datepublished"]),
    ("publishdate", &["datepublished"]),
    ("publisheddate", &["datepublished"]),
    ("publishedat", &["datepublished"]),
    ("date", &["datepublished"]),
    ("updated", &["datemodified"]),
    ("modified", &["datemodified"]),
    ("updatedat", &["datemodified"]),
    ("currency", &["pricecurrency"]),
    ("rating", &["ratingvalue"]),
    ("ratingcount", &["ratingcount", "reviewcount"]),
    ("reviews", &["reviewcount"]),
    ("ingredients", &["recipeingredient", "ingredients"]),
    ("instructions", &["recipeinstructions"]),
    ("steps", &["recipeinstructions", "step"]),
    ("yield", &["recipeyield"]),
    ("servings", &["recipeyield"]),
    ("category", &["recipecategory", "category"]),
    ("cuisine", &["recipecuisine"]),
    ("body", &["articlebody", "text"]),
    ("content", &["articlebody", "text"]),
    ("summary", &["description", "abstract"]),
    ("link", &["url"]),
    ("answers", &["suggestedanswer", "acceptedanswer"]),
    ("answer", &["acceptedanswer"]),
    ("plan", &["name"]),
    ("tier", &["name"]),
    ("product", &["name"]),
    ("model", &["name"]),
];

/// Keys every schema.org thing has: found only directly on the object or
/// through an explicit path name (`author_name`), never by searching nested
/// objects, so an Article's `name` is not taken from its publisher.
pub(crate) const GENERIC_KEYS: &[&str] = &[
    "name",
    "url",
    "id",
    "type",
    "description",
    "image",
    "sameas",
    "identifier",
    "alternatename",
    "context",
    "logo",
    "text",
    "headline",
];

/// Lowercase letters and digits only: `priceCurrency`, `price_currency`,
/// `Price currency` and `@type` → `pricecurrency`, `type`.
pub(crate) fn normalize(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Words of a name: split at non-alphanumerics and camelCase humps,
/// lowercased (`pricePerMonth` → price, per, month).
pub(crate) fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The normalized names tried for a schema property, best first: its own,
/// then its aliases.
pub(crate) fn wanted(name: &str) -> Vec<String> {
    let n = normalize(name);
    let mut out = vec![n.clone()];
    if let Some((_, aliases)) = ALIASES.iter().find(|(k, _)| *k == n) {
        for a in *aliases {
            if !out.iter().any(|o| o == a) {
                out.push((*a).to_owned());
            }
        }
    }
    // Singular and plural (`authors` ~ `author`, `categories` ~ `category`).
    let other = if let Some(stem) = n.strip_suffix("ies") {
        format!("{stem}y")
    } else if let Some(stem) = n
        .strip_suffix('s')
        .filter(|s| s.len() >= 3 && !s.ends_with('s'))
    {
        stem.to_owned()
    } else {
        format!("{n}s")
    };
    if !out.contains(&other) {
        out.push(other);
    }
    out
}

/// Whether a human-written header (a table's) names the property: every
/// word of the property appears in the header, and the header has at most
/// two more words (`price` ~ "Price per month", not ~ "Price history of
/// the previous model").
pub(crate) fn header_matches(property: &str, header: &str) -> bool {
    let p = words(property);
    let h = words(header);
    !p.is_empty() && h.len() <= p.len() + 2 && p.iter().all(|w| h.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_normalize_alike() {
        assert_eq!(normalize("priceCurrency"), "pricecurrency");
        assert_eq!(normalize("price_currency"), "pricecurrency");
        assert_eq!(normalize("Price currency"), "pricecurrency");
        assert_eq!(normalize("@type"), "type");
    }

    #[test]
    fn words_split_camel_case() {
        assert_eq!(words("pricePerMonth"), vec!["price", "per", "month"]);
        assert_eq!(words("Price / month"), vec!["price", "month"]);
    }

    #[test]
    fn header_match_is_bounded() {
        assert!(header_matches("price", "Price per month"));
        assert!(!header_matches(
            "price",
            "Price history of the previous model"
        ));
        assert!(header_matches("first_appeared", "First appeared"));
    }
}
