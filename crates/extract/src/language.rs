//! The page's language: declared (`<html lang>`, `Content-Language`,
//! `og:locale`) or, failing that, guessed cheaply from the text — by writing
//! system for non-Latin scripts and by common function words for Latin ones.

use serde::{Deserialize, Serialize};

/// Where the language came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LanguageSource {
    /// The `lang` attribute of `<html>`.
    HtmlLang,
    /// A `Content-Language` http-equiv or `language` meta tag.
    ContentLanguage,
    /// The `og:locale` meta tag.
    OgLocale,
    /// Guessed from the extracted text.
    Detected,
}

/// Function words per Latin-script language (ISO 639-1). A language wins when
/// its words are the most frequent among the first words of the text.
const STOPWORDS: &[(&str, &[&str])] = &[
    (
        "en",
        &[
            "the", "and", "of", "to", "is", "in", "that", "it", "was", "for", "with", "on", "are",
            "this",
        ],
    ),
    (
        "de",
        &[
            "der", "die", "und", "das", "ist", "nicht", "mit", "den", "ein", "eine", "auf", "sich",
            "auch", "dem",
        ],
    ),
    (
        "fr",
        &[
            "le", "la", "les", "et", "des", "est", "une", "dans", "pour", "que", "qui", "pas",
            "du", "sur",
        ],
    ),
    (
        "es",
        &[
            "el", "la", "los", "las", "y", "que", "del", "en", "por", "una", "con", "para", "es",
            "se",
        ],
    ),
    (
        "it",
        &[
            "il", "di", "che", "della", "per", "una", "sono", "non", "con", "gli", "del", "nel",
            "anche", "è",
        ],
    ),
    (
        "pt",
        &[
            "o", "os", "as", "e", "que", "do", "da", "em", "um", "uma", "para", "não", "com", "dos",
        ],
    ),
    (
        "nl",
        &[
            "de", "het", "een", "en", "van", "is", "dat", "niet", "op", "te", "zijn", "met",
            "voor", "ook",
        ],
    ),
    (
        "sv",
        &[
            "och", "att", "det", "som", "är", "en", "på", "för", "med", "inte", "av", "till",
            "den", "har",
        ],
    ),
    (
        "pl",
        &[
            "i", "w", "na", "nie", "się", "z", "że", "do", "to", "jest", "jak", "co", "od", "po",
        ],
    ),
    (
        "tr",
        &[
            "ve", "bir", "bu", "için", "ile", "da", "de", "çok", "olarak", "daha", "gibi", "olan",
            "ama", "değil",
        ],
    ),
    (
        "id",
        &[
            "yang", "dan", "di", "ini", "itu", "dengan", "untuk", "tidak", "dari", "dalam", "akan",
            "pada", "juga", "ada",
        ],
    ),
];

/// Normalises a declared language tag: `EN_us` → `en-US`, `zh-hant-TW` →
/// `zh-Hant-TW`. Returns `None` for values that are not language tags.
pub fn normalize_language_tag(raw: &str) -> Option<String> {
    let first = raw.split([',', ';']).next()?.trim();
    let mut parts = first.split(['-', '_']);
    let lang = parts.next()?;
    if !(2..=3).contains(&lang.len()) || !lang.bytes().all(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    let mut out = lang.to_ascii_lowercase();
    for part in parts {
        if part.is_empty() || part.len() > 8 || !part.bytes().all(|b| b.is_ascii_alphanumeric()) {
            break;
        }
        out.push('-');
        match part.len() {
            2 => out.push_str(&part.to_ascii_uppercase()),
            4 => {
                let mut cs = part.chars();
                if let Some(c) = cs.next() {
                    out.push(c.to_ascii_uppercase());
                }
                out.push_str(&cs.as_str().to_ascii_lowercase());
            }
            _ => out.push_str(&part.to_ascii_lowercase()),
        }
    }
    Some(out)
}

/// Guesses the language of `text` (ISO 639-1), or `None` when unsure.
pub fn detect_language(text: &str) -> Option<&'static str> {
    let sample: &str = match text.char_indices().nth(3000) {
        Some((i, _)) => &text[..i],
        None => text,
    };
    let (latin, counts) = count_scripts(sample);
    let script_total: u32 = counts[..9].iter().sum::<u32>() + counts[BENGALI];
    if script_total > latin {
        return by_script(&counts);
    }
    if latin < 20 {
        return None;
    }
    by_stopwords(sample)
}

// Slots of the script counts. UKRAINIAN and PERSIAN count letters that
// only those languages use inside the Cyrillic and Arabic scripts; they are
// not scripts of their own.
const HAN: usize = 0;
const KANA: usize = 1;
const HANGUL: usize = 2;
const CYRILLIC: usize = 3;
const ARABIC: usize = 4;
const HEBREW: usize = 5;
const GREEK: usize = 6;
const THAI: usize = 7;
const DEVANAGARI: usize = 8;
const UKRAINIAN: usize = 9;
const PERSIAN: usize = 10;
const BENGALI: usize = 11;

/// Latin letters, and characters per non-Latin script slot.
fn count_scripts(sample: &str) -> (u32, [u32; 12]) {
    let mut latin = 0u32;
    let mut counts = [0u32; 12];
    for c in sample.chars() {
        let slot = match c as u32 {
            0x41..=0x5A | 0x61..=0x7A | 0xC0..=0x24F => {
                latin += 1;
                continue;
            }
            0x4E00..=0x9FFF | 0x3400..=0x4DBF => HAN,
            0x3040..=0x30FF => KANA,
            0xAC00..=0xD7AF | 0x1100..=0x11FF => HANGUL,
            0x0400..=0x04FF => {
                if matches!(c, 'і' | 'ї' | 'є' | 'ґ' | 'І' | 'Ї' | 'Є') {
                    counts[UKRAINIAN] += 1;
                }
                CYRILLIC
            }
            0x0600..=0x06FF => {
                if matches!(c, 'پ' | 'چ' | 'ژ' | 'گ' | 'ی') {
                    counts[PERSIAN] += 1;
                }
                ARABIC
            }
            0x0590..=0x05FF => HEBREW,
            0x0370..=0x03FF => GREEK,
            0x0E00..=0x0E7F => THAI,
            0x0900..=0x097F => DEVANAGARI,
            0x0980..=0x09FF => BENGALI,
            _ => continue,
        };
        counts[slot] += 1;
    }
    (latin, counts)
}

/// The language of a text mostly in a non-Latin script: any real share of
/// kana makes it Japanese, hangul outweighing han Korean, otherwise the
/// most frequent script decides.
fn by_script(counts: &[u32; 12]) -> Option<&'static str> {
    let (han, kana, hangul) = (counts[HAN], counts[KANA], counts[HANGUL]);
    if kana > 0 && kana * 10 >= han {
        return Some("ja");
    }
    if hangul >= han && hangul > 0 {
        return Some("ko");
    }
    let best = (0..12)
        .filter(|&i| i != UKRAINIAN && i != PERSIAN)
        .max_by_key(|&i| counts[i])?;
    Some(match best {
        HAN => "zh",
        KANA => "ja",
        HANGUL => "ko",
        CYRILLIC if counts[UKRAINIAN] * 50 > counts[CYRILLIC] => "uk",
        CYRILLIC => "ru",
        ARABIC if counts[PERSIAN] * 30 > counts[ARABIC] => "fa",
        ARABIC => "ar",
        HEBREW => "he",
        GREEK => "el",
        THAI => "th",
        DEVANAGARI => "hi",
        _ => "bn",
    })
}

/// The language of a Latin-script text by its function words among the
/// first 600 words: the most frequent set wins with at least 3 hits and
/// half again as many as the runner-up.
fn by_stopwords(sample: &str) -> Option<&'static str> {
    let mut hits = [0u32; STOPWORDS.len()];
    for word in sample
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(600)
    {
        let lower = word.to_lowercase();
        for (k, (_, words)) in STOPWORDS.iter().enumerate() {
            if words.contains(&lower.as_str()) {
                hits[k] += 1;
            }
        }
    }
    let (best, &n) = hits.iter().enumerate().max_by_key(|&(_, n)| *n)?;
    let second = hits
        .iter()
        .enumerate()
        .filter(|&(k, _)| k != best)
        .map(|(_, n)| *n)
        .max()
        .unwrap_or(0);
    (n >= 3 && n * 2 > second * 3).then_some(STOPWORDS[best].0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_normalised() {
        assert_eq!(normalize_language_tag("EN_us").as_deref(), Some("en-US"));
        assert_eq!(
            normalize_language_tag("zh-hant-tw").as_deref(),
            Some("zh-Hant-TW")
        );
        assert_eq!(normalize_language_tag("de").as_deref(), Some("de"));
        assert_eq!(normalize_language_tag("x"), None);
        assert_eq!(normalize_language_tag(""), None);
    }

    #[test]
    fn detects_scripts_and_stopwords() {
        assert_eq!(
            detect_language("これは日本語の文章です。東京は大きい。"),
            Some("ja")
        );
        assert_eq!(detect_language("这是一个中文句子，北京很大。"), Some("zh"));
        assert_eq!(
            detect_language("한국어 문장입니다. 서울은 큽니다."),
            Some("ko")
        );
        assert_eq!(
            detect_language("Это русский текст о погоде в Москве."),
            Some("ru")
        );
        assert_eq!(
            detect_language("The cat sat on the mat and it was happy with the result of the day."),
            Some("en")
        );
        assert_eq!(
            detect_language(
                "Der Hund ist nicht mit dem Ball auf der Wiese, und die Katze auch nicht."
            ),
            Some("de")
        );
        assert_eq!(detect_language("12345 !!!"), None);
    }
}
