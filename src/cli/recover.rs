//! `opgen recover`

use super::GlobalArgs;
use crate::diag::{Error, Result};
use crate::ops::recover::{Choice, recover};
use crate::writer::Workspace;

/// Finish or abandon an opgen run that was interrupted while writing, when files it was
/// writing changed since (other commands refuse to finish it then)
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  opgen recover --finish     # write the files as the interrupted run meant to\n  opgen recover --abandon    # keep the files as they are now"
)]
pub struct Args {
    /// Write every file as the interrupted run meant to, overwriting the later changes
    #[arg(long, conflicts_with = "abandon", required_unless_present = "abandon")]
    pub finish: bool,
    /// Drop the interrupted run; every file stays as it is now
    #[arg(long)]
    pub abandon: bool,
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<()> {
    if global.dry_run {
        return Err(Error::msg(
            "opgen recover has no --dry-run: it writes nothing without --finish or --abandon",
        ));
    }
    // Not `open_workspace`: that refuses the very state this command resolves.
    let ws = Workspace::new(crate::project::find_root(&super::current_dir()?)?);
    let choice = if args.finish {
        Choice::Finish
    } else {
        Choice::Abandon
    };
    let done = recover(&ws, choice)?;
    if !global.quiet {
        println!("{done}");
    }
    Ok(())
}
