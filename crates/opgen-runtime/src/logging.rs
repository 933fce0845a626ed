//! Log setup: tracing with an env-filter, as text or JSON lines.

use std::ffi::OsStr;
use std::io::IsTerminal;
use tracing_subscriber::{EnvFilter, filter::ParseError, fmt, prelude::*};

use crate::cli::LogFormat;

/// Installs the global subscriber. `RUST_LOG`, when set, overrides `level`.
/// [`Manager::main`](crate::Manager::main) calls it with `--log-level` and `--log-format`.
///
/// # Panics
/// If a global subscriber is already installed: call it once, from `main`.
pub fn init(level: &str, format: LogFormat) -> Result<(), ParseError> {
    let directives = std::env::var("RUST_LOG")
        .ok()
        .filter(|value| !value.trim().is_empty())
        .unwrap_or_else(|| level.to_owned());
    let filter = EnvFilter::try_new(directives)?;
    let registry = tracing_subscriber::registry().with(filter);
    match format {
        LogFormat::Text => registry
            .with(fmt::layer().with_ansi(colour(
                std::io::stdout().is_terminal(),
                std::env::var_os("NO_COLOR").as_deref(),
            )))
            .init(),
        LogFormat::Json => registry
            .with(fmt::layer().json().flatten_event(true))
            .init(),
    }
    Ok(())
}

/// Colour codes only for a terminal: a file, a pipe or a log collector gets plain text
/// (and `NO_COLOR`, when set and not empty, turns them off everywhere: no-color.org).
fn colour(terminal: bool, no_color: Option<&OsStr>) -> bool {
    terminal && no_color.is_none_or(OsStr::is_empty)
}

#[cfg(test)]
mod tests {
    use super::colour;
    use std::ffi::OsStr;

    #[test]
    fn colour_only_on_a_terminal_without_no_color() {
        assert!(colour(true, None));
        assert!(colour(true, Some(OsStr::new(""))));
        assert!(!colour(true, Some(OsStr::new("1"))));
        assert!(!colour(false, None));
    }
}
