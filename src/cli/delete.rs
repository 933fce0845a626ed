//! `opgen delete webhook`

use super::{GlobalArgs, GvkArgs, bool_value, finish, print_warnings};
use crate::diag::Result;
use crate::ops::delete::{DeleteApiOptions, DeleteWebhookOptions, delete_api, delete_webhook};
use crate::ops::manifests::{ManifestOptions, manifests};

#[derive(Debug, clap::Args)]
pub struct DeleteArgs {
    #[command(subcommand)]
    pub what: What,
}

#[derive(Debug, clap::Subcommand)]
pub enum What {
    Api(ApiArgs),
    Webhook(WebhookArgs),
}

/// Delete a kind version: its types, controller, sample, helper roles, registrations and PROJECT entry
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  opgen delete api --group cache --version v1alpha1 --kind Memcached --dry-run"
)]
pub struct ApiArgs {
    #[command(flatten)]
    pub target: TargetArgs,
}

/// Delete the webhooks of a kind (all of them, or those named): their files, registrations and PROJECT entry
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  opgen delete webhook --group cache --version v1alpha1 --kind Memcached --dry-run\n  opgen delete webhook --group cache --version v1alpha1 --kind Memcached --defaulting"
)]
pub struct WebhookArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Delete the defaulting webhook only (with --validation/--conversion: those too)
    #[arg(long)]
    pub defaulting: bool,
    /// Delete the validating webhook only (with --defaulting/--conversion: those too)
    #[arg(long)]
    pub validation: bool,
    /// Delete the conversion webhook only (with --defaulting/--validation: those too)
    #[arg(long)]
    pub conversion: bool,
}

/// The kind version a delete is about.
#[derive(Debug, clap::Args)]
pub struct TargetArgs {
    #[command(flatten)]
    pub gvk: GvkArgs,
    /// Remove files you edited and skip lines you changed (they are named)
    #[arg(long)]
    pub force: bool,
    /// Run `opgen manifests` afterwards
    #[arg(long, value_parser = bool_value(), default_value_t = true, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub make: bool,
}

pub fn run(args: DeleteArgs, global: &GlobalArgs) -> Result<()> {
    match args.what {
        What::Webhook(args) => run_webhook(args, global),
        What::Api(args) => run_api(args.target, global),
    }
}

fn run_webhook(hooks: WebhookArgs, global: &GlobalArgs) -> Result<()> {
    let (mut ws, mut project) = super::open_project(global)?;
    let args = hooks.target;
    let opts = DeleteWebhookOptions {
        gvk: args.gvk.gvk(),
        defaulting: hooks.defaulting,
        validation: hooks.validation,
        conversion: hooks.conversion,
        force: args.force,
    };
    let warnings = delete_webhook(&mut ws, &mut project, &opts)?;
    print_warnings(&warnings, global);
    if args.make {
        let report = manifests(&mut ws, &ManifestOptions::default())?;
        print_warnings(&report.warnings, global);
    }
    finish(
        &ws,
        global,
        &format!("deleted webhooks of {}", args.gvk.kind),
    )
}

fn run_api(args: TargetArgs, global: &GlobalArgs) -> Result<()> {
    let (mut ws, mut project) = super::open_project(global)?;
    let opts = DeleteApiOptions {
        gvk: args.gvk.gvk(),
        force: args.force,
    };
    let warnings = delete_api(&mut ws, &mut project, &opts)?;
    print_warnings(&warnings, global);
    if args.make {
        let report = manifests(&mut ws, &ManifestOptions::default())?;
        print_warnings(&report.warnings, global);
    }
    finish(&ws, global, &format!("deleted API {}", args.gvk.kind))
}
