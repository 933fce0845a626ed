//! `opgen upgrade`

use super::{GlobalArgs, bool_value, finish, print_warnings};
use crate::diag::{Diagnostic, Result};
use crate::ops::manifests::{ManifestOptions, manifests};
use crate::ops::upgrade::{UpgradeOptions, upgrade};
use crate::project::SCAFFOLD_VERSION;
use crate::writer::ChangeKind;

/// Bring a project made by an earlier opgen to the current scaffold
///
/// Files opgen owns (vendor/, hack/setup-envtest.sh) are replaced. Every other file is compared
/// three ways: what the earlier opgen wrote for this project, yours, and what opgen writes
/// now. Files only opgen changed are updated (or removed), files only you changed are kept,
/// and a file both changed is a conflict: shown as diffs, and nothing is written, unless
/// --merge or --force says how to settle it.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  opgen upgrade --dry-run   # list every change\n  opgen upgrade             # refused, with diffs, if you and opgen changed a file\n  opgen upgrade --merge     # merges such files; conflict markers where lines overlap"
)]
pub struct Args {
    /// Merge the files both you and the scaffold changed; overlapping changes get conflict markers
    #[arg(long, conflicts_with = "force")]
    pub merge: bool,
    /// Take the new scaffold's version of the files both you and it changed (your edits are lost; each is named)
    #[arg(long)]
    pub force: bool,
    /// Run `opgen manifests` afterwards
    #[arg(long, value_parser = bool_value(), default_value_t = true, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub make: bool,
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<()> {
    let (mut ws, mut project) = super::open_project(global)?;
    let opts = UpgradeOptions {
        merge: args.merge,
        force: args.force,
    };
    let report = upgrade(&mut ws, &mut project, &opts)?;
    print_warnings(&report.warnings, global);
    if args.make && report.with_markers.is_empty() {
        let manifests = manifests(&mut ws, &ManifestOptions::default())?;
        print_warnings(&manifests.warnings, global);
    } else if args.make {
        print_warnings(
            &[Diagnostic::warning(
                "opgen manifests was not run: the conflict markers above must be resolved first",
            )
            .help("resolve them, then run `opgen manifests`")],
            global,
        );
    }
    if ws
        .changes()?
        .iter()
        .all(|c| c.kind == ChangeKind::Unchanged)
    {
        if !global.quiet {
            println!(
                "{} is already up to date (scaffold {SCAFFOLD_VERSION})",
                project.project_name
            );
        }
        return Ok(());
    }
    let summary = match report.from {
        SCAFFOLD_VERSION => format!(
            "refreshed {} at scaffold {SCAFFOLD_VERSION}",
            project.project_name
        ),
        from => format!(
            "upgraded {} from scaffold {from} to {SCAFFOLD_VERSION}",
            project.project_name
        ),
    };
    finish(&ws, global, &summary)
}
