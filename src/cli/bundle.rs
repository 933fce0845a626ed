//! `opgen bundle`

use super::{GlobalArgs, finish, print_warnings};
use crate::diag::{Error, Result};
use crate::ops::bundle::{BundleArgs, bundle};
use crate::ops::manifests::ManifestOptions;
use crate::project;
use crate::writer::ChangeKind;
use std::path::PathBuf;

/// Generate the OLM bundle (bundle/manifests, bundle/metadata, bundle.Dockerfile) from the project, after regenerating its manifests
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The ClusterServiceVersion starts from config/manifests/bases/<project>.clusterserviceversion.yaml,\nwhich the first run writes and you edit (opgen never rewrites it). config/default is rendered\nwith `kubectl kustomize` (KUBECTL overrides which kubectl).\n\nExamples:\n  opgen bundle --version 0.1.0                      # channel alpha\n  opgen bundle --version 0.2.0 --channels stable,fast --default-channel stable\n  opgen bundle --check                              # in CI: fail if the bundle is out of date"
)]
pub struct Args {
    /// The operator's semantic version (e.g. 0.1.0); default: the version of the bundle already there
    #[arg(long)]
    pub version: Option<String>,
    /// Comma-separated channels of the bundle; default: the bundle's current ones, else alpha
    #[arg(long, value_delimiter = ',')]
    pub channels: Option<Vec<String>>,
    /// The package's default channel (one of --channels)
    #[arg(long)]
    pub default_channel: Option<String>,
    /// The manager image to install (e.g. example.com/memcached-operator:v0.1.0); default: the bundle's current one, else config/'s
    #[arg(long, value_name = "IMAGE")]
    pub image: Option<String>,
    /// Write nothing; exit non-zero and list every file that is out of date
    #[arg(long)]
    pub check: bool,
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<()> {
    let cwd = std::env::current_dir()
        .map_err(|e| Error::msg(format!("cannot read the current directory: {e}")))?;
    let root = project::find_root(&cwd)?;
    let mut ws = super::open_workspace(root, global)?;
    let kubectl = std::env::var_os("KUBECTL")
        .filter(|k| !k.is_empty())
        .map_or_else(|| PathBuf::from("kubectl"), PathBuf::from);
    let report = bundle(
        &mut ws,
        &BundleArgs {
            version: args.version,
            channels: args.channels,
            default_channel: args.default_channel,
            image: args.image,
            manifests: ManifestOptions::default(),
            kubectl,
        },
    )?;
    print_warnings(&report.warnings, global);
    if args.check {
        let stale: Vec<String> = ws
            .changes()?
            .into_iter()
            .filter(|c| c.kind != ChangeKind::Unchanged)
            .map(|c| format!("  {}", c.path.display()))
            .collect();
        if stale.is_empty() {
            if !global.quiet {
                println!("bundle is up to date");
            }
            return Ok(());
        }
        return Err(Error::with_help(
            format!(
                "{} file(s) of the bundle or its manifests are out of date:\n{}",
                stale.len(),
                stale.join("\n")
            ),
            "run `opgen bundle` (`make bundle`) and commit the result",
        ));
    }
    if let Some(base) = &report.base_created
        && !global.quiet
        && !global.dry_run
    {
        println!(
            "wrote {base}: edit it (description, icon, maintainers, provider, links); opgen never rewrites it"
        );
    }
    finish(&ws, global, "generated bundle")
}
