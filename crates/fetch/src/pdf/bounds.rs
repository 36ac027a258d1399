//! The bounds a PDF is checked against before its text is read: inflated
//! stream sizes (a decompression bomb is refused without being held), and
//! the depth of the page tree's `Parent` chains and of nested form
//! XObjects (the text reader follows both by recursion, so a cycle or a
//! deep nest would overflow its stack).

use std::collections::{HashMap, HashSet};
use std::io::Read;

use lopdf::{Dictionary, Document, Object, ObjectId};

/// Bytes a single non-image stream may inflate to (32 MiB).
pub const MAX_INFLATED_STREAM: usize = 32 * 1024 * 1024;
/// Bytes all streams together may inflate to.
const MAX_INFLATED_TOTAL: usize = 256 * 1024 * 1024;
/// How far back from `stream` its dictionary is looked for.
const DICT_WINDOW: usize = 4096;
/// Steps up a page's `Parent` chain.
const MAX_PARENT_DEPTH: usize = 64;
/// Form XObjects drawn inside one another.
const MAX_FORM_DEPTH: u32 = 24;
/// Distinct (form, resources) pairs looked at in one PDF.
const MAX_FORMS: usize = 100_000;

/// Inflates every Flate stream that is not an image into nothing, with a
/// cap: `Err` names the first stream past [`MAX_INFLATED_STREAM`] or the
/// total past its bound. Streams that do not inflate (encrypted, damaged)
/// are left to the parser.
pub(super) fn check_streams(body: &[u8]) -> Result<(), String> {
    let mut total = 0usize;
    let mut from = 0usize;
    while let Some(at) = memchr::memmem::find(&body[from..], b"stream") {
        let keyword = from + at;
        from = keyword + b"stream".len();
        if keyword >= 3 && &body[keyword - 3..keyword] == b"end" {
            continue;
        }
        let Some(data_start) = after_eol(body, from) else {
            continue;
        };
        let dict = &body[keyword.saturating_sub(DICT_WINDOW)..keyword];
        let dict = memchr::memmem::rfind(dict, b"obj").map_or(dict, |o| &dict[o..]);
        if !is_inflated_by_readers(dict) {
            continue;
        }
        let end = memchr::memmem::find(&body[data_start..], b"endstream")
            .map_or(body.len(), |e| data_start + e);
        let inflated = inflated_len(&body[data_start..end]);
        if inflated > MAX_INFLATED_STREAM {
            return Err(format!(
                "a stream at byte {keyword} inflates past {MAX_INFLATED_STREAM} bytes \
                 (a decompression bomb); the PDF is not read"
            ));
        }
        total += inflated;
        if total > MAX_INFLATED_TOTAL {
            return Err(format!(
                "the PDF's streams inflate past {MAX_INFLATED_TOTAL} bytes in all; it is not read"
            ));
        }
        from = end;
    }
    Ok(())
}

/// Where a stream's data starts: after the end of line that follows the
/// keyword.
fn after_eol(body: &[u8], at: usize) -> Option<usize> {
    match body.get(at..at + 2)? {
        [b'\r', b'\n'] => Some(at + 2),
        [b'\n', _] | [b'\r', _] => Some(at + 1),
        _ => None,
    }
}

/// A Flate stream that is not an image (images are never inflated to read
/// text).
fn is_inflated_by_readers(dict: &[u8]) -> bool {
    memchr::memmem::find(dict, b"/FlateDecode").is_some()
        && memchr::memmem::find(dict, b"/Image").is_none()
}

/// Bytes `data` inflates to, counted up to one past the cap (0 when it
/// does not inflate at all).
fn inflated_len(data: &[u8]) -> usize {
    let decoder = flate2::read::ZlibDecoder::new(data);
    let mut limited = decoder.take(MAX_INFLATED_STREAM as u64 + 1);
    let mut sink = [0u8; 64 * 1024];
    let mut n = 0usize;
    loop {
        match limited.read(&mut sink) {
            Ok(0) | Err(_) => return n,
            Ok(read) => n += read,
        }
    }
}

/// Checks the pages' `Parent` chains and the form XObjects they draw.
pub(super) fn check_structure(doc: &Document, pages: &[(u32, ObjectId)]) -> Result<(), String> {
    let mut forms = FormWalk {
        doc,
        heights: HashMap::new(),
        on_path: HashSet::new(),
    };
    for (number, id) in pages {
        let resources = page_resources(doc, *id)
            .map_err(|why| format!("page {number}'s page tree {why}; the PDF is not read"))?;
        if let Some(resources) = resources {
            forms.height_of_resources(resources, 0).map_err(|why| {
                format!("page {number} draws form XObjects {why}; the PDF is not read")
            })?;
        }
    }
    Ok(())
}

/// The resources a page inherits (its own, or the nearest ancestor's),
/// walking its `Parent` chain within [`MAX_PARENT_DEPTH`] steps.
fn page_resources(doc: &Document, page: ObjectId) -> Result<Option<&Dictionary>, String> {
    let mut seen = HashSet::new();
    let mut id = page;
    let mut resources = None;
    for _ in 0..MAX_PARENT_DEPTH {
        if !seen.insert(id) {
            return Err("has a Parent cycle".into());
        }
        let Ok(dict) = doc.get_dictionary(id) else {
            return Ok(resources);
        };
        if resources.is_none() {
            resources = dict.get(b"Resources").ok().and_then(|r| deref_dict(doc, r));
        }
        match dict.get(b"Parent").and_then(Object::as_reference) {
            Ok(parent) => id = parent,
            Err(_) => return Ok(resources),
        }
    }
    Err(format!("is deeper than {MAX_PARENT_DEPTH} levels"))
}

/// `object` as a dictionary, through one reference.
fn deref_dict<'a>(doc: &'a Document, object: &'a Object) -> Option<&'a Dictionary> {
    match object {
        Object::Reference(id) => doc.get_dictionary(*id).ok(),
        Object::Dictionary(d) => Some(d),
        _ => None,
    }
}

/// Form XObject nesting, memoised per (form, inherited resources).
struct FormWalk<'a> {
    doc: &'a Document,
    heights: HashMap<(ObjectId, usize), u32>,
    on_path: HashSet<(ObjectId, usize)>,
}

impl<'a> FormWalk<'a> {
    /// The deepest nest of forms under `resources`, at `depth`.
    fn height_of_resources(
        &mut self,
        resources: &'a Dictionary,
        depth: u32,
    ) -> Result<u32, String> {
        let Some(xobjects) = resources
            .get(b"XObject")
            .ok()
            .and_then(|x| deref_dict(self.doc, x))
        else {
            return Ok(0);
        };
        let mut height = 0;
        for (_, object) in xobjects.iter() {
            if let Ok(id) = object.as_reference() {
                height = height.max(self.height_of_form(id, resources, depth + 1)?);
            }
        }
        Ok(height)
    }

    /// The nest under the form `id` drawn with `inherited` resources.
    fn height_of_form(
        &mut self,
        id: ObjectId,
        inherited: &'a Dictionary,
        depth: u32,
    ) -> Result<u32, String> {
        let Ok(stream) = self.doc.get_object(id).and_then(Object::as_stream) else {
            return Ok(0);
        };
        if stream.dict.get(b"Subtype").and_then(Object::as_name).ok() != Some(b"Form".as_slice()) {
            return Ok(0);
        }
        let own = stream
            .dict
            .get(b"Resources")
            .ok()
            .and_then(|r| deref_dict(self.doc, r));
        let resources = own.unwrap_or(inherited);
        // The resources' address tells apart the same form drawn in two
        // contexts (a form without resources uses its caller's).
        let key = (id, std::ptr::from_ref(resources) as usize);
        if let Some(height) = self.heights.get(&key) {
            return Ok(*height);
        }
        if depth > MAX_FORM_DEPTH {
            return Err(format!("nested deeper than {MAX_FORM_DEPTH}"));
        }
        if !self.on_path.insert(key) {
            return Err("in a cycle (a form draws itself)".into());
        }
        if self.heights.len() >= MAX_FORMS {
            return Err(format!("in more than {MAX_FORMS} combinations"));
        }
        let below = self.height_of_resources(resources, depth)?;
        self.on_path.remove(&key);
        self.heights.insert(key, below + 1);
        Ok(below + 1)
    }
}
