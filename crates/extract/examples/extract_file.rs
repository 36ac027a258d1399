//! Extracts one HTML file and prints the text (or the full JSON with `--json`).
//!
//! ```text
//! cargo run --release -p ferret-extract --example extract_file -- page.html [--url URL] [--json]
//! ```

use ferret_extract::{ExtractOptions, extract_bytes};

fn main() {
    let mut path = None;
    let mut url = None;
    let mut json = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--json" => json = true,
            "--url" => url = args.next(),
            _ => path = Some(a),
        }
    }
    let Some(path) = path else {
        eprintln!("usage: extract_file PAGE.html [--url URL] [--json]");
        std::process::exit(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("extract_file: cannot read {path}: {e}");
            std::process::exit(1);
        }
    };
    let url = match url
        .map(|u| url::Url::parse(&u).map_err(|e| (u, e)))
        .transpose()
    {
        Ok(url) => url,
        Err((u, e)) => {
            eprintln!("extract_file: --url {u:?} is not an absolute URL: {e}");
            std::process::exit(2);
        }
    };
    let out = extract_bytes(&bytes, None, url.as_ref(), &ExtractOptions::default());
    if json {
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    } else {
        println!("{}", out.text);
    }
}
