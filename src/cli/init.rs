//! `opgen init`

use super::{GlobalArgs, finish};
use crate::diag::{Error, Result};
use crate::ops::init::{InitOptions, K8sVersion, License, init};
use crate::ops::manifests::{ManifestOptions, manifests};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

/// Scaffold a new operator project in the current directory
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  opgen init --domain example.com --repo github.com/example/memcached-operator\n\nIn a crate made by `cargo new`, init keeps its name, dependencies and files and adds the rest."
)]
pub struct Args {
    #[command(flatten)]
    pub project: ProjectArgs,
    /// In an existing crate: replace its files and dependency requirements that conflict with the scaffold's (each is named)
    #[arg(long)]
    pub force: bool,
}

/// Flags shared by `init` and `new`.
#[derive(Debug, Clone, clap::Args)]
pub struct ProjectArgs {
    /// Domain of the project's API groups: group `cache` becomes `cache.<domain>`
    #[arg(long)]
    pub domain: String,
    /// Module path of the project, e.g. github.com/example/memcached-operator (names the leader-election lease)
    #[arg(long)]
    pub repo: Option<String>,
    /// Project and Cargo package name [default: the directory's name]
    #[arg(long)]
    pub project_name: Option<String>,
    /// Copyright holder in the license header
    #[arg(long)]
    pub owner: Option<String>,
    /// License header for generated Rust files
    #[arg(long, default_value = "apache2", value_parser = license_parser())]
    pub license: License,
    /// Kubernetes version the operator is built against (the k8s-openapi feature)
    #[arg(long, default_value = "1.33", value_parser = k8s_version_parser())]
    pub k8s_version: K8sVersion,
    /// Scope the manager to namespaces (WATCH_NAMESPACE, Role instead of ClusterRole)
    #[arg(long)]
    pub namespaced: bool,
    /// Lay out APIs as src/api/<group>/<version> so that the project can hold several groups
    #[arg(long)]
    pub multigroup: bool,
}

/// The ops layer's `License` as clap choices, each with its help.
pub(super) fn license_parser() -> impl clap::builder::TypedValueParser<Value = License> {
    let choices = License::CHOICES.map(|(name, _, help)| PossibleValue::new(name).help(help));
    PossibleValuesParser::new(choices).map(|name| {
        License::CHOICES
            .into_iter()
            .find_map(|(n, license, _)| (n == name).then_some(license))
            .expect("clap accepts only the choices")
    })
}

fn k8s_version_parser() -> impl clap::builder::TypedValueParser<Value = K8sVersion> {
    PossibleValuesParser::new(K8sVersion::ALL.map(|v| PossibleValue::new(v.name()))).map(|name| {
        K8sVersion::ALL
            .into_iter()
            .find(|v| v.name() == name)
            .expect("clap accepts only the choices")
    })
}

impl ProjectArgs {
    pub fn options(&self) -> InitOptions {
        InitOptions {
            domain: self.domain.clone(),
            repo: self.repo.clone(),
            project_name: self.project_name.clone(),
            owner: self.owner.clone(),
            license: self.license,
            k8s_version: self.k8s_version,
            namespaced: self.namespaced,
            multigroup: self.multigroup,
            force: false,
        }
    }
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<()> {
    let cwd = std::env::current_dir()
        .map_err(|e| Error::msg(format!("cannot read the current directory: {e}")))?;
    let mut ws = super::open_workspace(cwd, global)?;
    let options = InitOptions {
        force: args.force,
        ..args.project.options()
    };
    let (project, warnings) = init(&mut ws, &options)?;
    super::print_warnings(&warnings, global);
    let report = manifests(&mut ws, &ManifestOptions::default())?;
    super::print_warnings(&report.warnings, global);
    finish(
        &ws,
        global,
        &format!("initialized project {}", project.project_name),
    )?;
    if !global.quiet && !global.dry_run {
        println!("next: opgen create api --group <group> --version <version> --kind <Kind>");
    }
    Ok(())
}
