//! `opgen lint`: the project's API types against the Kubernetes API conventions (`crate::lint`),
//! configured by `[package.metadata.opgen.lint]`, with mechanical fixes staged on request.

use crate::diag::{Diagnostic, Diagnostics, Result, Severity};
use crate::lint::{self, Config, Finding};
use crate::load::{self, Scope};
use crate::markers::{MarkerCatalog, attach::attach};
use crate::model::{self, Model};
use crate::writer::Workspace;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Default)]
pub struct LintOptions {
    /// Every finding is an error.
    pub strict: bool,
    /// Stage the mechanical fixes (and report only what they leave).
    pub fix: bool,
    /// Only these rules, whatever the configuration enables.
    pub only: Vec<String>,
}

#[derive(Debug, Default)]
pub struct LintReport {
    /// Each finding, in source order, with its diagnostic (an error or a warning).
    pub findings: Vec<(Finding, Diagnostic)>,
    /// Findings `--fix` fixed.
    pub fixed: usize,
    /// What the model refused (and its warnings), reported with the findings, which are those
    /// of the types it could read; and the configuration's exceptions that accepted nothing.
    pub other: Vec<Diagnostic>,
}

impl LintReport {
    pub fn errors(&self) -> usize {
        let model = self.other.iter().filter(|d| d.severity == Severity::Error);
        self.findings
            .iter()
            .filter(|(_, d)| d.severity == Severity::Error)
            .count()
            + model.count()
    }
}

pub fn lint(ws: &mut Workspace, opts: &LintOptions) -> Result<LintReport> {
    let mut config = match ws.read(Path::new("Cargo.toml"))? {
        Some(text) => Config::parse(&ws.root().join("Cargo.toml"), &text)?,
        None => Config::default(),
    };
    if !opts.only.is_empty() {
        config.enable_only(&opts.only);
    }
    let (files, _) = load::load(ws, Path::new("src"), Scope::Relevant)?;
    let mut diags = Diagnostics::default();
    let markers = files
        .iter()
        .map(|f| attach(f, MarkerCatalog::get(), &mut diags))
        .collect();
    let model = model::build_with_every_type(&files, markers, &mut diags);
    let model_diags = match diags.finish() {
        Ok(warnings) => warnings,
        Err(e) => e.diagnostics,
    };
    if opts.fix && model_diags.iter().any(|d| d.severity == Severity::Error) {
        // A fix computed on a model that is missing types could contradict the ones it lacks.
        return Err(crate::diag::Error::many(model_diags));
    }
    let (findings, unused_exceptions) = lint::lint(&model, &config);
    let mut report = LintReport {
        other: model_diags.into_iter().chain(unused_exceptions).collect(),
        ..LintReport::default()
    };
    let remaining = if opts.fix {
        let (fixed, remaining): (Vec<Finding>, Vec<Finding>) =
            findings.into_iter().partition(|f| f.fix.is_some());
        report.fixed = fixed.len();
        stage_fixes(ws, &model, &fixed);
        remaining
    } else {
        findings
    };
    report.findings = remaining
        .into_iter()
        .map(|f| {
            let d = lint::diagnostic(&model, &f, opts.strict);
            (f, d)
        })
        .collect();
    Ok(report)
}

/// Each file with its fixes' edits (insertions before a line keep their order, a repeated one
/// once; of two edits of one line's own text, the first wins).
fn stage_fixes(ws: &mut Workspace, model: &Model<'_>, fixed: &[Finding]) {
    let mut by_file: BTreeMap<usize, Vec<(usize, &lint::Edit)>> = BTreeMap::new();
    for fix in fixed.iter().filter_map(|f| f.fix.as_ref()) {
        let edits = by_file.entry(fix.file).or_default();
        edits.extend(fix.edits.iter().map(|(line, edit)| (*line, edit)));
    }
    for (file, edits) in by_file {
        let source = &model.files[file];
        let mut out = String::with_capacity(source.text.len());
        for (i, line) in source.text.split_inclusive('\n').enumerate() {
            let here = || edits.iter().filter(|(at, _)| *at == i + 1).map(|(_, e)| *e);
            // Two rules may insert the same line (optionnull's and optionalfields'
            // skip_serializing_if): once is what both ask for, twice would not compile.
            let mut inserted: Vec<&str> = Vec::new();
            for edit in here() {
                if let lint::Edit::Insert(text) = edit
                    && !inserted.contains(&text.as_str())
                {
                    inserted.push(text);
                    out.push_str(text);
                    out.push('\n');
                }
            }
            let ending = &line[line.trim_end_matches(['\r', '\n']).len()..];
            match here().find(|e| !matches!(e, lint::Edit::Insert(_))) {
                Some(lint::Edit::Replace(text)) => {
                    out.push_str(text);
                    out.push_str(ending);
                }
                Some(_) => {}
                None => out.push_str(line),
            }
        }
        ws.stage(source.path, out);
    }
}
