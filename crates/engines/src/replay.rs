//! Record and replay: the [`Recorder`] layer writes every answer of an
//! engine to disk; the [`ReplayEngine`] answers from those files.
//!
//! Useful for offline demos, deterministic tests of everything downstream of
//! the engines, and A/B comparisons of ranking changes on the same inputs.
//!
//! ## Layout
//!
//! ```text
//! <dir>/<engine>/engine.json     the engine's name and capabilities (ferret.recording-engine.v1)
//! <dir>/<engine>/<key>.json      one recording per request (ferret.recording.v1)
//! ```
//!
//! `<key>` is [`request_key`]: the first 32 hex characters of the SHA-256 of
//! the request's JSON — every field, the query exactly as sent, so a replay
//! answers exactly what was asked. A recording holds the request, the
//! response *or* the error (kind, message, `retry_after`, temporary flag),
//! the engine's name and `recorded_at`. Files are written to a temporary name
//! and renamed, so a cancelled call never leaves half a recording. Recording
//! the same request again replaces the old file.
//!
//! ## Names
//!
//! A [`ReplayEngine`] takes **the recorded engine's name** (`brave`, not
//! `replay`): a replayed engine drops into the same fanout configuration,
//! `--engines` lists, reports and A/B comparisons as the live one. What marks
//! the answers as replayed is their provenance: `runtime` becomes `replay`
//! (login data keeps every login marker, so caches still refuse it).
//!
//! A request that was never recorded is [`EngineError::Unsupported`], naming
//! the missing key and file.
//!
//! **Where the Recorder sits**: directly around the engine to capture what
//! the service said (errors included), or outermost to capture what the whole
//! stack answered.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use ferret_core::layer::Layer;
use ferret_core::{
    Engine, EngineCapabilities, EngineError, EngineRequest, EngineResponse, ErrorKind, Runtime,
};
use serde::{Deserialize, Serialize};

use crate::cache::hex_prefix;

/// The schema of a recording file.
pub const RECORDING_SCHEMA: &str = "ferret.recording.v1";

/// The schema of an engine manifest (`engine.json`).
pub const MANIFEST_SCHEMA: &str = "ferret.recording-engine.v1";

/// The `runtime` written into the provenance of replayed answers.
pub const REPLAY_RUNTIME: Runtime = Runtime::Replay;

/// The file key of `request`: 32 hex characters of the SHA-256 of its JSON.
pub fn request_key(request: &EngineRequest) -> String {
    let json = serde_json::to_string(request).unwrap_or_default();
    hex_prefix(json.as_bytes(), 32)
}

/// One recorded call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recording {
    /// Always [`RECORDING_SCHEMA`].
    pub schema: String,
    /// The engine's name.
    pub engine: String,
    /// [`request_key`] of the request.
    pub key: String,
    /// When it was recorded.
    pub recorded_at: DateTime<Utc>,
    /// The request as sent.
    pub request: EngineRequest,
    /// What the engine answered.
    pub outcome: RecordedOutcome,
}

/// A recorded answer: a response or an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordedOutcome {
    /// The engine answered.
    Response(EngineResponse),
    /// The engine failed.
    Error(RecordedError),
}

/// An [`EngineError`] as recorded: its kind, its message and its data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedError {
    /// The kind.
    pub kind: ErrorKind,
    /// The message the error carried (without the kind's prefix).
    pub message: String,
    /// `retry_after`, for rate limits and open circuits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
    /// The budget that ran out, for timeouts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Whether it was temporary (transport errors differ).
    pub temporary: bool,
}

impl From<&EngineError> for RecordedError {
    fn from(e: &EngineError) -> Self {
        let (message, timeout_ms) = match e {
            EngineError::RateLimited { message, .. }
            | EngineError::BotDetected { message }
            | EngineError::Captcha { message }
            | EngineError::AccessDenied { message }
            | EngineError::Auth { message }
            | EngineError::Quota { message }
            | EngineError::Transport { message, .. }
            | EngineError::Parse { message }
            | EngineError::InvalidQuery { message }
            | EngineError::Unsupported { message }
            | EngineError::CircuitOpen { message, .. } => (message.clone(), None),
            EngineError::Timeout { after } => (e.to_string(), Some(after.as_millis() as u64)),
        };
        RecordedError {
            kind: e.kind(),
            message,
            retry_after_ms: e.retry_after().map(|d| d.as_millis() as u64),
            timeout_ms,
            temporary: e.is_temporary(),
        }
    }
}

impl RecordedError {
    /// The error again.
    pub fn to_error(&self) -> EngineError {
        let message = self.message.clone();
        let retry_after = self.retry_after_ms.map(Duration::from_millis);
        match self.kind {
            ErrorKind::RateLimited => EngineError::RateLimited {
                retry_after,
                message,
            },
            ErrorKind::BotDetected => EngineError::BotDetected { message },
            ErrorKind::Captcha => EngineError::Captcha { message },
            ErrorKind::AccessDenied => EngineError::AccessDenied { message },
            ErrorKind::Auth => EngineError::Auth { message },
            ErrorKind::Quota => EngineError::Quota { message },
            ErrorKind::Timeout => EngineError::Timeout {
                after: Duration::from_millis(self.timeout_ms.unwrap_or(0)),
            },
            ErrorKind::Transport => EngineError::Transport {
                message,
                temporary: self.temporary,
            },
            ErrorKind::Parse => EngineError::Parse { message },
            ErrorKind::InvalidQuery => EngineError::InvalidQuery { message },
            ErrorKind::Unsupported => EngineError::Unsupported { message },
            ErrorKind::CircuitOpen => EngineError::CircuitOpen {
                retry_after,
                message,
            },
        }
    }
}

/// An engine's manifest: its name and capabilities.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineManifest {
    /// Always [`MANIFEST_SCHEMA`].
    pub schema: String,
    /// The engine's name.
    pub engine: String,
    /// Its capabilities when recorded.
    pub capabilities: EngineCapabilities,
}

/// A replay directory that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// No `engine.json` for the engine.
    #[error(
        "no recordings of engine {engine:?}: {path} does not exist; record the engine with \
         Recorder first, or check the directory and engine name"
    )]
    MissingManifest {
        /// The engine asked for.
        engine: String,
        /// The manifest path looked for.
        path: PathBuf,
    },
    /// `engine.json` exists but cannot be read.
    #[error("cannot read {path}: {message}")]
    UnreadableManifest {
        /// The manifest path.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

fn engine_dir(dir: &Path, engine: &str) -> PathBuf {
    dir.join(engine)
}

fn recording_path(dir: &Path, engine: &str, key: &str) -> PathBuf {
    engine_dir(dir, engine).join(format!("{key}.json"))
}

/// Write `bytes` to `path` via a temporary file and a rename.
async fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        tokio::fs::create_dir_all(parent).await?;
    }
    let tmp = path.with_extension(format!("json.tmp-{:016x}", fastrand::u64(..)));
    tokio::fs::write(&tmp, bytes).await?;
    match tokio::fs::rename(&tmp, path).await {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = tokio::fs::remove_file(&tmp).await;
            Err(e)
        }
    }
}

/// Records every answer of an engine to a directory (see the module docs).
/// Clones share the directory and counters.
#[derive(Debug, Clone)]
pub struct Recorder<E> {
    inner: E,
    dir: PathBuf,
    manifest_written: Arc<AtomicBool>,
    recorded: Arc<AtomicU64>,
    write_failures: Arc<AtomicU64>,
}

impl<E: Engine> Recorder<E> {
    /// Record `inner`'s answers under `dir`.
    pub fn new(inner: E, dir: impl Into<PathBuf>) -> Self {
        Recorder {
            inner,
            dir: dir.into(),
            manifest_written: Arc::new(AtomicBool::new(false)),
            recorded: Arc::new(AtomicU64::new(0)),
            write_failures: Arc::new(AtomicU64::new(0)),
        }
    }

    /// The recording directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Recordings written so far.
    pub fn recorded(&self) -> u64 {
        self.recorded.load(Ordering::Relaxed)
    }

    /// Recordings that could not be written (each was logged; the search
    /// still returned its answer).
    pub fn write_failures(&self) -> u64 {
        self.write_failures.load(Ordering::Relaxed)
    }

    /// The wrapped engine.
    pub fn inner(&self) -> &E {
        &self.inner
    }

    async fn write_manifest(&self) -> std::io::Result<()> {
        if self.manifest_written.load(Ordering::Acquire) {
            return Ok(());
        }
        let manifest = EngineManifest {
            schema: MANIFEST_SCHEMA.to_string(),
            engine: self.inner.name().to_string(),
            capabilities: self.inner.capabilities(),
        };
        let bytes = serde_json::to_vec_pretty(&manifest).map_err(std::io::Error::other)?;
        let path = engine_dir(&self.dir, self.inner.name()).join("engine.json");
        write_atomically(&path, &bytes).await?;
        self.manifest_written.store(true, Ordering::Release);
        Ok(())
    }

    async fn write(
        &self,
        request: &EngineRequest,
        outcome: &Result<EngineResponse, EngineError>,
    ) -> std::io::Result<()> {
        self.write_manifest().await?;
        let key = request_key(request);
        let recording = Recording {
            schema: RECORDING_SCHEMA.to_string(),
            engine: self.inner.name().to_string(),
            key: key.clone(),
            recorded_at: Utc::now(),
            request: request.clone(),
            outcome: match outcome {
                Ok(r) => RecordedOutcome::Response(r.clone()),
                Err(e) => RecordedOutcome::Error(RecordedError::from(e)),
            },
        };
        let bytes = serde_json::to_vec_pretty(&recording).map_err(std::io::Error::other)?;
        write_atomically(&recording_path(&self.dir, self.inner.name(), &key), &bytes).await
    }
}

#[async_trait]
#[deny(clippy::missing_trait_methods)]
impl<E: Engine> Engine for Recorder<E> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn capabilities(&self) -> EngineCapabilities {
        self.inner.capabilities()
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        let outcome = self.inner.search(request).await;
        match self.write(request, &outcome).await {
            Ok(()) => {
                self.recorded.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                self.write_failures.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(engine = self.inner.name(), dir = %self.dir.display(), error = %e, "could not write a recording");
            }
        }
        outcome
    }
}

/// A [`Layer`] that builds [`Recorder`] engines writing under one directory.
#[derive(Debug, Clone)]
pub struct RecordLayer {
    dir: PathBuf,
}

impl RecordLayer {
    /// Record under `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        RecordLayer { dir: dir.into() }
    }
}

impl<E: Engine> Layer<E> for RecordLayer {
    type Engine = Recorder<E>;

    fn layer(&self, inner: E) -> Recorder<E> {
        Recorder::new(inner, self.dir.clone())
    }
}

/// Answers from recordings made by a [`Recorder`] (see the module docs).
#[derive(Debug, Clone)]
pub struct ReplayEngine {
    name: String,
    dir: PathBuf,
    capabilities: EngineCapabilities,
}

impl ReplayEngine {
    /// Replay the engine named `engine` recorded under `dir`, with the
    /// capabilities from its manifest.
    pub fn open(dir: impl Into<PathBuf>, engine: &str) -> Result<Self, ReplayError> {
        let dir = dir.into();
        let path = engine_dir(&dir, engine).join("engine.json");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(ReplayError::MissingManifest {
                    engine: engine.to_string(),
                    path,
                });
            }
            Err(e) => {
                return Err(ReplayError::UnreadableManifest {
                    path,
                    message: e.to_string(),
                });
            }
        };
        let manifest: EngineManifest =
            serde_json::from_str(&text).map_err(|e| ReplayError::UnreadableManifest {
                path: path.clone(),
                message: e.to_string(),
            })?;
        Ok(ReplayEngine {
            name: manifest.engine,
            dir,
            capabilities: manifest.capabilities,
        })
    }

    /// Replay `engine` from `dir` with the given capabilities (no manifest
    /// needed).
    pub fn with_capabilities(
        dir: impl Into<PathBuf>,
        engine: impl Into<String>,
        capabilities: EngineCapabilities,
    ) -> Self {
        ReplayEngine {
            name: engine.into(),
            dir: dir.into(),
            capabilities,
        }
    }

    /// The recordings directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the recording for `request` is (or would be).
    pub fn path_for(&self, request: &EngineRequest) -> PathBuf {
        recording_path(&self.dir, &self.name, &request_key(request))
    }

    /// The recording for `request`.
    pub async fn recording(&self, request: &EngineRequest) -> Result<Recording, EngineError> {
        let key = request_key(request);
        let path = recording_path(&self.dir, &self.name, &key);
        let text = match tokio::fs::read_to_string(&path).await {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(EngineError::Unsupported {
                    message: format!(
                        "replay of {}: no recording for request key {key} (query {:?}); \
                         expected {}; record this request with Recorder first",
                        self.name,
                        request.query,
                        path.display()
                    ),
                });
            }
            Err(e) => {
                return Err(EngineError::Transport {
                    message: format!(
                        "replay of {}: cannot read {}: {e}",
                        self.name,
                        path.display()
                    ),
                    temporary: false,
                });
            }
        };
        let recording: Recording = serde_json::from_str(&text).map_err(|e| {
            EngineError::parse(format!(
                "replay of {}: {} is not a recording: {e}",
                self.name,
                path.display()
            ))
        })?;
        if recording.request != *request {
            return Err(EngineError::Unsupported {
                message: format!(
                    "replay of {}: {} records a different request (key {key}); re-record it",
                    self.name,
                    path.display()
                ),
            });
        }
        Ok(recording)
    }
}

#[async_trait]
impl Engine for ReplayEngine {
    fn name(&self) -> &str {
        &self.name
    }

    fn capabilities(&self) -> EngineCapabilities {
        self.capabilities.clone()
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        match self.recording(request).await?.outcome {
            RecordedOutcome::Response(mut response) => {
                if !response.provenance.is_login() {
                    response.provenance.runtime = REPLAY_RUNTIME;
                }
                response.hits.truncate(request.max_results);
                Ok(response)
            }
            RecordedOutcome::Error(e) => Err(e.to_error()),
        }
    }
}
