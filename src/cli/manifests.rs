//! `opgen manifests`

use super::{GlobalArgs, finish, print_warnings};
use crate::diag::{Error, Result};
use crate::ops::manifests::{ManifestOptions, manifests};
use crate::project;
use crate::writer::ChangeKind;

/// Generate CRDs, RBAC roles and webhook configurations from the marker-annotated Rust sources under src/
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  opgen manifests            # write config/crd/bases/*.yaml and config/rbac/role.yaml\n  opgen manifests --check    # in CI: fail if any of them is out of date"
)]
pub struct Args {
    /// Write nothing; exit non-zero and list every file that is out of date
    #[arg(long)]
    pub check: bool,
    /// Treat least-privilege RBAC warnings as errors
    #[arg(long)]
    pub strict: bool,
    /// Cut every description in CRD schemas to this many bytes (0 removes them), for CRDs too large to apply
    #[arg(long, value_name = "BYTES")]
    pub max_desc_len: Option<usize>,
    /// Give embedded ObjectMeta (a pod template's metadata) its name, namespace, labels, annotations and finalizers, as controller-gen's crd:generateEmbeddedObjectMeta=true does
    #[arg(long)]
    pub generate_embedded_object_meta: bool,
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<()> {
    let cwd = std::env::current_dir()
        .map_err(|e| Error::msg(format!("cannot read the current directory: {e}")))?;
    let root = project::find_root(&cwd)?;
    let mut ws = super::open_workspace(root, global)?;
    let report = manifests(
        &mut ws,
        &ManifestOptions {
            max_desc_len: args.max_desc_len,
            strict: args.strict,
            generate_embedded_object_meta: args.generate_embedded_object_meta,
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
                println!("manifests are up to date");
            }
            return Ok(());
        }
        return Err(Error::with_help(
            format!(
                "{} manifest file(s) are out of date:\n{}",
                stale.len(),
                stale.join("\n")
            ),
            "run `opgen manifests` and commit the result",
        ));
    }
    finish(&ws, global, "generated manifests")
}
