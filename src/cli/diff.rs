//! `opgen diff`

use super::GlobalArgs;
use crate::compat::{Report, Severity, Strictness};
use crate::diag::{Error, Result};
use crate::ops::diff::{DiffContext, Source, diff};
use std::io::Write;
use std::path::PathBuf;

/// Exit codes of `opgen diff`, for CI.
pub const EXIT_OK: i32 = 0;
pub const EXIT_BREAKING: i32 = 1;
pub const EXIT_ERROR: i32 = 2;

/// Classify every change between two versions of the project's CRDs as breaking, possibly breaking or compatible
#[derive(Debug, clap::Args)]
#[command(after_help = "\
OLD and NEW are each CRD YAML files or directories, a git revision of the
project (`v1.2.0` reads config/crd/bases there, `v1.2.0:deploy/crds` another
path), or `cluster:` (the CRDs of the current kubeconfig context, read with
kubectl; KUBECTL overrides which). NEW defaults to what `opgen manifests`
generates now (nothing is written).

Breaking: a request the old CRD accepts is refused, or stored data is lost.
Possibly breaking: it depends on the objects or on what clients expect. With
--strictness wire, only what the API server refuses or loses counts; client
(the default) also counts what clients notice (new enum values, defaults,
nullability, printer columns). -v lists the compatible changes too.

Exit status: 0 nothing at or above --fail-on, 1 a change at or above it,
2 bad arguments or input.

Examples:
  opgen diff v0.3.0                      # the last release against the sources
  opgen diff HEAD config/crd/bases -o json
  opgen diff cluster: --strictness wire  # what applying today's CRDs breaks")]
pub struct Args {
    /// The CRDs before: files or directories, a git revision[:path], or `cluster:`
    pub old: String,
    /// The CRDs after (default: what `opgen manifests` generates now)
    pub new: Option<String>,
    /// Which changes count: `wire` (what the API server refuses or loses) or `client` (also what clients notice)
    #[arg(long, value_enum, default_value = "client")]
    pub strictness: StrictnessArg,
    /// Output format
    #[arg(short, long, value_enum, default_value = "text")]
    pub output: Output,
    /// The severity that makes the exit status 1
    #[arg(long, value_enum, default_value = "breaking")]
    pub fail_on: FailOn,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum StrictnessArg {
    Wire,
    Client,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Output {
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum FailOn {
    Breaking,
    PossiblyBreaking,
}

/// Runs the command; returns the exit status (errors are printed here, with status 2).
pub fn run(args: Args, global: &GlobalArgs) -> i32 {
    match compare(&args).and_then(|report| print(&report, &args, global)) {
        Ok(code) => code,
        Err(err) => {
            eprint!("{err}");
            EXIT_ERROR
        }
    }
}

fn compare(args: &Args) -> Result<Report> {
    let dir = super::current_dir()?;
    let old = Source::parse(&args.old, &dir)?;
    let new = match &args.new {
        Some(new) => Source::parse(new, &dir)?,
        None => Source::Manifests,
    };
    let kubectl = std::env::var_os("KUBECTL")
        .filter(|k| !k.is_empty())
        .map_or_else(|| PathBuf::from("kubectl"), PathBuf::from);
    diff(&old, &new, &DiffContext { dir, kubectl })
}

fn print(report: &Report, args: &Args, global: &GlobalArgs) -> Result<i32> {
    let strictness = match args.strictness {
        StrictnessArg::Wire => Strictness::Wire,
        StrictnessArg::Client => Strictness::Client,
    };
    let threshold = match args.fail_on {
        FailOn::Breaking => Severity::Breaking,
        FailOn::PossiblyBreaking => Severity::PossiblyBreaking,
    };
    let verdict = report.verdict(strictness);
    let mut out = std::io::stdout().lock();
    let io_err = |e: std::io::Error| Error::msg(format!("cannot write to stdout: {e}"));
    match args.output {
        Output::Json => {
            let findings: Vec<serde_json::Value> = report
                .findings
                .iter()
                .map(|f| {
                    let mut v = serde_json::to_value(f).unwrap_or_default();
                    v["severity"] =
                        serde_json::to_value(f.severity_at(strictness)).unwrap_or_default();
                    v["severityAtClient"] = serde_json::to_value(f.severity).unwrap_or_default();
                    v
                })
                .collect();
            let json = serde_json::json!({
                "strictness": strictness,
                "verdict": verdict,
                "findings": findings,
            });
            let text = serde_json::to_string_pretty(&json).unwrap_or_default();
            writeln!(out, "{text}").map_err(io_err)?;
        }
        Output::Text => {
            let mut counts = [0usize; 3];
            for f in &report.findings {
                let severity = f.severity_at(strictness);
                counts[severity as usize] += 1;
                if severity == Severity::Compatible && global.verbose == 0 {
                    continue;
                }
                let mut at = f.crd.clone();
                for part in [&f.version, &f.path].into_iter().flatten() {
                    at.push(' ');
                    at.push_str(part);
                }
                writeln!(out, "{:<17} {at}: {}", severity.as_str(), f.message).map_err(io_err)?;
            }
            if !global.quiet {
                writeln!(
                    out,
                    "{}: {} breaking, {} possibly breaking, {} compatible change(s) (strictness {}{})",
                    verdict.as_str(),
                    counts[2],
                    counts[1],
                    counts[0],
                    match strictness {
                        Strictness::Wire => "wire",
                        Strictness::Client => "client",
                    },
                    if counts[0] > 0 && global.verbose == 0 {
                        "; -v lists the compatible ones"
                    } else {
                        ""
                    }
                )
                .map_err(io_err)?;
            }
        }
    }
    Ok(if verdict >= threshold {
        EXIT_BREAKING
    } else {
        EXIT_OK
    })
}
