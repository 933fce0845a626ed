//! `opgen manifests`

use super::{GlobalArgs, finish, print_warnings};
use crate::diag::Result;
use crate::ops::manifests::{CacheUse, ManifestOptions, manifests};

/// Generate CRDs, RBAC roles and webhook configurations from the marker-annotated Rust sources under src/
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  opgen manifests            # write config/crd/bases/*.yaml and config/rbac/role.yaml\n  opgen manifests --check    # in CI: fail if any of them is out of date"
)]
pub struct Args {
    /// Write nothing; exit non-zero and list every file that is out of date
    #[arg(long)]
    pub check: bool,
    /// Treat least-privilege RBAC warnings, and samples under config/samples that do not fit their CRD, as errors
    #[arg(long)]
    pub strict: bool,
    /// Cut every description in CRD schemas to this many bytes (0 removes them), for CRDs too large to apply
    #[arg(long, value_name = "BYTES")]
    pub max_desc_len: Option<usize>,
    /// Give embedded ObjectMeta (a pod template's metadata) its name, namespace, labels, annotations and finalizers, as controller-gen's crd:generateEmbeddedObjectMeta=true does
    #[arg(long)]
    pub generate_embedded_object_meta: bool,
    /// Neither read nor write the cache under target/opgen/ (by default, files an edit left alone are not parsed again and only the CRDs the edit can change are rebuilt; -vv says when a run could not use it)
    #[arg(long)]
    pub no_cache: bool,
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<()> {
    let mut ws = super::open_project_workspace(global)?;
    let report = manifests(
        &mut ws,
        &ManifestOptions {
            max_desc_len: args.max_desc_len,
            strict: args.strict,
            generate_embedded_object_meta: args.generate_embedded_object_meta,
            keep_version_stamps: false,
            cache: if args.no_cache {
                CacheUse::Off
            } else if args.check || global.dry_run {
                CacheUse::Read
            } else {
                CacheUse::ReadWrite
            },
        },
    )?;
    print_warnings(&report.warnings, global);
    if global.verbose > 0 {
        for (worth_v, note) in &report.notes {
            if *worth_v || global.verbose > 1 {
                println!("{note}");
            }
        }
        println!(
            "checked {} sample object(s) against their CRDs",
            report.samples_checked
        );
    }
    if args.check {
        return super::check_up_to_date(
            &ws,
            global,
            "manifests are up to date",
            "manifest file(s) are out of date",
            "`opgen manifests`",
        );
    }
    finish(&ws, global, "generated manifests")
}
