//! Lint: the Kubernetes API conventions on the model's types, as kube-api-linter checks them on
//! Go (a json tag is serde's name, a pointer an `Option`, a type alias Go's named type), and what
//! serde does on the wire that the CRD cannot say. Reads the model and its markers only.

mod config;
mod rules;
mod settings;

pub use config::{Config, Exception};
pub use settings::Settings;

use crate::diag::{Diagnostic, Severity};
use crate::model::{Model, SrcLoc};

/// One rule: its name (kube-api-linter's where it is one of them), whether it runs without
/// configuration (as kube-api-linter's default), how bad a finding is, and its check.
pub struct Rule {
    pub name: &'static str,
    pub default: bool,
    pub severity: Severity,
    /// One line, for `opgen lint --list`.
    pub summary: &'static str,
    check: Check,
}

/// A rule's check: on the model alone, or with the project's settings for it.
enum Check {
    Model(fn(&Model<'_>, &mut Vec<Finding>)),
    Configured(fn(&Model<'_>, &Settings, &mut Vec<Finding>)),
}

/// What a rule found, at a type or one of its fields.
#[derive(Debug, Clone)]
pub struct Finding {
    pub rule: &'static str,
    pub message: String,
    pub help: Option<String>,
    /// The Rust type the finding is on.
    pub type_name: String,
    /// The field's JSON name (serde's), for a finding on a field.
    pub field: Option<String>,
    /// The field's Rust name, which per-field exceptions name.
    pub rust_field: Option<String>,
    pub at: SrcLoc,
    pub width: usize,
    pub fix: Option<Fix>,
}

/// A mechanical fix: edits of whole lines of a model file, each at a 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    pub file: usize,
    pub edits: Vec<(usize, Edit)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// A line inserted before the line.
    Insert(String),
    /// The line replaced (its line ending kept).
    Replace(String),
    /// The line removed.
    Remove,
}

/// Every rule, kube-api-linter's in its order, then the Rust-specific ones.
pub fn rules() -> &'static [Rule] {
    rules::RULES
}

pub fn rule(name: &str) -> Option<&'static Rule> {
    rules().iter().find(|r| r.name == name)
}

/// The findings of the rules `config` enables, without those it excepts, in source order,
/// and a warning for each exception to an enabled rule that accepted none: a field renamed or
/// fixed since leaves it behind, and it would hide the next finding of that name.
pub fn lint(model: &Model<'_>, config: &Config) -> (Vec<Finding>, Vec<Diagnostic>) {
    let mut findings = Vec::new();
    for rule in rules().iter().filter(|r| config.enabled(r)) {
        match rule.check {
            Check::Model(check) => check(model, &mut findings),
            Check::Configured(check) => check(model, &config.settings, &mut findings),
        }
    }
    let mut used = vec![false; config.exceptions.len()];
    findings.retain(|f| match config.exception_for(f) {
        Some(i) => {
            used[i] = true;
            false
        }
        None => true,
    });
    findings.sort_by_key(|f| (f.at.file, f.at.line, f.at.column, f.rule));
    let unused = config
        .exceptions
        .iter()
        .zip(used)
        .filter(|(e, used)| !used && rule(&e.rule).is_some_and(|r| config.enabled(r)))
        .map(|(e, _)| {
            let d = Diagnostic::warning(format!(
                "the exception to {} at {} accepts no finding",
                e.rule, e.field
            ))
            .help("remove it, or name the field as `Type.rust_field` (the type alone for a finding on the type)");
            match &e.at {
                Some(at) => d.at(at.clone()),
                None => d,
            }
        })
        .collect();
    (findings, unused)
}

/// A finding as a diagnostic at its place, an error when its rule's severity is (or `strict`).
pub fn diagnostic(model: &Model<'_>, f: &Finding, strict: bool) -> Diagnostic {
    let severity = rule(f.rule).map_or(Severity::Warning, |r| r.severity);
    let d = if strict || severity == Severity::Error {
        Diagnostic::error(&f.message)
    } else {
        Diagnostic::warning(&f.message)
    };
    // A type's or field's place is where its item starts (`pub struct`, `pub name`): point at
    // its name.
    let mut at = f.at;
    let name = f.rust_field.as_deref().unwrap_or(&f.type_name);
    let line = model.files[at.file]
        .text
        .lines()
        .nth(at.line.saturating_sub(1));
    if let Some(column) = line.and_then(|l| name_column(l, at.column, name)) {
        at.column = column;
    }
    let mut d = d.code(f.rule).at(model.location(at, f.width));
    if let Some(help) = &f.help {
        d = d.help(help);
    }
    d
}

/// The 1-based column of `name` as a whole word in `line`, at or after `from`.
fn name_column(line: &str, from: usize, name: &str) -> Option<usize> {
    let start = line.char_indices().nth(from.saturating_sub(1))?.0;
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    line[start..].match_indices(name).find_map(|(i, _)| {
        let at = start + i;
        let before = line[..at].chars().next_back().is_none_or(|c| !is_ident(c));
        let after = line[at + name.len()..]
            .chars()
            .next()
            .is_none_or(|c| !is_ident(c));
        (before && after).then(|| line[..at].chars().count() + 1)
    })
}
