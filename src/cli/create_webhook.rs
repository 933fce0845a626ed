//! `opgen create webhook`

use super::{GlobalArgs, GvkArgs, bool_value, finish, print_warnings};
use crate::diag::Result;
use crate::ops::create_webhook::{WebhookOptions, create_webhook};
use crate::ops::manifests::{ManifestOptions, manifests};

/// Scaffold admission webhooks for a kind: a defaulting and/or a validating webhook
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  opgen create webhook --group cache --version v1alpha1 --kind Memcached --defaulting --programmatic-validation"
)]
#[command(mut_args(super::kind_help("Kind, as created with `opgen create api`")))]
pub struct Args {
    #[command(flatten)]
    pub gvk: GvkArgs,
    /// Scaffold a mutating webhook that sets defaults
    #[arg(long)]
    pub defaulting: bool,
    /// Scaffold a validating webhook
    #[arg(long)]
    pub programmatic_validation: bool,
    /// Scaffold a conversion webhook between --version (the hub) and the --spoke versions
    #[arg(long)]
    pub conversion: bool,
    /// With --conversion: the other versions of the kind, comma-separated (e.g. v1beta1,v2)
    #[arg(long, value_delimiter = ',', requires = "conversion")]
    pub spoke: Vec<String>,
    /// Replace the kind's webhook file if it exists (needed to add a second kind of webhook)
    #[arg(long)]
    pub force: bool,
    /// Run `opgen manifests` afterwards
    #[arg(long, value_parser = bool_value(), default_value_t = true, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub make: bool,
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<()> {
    let (mut ws, mut project) = super::open_project(global)?;
    let opts = WebhookOptions {
        gvk: args.gvk.gvk(),
        defaulting: args.defaulting,
        validation: args.programmatic_validation,
        conversion: args.conversion,
        spokes: args.spoke,
        force: args.force,
        ..Default::default()
    };
    let warnings = create_webhook(&mut ws, &mut project, &opts)?;
    print_warnings(&warnings, global);
    if args.make {
        let report = manifests(&mut ws, &ManifestOptions::default())?;
        print_warnings(&report.warnings, global);
    }
    finish(
        &ws,
        global,
        &format!("created webhook for {}", args.gvk.kind),
    )?;
    if !global.quiet && !global.dry_run {
        println!(
            "next: fill in the hooks in src/webhooks/; `make deploy` needs cert-manager in the cluster"
        );
    }
    Ok(())
}
