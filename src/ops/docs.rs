//! `docs`: the API reference of the kinds under `src/`, one document per group version and an
//! index (Markdown, AsciiDoc or HTML), staged under the output directory.

use crate::diag::{Error, Result};
use crate::generators::crd::{CrdGenerator, CrdOptions};
use crate::generators::docs::{self, Format, render};
use crate::load::Scope;
use crate::ops::manifests::{cargo_settings, k8s_types_for, with_model};
use crate::writer::Workspace;
use std::path::{Component, Path, PathBuf};

pub use crate::generators::docs::Format as DocsFormat;

pub const DEFAULT_OUT: &str = "docs/api";

#[derive(Debug, Default)]
pub struct DocsReport {
    /// Every file the command owns, whether or not it changed.
    pub files: Vec<PathBuf>,
    pub warnings: Vec<crate::diag::Diagnostic>,
}

/// Stages the reference under `out` (relative to the project root).
pub fn docs(ws: &mut Workspace, out: &Path, format: Format) -> Result<DocsReport> {
    check_out_dir(out)?;
    let settings = cargo_settings(ws)?;
    let (k8s, version_warning) = k8s_types_for(settings.k8s_minor);
    // The schemas `opgen manifests` writes, so that the CEL rules check as they do there.
    let k8s = k8s.with_embedded_object_meta(settings.embedded_object_meta);
    let minor = settings.k8s_minor.unwrap_or(k8s.minor());
    let (gvs, mut warnings) = with_model(ws, Scope::All, |model, diags| {
        let crds = CrdGenerator::new(model, &k8s, CrdOptions::default()).generate(diags);
        let warnings = std::mem::take(diags).finish()?;
        Ok::<_, Error>((docs::generate(model, &crds, minor), warnings))
    })??;
    warnings.extend(version_warning);
    if gvs.is_empty() {
        return Err(Error::with_help(
            "no kinds under src/: there is no API to document",
            "add one with `opgen create api` (a `#[derive(CustomResource)]` struct with `#[kube(...)]`)",
        ));
    }
    let mut report = DocsReport {
        files: Vec::new(),
        warnings,
    };
    let ext = format.extension();
    for gv in &gvs {
        let path = out.join(render::file_name(gv)).with_extension(ext);
        ws.stage(&path, format.render(render::markdown(gv)));
        report.files.push(path);
    }
    let index = out.join(format.index_name());
    ws.stage(&index, format.render(render::index(&gvs)));
    report.files.push(index);
    let note = format.render(render::NOTE.to_owned());
    let note = note_text(&note);
    for path in ws.list_files(out, &format!(".{ext}"))? {
        if report.files.contains(&path) || path.parent() != Some(out) {
            continue;
        }
        if ws.read(&path)?.is_some_and(|t| t.contains(note)) {
            ws.stage_removal(&path, Some("no kind of its group version is left".into()));
        }
    }
    Ok(report)
}

/// The line that marks a document `opgen docs` wrote, as the format writes it: the rendered
/// note without the document around it.
fn note_text(rendered: &str) -> &str {
    let inner = rendered
        .split_once("<p>")
        .and_then(|(_, rest)| rest.split_once("</p>"))
        .map_or(rendered, |(p, _)| p);
    inner.trim()
}

/// The output directory must lie inside the project.
fn check_out_dir(out: &Path) -> Result<()> {
    let inside = out
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if out.as_os_str().is_empty() || !inside {
        return Err(Error::with_help(
            format!(
                "--out {}: the reference is written inside the project",
                out.display()
            ),
            format!("give a directory relative to the project root, e.g. --out {DEFAULT_OUT}"),
        ));
    }
    Ok(())
}
