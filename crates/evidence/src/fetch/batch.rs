//! Saved pages in bulk and from any reader: many files on a pool of
//! threads, and a page read from stdin or another stream with the same body
//! cap as the HTTP path.

use std::io::Read;
use std::path::Path;

use super::{FetchError, FetchOptions, FetchedPage, Warning, WarningCode};

/// Reads many saved pages at once (no network), one thread per core, each
/// as [`fetch_from_file`](super::fetch_from_file) would; results in input
/// order, a failed file as its typed error.
pub fn fetch_files<P>(paths: &[P], options: &FetchOptions) -> Vec<Result<FetchedPage, FetchError>>
where
    P: AsRef<Path> + Sync,
{
    crate::pool::par_map(paths, |path| super::fetch_from_file(path, None, options))
}

/// Reads a page from `reader` (stdin, a socket, an archive entry): at most
/// `limit` bytes are read, incrementally, and the rest is cut with a
/// [`WarningCode::BodyTruncated`] warning. The bytes are decoded as on the
/// HTTP path (BOM, `<meta>`, valid UTF-8, then detection); `url` is the
/// page's original address, when known.
pub fn fetch_from_reader(
    reader: impl Read,
    url: Option<&str>,
    options: &FetchOptions,
    limit: usize,
) -> Result<FetchedPage, FetchError> {
    let mut bytes = Vec::new();
    reader
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| FetchError::File {
            path: "-".into(),
            detail: e.to_string(),
        })?;
    let cut = bytes.len() > limit;
    bytes.truncate(limit);
    let decoded = crate::extract::decode_html(&bytes, None);
    let mut page = super::from_html(&decoded.html, url, options);
    if cut {
        page.truncated = true;
        page.warnings.push(Warning::new(
            WarningCode::BodyTruncated,
            format!("the input is larger than {limit} bytes; only the first {limit} were read"),
        ));
    }
    Ok(page)
}
