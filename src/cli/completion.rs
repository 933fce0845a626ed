//! `opgen completion <shell>`

use crate::diag::Result;
use clap::CommandFactory;

/// Print a shell completion script
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  opgen completion bash > /etc/bash_completion.d/opgen")]
pub struct Args {
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

pub fn run(args: Args) -> Result<()> {
    let mut cmd = super::Cli::command();
    clap_complete::generate(args.shell, &mut cmd, "opgen", &mut std::io::stdout());
    Ok(())
}
