//! Output helpers shared by the commands: JSON envelopes, one-line errors,
//! text wrapping for people.

use std::process::ExitCode;

use serde::Serialize;

/// A command's failure: one line for stderr.
pub type CmdResult = Result<ExitCode, String>;

/// Print `value` as pretty JSON on stdout.
pub fn print_json<T: Serialize>(value: &T) -> CmdResult {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| format!("cannot serialise the output: {e}"))?;
    write_line(format_args!("{text}"));
    Ok(ExitCode::SUCCESS)
}

/// Write one line to stdout; a closed pipe (`ferret … | head`) ends the
/// process quietly, any other write error with a one-line message.
pub fn write_line(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = writeln!(out, "{args}").and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("ferret: error: cannot write to stdout: {e}");
        std::process::exit(1);
    }
}

/// Print a one-line error and return exit code 1.
pub fn fail(message: impl AsRef<str>) -> ExitCode {
    let one_line = message.as_ref().lines().next().unwrap_or("").trim();
    eprintln!("ferret: error: {one_line}");
    ExitCode::FAILURE
}

/// Report a command-line parsing error as one line (help and version are
/// printed whole).
pub fn clap_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            }
        }
        _ => {
            let rendered = e.render().to_string();
            let before_usage = rendered.split("Usage:").next().unwrap_or("");
            let flat = before_usage
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let line = flat.trim_start_matches("error:").trim();
            // clap's own hint ("For more information, try '--help'.") is
            // replaced by ours.
            let line = line
                .split("For more information, try")
                .next()
                .unwrap_or(line)
                .trim();
            let line = if line.is_empty() {
                "invalid arguments"
            } else {
                line
            };
            eprintln!("ferret: error: {line} (see --help)");
            ExitCode::from(2)
        }
    }
}

/// Cut `text` to at most `max` characters on a character boundary, adding
/// an ellipsis when cut.
pub fn clip(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let mut out: String = flat.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Parse a comma-separated list, dropping empty items.
pub fn comma_list(values: &[String]) -> Vec<String> {
    values
        .iter()
        .flat_map(|v| v.split(','))
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}
