//! `opgen create helm`

use super::{GlobalArgs, finish, print_warnings};
use crate::diag::{Error, Result};
use crate::ops::create_helm::{HelmOptions, create_helm};
use std::path::PathBuf;

/// Write a Helm chart of the operator to dist/chart/, from the rendered install manifests
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The chart is made from dist/install.yaml (`make build-installer`); `make helm` runs both.\n\
Re-running updates the generated files. Edits to values.yaml are kept (new sections are added);\n\
an edited template is refused unless --force, or kept for good once you delete its first line.\n\n\
Examples:\n  make build-installer IMG=example.com/memcached-operator:v0.1.0 && opgen create helm\n  opgen create helm --version 0.2.0 --app-version 0.2.0"
)]
pub struct Args {
    /// The rendered install manifests to make the chart from
    #[arg(long, value_name = "FILE", default_value = "dist/install.yaml")]
    pub manifests: PathBuf,
    /// The chart's version (SemVer) [default: the chart's current one, else Cargo.toml's package version]
    #[arg(long)]
    pub version: Option<String>,
    /// The chart's appVersion (SemVer) [default: the chart's current one, else --version]
    #[arg(long)]
    pub app_version: Option<String>,
    /// Replace edited chart files (values.yaml, templates) with the generated ones
    #[arg(long)]
    pub force: bool,
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<()> {
    let cwd = super::current_dir()?;
    let (mut ws, project) = super::open_project(global)?;
    // Relative to where opgen runs, like any path argument; the workspace reads from the root.
    let manifests = cwd
        .join(&args.manifests)
        .strip_prefix(ws.root())
        .map(PathBuf::from)
        .map_err(|_| {
            Error::with_help(
                format!(
                    "--manifests {}: not inside the project ({})",
                    args.manifests.display(),
                    ws.root().display()
                ),
                "opgen reads files of the project only: render them into it, e.g. with `make build-installer`",
            )
        })?;
    let warnings = create_helm(
        &mut ws,
        &project,
        &HelmOptions {
            manifests: Some(manifests),
            version: args.version,
            app_version: args.app_version,
            force: args.force,
        },
    )?;
    print_warnings(&warnings, global);
    finish(&ws, global, "wrote the Helm chart dist/chart")
}
