//! The hostile web of the hostile-input suite as a program, for
//! `scripts/bench-hostile`: serves every hostile page on 127.0.0.1, prints
//! `case PATH` for each page and then `port N` once the pages are
//! generated, then serves until killed.
//!
//! ```sh
//! cargo run --release --example hostile_server -- [--port N] [--tests]
//! ```
//!
//! `--tests` uses the test suite's smaller bombs (64 MiB instead of 1 GiB).

#[path = "../tests/support/hostile.rs"]
mod hostile;

use std::io::Write;

fn main() {
    let mut port = 0u16;
    let mut scale = hostile::Scale::BENCH;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                port = args
                    .next()
                    .and_then(|p| p.parse().ok())
                    .expect("--port needs a number");
            }
            "--tests" => scale = hostile::Scale::TESTS,
            "-h" | "--help" => {
                println!(
                    "hostile_server [--port N] [--tests]: serve the hostile pages on 127.0.0.1"
                );
                return;
            }
            other => {
                eprintln!("hostile_server: unknown argument {other:?}");
                std::process::exit(2);
            }
        }
    }
    let web = hostile::HostileWeb::start_on(&format!("127.0.0.1:{port}"), scale);
    for case in hostile::CASES {
        eprintln!("{} — {}", web.url(case.path), case.what);
        println!("case {}", case.path);
    }
    println!("port {}", web.port);
    std::io::stdout().flush().expect("stdout");
    loop {
        std::thread::park();
    }
}
