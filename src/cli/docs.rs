//! `opgen docs`

use super::{GlobalArgs, finish, print_warnings};
use crate::diag::Result;
use crate::ops::docs::{DEFAULT_OUT, DocsFormat, docs};
use std::path::PathBuf;

/// Write the API reference of the kinds under src/: one document per group version (Markdown,
/// AsciiDoc or HTML)
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  opgen docs                 # write docs/api/<group>_<version>.md and docs/api/README.md\n  opgen docs --check         # in CI: fail if the reference is out of date\n  opgen docs --format html   # docs/api/<group>_<version>.html and docs/api/index.html"
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
    /// GitHub-flavoured Markdown (README.md is the index)
    Markdown,
    /// AsciiDoc, as Asciidoctor reads it (README.adoc is the index)
    Asciidoc,
    /// Standalone HTML5 pages (index.html is the index)
    Html,
}

impl From<Format> for DocsFormat {
    fn from(format: Format) -> Self {
        match format {
            Format::Markdown => DocsFormat::Markdown,
            Format::Asciidoc => DocsFormat::Asciidoc,
            Format::Html => DocsFormat::Html,
        }
    }
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<()> {
    let mut ws = super::open_project_workspace(global)?;
    let report = docs(&mut ws, &args.out, args.format.into())?;
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
