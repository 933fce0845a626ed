//! `opgen new`: mkdir + init (+ create api + manifests), committed as one write.

use super::create_api::ApiArgs;
use super::init::ProjectArgs;
use super::{GlobalArgs, GvkArgs, finish, print_warnings};
use crate::diag::{Error, Result};
use crate::ops::create_api::create_api;
use crate::ops::init::init;
use crate::ops::manifests::{ManifestOptions, manifests};
use std::path::PathBuf;

/// Create a new operator project in <DIR>, optionally with its first API
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  opgen new memcached-operator --domain example.com --group cache --version v1alpha1 --kind Memcached"
)]
pub struct Args {
    /// Directory to create; its name is the default project name
    pub dir: PathBuf,
    #[command(flatten)]
    pub project: ProjectArgs,
    /// API group of a first kind (needs --version and --kind)
    #[arg(long, requires_all = ["version", "kind"])]
    pub group: Option<String>,
    /// API version of a first kind
    #[arg(long, requires_all = ["group", "kind"])]
    pub version: Option<String>,
    /// First kind, PascalCase
    #[arg(long, requires_all = ["group", "version"])]
    pub kind: Option<String>,
    /// Plural of the first kind
    #[arg(long, requires = "kind")]
    pub plural: Option<String>,
    /// Initialise a git repository (not inside an existing one), as `cargo new --vcs`
    #[arg(long, value_enum, default_value_t = Vcs::Git)]
    pub vcs: Vcs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Vcs {
    Git,
    None,
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<()> {
    if args.dir.exists() {
        let empty = args
            .dir
            .read_dir()
            .map(|mut d| d.next().is_none())
            .unwrap_or(false);
        if !empty {
            return Err(Error::with_help(
                format!("destination {} already exists", args.dir.display()),
                "use `opgen init` inside an existing directory, or choose another name",
            ));
        }
    }
    let mut project_args = args.project.clone();
    if project_args.project_name.is_none() {
        project_args.project_name = args
            .dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
    }
    let mut ws = super::open_workspace(args.dir.clone(), global)?;
    let (mut project, warnings) = init(&mut ws, &project_args.options())?;
    print_warnings(&warnings, global);
    if let (Some(group), Some(version), Some(kind)) = (args.group, args.version, args.kind) {
        let api = ApiArgs {
            gvk: GvkArgs {
                group,
                version,
                kind,
            },
            plural: args.plural,
            namespaced: None,
            resource: true,
            controller: true,
            finalizer: true,
        };
        let warnings = create_api(&mut ws, &mut project, &api.options(false))?;
        print_warnings(&warnings, global);
    }
    let report = manifests(&mut ws, &ManifestOptions::default())?;
    print_warnings(&report.warnings, global);
    finish(
        &ws,
        global,
        &format!(
            "created project {} in {}",
            project.project_name,
            args.dir.display()
        ),
    )?;
    if args.vcs == Vcs::Git && !global.dry_run {
        let warnings: Vec<_> = crate::ops::init::git_init(&args.dir).into_iter().collect();
        print_warnings(&warnings, global);
    }
    if !global.quiet && !global.dry_run {
        println!("next: cd {} && cargo test", args.dir.display());
    }
    Ok(())
}
