//! Reads one saved page with `fetch_from_file` and prints how long the read
//! took: the whole cost of one call in a fresh process, for `perf stat`.
//!
//! ```text
//! cargo build --release -p ferret-fetch --example startup_probe
//! perf stat -e task-clock target/release/examples/startup_probe page.html
//! ```

use ferret_fetch::{FetchOptions, fetch_from_file};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: startup_probe PAGE.html");
        std::process::exit(2);
    };
    let started = std::time::Instant::now();
    match fetch_from_file(&path, None, &FetchOptions::default()) {
        Ok(page) => eprintln!(
            "read in {:?}: {} characters, verdict {}",
            started.elapsed(),
            page.text.chars().count(),
            page.verdict
        ),
        Err(e) => {
            eprintln!("startup_probe: {e}");
            std::process::exit(1);
        }
    }
}
