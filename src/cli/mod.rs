//! The command line: argument parsing, dispatch, and reporting what a command did.
//! One file per subcommand; the work itself lives in `crate::ops`.

mod bundle;
mod completion;
mod create_api;
mod create_helm;
mod create_webhook;
mod delete;
mod dev_webhooks;
mod diff;
mod docs;
mod edit;
mod import;
mod init;
mod lint;
mod manifests;
mod markers;
mod new;
mod recover;
mod upgrade;

use crate::diag::{Diagnostic, Error, Result};
use crate::project::Gvk;
use crate::writer::{ChangeKind, Workspace};
use clap::{Parser, Subcommand};
use std::io::Write;
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  # A new operator project with one API, ready to build, test and deploy
  opgen new memcached-operator --domain example.com --group cache --version v1alpha1 --kind Memcached

  # The same in steps, kubebuilder style
  mkdir memcached-operator && cd memcached-operator
  opgen init --domain example.com --repo github.com/example/memcached-operator
  opgen create api --group cache --version v1alpha1 --kind Memcached

  # Regenerate CRDs and RBAC after editing the types or markers; check them in CI
  opgen manifests
  opgen manifests --check";

const ABOUT: &str = "Scaffold Rust (kube-rs) Kubernetes operators and generate their manifests";
const LONG_ABOUT: &str = "opgen scaffolds Kubernetes operators written in Rust with kube-rs, and generates their \
CRDs, RBAC roles and webhook configurations from marker-annotated Rust types, without compiling them.";

#[derive(Debug, Parser)]
#[command(name = "opgen", version, about = ABOUT, long_about = LONG_ABOUT, after_help = EXAMPLES)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, clap::Args)]
pub struct GlobalArgs {
    /// Print every file that would be created, modified or removed; write nothing
    #[arg(long, global = true)]
    pub dry_run: bool,
    /// Print only errors
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print every file written
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

/// The kind version a command is about, flattened into its arguments. A command whose `--kind`
/// means more says so with `#[command(mut_args(kind_help(...)))]`.
#[derive(Debug, Clone, clap::Args)]
pub struct GvkArgs {
    /// API group name, without the domain (e.g. cache)
    #[arg(long)]
    pub group: String,
    /// API version (e.g. v1alpha1)
    #[arg(long)]
    pub version: String,
    /// Kind
    #[arg(long)]
    pub kind: String,
}

impl GvkArgs {
    pub fn gvk(&self) -> Gvk {
        Gvk::new(&self.group, &self.version, &self.kind)
    }
}

/// Gives [`GvkArgs`]' `--kind` the help `help`, in place (`mut_arg` would move it last, and the
/// shell completions list arguments in that order).
pub(crate) fn kind_help(help: &'static str) -> impl FnMut(clap::Arg) -> clap::Arg {
    move |arg| {
        if arg.get_id() == "kind" {
            arg.help(help)
        } else {
            arg
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Init(init::Args),
    Create(create_api::CreateArgs),
    New(new::Args),
    /// Delete what `opgen create` scaffolded
    Delete(delete::DeleteArgs),
    Edit(edit::Args),
    Import(import::ImportArgs),
    Manifests(manifests::Args),
    Lint(lint::Args),
    Docs(docs::Args),
    Upgrade(upgrade::Args),
    Bundle(bundle::Args),
    DevWebhooks(dev_webhooks::Args),
    Diff(diff::Args),
    Recover(recover::Args),
    Markers(markers::Args),
    Completion(completion::Args),
}

impl Cli {
    /// The process arguments. clap builds every subcommand's arguments before it parses (about
    /// 3 % of an edit's `opgen manifests`); `opgen manifests`, run after every edit, is parsed by
    /// a command that holds only it ([`manifests_command`]), which parses and reports as the
    /// whole one does (`tests::manifests_is_parsed_as_the_whole_command_parses_it`).
    fn from_env() -> Cli {
        use clap::FromArgMatches;
        if std::env::args_os().nth(1).is_some_and(|a| a == "manifests") {
            let matches = manifests_command().get_matches();
            return Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
        }
        Cli::parse()
    }
}

/// [`Cli`]'s command with `manifests` its only subcommand.
fn manifests_command() -> clap::Command {
    use clap::Args;
    let cli = clap::Command::new("opgen")
        .version(env!("CARGO_PKG_VERSION"))
        .about(ABOUT)
        .long_about(LONG_ABOUT)
        .after_help(EXAMPLES);
    GlobalArgs::augment_args(cli)
        .subcommand(manifests::Args::augment_args(clap::Command::new(
            "manifests",
        )))
        .subcommand_required(true)
        .arg_required_else_help(true)
}

/// Runs opgen with the process arguments and returns the exit code.
pub fn main() -> i32 {
    let cli = Cli::from_env();
    let global = cli.global.clone();
    let result = match cli.command {
        Command::Init(args) => init::run(args, &global),
        Command::Create(args) => create_api::run(args, &global),
        Command::New(args) => new::run(args, &global),
        Command::Delete(args) => delete::run(args, &global),
        Command::Edit(args) => edit::run(args, &global),
        Command::Import(args) => import::run(args, &global),
        Command::Manifests(args) => manifests::run(args, &global),
        Command::Lint(args) => lint::run(args, &global),
        Command::Docs(args) => docs::run(args, &global),
        Command::Upgrade(args) => upgrade::run(args, &global),
        Command::Bundle(args) => bundle::run(args, &global),
        Command::DevWebhooks(args) => dev_webhooks::run(args, &global),
        // Its own exit statuses: 1 is a breaking change there, 2 an error.
        Command::Diff(args) => return diff::run(args, &global),
        Command::Recover(args) => recover::run(args, &global),
        Command::Markers(args) => markers::run(args),
        Command::Completion(args) => completion::run(args),
    };
    match result {
        Ok(()) => 0,
        Err(err) => {
            eprint!("{err}");
            1
        }
    }
}

pub(crate) fn print_warnings(warnings: &[Diagnostic], global: &GlobalArgs) {
    if global.quiet {
        return;
    }
    for w in warnings {
        eprint!("{w}");
    }
}

/// The directory opgen was started in.
pub(crate) fn current_dir() -> Result<PathBuf> {
    std::env::current_dir()
        .map_err(|e| Error::msg(format!("cannot read the current directory: {e}")))
}

/// The workspace of the project around the current directory (see [`open_workspace`]).
pub(crate) fn open_project_workspace(global: &GlobalArgs) -> Result<Workspace> {
    open_workspace(crate::project::find_root(&current_dir()?)?, global)
}

/// The workspace of the project around the current directory, and its PROJECT file.
pub(crate) fn open_project(global: &GlobalArgs) -> Result<(Workspace, crate::project::Project)> {
    let ws = open_project_workspace(global)?;
    let project = crate::project::Project::load(&ws)?;
    Ok((ws, project))
}

/// `--check`: Ok (printing `up_to_date` unless --quiet) when nothing staged differs from the
/// disk, else an error that counts and names the stale files (`N <stale>:`) and says to run
/// `command`.
pub(crate) fn check_up_to_date(
    ws: &Workspace,
    global: &GlobalArgs,
    up_to_date: &str,
    stale: &str,
    command: &str,
) -> Result<()> {
    let files: Vec<String> = ws
        .changes()?
        .into_iter()
        .filter(|c| c.kind != ChangeKind::Unchanged)
        .map(|c| format!("  {}", c.path.display()))
        .collect();
    if files.is_empty() {
        if !global.quiet {
            println!("{up_to_date}");
        }
        return Ok(());
    }
    Err(Error::with_help(
        format!("{} {stale}:\n{}", files.len(), files.join("\n")),
        format!("run {command} and commit the result"),
    ))
}

/// The workspace at `root`, after finishing a commit that an earlier opgen run was killed
/// in the middle of (said on stderr). With --dry-run nothing is finished, only reported.
pub(crate) fn open_workspace(root: PathBuf, global: &GlobalArgs) -> Result<Workspace> {
    let ws = Workspace::new(root);
    if global.dry_run {
        // A listing computed on a half-written tree would be wrong.
        if ws.has_interrupted_commit() {
            return Err(Error::with_help(
                "an earlier opgen run was interrupted while writing: the tree is half-written, so a dry run cannot say what this command would change",
                "run any opgen command without --dry-run to finish it (or `opgen recover --finish` / `--abandon`), then the dry run again; nothing was written",
            ));
        }
        return Ok(ws);
    }
    if let Some(files) = ws.finish_interrupted_commit()? {
        eprintln!(
            "note: finished writing the {files} files of an earlier opgen run that was interrupted"
        );
    }
    Ok(ws)
}

/// Commits the workspace (or, with --dry-run, lists what would change) and reports it.
pub(crate) fn finish(ws: &Workspace, global: &GlobalArgs, summary: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let io_err = |e: std::io::Error| Error::msg(format!("cannot write to stdout: {e}"));
    if global.dry_run {
        ws.check_targets()?;
        for change in ws.changes()? {
            let verb = match change.kind {
                ChangeKind::Create => "would create",
                ChangeKind::Update => "would update",
                ChangeKind::Delete => "would remove",
                ChangeKind::Unchanged if global.verbose > 0 => "unchanged   ",
                ChangeKind::Unchanged => continue,
            };
            let note = change.note.map(|n| format!(" ({n})")).unwrap_or_default();
            writeln!(out, "{verb} {}{note}", change.path.display()).map_err(io_err)?;
        }
        writeln!(out, "dry run: nothing was written").map_err(io_err)?;
        return Ok(());
    }
    let changes = ws.commit()?;
    if global.quiet {
        return Ok(());
    }
    let (mut created, mut updated, mut removed) = (0, 0, 0);
    for change in &changes {
        let verb = match change.kind {
            ChangeKind::Create => {
                created += 1;
                "created"
            }
            ChangeKind::Update => {
                updated += 1;
                "updated"
            }
            ChangeKind::Delete => {
                removed += 1;
                "removed"
            }
            ChangeKind::Unchanged => continue,
        };
        // Files replaced with --force or removed are always named: their content is gone.
        if global.verbose > 0 || change.note.is_some() {
            let note = change
                .note
                .as_ref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default();
            writeln!(out, "{verb} {}{note}", change.path.display()).map_err(io_err)?;
        }
    }
    let removed = if removed > 0 {
        format!(", {removed} removed")
    } else {
        String::new()
    };
    writeln!(
        out,
        "{summary}: {created} created, {updated} updated{removed}"
    )
    .map_err(io_err)?;
    Ok(())
}

/// Parses `true`/`false` for flags written `--flag=false`, as kubebuilder's are.
pub(crate) fn bool_value() -> clap::builder::BoolValueParser {
    clap::builder::BoolValueParser::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, FromArgMatches};

    /// What a command makes of `args`: the parsed command line, or the error (help and
    /// version included) as clap prints it.
    fn outcome(command: clap::Command, args: &[&str]) -> String {
        let argv = std::iter::once("opgen").chain(args.iter().copied());
        match command.try_get_matches_from(argv) {
            Ok(matches) => format!("{:?}", Cli::from_arg_matches(&matches).unwrap()),
            Err(e) => format!("{:?}: {}", e.kind(), e.render()),
        }
    }

    #[test]
    fn manifests_is_parsed_as_the_whole_command_parses_it() {
        let cases: &[&[&str]] = &[
            &["manifests"],
            &["manifests", "-q"],
            &["manifests", "-vv", "--no-cache"],
            &["manifests", "--check", "--strict", "--dry-run"],
            &[
                "manifests",
                "--max-desc-len",
                "40",
                "--generate-embedded-object-meta",
            ],
            &["manifests", "--max-desc-len", "many"],
            &["manifests", "-q", "-v"],
            &["manifests", "--chek"],
            &["manifests", "extra"],
            &["manifests", "--help"],
            &["manifests", "-h"],
            &["manifests", "--version"],
            &["manifests", "-V"],
            &["-q", "manifests"],
        ];
        for args in cases {
            let whole = outcome(Cli::command(), args);
            assert_eq!(outcome(manifests_command(), args), whole, "{args:?}");
        }
        // The cases cover both outcomes.
        assert!(outcome(Cli::command(), &["manifests", "-q"]).starts_with("Cli {"));
        assert!(outcome(Cli::command(), &["manifests", "--help"]).starts_with("DisplayHelp"));
    }
}
