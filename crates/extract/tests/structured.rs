//! Behaviour of `ferret_extract::structured`: fail-closed extraction to a
//! JSON Schema from JSON-LD and HTML tables.

use ferret_extract::structured::{
    EXTRACT_SCHEMA, ExtractVerdict, StructureSource, StructuredExtractor, StructuredOutcome,
    extract_structured,
};
use serde_json::{Value, json};
use url::Url;

fn page(head: &str, body: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=utf-8>{head}</head><body>{body}</body></html>"
    )
}

fn ld(v: &Value) -> String {
    format!("<script type=\"application/ld+json\">{v}</script>")
}

fn run(html: &str, schema: &Value) -> StructuredOutcome {
    let url = Url::parse("https://shop.example.com/p/1").unwrap();
    extract_structured(html, Some(&url), schema)
}

fn assert_extracted(o: &StructuredOutcome) {
    assert_eq!(
        o.verdict,
        ExtractVerdict::Extracted,
        "reason: {:?}\ncandidates: {:#?}",
        o.reason,
        o.candidates
    );
}

// --- Product -----------------------------------------------------------------

/// A product page shaped like a real shop's: a @graph with the site, the
/// breadcrumb and the product, prices as strings, offers as a list.
fn product_page() -> String {
    let graph = json!({
        "@context": "https://schema.org",
        "@graph": [
            {"@type": "WebSite", "@id": "https://shop.example.com/#website",
             "name": "Example Shop", "url": "https://shop.example.com/"},
            {"@type": "BreadcrumbList", "itemListElement": [
                {"@type": "ListItem", "position": 1, "name": "Laptops", "item": "https://shop.example.com/laptops"},
                {"@type": "ListItem", "position": 2, "name": "Acme Book Pro 14"}
            ]},
            {"@type": "Organization", "@id": "https://shop.example.com/#org", "name": "Acme Inc."},
            {"@type": "Product",
             "name": "Acme Book Pro 14",
             "sku": "ABP-14-2024",
             "gtin13": "0123456789012",
             "description": "A 14-inch laptop with a 20-hour battery.",
             "image": ["https://shop.example.com/img/abp14-1.jpg", "https://shop.example.com/img/abp14-2.jpg"],
             "brand": {"@type": "Brand", "name": "Acme"},
             "manufacturer": {"@id": "https://shop.example.com/#org"},
             "aggregateRating": {"@type": "AggregateRating", "ratingValue": "4.6", "reviewCount": "1289", "bestRating": "5"},
             "offers": [{
                "@type": "Offer",
                "url": "https://shop.example.com/p/1",
                "price": "1299.00",
                "priceCurrency": "USD",
                "availability": "https://schema.org/InStock",
                "itemCondition": "https://schema.org/NewCondition",
                "priceValidUntil": "2025-12-31",
                "seller": {"@type": "Organization", "name": "Example Shop"}
             }]}
        ]
    });
    page(
        &format!("<title>Acme Book Pro 14</title>{}", ld(&graph)),
        "<h1>Acme Book Pro 14</h1><p class=price>$1,299.00</p>",
    )
}

#[test]
fn product_json_ld_maps_flat_names_through_nested_offers() {
    let schema = json!({
        "type": "object",
        "title": "Product",
        "required": ["name", "price", "price_currency"],
        "properties": {
            "name": {"type": "string"},
            "price": {"type": "number"},
            "price_currency": {"type": "string"},
            "availability": {"enum": ["InStock", "OutOfStock", "PreOrder"]},
            "rating": {"type": "number"},
            "review_count": {"type": "integer"},
            "brand": {"type": "string"},
            "manufacturer": {"type": "string"}
        }
    });
    let o = run(&product_page(), &schema);
    assert_extracted(&o);
    assert_eq!(o.schema, EXTRACT_SCHEMA);
    assert_eq!(o.source, Some(StructureSource::JsonLd));
    assert_eq!(
        o.data,
        json!({
            "name": "Acme Book Pro 14",
            "price": 1299,
            "price_currency": "USD",
            "availability": "InStock",
            "rating": 4.6,
            "review_count": 1289,
            "brand": "Acme",
            "manufacturer": "Acme Inc."
        })
    );
    assert!(o.missing.is_empty());
    assert!(o.unsupported_keywords.is_empty());
    assert!(
        o.candidates_considered >= 4,
        "every typed node is a candidate"
    );
}

#[test]
fn product_nested_schema_follows_the_json_ld_structure() {
    let schema = json!({
        "type": "object",
        "required": ["name", "offers"],
        "properties": {
            "name": {"type": "string"},
            "offers": {
                "type": "object",
                "required": ["price", "priceCurrency"],
                "properties": {
                    "price": {"type": "number"},
                    "priceCurrency": {"type": "string"},
                    "priceValidUntil": {"type": "string"}
                }
            },
            "aggregateRating": {
                "type": "object",
                "properties": {"ratingValue": {"type": "number"}, "reviewCount": {"type": "integer"}}
            }
        }
    });
    let o = run(&product_page(), &schema);
    assert_extracted(&o);
    assert_eq!(
        o.data["offers"],
        json!({"price": 1299, "priceCurrency": "USD", "priceValidUntil": "2025-12-31"})
    );
    assert_eq!(
        o.data["aggregateRating"],
        json!({"ratingValue": 4.6, "reviewCount": 1289})
    );
}

#[test]
fn missing_required_property_fails_closed() {
    let schema = json!({
        "type": "object",
        "required": ["name", "mpn"],
        "properties": {"name": {"type": "string"}, "mpn": {"type": "string"}}
    });
    let o = run(&product_page(), &schema);
    assert_eq!(o.verdict, ExtractVerdict::NoMappableStructure);
    assert_eq!(o.data, Value::Null);
    assert_eq!(o.source, None);
    assert_eq!(o.missing, vec!["/mpn"]);
    let reason = o.reason.unwrap();
    assert!(
        reason.contains("Product") && reason.contains("/mpn"),
        "{reason}"
    );
}

#[test]
fn uncoercible_value_fails_closed() {
    let html = page(
        &ld(
            &json!({"@context": "https://schema.org", "@type": "Product", "name": "Custom rack",
            "offers": {"@type": "Offer", "price": "Call for price", "priceCurrency": "EUR"}}),
        ),
        "",
    );
    let schema = json!({
        "type": "object", "required": ["name", "price"],
        "properties": {"name": {"type": "string"}, "price": {"type": "number"}}
    });
    let o = run(&html, &schema);
    assert_eq!(o.verdict, ExtractVerdict::NoMappableStructure);
    assert_eq!(o.data, Value::Null);
    let best = &o.candidates[0];
    assert!(!best.accepted);
    assert!(
        best.errors
            .iter()
            .any(|e| e.contains("/price") && e.contains("Call for price")),
        "{:?}",
        best.errors
    );
}

#[test]
fn enum_mismatch_fails_closed() {
    let html = page(
        &ld(
            &json!({"@context": "https://schema.org", "@type": "Product", "name": "Old model",
            "offers": {"@type": "Offer", "price": 10, "availability": "https://schema.org/Discontinued"}}),
        ),
        "",
    );
    let schema = json!({
        "type": "object", "required": ["name", "availability"],
        "properties": {"name": {"type": "string"},
                       "availability": {"type": "string", "enum": ["InStock", "OutOfStock"]}}
    });
    let o = run(&html, &schema);
    assert_eq!(o.verdict, ExtractVerdict::NoMappableStructure);
    assert!(
        o.candidates[0].errors.iter().any(|e| e.contains("enum")),
        "{:?}",
        o.candidates[0]
    );
}

#[test]
fn optional_property_that_cannot_be_coerced_is_left_out_with_a_warning() {
    let html = page(
        &ld(
            &json!({"@context": "https://schema.org", "@type": "Product", "name": "Rack",
            "offers": {"@type": "Offer", "price": "Call for price"}}),
        ),
        "",
    );
    let schema = json!({
        "type": "object", "required": ["name"],
        "properties": {"name": {"type": "string"}, "price": {"type": "number"}}
    });
    let o = run(&html, &schema);
    assert_extracted(&o);
    assert_eq!(o.data, json!({"name": "Rack"}));
    assert!(
        o.warnings.iter().any(|w| w.contains("/price")),
        "{:?}",
        o.warnings
    );
}

// --- Article -------------------------------------------------------------------

fn article_page() -> String {
    let article = json!({
        "@context": "https://schema.org",
        "@type": "NewsArticle",
        "mainEntityOfPage": {"@type": "WebPage", "@id": "https://news.example.org/2024/03/05/bridge"},
        "headline": "City opens the new river bridge after four years of work",
        "description": "The bridge carries trams, bikes and pedestrians.",
        "image": {"@type": "ImageObject", "url": "https://news.example.org/img/bridge.jpg", "width": 1200, "height": 675},
        "datePublished": "2024-03-05T09:30:00+01:00",
        "dateModified": "2024-03-05T14:02:00+01:00",
        "author": [
            {"@type": "Person", "name": "Jane Doe", "url": "https://news.example.org/staff/jane-doe"},
            {"@type": "Person", "name": "John Roe"}
        ],
        "publisher": {"@type": "NewsMediaOrganization", "name": "Example News",
                      "logo": {"@type": "ImageObject", "url": "https://news.example.org/logo.png"}},
        "isAccessibleForFree": "True",
        "wordCount": "842"
    });
    page(
        &ld(&article),
        "<article><h1>City opens the new river bridge</h1><p>Text.</p></article>",
    )
}

#[test]
fn article_authors_dates_and_publisher() {
    let schema = json!({
        "type": "object",
        "required": ["title", "authors", "date_published"],
        "properties": {
            "title": {"type": "string"},
            "authors": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "date_published": {"type": "string"},
            "publisher": {"type": "string"},
            "free": {"type": "boolean"},
            "is_accessible_for_free": {"type": "boolean"},
            "word_count": {"type": "integer"}
        }
    });
    let o = run(&article_page(), &schema);
    assert_extracted(&o);
    assert_eq!(
        o.data,
        json!({
            "title": "City opens the new river bridge after four years of work",
            "authors": ["Jane Doe", "John Roe"],
            "date_published": "2024-03-05T09:30:00+01:00",
            "publisher": "Example News",
            "is_accessible_for_free": true,
            "word_count": 842
        })
    );
    assert!(
        o.data.get("free").is_none(),
        "nothing on the page is called free"
    );
}

#[test]
fn several_authors_for_a_string_field_are_joined_with_a_warning() {
    let schema = json!({
        "type": "object", "required": ["author"],
        "properties": {"author": {"type": "string"}, "author_url": {"type": "string"}}
    });
    let o = run(&article_page(), &schema);
    assert_extracted(&o);
    assert_eq!(o.data["author"], "Jane Doe, John Roe");
    assert_eq!(
        o.data["author_url"],
        "https://news.example.org/staff/jane-doe"
    );
    assert!(
        o.warnings.iter().any(|w| w.contains("joined")),
        "{:?}",
        o.warnings
    );
}

// --- Recipe --------------------------------------------------------------------

fn recipe_page(ingredients: &[&str]) -> String {
    let recipe = json!({
        "@context": "https://schema.org/",
        "@type": "Recipe",
        "name": "Weeknight Lentil Soup",
        "author": {"@type": "Person", "name": "Sam Cook"},
        "datePublished": "2023-11-02",
        "prepTime": "PT15M",
        "cookTime": "PT55M",
        "totalTime": "PT1H10M",
        "recipeYield": ["4", "4 servings"],
        "recipeCategory": "Soup",
        "recipeCuisine": "Mediterranean",
        "nutrition": {"@type": "NutritionInformation", "calories": "320 calories"},
        "recipeIngredient": ingredients,
        "recipeInstructions": [
            {"@type": "HowToStep", "name": "Soften", "text": "Soften the onion and carrot in olive oil."},
            {"@type": "HowToStep", "name": "Simmer", "text": "Add lentils and stock; simmer 45 minutes."},
            {"@type": "HowToStep", "text": "Season and serve."}
        ],
        "aggregateRating": {"@type": "AggregateRating", "ratingValue": 4.8, "ratingCount": 212}
    });
    page(&ld(&recipe), "<h1>Weeknight Lentil Soup</h1>")
}

fn recipe_schema(min_ingredients: u64) -> Value {
    json!({
        "type": "object",
        "required": ["name", "ingredients", "total_time"],
        "properties": {
            "name": {"type": "string"},
            "ingredients": {"type": "array", "items": {"type": "string"}, "minItems": min_ingredients},
            "instructions": {"type": "array", "items": {"type": "string"}},
            "total_time": {"type": "string"},
            "calories": {"type": "number"},
            "rating": {"type": "number"},
            "servings": {"type": "string"}
        }
    })
}

#[test]
fn recipe_ingredients_steps_and_durations() {
    let html = recipe_page(&[
        "1 cup red lentils",
        "1 onion, diced",
        "2 carrots",
        "1.5 l vegetable stock",
    ]);
    let o = run(&html, &recipe_schema(3));
    assert_extracted(&o);
    assert_eq!(o.data["name"], "Weeknight Lentil Soup");
    assert_eq!(
        o.data["ingredients"],
        json!([
            "1 cup red lentils",
            "1 onion, diced",
            "2 carrots",
            "1.5 l vegetable stock"
        ])
    );
    assert_eq!(
        o.data["instructions"],
        json!([
            "Soften the onion and carrot in olive oil.",
            "Add lentils and stock; simmer 45 minutes.",
            "Season and serve."
        ])
    );
    assert_eq!(o.data["total_time"], "PT1H10M", "durations stay strings");
    assert_eq!(o.data["rating"], json!(4.8));
    assert!(
        o.data.get("calories").is_none(),
        "\"320 calories\" is not a safe number"
    );
}

#[test]
fn recipe_with_too_few_ingredients_fails_min_items() {
    let html = recipe_page(&["water", "salt"]);
    let o = run(&html, &recipe_schema(3));
    assert_eq!(o.verdict, ExtractVerdict::NoMappableStructure);
    let recipe = o
        .candidates
        .iter()
        .find(|c| c.label == "JSON-LD Recipe")
        .unwrap();
    assert!(
        recipe.errors.iter().any(|e| e.contains("minItems 3")),
        "{:?}",
        recipe.errors
    );
}

#[test]
fn max_items_keeps_the_first_with_a_warning() {
    let html = recipe_page(&["a", "b", "c", "d", "e"]);
    let schema = json!({
        "type": "object", "required": ["ingredients"],
        "properties": {"ingredients": {"type": "array", "items": {"type": "string"}, "maxItems": 2}}
    });
    let o = run(&html, &schema);
    assert_extracted(&o);
    assert_eq!(o.data["ingredients"], json!(["a", "b"]));
    assert!(o.warnings.iter().any(|w| w.contains("maxItems")));
}

// --- Tables --------------------------------------------------------------------

const PRICING_COLUMNS: &str = r#"
<main>
  <h2>Compare plans</h2>
  <table class="pricing">
    <thead><tr><th>Feature</th><th>Free</th><th>Pro</th><th>Enterprise</th></tr></thead>
    <tbody>
      <tr><th>Price</th><td>$0</td><td>$12<span class="unit">/mo</span></td><td>$1,299.00</td></tr>
      <tr><th>Users</th><td>1</td><td>10</td><td>Unlimited</td></tr>
      <tr><th>Storage</th><td>5 GB</td><td>100 GB</td><td>1 TB</td></tr>
      <tr><th>SSO</th><td>No</td><td>No</td><td>✓</td></tr>
    </tbody>
  </table>
</main>"#;

#[test]
fn pricing_table_with_plans_as_columns() {
    let schema = json!({
        "type": "array",
        "minItems": 3,
        "items": {
            "type": "object",
            "required": ["plan", "price"],
            "properties": {
                "plan": {"type": "string"},
                "price": {"type": "number"},
                "users": {"type": "integer"},
                "storage": {"type": "string"},
                "sso": {"type": "boolean"}
            }
        }
    });
    let o = run(&page("", PRICING_COLUMNS), &schema);
    assert_extracted(&o);
    assert_eq!(o.source, Some(StructureSource::Table));
    assert_eq!(
        o.data,
        json!([
            {"plan": "Free", "price": 0, "users": 1, "storage": "5 GB", "sso": false},
            {"plan": "Pro", "price": 12, "users": 10, "storage": "100 GB", "sso": false},
            {"plan": "Enterprise", "price": 1299, "storage": "1 TB", "sso": true}
        ])
    );
    assert!(
        o.warnings.iter().any(|w| w.contains("/*/users")),
        "\"Unlimited\" users is left out and said so: {:?}",
        o.warnings
    );
    assert!(
        o.candidates[0].label.contains("Compare plans"),
        "{:?}",
        o.candidates[0].label
    );
}

const PRICING_ROWS: &str = r#"
<table>
  <caption>Hosting plans</caption>
  <tr><th>Plan</th><th>Monthly price</th><th>Storage</th><th>Support</th></tr>
  <tr><td>Starter</td><td>€9</td><td>10 GB</td><td>Email</td></tr>
  <tr><td>Business</td><td>€29,50</td><td>100 GB</td><td>Email, chat</td></tr>
  <tr><td>Scale</td><td>€99</td><td>1 TB</td><td>24/7 phone</td></tr>
</table>
<table><tr><td>Unrelated</td><td>layout</td></tr></table>"#;

#[test]
fn pricing_table_with_plans_as_rows_wrapped_in_an_object() {
    let schema = json!({
        "type": "object",
        "required": ["plans"],
        "properties": {
            "plans": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["plan", "monthly_price"],
                    "properties": {
                        "plan": {"type": "string"},
                        "monthly_price": {"type": "number"},
                        "support": {"type": "string"}
                    }
                }
            }
        }
    });
    let o = run(&page("", PRICING_ROWS), &schema);
    assert_extracted(&o);
    assert_eq!(
        o.data,
        json!({"plans": [
            {"plan": "Starter", "monthly_price": 9, "support": "Email"},
            {"plan": "Business", "monthly_price": 29.5, "support": "Email, chat"},
            {"plan": "Scale", "monthly_price": 99, "support": "24/7 phone"}
        ]})
    );
}

#[test]
fn table_headers_match_by_words() {
    let schema = json!({
        "type": "array",
        "items": {"type": "object", "required": ["plan", "price"],
                  "properties": {"plan": {"type": "string"}, "price": {"type": "number"}}}
    });
    let o = run(&page("", PRICING_ROWS), &schema);
    assert_extracted(&o);
    assert_eq!(
        o.data[1],
        json!({"plan": "Business", "price": 29.5}),
        "\"Monthly price\" names price"
    );
}

const SPEC_TABLE: &str = r#"
<h3>Specifications</h3>
<table class="specs">
  <tr><td>Weight</td><td>1.2 kg</td></tr>
  <tr><td>Battery</td><td>5000 mAh</td></tr>
  <tr><td>Bluetooth</td><td>Yes</td></tr>
  <tr><td>Colours</td><td><ul><li>Black</li><li>Silver</li><li>Sand</li></ul></td></tr>
  <tr><td>Release date</td><td>2024-09-12</td></tr>
  <tr><td>Screen size (in)</td><td>6.1</td></tr>
</table>"#;

#[test]
fn spec_table_as_key_value_object() {
    let schema = json!({
        "type": "object",
        "required": ["weight", "bluetooth", "colours"],
        "properties": {
            "weight": {"type": "string"},
            "battery": {"type": "string"},
            "bluetooth": {"type": "boolean"},
            "colours": {"type": "array", "items": {"type": "string"}, "minItems": 2},
            "release_date": {"type": "string"},
            "screen_size": {"type": "number"}
        }
    });
    let o = run(&page("", SPEC_TABLE), &schema);
    assert_extracted(&o);
    assert_eq!(
        o.data,
        json!({
            "weight": "1.2 kg",
            "battery": "5000 mAh",
            "bluetooth": true,
            "colours": ["Black", "Silver", "Sand"],
            "release_date": "2024-09-12",
            "screen_size": 6.1
        })
    );
}

#[test]
fn json_ld_wins_over_a_table_with_the_same_facts() {
    let html = product_page().replace("</body>", &format!("{PRICING_COLUMNS}</body>"));
    let schema = json!({"type": "object", "required": ["price"], "properties": {"price": {"type": "number"}}});
    let o = run(&html, &schema);
    assert_extracted(&o);
    assert_eq!(o.source, Some(StructureSource::JsonLd));
    assert_eq!(o.data, json!({"price": 1299}));
}

#[test]
fn page_without_structures_says_so() {
    let schema = json!({"type": "object", "required": ["price"], "properties": {"price": {"type": "number"}}});
    let o = run(&page("", "<p>Just prose about prices.</p>"), &schema);
    assert_eq!(o.verdict, ExtractVerdict::NoMappableStructure);
    assert_eq!(o.candidates_considered, 0);
    assert_eq!(o.missing, vec!["/price"]);
    assert!(o.reason.unwrap().contains("no JSON-LD node or table"));
}

// --- Schemas -------------------------------------------------------------------

#[test]
fn unsupported_keywords_are_reported_with_pointers() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["name"],
        "additionalProperties": {"type": "string"},
        "properties": {
            "name": {"type": "string", "minLength": 2},
            "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{2}-[0-9]{4}$"},
            "gtin": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "url": {"type": "string", "format": "uri"}
        }
    });
    let o = run(&product_page(), &schema);
    let mut got: Vec<(String, String)> = o
        .unsupported_keywords
        .iter()
        .map(|u| (u.pointer.clone(), u.keyword.clone()))
        .collect();
    got.sort();
    assert_eq!(
        got,
        vec![
            (
                "/additionalProperties".to_owned(),
                "additionalProperties".to_owned()
            ),
            ("/properties/gtin/oneOf".to_owned(), "oneOf".to_owned()),
            (
                "/properties/name/minLength".to_owned(),
                "minLength".to_owned()
            ),
            ("/properties/sku/pattern".to_owned(), "pattern".to_owned()),
            ("/properties/url/format".to_owned(), "format".to_owned()),
        ]
    );
    assert_extracted(&o);
    assert_eq!(
        o.data["sku"], "ABP-14-2024",
        "the pattern holds, validated by jsonschema"
    );
}

#[test]
fn optional_value_that_breaks_an_unsupported_keyword_is_dropped() {
    let schema = json!({
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string"},
            "sku": {"type": "string", "pattern": "^[0-9]+$"}
        }
    });
    let o = run(&product_page(), &schema);
    assert_extracted(&o);
    assert_eq!(o.data, json!({"name": "Acme Book Pro 14"}));
    assert!(
        o.warnings.iter().any(|w| w.starts_with("/sku")),
        "{:?}",
        o.warnings
    );
}

#[test]
fn required_value_that_breaks_an_unsupported_keyword_fails_closed() {
    let schema = json!({
        "type": "object",
        "required": ["name", "sku"],
        "properties": {
            "name": {"type": "string"},
            "sku": {"type": "string", "pattern": "^[0-9]+$"}
        }
    });
    let o = run(&product_page(), &schema);
    assert_eq!(o.verdict, ExtractVerdict::NoMappableStructure);
    assert!(
        o.candidates[0].errors.iter().any(|e| e.contains("/sku")),
        "{:?}",
        o.candidates[0]
    );
}

#[test]
fn schemas_that_cannot_be_used_are_input_unreadable() {
    let cases = [
        (json!({"type": "string"}), "root"),
        (json!(["not", "a", "schema"]), "JSON object"),
        (json!({"type": "object", "required": "name"}), "required"),
        (
            json!({"type": "object", "properties": {"a": {"type": "text"}}}),
            "\"text\"",
        ),
        (
            json!({"type": "object", "properties": {"a": 5}}),
            "/properties/a",
        ),
        (json!({"type": "array", "minItems": -1}), "minItems"),
        (
            json!({"type": "array", "minItems": 3, "maxItems": 1}),
            "maxItems",
        ),
        (
            json!({"type": "object", "properties": {"a": {"enum": "x"}}}),
            "enum",
        ),
        (
            json!({"type": "object", "properties": {"a": {"$ref": "https://schemas.example/a.json"}}}),
            "JSON Schema",
        ),
    ];
    for (schema, needle) in cases {
        let o = run(&product_page(), &schema);
        assert_eq!(o.verdict, ExtractVerdict::InputUnreadable, "{schema}");
        assert_eq!(o.data, Value::Null);
        let reason = o.reason.unwrap();
        assert!(reason.contains(needle), "{schema}: {reason}");
        assert!(StructuredExtractor::new(&schema).is_err());
    }
}

#[test]
fn local_refs_are_reported_but_still_validate() {
    let schema = json!({
        "type": "object",
        "required": ["name", "price"],
        "$defs": {"money": {"type": "number", "minimum": 0}},
        "properties": {
            "name": {"type": "string"},
            "price": {"$ref": "#/$defs/money"}
        }
    });
    let o = run(&product_page(), &schema);
    assert!(
        o.unsupported_keywords
            .iter()
            .any(|u| u.pointer == "/properties/price/$ref")
    );
    // The mapper does not follow $ref: the raw JSON-LD string "1299.00" is
    // taken as it is, and validation rejects it as not a number.
    assert_eq!(o.verdict, ExtractVerdict::NoMappableStructure);
}

#[test]
fn type_lists_and_nullable_fields() {
    let schema = json!({
        "type": "object",
        "required": ["price"],
        "properties": {
            "price": {"type": ["number", "string"]},
            "sale_price": {"type": ["number", "null"]}
        }
    });
    let o = run(&product_page(), &schema);
    assert_extracted(&o);
    assert_eq!(o.data, json!({"price": 1299}));
}

#[test]
fn outcome_constructors_and_envelope() {
    let blocked =
        StructuredOutcome::fetch_blocked(Some("https://x.example/"), "HTTP 403 challenge");
    let v = serde_json::to_value(&blocked).unwrap();
    assert_eq!(v["schema"], "ferret.extract.v1");
    assert_eq!(v["verdict"], "fetch_blocked");
    assert_eq!(v["data"], Value::Null);
    assert_eq!(v["reason"], "HTTP 403 challenge");
    assert_eq!(
        serde_json::to_value(StructuredOutcome::fetch_failed(None, "timeout")).unwrap()["verdict"],
        "fetch_failed"
    );
    assert_eq!(
        serde_json::to_value(StructuredOutcome::input_unreadable(None, "bad file")).unwrap()["verdict"],
        "input_unreadable"
    );
    let schema =
        json!({"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}});
    let o = run(&product_page(), &schema);
    let v = serde_json::to_value(&o).unwrap();
    for key in [
        "schema",
        "verdict",
        "url",
        "data",
        "source",
        "candidates_considered",
        "missing",
        "unsupported_keywords",
        "warnings",
        "candidates",
    ] {
        assert!(v.get(key).is_some(), "envelope has {key}");
    }
    assert_eq!(v["source"], "json_ld");
    assert_eq!(v["url"], "https://shop.example.com/p/1");
    let back: StructuredOutcome = serde_json::from_value(v).unwrap();
    assert_eq!(back, o);
}

#[test]
fn extractor_is_reusable_and_takes_json_ld_from_the_caller() {
    let schema =
        json!({"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}});
    let x = StructuredExtractor::new(&schema).unwrap();
    assert!(x.unsupported_keywords().is_empty());
    let blocks = vec![json!({"@type": "Product", "name": "From the caller"})];
    let o = x.extract_with_json_ld("<p>no scripts</p>", None, &blocks);
    assert_extracted(&o);
    assert_eq!(o.data["name"], "From the caller");
    let o2 = x.extract(&product_page(), None);
    assert_eq!(o2.data["name"], "Acme Book Pro 14");
}

#[test]
fn broken_json_ld_blocks_are_warned_about() {
    let html = page(
        "<script type=\"application/ld+json\">{\"@type\": \"Product\", \"name\": </script>",
        SPEC_TABLE,
    );
    let schema = json!({"type": "object", "required": ["weight"], "properties": {"weight": {"type": "string"}}});
    let o = run(&html, &schema);
    assert_extracted(&o);
    assert_eq!(o.source, Some(StructureSource::Table));
    assert!(
        o.warnings.iter().any(|w| w.contains("JSON-LD block 0")),
        "{:?}",
        o.warnings
    );
}

#[test]
fn id_references_are_resolved_across_the_graph() {
    let html = page(
        &ld(&json!({"@context": "https://schema.org", "@graph": [
            {"@type": "Person", "@id": "#jane", "name": "Jane Doe", "jobTitle": "Editor"},
            {"@type": "BlogPosting", "headline": "Hello", "author": {"@id": "#jane"}}
        ]})),
        "",
    );
    let schema = json!({
        "type": "object", "required": ["headline", "author"],
        "properties": {"headline": {"type": "string"},
                       "author": {"type": "object", "required": ["name"],
                                  "properties": {"name": {"type": "string"}, "job_title": {"type": "string"}}}}
    });
    let o = run(&html, &schema);
    assert_extracted(&o);
    assert_eq!(
        o.data,
        json!({"headline": "Hello", "author": {"name": "Jane Doe", "job_title": "Editor"}})
    );
}

#[test]
fn the_schema_title_picks_the_list_it_names() {
    let html = recipe_page(&["1 cup red lentils", "1 onion, diced"]);
    let list = |title: &str| json!({"title": title, "type": "array", "minItems": 2, "items": {"type": "string"}});
    // Without a name the longest list wins; a title naming the ingredients
    // picks them even though the steps are more numerous.
    let steps = run(&html, &list("Steps"));
    assert_extracted(&steps);
    assert_eq!(steps.data.as_array().unwrap().len(), 3);
    let ingredients = run(&html, &list("Ingredients"));
    assert_extracted(&ingredients);
    assert_eq!(
        ingredients.data,
        json!(["1 cup red lentils", "1 onion, diced"])
    );
}

#[test]
fn a_wrapping_property_names_its_list() {
    let html = recipe_page(&["1 cup red lentils", "1 onion, diced"]);
    let schema = json!({
        "type": "object",
        "required": ["ingredients"],
        "properties": {"ingredients": {"type": "array", "items": {"type": "string"}}}
    });
    let o = run(&html, &schema);
    assert_extracted(&o);
    assert_eq!(
        o.data,
        json!({"ingredients": ["1 cup red lentils", "1 onion, diced"]})
    );
}

#[test]
fn a_page_past_the_parser_bounds_is_read_up_to_them_and_says_which_bound() {
    let schema = json!({
        "type": "array",
        "items": {"type": "object", "required": ["plan", "price"],
                  "properties": {"plan": {"type": "string"}, "price": {"type": "number"}}}
    });
    let deep = format!("{PRICING_ROWS}{}text", "<div>".repeat(600));
    let o = run(&page("", &deep), &schema);
    assert_extracted(&o);
    assert!(
        o.warnings.iter().any(|w| w.contains("deeper than 512")),
        "{:?}",
        o.warnings
    );
    assert!(!o.warnings.iter().any(|w| w.contains("elements;")));

    let wide = format!("{PRICING_ROWS}{}", "<i>x</i>".repeat(120_000));
    let o = run(&page("", &wide), &schema);
    assert_extracted(&o);
    assert!(
        o.warnings
            .iter()
            .any(|w| w.contains("more than 100000 elements")),
        "{:?}",
        o.warnings
    );
    assert!(!o.warnings.iter().any(|w| w.contains("deeper than")));
}
