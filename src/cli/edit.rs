//! `opgen edit`

use super::{GlobalArgs, bool_value, finish, print_warnings};
use crate::diag::Result;
use crate::ops::edit::{EditOptions, edit};
use crate::ops::init::License;
use crate::ops::manifests::{ManifestOptions, manifests};

/// Change project options recorded in PROJECT, and the files that follow from them
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  # Move every kind into a group directory (src/api/<group>/<version>, src/controllers/<group>/, ...)
  # so that the project can hold several API groups; see what moves first
  opgen edit --multigroup --dry-run
  opgen edit --multigroup

  # Back to the single-group layout (only while the project has one group)
  opgen edit --multigroup=false

  # The license header of the Rust files opgen creates from now on
  opgen edit --license apache2 --owner \"Example Corp\"

Files still as opgen wrote them are rewritten as `create` writes them in the new layout;
edited files move with the module paths in them rewritten, and every path in src/ and tests/
that names a moved module is rewritten too. A path opgen cannot resolve is an error at its
line, and nothing is written.")]
pub struct Args {
    /// Lay out APIs, controllers and webhooks by group (src/api/<group>/<version>), moving the existing ones; =false moves them back
    #[arg(long, value_parser = bool_value(), num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub multigroup: Option<bool>,
    /// License header for the Rust files opgen creates from now on (rewrites hack/boilerplate.rs.txt)
    #[arg(long, value_parser = super::init::license_parser())]
    pub license: Option<License>,
    /// Copyright holder in the license header
    #[arg(long)]
    pub owner: Option<String>,
    /// Run `opgen manifests` afterwards
    #[arg(long, value_parser = bool_value(), default_value_t = true, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub make: bool,
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<()> {
    let (mut ws, mut project) = super::open_project(global)?;
    let opts = EditOptions {
        multigroup: args.multigroup,
        license: args.license,
        owner: args.owner,
    };
    let warnings = edit(&mut ws, &mut project, &opts)?;
    print_warnings(&warnings, global);
    if args.make {
        let opts = ManifestOptions {
            keep_version_stamps: true,
            ..ManifestOptions::default()
        };
        let report = manifests(&mut ws, &opts)?;
        print_warnings(&report.warnings, global);
    }
    finish(&ws, global, "edited the project")
}
