//! The goggle parser: lines, comments, metadata and instructions, with every
//! documented limit checked and every problem collected.

use super::error::{GoggleError, GoggleErrorKind, GoggleErrors};
use super::pattern::{Pattern, PatternError};
use super::rules::{Action, Instruction, Target};
use super::{MAX_CARETS, MAX_FILE_BYTES, MAX_INSTRUCTION_CHARS, MAX_INSTRUCTIONS, MAX_STRENGTH};
use super::{MAX_WILDCARDS, Metadata};

use GoggleErrorKind as K;

/// The metadata keys a goggle must have.
pub const REQUIRED_METADATA: &[&str] = &["name", "description", "public", "author"];

/// The metadata keys a goggle may have besides the required ones.
pub const OPTIONAL_METADATA: &[&str] =
    &["homepage", "issues", "transferred_to", "avatar", "license"];

/// What [`parse_text`] produces.
pub(crate) struct Parsed {
    pub(crate) metadata: Metadata,
    pub(crate) instructions: Vec<Instruction>,
}

/// Metadata values as read, before the required ones are checked.
#[derive(Debug, Default)]
struct RawMetadata {
    name: Option<String>,
    description: Option<String>,
    public: Option<bool>,
    author: Option<String>,
    homepage: Option<String>,
    issues: Option<String>,
    transferred_to: Option<String>,
    avatar: Option<String>,
    license: Option<String>,
    /// Keys met so far (valid or not), to tell "missing" from "invalid"
    /// and to catch duplicates.
    seen: Vec<&'static str>,
}

pub(crate) fn parse_text(text: &str) -> Result<Parsed, GoggleErrors> {
    if text.len() > MAX_FILE_BYTES {
        return Err(GoggleErrors(vec![GoggleError::new(
            0,
            K::FileTooLarge,
            format!(
                "the file has {} bytes; a goggle may have at most {MAX_FILE_BYTES} (2 MiB) — \
                 split it or remove instructions",
                text.len()
            ),
        )]));
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut errors = Vec::new();
    let mut raw = RawMetadata::default();
    let mut instructions = Vec::new();
    let mut count = 0usize;
    let mut metadata_open = true;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(comment) = line.strip_prefix('!') {
            if metadata_open && let Some((key, value)) = metadata_pair(comment) {
                read_metadata(&mut raw, n, key, value, &mut errors);
            }
            continue;
        }
        metadata_open = false;
        count += 1;
        if count == MAX_INSTRUCTIONS + 1 {
            errors.push(GoggleError::new(
                n,
                K::TooManyInstructions,
                format!(
                    "instruction {count} is one too many: a goggle may have at most \
                     {MAX_INSTRUCTIONS} instructions — split it or merge site rules"
                ),
            ));
        }
        match parse_instruction(n, line) {
            Ok(instruction) => instructions.push(instruction),
            Err(mut line_errors) => errors.append(&mut line_errors),
        }
    }
    let metadata = check_metadata(raw, &mut errors);
    match metadata {
        Some(metadata) if errors.is_empty() => Ok(Parsed {
            metadata,
            instructions,
        }),
        _ => {
            errors.sort_by_key(|e| e.line);
            Err(GoggleErrors(errors))
        }
    }
}

/// `key: value` of a comment, when the key is a word of letters and `_`.
fn metadata_pair(comment: &str) -> Option<(&str, &str)> {
    let (key, value) = comment.split_once(':')?;
    let key = key.trim();
    (!key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
        .then(|| (key, value.trim()))
}

fn read_metadata(
    raw: &mut RawMetadata,
    line: usize,
    key: &str,
    value: &str,
    errors: &mut Vec<GoggleError>,
) {
    let Some(key) = REQUIRED_METADATA
        .iter()
        .chain(OPTIONAL_METADATA)
        .find(|k| **k == key)
        .copied()
    else {
        // Not a metadata key: an ordinary comment that holds a colon.
        return;
    };
    if raw.seen.contains(&key) {
        errors.push(GoggleError::new(
            line,
            K::DuplicateMetadata,
            format!("`{key}` is given twice; keep one `! {key}:` line"),
        ));
        return;
    }
    raw.seen.push(key);
    if value.is_empty() {
        errors.push(GoggleError::new(
            line,
            K::InvalidMetadata,
            format!("`{key}` has no value; write `! {key}: <value>`"),
        ));
        return;
    }
    let invalid = |what: &str| GoggleError::new(line, K::InvalidMetadata, what.to_string());
    let value_owned = value.to_string();
    match key {
        "name" => raw.name = Some(value_owned),
        "description" => raw.description = Some(value_owned),
        "author" => raw.author = Some(value_owned),
        "license" => raw.license = Some(value_owned),
        "transferred_to" => raw.transferred_to = Some(value_owned),
        "public" => match value {
            "true" => raw.public = Some(true),
            "false" => raw.public = Some(false),
            _ => errors.push(invalid(&format!(
                "`public` must be `true` or `false`, not {value:?}"
            ))),
        },
        "avatar" => {
            if is_hex_colour(value) {
                raw.avatar = Some(value_owned);
            } else {
                errors.push(invalid(&format!(
                    "`avatar` must be a hex colour such as #0a7c41, not {value:?}"
                )));
            }
        }
        "homepage" | "issues" => {
            if is_http_url(value) {
                if key == "homepage" {
                    raw.homepage = Some(value_owned);
                } else {
                    raw.issues = Some(value_owned);
                }
            } else {
                errors.push(invalid(&format!(
                    "`{key}` must be an http(s) URL, not {value:?}"
                )));
            }
        }
        _ => {}
    }
}

fn is_hex_colour(value: &str) -> bool {
    value
        .strip_prefix('#')
        .is_some_and(|h| matches!(h.len(), 3 | 6) && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn is_http_url(value: &str) -> bool {
    url::Url::parse(value)
        .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
}

fn check_metadata(raw: RawMetadata, errors: &mut Vec<GoggleError>) -> Option<Metadata> {
    let missing = |key: &str| {
        GoggleError::new(
            0,
            K::MissingMetadata,
            format!("required metadata `{key}` is missing; add a `! {key}: …` line at the top"),
        )
    };
    let mut ok = true;
    for (key, present) in [
        ("name", raw.name.is_some()),
        ("description", raw.description.is_some()),
        ("public", raw.public.is_some()),
        ("author", raw.author.is_some()),
    ] {
        if !raw.seen.contains(&key) {
            errors.push(missing(key));
        }
        ok &= present;
    }
    if !ok {
        return None;
    }
    Some(Metadata {
        name: raw.name.unwrap_or_default(),
        description: raw.description.unwrap_or_default(),
        public: raw.public.unwrap_or_default(),
        author: raw.author.unwrap_or_default(),
        homepage: raw.homepage,
        issues: raw.issues,
        transferred_to: raw.transferred_to,
        avatar: raw.avatar,
        license: raw.license,
    })
}

/// Parse one instruction line (already trimmed, not a comment).
pub(crate) fn parse_instruction(line: usize, text: &str) -> Result<Instruction, Vec<GoggleError>> {
    let mut errors = Vec::new();
    check_length(line, text, &mut errors);
    // The options start after the last `$`; a `$` inside a pattern is only
    // possible on a line that also has options.
    let (pattern_text, options_text) = match text.rfind('$') {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text, None),
    };
    check_pattern_limits(line, pattern_text, &mut errors);
    let pattern = read_pattern(line, pattern_text, &mut errors);
    let options = options_text
        .map(|options| Options::read(line, options, &mut errors))
        .unwrap_or_default();
    if options.target.is_some() && pattern.is_none() && pattern_text.is_empty() {
        errors.push(GoggleError::new(
            line,
            K::TargetWithoutPattern,
            "a target option needs a pattern to match; write the pattern before `$`",
        ));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(Instruction {
        line,
        text: text.to_string(),
        pattern,
        site: options.site,
        target: options.target.unwrap_or_default(),
        action: options.action.unwrap_or(Action::Boost(1)),
    })
}

/// Check the instruction's length in characters.
fn check_length(line: usize, text: &str, errors: &mut Vec<GoggleError>) {
    let chars = text.chars().count();
    if chars > MAX_INSTRUCTION_CHARS {
        errors.push(GoggleError::new(
            line,
            K::InstructionTooLong,
            format!(
                "the instruction has {chars} characters; at most {MAX_INSTRUCTION_CHARS} are \
                 allowed — shorten the pattern"
            ),
        ));
    }
}

/// Check the pattern's `*` and `^` counts.
fn check_pattern_limits(line: usize, pattern_text: &str, errors: &mut Vec<GoggleError>) {
    let stars = pattern_text.matches('*').count();
    if stars > MAX_WILDCARDS {
        errors.push(GoggleError::new(
            line,
            K::TooManyWildcards,
            format!("the pattern has {stars} `*`; at most {MAX_WILDCARDS} are allowed"),
        ));
    }
    let carets = pattern_text.matches('^').count();
    if carets > MAX_CARETS {
        errors.push(GoggleError::new(
            line,
            K::TooManyCarets,
            format!("the pattern has {carets} `^`; at most {MAX_CARETS} are allowed"),
        ));
    }
}

/// Parse the pattern part; `None` when there is none or it is only anchors.
fn read_pattern(line: usize, pattern_text: &str, errors: &mut Vec<GoggleError>) -> Option<Pattern> {
    if pattern_text.is_empty() {
        return None;
    }
    match Pattern::parse(pattern_text) {
        Ok(p) => Some(p),
        Err(PatternError::Empty) => {
            errors.push(GoggleError::new(
                line,
                K::EmptyPattern,
                format!(
                    "the pattern {pattern_text:?} has nothing besides `|` anchors; write \
                     the text to match between them"
                ),
            ));
            None
        }
    }
}

/// The options of one instruction, as read so far.
#[derive(Default)]
struct Options {
    site: Option<String>,
    target: Option<Target>,
    action: Option<Action>,
}

impl Options {
    /// Read the comma-separated options after `$`, collecting every problem.
    fn read(line: usize, options: &str, errors: &mut Vec<GoggleError>) -> Self {
        let mut read = Self::default();
        for option in options.split(',') {
            let option = option.trim();
            if option.is_empty() {
                errors.push(GoggleError::new(
                    line,
                    K::EmptyOption,
                    "an option is empty (a bare `$`, `,,` or a trailing comma); remove it",
                ));
                continue;
            }
            let (name, value) = match option.split_once('=') {
                Some((name, value)) => (name.trim(), Some(value.trim())),
                None => (option, None),
            };
            match name {
                "site" => read.read_site(line, value, errors),
                "inurl" | "intitle" | "indescription" | "incontent" => {
                    read.read_target(line, name, value, errors);
                }
                "boost" | "downrank" | "discard" => read.read_action(line, name, value, errors),
                _ => errors.push(GoggleError::new(
                    line,
                    K::UnknownOption,
                    format!(
                        "unknown option {option:?}; options are site=DOMAIN, inurl, intitle, \
                         indescription, incontent, boost[=N], downrank[=N] and discard"
                    ),
                )),
            }
        }
        read
    }

    /// `site=DOMAIN`: at most one per instruction.
    fn read_site(&mut self, line: usize, value: Option<&str>, errors: &mut Vec<GoggleError>) {
        let Some(domain) = check_site(value, errors, line) else {
            return;
        };
        if self.site.is_some() {
            errors.push(GoggleError::new(
                line,
                K::DuplicateOption,
                "two `site=` options; an instruction targets one site — write one \
                 instruction per site",
            ));
        } else {
            self.site = Some(domain);
        }
    }

    /// `inurl`, `intitle`, `indescription` or `incontent`: no value, one target.
    fn read_target(
        &mut self,
        line: usize,
        name: &str,
        value: Option<&str>,
        errors: &mut Vec<GoggleError>,
    ) {
        if value.is_some() {
            errors.push(GoggleError::new(
                line,
                K::UnexpectedValue,
                format!("`{name}` takes no value; write `{name}` alone"),
            ));
            return;
        }
        let t = match name {
            "inurl" => Target::Url,
            "intitle" => Target::Title,
            "indescription" => Target::Description,
            _ => Target::Content,
        };
        if self.target.is_some() {
            errors.push(GoggleError::new(
                line,
                K::DuplicateOption,
                "two targets (`inurl`, `intitle`, `indescription`, `incontent`); \
                 keep one",
            ));
        } else {
            self.target = Some(t);
        }
    }

    /// `boost[=N]`, `downrank[=N]` or `discard`: one action.
    fn read_action(
        &mut self,
        line: usize,
        name: &str,
        value: Option<&str>,
        errors: &mut Vec<GoggleError>,
    ) {
        let a = match (name, value) {
            ("discard", None) => Action::Discard,
            ("discard", Some(_)) => {
                errors.push(GoggleError::new(
                    line,
                    K::UnexpectedValue,
                    "`discard` takes no value; write `discard` alone",
                ));
                return;
            }
            (_, value) => match strength(name, value) {
                Ok(n) if name == "boost" => Action::Boost(n),
                Ok(n) => Action::Downrank(n),
                Err((kind, message)) => {
                    errors.push(GoggleError::new(line, kind, message));
                    return;
                }
            },
        };
        if self.action.is_some() {
            errors.push(GoggleError::new(
                line,
                K::DuplicateOption,
                "two actions (`boost`, `downrank`, `discard`); keep one",
            ));
        } else {
            self.action = Some(a);
        }
    }
}

fn strength(name: &str, value: Option<&str>) -> Result<u8, (GoggleErrorKind, String)> {
    let Some(value) = value else {
        return Ok(1);
    };
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err((
            K::InvalidStrength,
            format!(
                "`{name}={value}` is not a whole number; write `{name}=N` with N from 1 to {MAX_STRENGTH}"
            ),
        ));
    }
    let n = value.parse::<u64>().unwrap_or(u64::MAX);
    if !(1..=u64::from(MAX_STRENGTH)).contains(&n) {
        return Err((
            K::StrengthOutOfRange,
            format!("`{name}={value}` is out of range; the strength must be 1 to {MAX_STRENGTH}"),
        ));
    }
    Ok(n as u8)
}

/// The domain of a `site=` option, lowercased, without a trailing dot;
/// `None` (with an error) when it is empty or not a host name.
fn check_site(value: Option<&str>, errors: &mut Vec<GoggleError>, line: usize) -> Option<String> {
    let raw = value.unwrap_or("");
    let domain = raw.trim_end_matches('.').to_lowercase();
    let problem = if domain.is_empty() {
        Some("`site=` needs a domain, e.g. `site=example.com`".to_string())
    } else if domain.starts_with("*.") || domain.starts_with('.') {
        Some(format!(
            "write `site={}`: a site already covers its subdomains",
            domain.trim_start_matches("*.").trim_start_matches('.')
        ))
    } else if domain.contains("://") || domain.contains('/') {
        Some(format!(
            "`site={raw}` is a URL; give only the domain, e.g. `site=example.com`"
        ))
    } else if !domain
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | '_'))
        || domain.contains("..")
    {
        Some(format!("`site={raw}` is not a domain name"))
    } else {
        None
    };
    match problem {
        Some(message) => {
            errors.push(GoggleError::new(line, K::InvalidSite, message));
            None
        }
        None => Some(domain),
    }
}
