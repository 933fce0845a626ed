//! `opgen import crd`, `opgen import go`

use super::{GlobalArgs, finish, print_warnings};
use crate::diag::Result;
use crate::markers::typed::names;
use crate::ops::import_crd::{ImportOptions, import_crds};
use crate::ops::import_go::{GoControllers, ImportGoOptions, import_go};
use std::path::PathBuf;

/// Bring what other tools wrote into the project
#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    #[command(subcommand)]
    pub what: ImportCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum ImportCommand {
    Crd(CrdArgs),
    Go(GoArgs),
}

/// Marker-annotated Rust types from Go API packages (kubebuilder's `api/<version>`, `apis/<group>/<version>`), so that `opgen manifests` writes the CRDs controller-gen writes from them
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  opgen import go ../memcached-operator                  # its ./api/... packages\n  opgen import go ../kueue --paths ./apis/kueue/...\n\nNeeds Go: packages and their modules are resolved by `go list`, as controller-gen resolves them.\nEach Go file of an API package becomes src/api/[<group>/]<version>/<file>.rs, types of other\npackages it names go to src/api/upstream/, the kinds are recorded in PROJECT and their CRDs\nwritten. A marker opgen does not know (controller-gen ignores those) is left out with a warning."
)]
pub struct GoArgs {
    /// The Go module (or a directory inside it) holding the API packages
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Go package patterns of the API packages, relative to DIR (as controller-gen's `paths=`)
    #[arg(long, value_name = "PATTERN", default_values = ["./api/...", "./apis/..."])]
    pub paths: Vec<String>,
    /// controller-gen's `crd:generateEmbeddedObjectMeta=true`: keep the metadata schema of embedded objects (e.g. pod templates)
    #[arg(long)]
    pub generate_embedded_object_meta: bool,
    /// Also a controller per kind a Go reconciler reconciles, with the Go controllers' `+kubebuilder:rbac` markers (their logic is not translated) and an envtest test on the kind's sample, and the kinds' webhooks (`+kubebuilder:webhook` markers, PROJECT's conversions)
    #[arg(long)]
    pub controllers: bool,
    /// Replace files and PROJECT resources that already exist
    #[arg(long)]
    pub force: bool,
}

/// Marker-annotated Rust types from CustomResourceDefinitions, so that `opgen manifests` writes the same CRDs
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  opgen import crd config/crd/bases/                 # every CRD below a directory\n  kubectl get crd certificates.cert-manager.io -o yaml | opgen import crd --external -\n\nEach version of a kind becomes src/api/[<group>/]<version>/<kind>_types.rs, scaffolded as\n`opgen create api --controller=false` scaffolds it; the CRDs are regenerated and every place\nwhere they differ from the imported ones is reported."
)]
pub struct CrdArgs {
    /// CRD YAML files, directories holding them, or - for standard input
    #[arg(required = true, value_name = "FILE|DIR|-")]
    pub inputs: Vec<PathBuf>,
    /// Import the types only, under src/api/external/ (an API the project uses but does not serve: no CRD, no sample, nothing in PROJECT)
    #[arg(long)]
    pub external: bool,
    /// Replace types files that already exist
    #[arg(long)]
    pub force: bool,
}

pub fn run(args: ImportArgs, global: &GlobalArgs) -> Result<()> {
    let args = match args.what {
        ImportCommand::Crd(args) => args,
        ImportCommand::Go(args) => return run_go(args, global),
    };
    let docs = crate::load_crd::read(&args.inputs)?;
    let (mut ws, mut project) = super::open_project(global)?;
    let report = import_crds(
        &mut ws,
        &mut project,
        &docs,
        &ImportOptions {
            external: args.external,
            force: args.force,
        },
    )?;
    print_warnings(&report.warnings, global);
    finish(
        &ws,
        global,
        &format!("imported {}", report.kinds.join(", ")),
    )
}

fn run_go(args: GoArgs, global: &GlobalArgs) -> Result<()> {
    let (mut ws, mut project) = super::open_project(global)?;
    // `./api/...` matches nothing in a module without it: keep the patterns that exist.
    let mut paths: Vec<String> = args
        .paths
        .iter()
        .filter(|p| {
            let base = p.trim_end_matches("/...").trim_start_matches("./");
            !p.starts_with("./") || args.dir.join(base).exists()
        })
        .cloned()
        .collect();
    if paths.is_empty() {
        paths = args.paths.clone();
    }
    let packages = crate::load_go::load(&args.dir, &paths)?;
    let controllers = if args.controllers {
        Some(GoControllers {
            dir: args.dir.clone(),
            files: crate::load_go::controllers(
                &args.dir,
                names::KUBEBUILDER_RBAC,
                names::KUBEBUILDER_WEBHOOK,
            )?,
            samples: crate::load_go::samples(&args.dir)?,
            project: crate::load_go::go_project(&args.dir)?,
        })
    } else {
        None
    };
    let report = import_go(
        &mut ws,
        &mut project,
        &packages,
        &ImportGoOptions {
            force: args.force,
            generate_embedded_object_meta: args.generate_embedded_object_meta,
            controllers,
        },
    )?;
    print_warnings(&report.warnings, global);
    finish(
        &ws,
        global,
        &format!("imported {}", report.kinds.join(", ")),
    )
}
