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

//! The manager binary: parses flags, sets up logging and runs the manager.

use std::process::ExitCode;

use clap::Parser;
use cnat_operator::{cli::Args, logging, manager};

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    if let Err(error) = logging::init(&args.log_level, args.log_format) {
        eprintln!("invalid --log-level or RUST_LOG: {error}");
        return ExitCode::from(2);
    }
    match manager::run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(error = error_chain(&error), "manager stopped");
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes on one line, skipping causes already in the message.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_message = cause.to_string();
        if !message.contains(&cause_message) {
            message = format!("{message}: {cause_message}");
        }
        source = cause.source();
    }
    message
}
