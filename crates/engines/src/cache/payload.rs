//! How the SQLite and Redis backends turn a [`CachedResponse`] into bytes:
//! JSON, gzip-compressed when it is longer than a threshold (1 KiB).
//!
//! A reader needs no flag to know which form it holds: gzip data starts with
//! the bytes `1f 8b`, which JSON never does.

use std::io::{Read, Write};

use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;

use super::CachedResponse;

/// Payloads longer than this many bytes are gzip-compressed (1 KiB).
pub const COMPRESS_ABOVE: usize = 1024;

/// The most bytes a compressed payload may expand to when read back; a
/// larger one is treated as corrupt rather than read into memory.
const MAX_DECODED: u64 = 256 * 1024 * 1024;

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// An encoded payload.
pub(crate) struct Encoded {
    /// The bytes to store.
    pub bytes: Vec<u8>,
    /// Whether they are gzip-compressed (the SQLite backend records it).
    #[cfg_attr(not(feature = "sqlite"), allow(dead_code))]
    pub compressed: bool,
}

/// `value` as JSON, gzip-compressed when longer than `compress_above` bytes.
pub(crate) fn encode(value: &CachedResponse, compress_above: usize) -> Result<Encoded, String> {
    let json = serde_json::to_vec(value).map_err(|e| format!("cannot serialise the entry: {e}"))?;
    if json.len() <= compress_above {
        return Ok(Encoded {
            bytes: json,
            compressed: false,
        });
    }
    let mut gz = GzEncoder::new(Vec::with_capacity(json.len() / 3), Compression::fast());
    gz.write_all(&json)
        .and_then(|()| gz.finish())
        .map(|bytes| Encoded {
            bytes,
            compressed: true,
        })
        .map_err(|e| format!("cannot compress the entry: {e}"))
}

/// Whether `bytes` are a gzip stream.
pub(crate) fn is_compressed(bytes: &[u8]) -> bool {
    bytes.starts_with(&GZIP_MAGIC)
}

/// Read back what [`encode`] wrote.
pub(crate) fn decode(bytes: &[u8]) -> Result<CachedResponse, String> {
    if is_compressed(bytes) {
        let mut json = Vec::with_capacity(bytes.len() * 4);
        GzDecoder::new(bytes)
            .take(MAX_DECODED + 1)
            .read_to_end(&mut json)
            .map_err(|e| format!("bad gzip data: {e}"))?;
        if json.len() as u64 > MAX_DECODED {
            return Err(format!(
                "the payload expands to more than {MAX_DECODED} bytes"
            ));
        }
        serde_json::from_slice(&json).map_err(|e| format!("bad JSON after gunzip: {e}"))
    } else {
        serde_json::from_slice(bytes).map_err(|e| format!("bad JSON: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferret_core::Provenance;
    use ferret_core::Runtime;
    use ferret_core::{EngineHit, EngineResponse};

    fn value(hits: u32) -> CachedResponse {
        let hits = (1..=hits)
            .map(|i| EngineHit::new(i, format!("https://a.example/{i}"), "title", "snippet"))
            .collect();
        CachedResponse::new(
            "brave",
            EngineResponse::new(Provenance::public(Runtime::Http), hits),
        )
    }

    #[test]
    fn small_payloads_stay_json_and_large_ones_are_gzipped() {
        let small = value(1);
        let enc = encode(&small, COMPRESS_ABOVE).unwrap();
        assert!(!enc.compressed && !is_compressed(&enc.bytes));
        assert_eq!(decode(&enc.bytes).unwrap(), small);

        let big = value(40);
        let enc = encode(&big, COMPRESS_ABOVE).unwrap();
        assert!(enc.compressed && is_compressed(&enc.bytes));
        assert!(enc.bytes.len() < serde_json::to_vec(&big).unwrap().len());
        assert_eq!(decode(&enc.bytes).unwrap(), big);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(decode(b"").is_err());
        assert!(decode(b"{not json").is_err());
        assert!(decode(&[0x1f, 0x8b, 0, 1, 2]).is_err());
    }
}
