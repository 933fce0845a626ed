// Copyright 2026 The secret-operator Authors.
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

//! The manager binary: parses flags and runs the manager (opgen-runtime) with this
//! operator's controllers and webhooks.

use std::process::ExitCode;

use clap::Parser;
use opgen_runtime::ManagerArgs;

/// Runs the secret-operator controllers.
#[derive(Debug, Parser)]
#[command(name = "secret-operator", version)]
struct Args {
    #[command(flatten)]
    manager: ManagerArgs,
    // TODO(user): add this operator's own flags here.
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    secret_operator::manager().main(args.manager).await
}
