//! `opgen create api`

use super::{GlobalArgs, GvkArgs, bool_value, finish, print_warnings};
use crate::diag::Result;
use crate::ops::create_api::{ApiOptions, create_api};
use crate::ops::manifests::{ManifestOptions, manifests};

/// Scaffold new resources in an existing project
#[derive(Debug, clap::Args)]
pub struct CreateArgs {
    #[command(subcommand)]
    pub what: CreateCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum CreateCommand {
    Api(Args),
    Webhook(super::create_webhook::Args),
    Helm(super::create_helm::Args),
}

/// Scaffold a kind: its Rust types, a controller, a sample and helper roles
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  opgen create api --group cache --version v1alpha1 --kind Memcached"
)]
pub struct Args {
    #[command(flatten)]
    pub api: ApiArgs,
    /// Replace user-owned files that already exist (types, controller, sample)
    #[arg(long)]
    pub force: bool,
    /// Run `opgen manifests` afterwards
    #[arg(long, value_parser = bool_value(), default_value_t = true, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub make: bool,
}

/// The API flags shared by `create api` and `new`.
#[derive(Debug, Clone, clap::Args)]
#[command(mut_args(super::kind_help("Kind, PascalCase (e.g. Memcached)")))]
pub struct ApiArgs {
    #[command(flatten)]
    pub gvk: GvkArgs,
    /// Resource name in URLs and RBAC rules [default: the English plural of the kind]
    #[arg(long)]
    pub plural: Option<String>,
    /// Whether the kind is namespaced (false: cluster-scoped) [default: the scope of the kind's other versions, else true]
    #[arg(long, value_parser = bool_value(), num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub namespaced: Option<bool>,
    /// Scaffold the kind's types
    #[arg(long, value_parser = bool_value(), default_value_t = true, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub resource: bool,
    /// Scaffold a controller for the kind
    #[arg(long, value_parser = bool_value(), default_value_t = true, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub controller: bool,
    /// Keep a finalizer on each object, so that the controller's `cleanup` runs before it goes (false: no finalizer, for kinds whose deletion needs no cleanup outside the cluster)
    #[arg(long, value_parser = bool_value(), default_value_t = true, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub finalizer: bool,
}

impl ApiArgs {
    pub fn options(&self, force: bool) -> ApiOptions {
        ApiOptions {
            gvk: self.gvk.gvk(),
            plural: self.plural.clone(),
            namespaced: self.namespaced,
            resource: self.resource,
            controller: self.controller,
            finalizer: self.finalizer,
            force,
        }
    }
}

pub fn run(args: CreateArgs, global: &GlobalArgs) -> Result<()> {
    let args = match args.what {
        CreateCommand::Api(args) => args,
        CreateCommand::Webhook(args) => return super::create_webhook::run(args, global),
        CreateCommand::Helm(args) => return super::create_helm::run(args, global),
    };
    let (mut ws, mut project) = super::open_project(global)?;
    let warnings = create_api(&mut ws, &mut project, &args.api.options(args.force))?;
    print_warnings(&warnings, global);
    if args.make {
        let report = manifests(&mut ws, &ManifestOptions::default())?;
        print_warnings(&report.warnings, global);
    }
    finish(&ws, global, &format!("created API {}", args.api.gvk.kind))?;
    if !global.quiet && !global.dry_run && !args.make {
        println!("next: opgen manifests");
    }
    Ok(())
}
