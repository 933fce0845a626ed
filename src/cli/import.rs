//! `opgen import crd`

use super::{GlobalArgs, finish, print_warnings};
use crate::diag::Result;
use crate::ops::import_crd::{ImportOptions, import_crds};
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
    let ImportCommand::Crd(args) = args.what;
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
