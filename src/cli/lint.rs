//! `opgen lint`

use super::{GlobalArgs, finish};
use crate::diag::{Error, Result};
use crate::lint;
use crate::ops::lint::{LintOptions, lint};

/// Check the API types against the Kubernetes API conventions (kube-api-linter's rules, and what serde does that the schema cannot say)
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  opgen lint                 # warnings and errors at each field; non-zero exit on an error\n  opgen lint --strict        # in CI: every finding fails\n  opgen lint --fix           # apply the mechanical fixes, report the rest\n  opgen lint --list          # the rules, on by default or not\n\nConfiguration, in Cargo.toml:\n  [package.metadata.opgen.lint]\n  enable = [\"nobools\"]\n  disable = [\"commentstart\"]\n  [[package.metadata.opgen.lint.exceptions]]\n  rule = \"nofloats\"\n  field = \"ScalerSpec.ratio\"\n  reason = \"mirrors the upstream API\"\n  [package.metadata.opgen.lint.rules.forbiddenmarkers]   # a rule's settings, kube-api-linter's keys\n  markers = [{ identifier = \"kubebuilder:validation:XEmbeddedResource\" }]\n  [package.metadata.opgen.lint.rules.optionalfields]     # an Option only where the zero value is valid\n  pointers = { preference = \"WhenRequired\" }"
)]
pub struct Args {
    /// Every finding is an error (non-zero exit)
    #[arg(long)]
    pub strict: bool,
    /// Write the mechanical fixes (honours --dry-run)
    #[arg(long)]
    pub fix: bool,
    /// Run only these rules (comma-separated), whatever the configuration says
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub only: Vec<String>,
    /// `json`: each finding as one JSON object a line on stdout (rule, severity, type, field, rustField, file, line, column, message)
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// List the rules and exit
    #[arg(long)]
    pub list: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<()> {
    if args.list {
        for r in lint::rules() {
            let on = if r.default { "on " } else { "off" };
            let level = match r.severity {
                crate::diag::Severity::Error => "error  ",
                crate::diag::Severity::Warning => "warning",
            };
            println!("{:<20} {on} {level} {}", r.name, r.summary);
        }
        return Ok(());
    }
    if let Some(bad) = args.only.iter().find(|n| lint::rule(n).is_none()) {
        return Err(Error::with_help(
            format!("--only names no rule: {bad}"),
            "`opgen lint --list` lists the rules",
        ));
    }
    let mut ws = super::open_project_workspace(global)?;
    let report = lint(
        &mut ws,
        &LintOptions {
            strict: args.strict,
            fix: args.fix,
            only: args.only,
        },
    )?;
    // Findings are the command's output: printed even with --quiet.
    for d in &report.other {
        eprint!("{d}");
    }
    for (f, d) in &report.findings {
        match args.format {
            Format::Human => eprint!("{d}"),
            Format::Json => println!("{}", json_line(f, d)),
        }
    }
    let errors = report.errors();
    let warnings = report.findings.len() + report.other.len() - errors;
    if args.fix {
        finish(&ws, global, &format!("fixed {} finding(s)", report.fixed))?;
    }
    if errors > 0 {
        return Err(Error::msg(format!(
            "lint: {errors} error(s), {warnings} warning(s)"
        )));
    }
    if !global.quiet {
        eprintln!("lint: {warnings} warning(s)");
    }
    Ok(())
}

fn json_line(f: &lint::Finding, d: &crate::diag::Diagnostic) -> serde_json::Value {
    let at = d.location.as_ref();
    serde_json::json!({
        "rule": f.rule,
        "severity": match d.severity {
            crate::diag::Severity::Error => "error",
            crate::diag::Severity::Warning => "warning",
        },
        "type": f.type_name,
        "field": f.field,
        "rustField": f.rust_field,
        "file": at.map(|l| l.file.display().to_string()),
        "line": at.map(|l| l.line),
        "column": at.map(|l| l.column),
        "message": f.message,
    })
}
