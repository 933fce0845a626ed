// Copyright 2026 The cnat-operator Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

//! Log setup: tracing with an env-filter, as text or JSON lines.

use tracing_subscriber::{EnvFilter, filter::ParseError, fmt, prelude::*};

use crate::cli::LogFormat;

/// Installs the global subscriber. `RUST_LOG`, when set, overrides `level`.
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
