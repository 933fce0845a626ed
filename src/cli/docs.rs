//! `opgen docs`

use super::{GlobalArgs, finish, print_warnings};
use crate::diag::Result;
use crate::ops::docs::{DEFAULT_OUT, docs};
use std::path::PathBuf;

/// Write the API reference of the kinds under src/: one Markdown document per group version
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  opgen docs                 # write docs/api/<group>_<version>.md and docs/api/README.md\n  opgen docs --check         # in CI: fail if the reference is out of date"
)]
pub struct Args {
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Markdown)]
    pub format: Format,
    /// Directory to write the reference to, relative to the project root
    #[arg(long, value_name = "DIR", default_value = DEFAULT_OUT)]
    pub out: PathBuf,
    /// Write nothing; exit non-zero and list every file that is out of date
    #[arg(long)]
    pub check: bool,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Format {
    Markdown,
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<()> {
    let Format::Markdown = args.format;
    let mut ws = super::open_project_workspace(global)?;
    let report = docs(&mut ws, &args.out)?;
    print_warnings(&report.warnings, global);
    if args.check {
        return super::check_up_to_date(
            &ws,
            global,
            "the API reference is up to date",
            "API reference file(s) are out of date",
            "`opgen docs`",
        );
    }
    finish(&ws, global, "generated the API reference")
}
