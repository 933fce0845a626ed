//! Log setup: tracing with an env-filter, as text or JSON lines.

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
        LogFormat::Text => registry.with(fmt::layer()).init(),
        LogFormat::Json => registry
            .with(fmt::layer().json().flatten_event(true))
            .init(),
    }
    Ok(())
}
