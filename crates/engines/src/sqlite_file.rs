//! What every SQLite file of the engines crate shares (feature `sqlite`):
//! how its path is prepared, how long a writer waits for a lock, and how a
//! database error is explained to a person. The stores wrap the messages in
//! their own error types.

use std::path::Path;
use std::time::Duration;

use rusqlite::ErrorCode;

/// How long a writer waits for another process's lock.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Creates `path`'s missing parent directories and refuses a directory
/// path; `example` names the file a person should give instead
/// (`cache.db`).
pub(crate) fn prepare_path(path: &Path, example: &str) -> Result<(), String> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create the directory {}: {e}", parent.display()))?;
    }
    if path.is_dir() {
        return Err(format!(
            "{} is a directory; give the path of a file (e.g. {}/{example})",
            path.display(),
            path.display()
        ));
    }
    Ok(())
}

/// An error from the database at `path`, with what to do about it; `holds`
/// says what the file keeps (so deleting it is safe).
pub(crate) fn explain(path: &Path, e: &rusqlite::Error, holds: &str) -> String {
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => format!(
            "{} is not a readable SQLite database ({e}); delete the file (it only holds \
             {holds}) or choose another path",
            path.display()
        ),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => format!(
            "{} is locked by another process for more than {} s ({e}); try again",
            path.display(),
            BUSY_TIMEOUT.as_secs()
        ),
        Some(ErrorCode::ReadOnly | ErrorCode::PermissionDenied | ErrorCode::CannotOpen) => format!(
            "cannot write {} ({e}); check the file and directory permissions or choose another \
             path",
            path.display()
        ),
        _ => format!("{}: {e}", path.display()),
    }
}
