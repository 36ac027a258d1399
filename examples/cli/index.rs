//! `ferret index add <dir>`: add a folder of Markdown, HTML and text files
//! to the local index (incremental: unchanged files are skipped).

use std::process::ExitCode;

use clap::{Args, Subcommand};

use crate::output::{CmdResult, print_json};

#[derive(Debug, Args)]
pub struct IndexArgs {
    #[command(subcommand)]
    command: IndexCommand,
}

#[derive(Debug, Subcommand)]
enum IndexCommand {
    /// Index a folder (again: only what changed is re-indexed).
    Add {
        /// The folder.
        dir: std::path::PathBuf,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the indexed folders and the number of documents.
    Status {
        /// Print as JSON.
        #[arg(long)]
        json: bool,
    },
}

#[cfg(feature = "local-index")]
pub async fn run(args: IndexArgs) -> CmdResult {
    use ferret::engines::local_index::LocalIndex;
    let home = crate::setup::home()?;
    let dir = home.join("index");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let index = LocalIndex::open(&dir)?;
    match args.command {
        IndexCommand::Add { dir: folder, json } => {
            // The index reports no per-file progress: one step for the folder.
            if folder.is_dir() {
                crate::progress::step(format_args!("indexing {}…", folder.display()));
            }
            let report = index.add_dir(&folder).await?;
            crate::progress::done();
            if json {
                return print_json(&report);
            }
            say!("{report}");
            for f in &report.failed {
                say!("  failed: {} ({})", f.path.display(), f.reason);
            }
            Ok(ExitCode::SUCCESS)
        }
        IndexCommand::Status { json } => {
            let roots = index.roots();
            if json {
                return print_json(&serde_json::json!({
                    "index": dir,
                    "documents": index.num_docs(),
                    "roots": roots,
                }));
            }
            say!("index {}: {} documents", dir.display(), index.num_docs());
            for r in roots {
                say!("  {}", r.path.display());
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

#[cfg(not(feature = "local-index"))]
pub async fn run(_args: IndexArgs) -> CmdResult {
    Err("this build has no local index: rebuild with the `local-index` feature".into())
}
