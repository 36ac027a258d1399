//! Saved pages in bulk and from any reader: many files on a pool of
//! threads, and a page read from stdin or another stream with the same body
//! cap as the HTTP path.

use std::io::Read;
use std::path::Path;

use std::time::Instant;

use super::document::{Saved, read_limited};
use super::{FetchError, FetchOptions, FetchedPage};

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
/// [`WarningCode::BodyTruncated`](super::WarningCode::BodyTruncated)
/// warning. The bytes are read as a saved file's are (decoded as on the
/// HTTP path: BOM, `<meta>`, valid UTF-8, then detection); `url` is the
/// page's original address, when known (the envelope's URL is
/// `about:blank` otherwise).
pub fn fetch_from_reader(
    reader: impl Read,
    url: Option<&str>,
    options: &FetchOptions,
    limit: usize,
) -> Result<FetchedPage, FetchError> {
    let started = Instant::now();
    let (bytes, cut) = read_limited(reader, limit, 0).map_err(|e| FetchError::File {
        path: "-".into(),
        detail: e.to_string(),
    })?;
    let saved = Saved {
        label: "the input".into(),
        url,
        file_url: None,
        unnamed: "about:blank".into(),
        content_type: None,
    };
    Ok(saved.read(&bytes, cut, limit, options, started))
}
