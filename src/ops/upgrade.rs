//! `upgrade`: brings a project written by an earlier scaffold generation to the current one.
//!
//! Every file is settled three ways, as git merges: the *base* is what the earlier opgen wrote
//! for this very project, *yours* is the file on disk, *new* is what opgen writes today. The
//! base is rendered, not stored: each generation's templates are embedded
//! (`data/upgrade/scaffold-<n>/`) and run through today's plans (the same code for every
//! generation so far; `scaffold::init` branches on the generation for its file list, vendored
//! crates and lock) with the values PROJECT and the project's own files record (license header
//! and its year, Kubernetes version, enclosing workspace). vendor/ and the envtest script are
//! opgen's and replaced whole.

use crate::diag::{Diagnostic, Error, Location, Result};
use crate::generators::scaffold::init::{
    self as scaffold_init, BOILERPLATE_PATH, ENVTEST_CRATE_PATH, K8sVersion, License,
    ProjectContext, RUNTIME_CRATE_PATH, SETUP_ENVTEST_PATH, fill_year,
};
use crate::generators::{scaffold, templates};
use crate::load::{UseKind, use_leaves};
use crate::project::{self, Project, SCAFFOLD_VERSION};
use crate::writer::Workspace;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, Default)]
pub struct UpgradeOptions {
    /// Three-way merge the files both sides changed (conflict markers where they overlap).
    pub merge: bool,
    /// Take the new scaffold's version of the files both sides changed.
    pub force: bool,
}

#[derive(Debug)]
pub struct UpgradeReport {
    /// The scaffold generation the project was at.
    pub from: u32,
    pub warnings: Vec<Diagnostic>,
    /// Files `--merge` wrote conflict markers into: Rust that does not parse until resolved.
    pub with_markers: Vec<PathBuf>,
}

const CARGO_LOCK: &str = "Cargo.lock";
const CARGO_TOML: &str = "Cargo.toml";

/// A file both the user and the new scaffold changed.
struct Conflict {
    path: PathBuf,
    base: String,
    yours: String,
    /// `None`: the new scaffold no longer has the file.
    new: Option<String>,
}

/// Stages the upgrade of the project at the workspace root and records the new generation in
/// `project`. Conflicts refuse the whole upgrade unless `merge` or `force` settles them.
pub fn upgrade(
    ws: &mut Workspace,
    project: &mut Project,
    opts: &UpgradeOptions,
) -> Result<UpgradeReport> {
    let from = generation_of(ws, project)?;
    let inputs = Inputs::read(ws)?;
    let base_version = project
        .cli_version
        .clone()
        .unwrap_or_else(|| "0.1.0".to_owned());
    let base = render(from, project, &inputs, &base_version)?;
    // The new scaffold is what init writes here today: the enclosing workspace is looked up
    // again (the project may have moved out of it).
    let here = Inputs {
        enclosing_workspace: super::init::enclosing_workspace(ws.root()),
        ..inputs
    };
    let new = render(SCAFFOLD_VERSION, project, &here, env!("CARGO_PKG_VERSION"))?;
    let mut warnings = Vec::new();

    // opgen's own files: replaced whole, and what the new copies lack removed.
    let opgen_owned = |p: &Path| p.starts_with("vendor") || p == Path::new(SETUP_ENVTEST_PATH);
    for (path, content) in new.iter().filter(|(p, _)| opgen_owned(p)) {
        if ws.read(path)?.as_deref() != Some(content.as_str()) {
            ws.stage(path.clone(), content.clone());
        }
    }
    // The vendored crates hold their manifest and sources only.
    for dir in [ENVTEST_CRATE_PATH, RUNTIME_CRATE_PATH] {
        let rust = ws.list_files(Path::new(dir), ".rs")?;
        for path in rust
            .into_iter()
            .chain(ws.list_files(Path::new(dir), ".toml")?)
        {
            if !new.contains_key(&path) {
                ws.stage_removal(path, None);
            }
        }
    }

    let mut conflicts = Vec::new();
    let mut removed = 0;
    let paths: BTreeSet<&PathBuf> = base.keys().chain(new.keys()).collect();
    for path in paths.into_iter().filter(|p| !opgen_owned(p)) {
        let yours = ws.read(path)?;
        // PROJECT does not record the order kinds were created in: the lines inserted at a
        // marker follow the user's order wherever they are the same lines.
        let (base, new) = match &yours {
            Some(yours) => (
                base.get(path).map(|b| follow_order(b, yours)),
                new.get(path).map(|n| follow_order(n, yours)),
            ),
            None => (base.get(path).cloned(), new.get(path).cloned()),
        };
        let (base, new) = (base.as_ref(), new.as_ref());
        if path == Path::new(CARGO_LOCK) {
            match (yours, new) {
                (Some(yours), Some(new)) if Some(&yours) == base && &yours != new => {
                    ws.stage(path.clone(), new.clone())
                }
                // Only worth saying when the scaffold's lock changed: cargo update is normal.
                (Some(yours), Some(new)) if &yours != new && base != Some(new) => warnings.push(Diagnostic::warning(
                    "Cargo.lock is no longer the one opgen wrote: kept as it is".to_owned(),
                ).help("the next `cargo build` adds opgen-runtime's dependencies to it (online, or offline once they are cached)")),
                _ => {}
            }
            continue;
        }
        match (base, new, yours) {
            (_, Some(new), Some(yours)) if &yours == new => {}
            (Some(base), Some(new), Some(yours)) if &yours == base => {
                ws.stage(path.clone(), new.clone())
            }
            (Some(base), None, Some(yours)) if &yours == base => {
                ws.stage_removal(path.clone(), None);
                // The framework modules of scaffold 1 (an envtest test moved by scaffold 5
                // is not one).
                if path.starts_with("src") {
                    removed += 1;
                }
            }
            // Only the user changed it: theirs stays.
            (Some(base), Some(new), Some(_)) if base == new => {}
            (Some(base), new, Some(yours)) => conflicts.push(Conflict {
                path: path.clone(),
                base: base.clone(),
                yours,
                new: new.cloned(),
            }),
            (Some(base), Some(new), None) if base != new => {
                warnings.push(Diagnostic::warning(format!(
                    "{} was removed, and the new scaffold changes it: left out",
                    path.display()
                )))
            }
            (Some(_), _, None) => {}
            (None, Some(new), None) => ws.stage(path.clone(), new.clone()),
            (None, Some(new), Some(yours)) => conflicts.push(Conflict {
                path: path.clone(),
                base: String::new(),
                yours,
                new: Some(new.clone()),
            }),
            (None, None, _) => unreachable!("every path comes from base or new"),
        }
    }
    if removed > 0 && from == 1 {
        // The framework files go quietly, one by one; say why once.
        warnings.push(Diagnostic::warning(format!(
            "the framework modules of scaffold 1 are in opgen-runtime now: {removed} files of src/ are no longer part of the project"
        )));
    }
    let with_markers = settle(ws, conflicts, from, opts, &mut warnings)?;

    let mut upgraded = project.clone();
    upgraded.scaffold_version = Some(SCAFFOLD_VERSION);
    upgraded.cli_version = Some(env!("CARGO_PKG_VERSION").to_owned());
    if upgraded != *project {
        ws.stage(project::FILE_NAME, upgraded.to_yaml());
    }
    *project = upgraded;
    if from == 1 {
        warnings.extend(generation_1_references(ws, &project.crate_name())?);
    }
    Ok(UpgradeReport {
        from,
        warnings,
        with_markers,
    })
}

/// The runs of lines inserted above each `+opgen:scaffold:` marker (lines with the marker's
/// indentation, up to a blank line or comment), as (marker line, first line, end) indices.
fn marker_runs(lines: &[&str]) -> Vec<(String, usize, usize)> {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut runs = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let t = line.trim();
        if !((t.starts_with("//") || t.starts_with('#')) && t.contains("+opgen:scaffold:")) {
            continue;
        }
        let mut start = at;
        while start > 0 {
            let above = lines[start - 1];
            let a = above.trim();
            if a.is_empty()
                || a.starts_with("//")
                || a.starts_with('#')
                || indent(above) != indent(line)
            {
                break;
            }
            start -= 1;
        }
        runs.push((t.to_owned(), start, at));
    }
    runs
}

/// `text` with each marker's run of lines in the order `yours` has them, where both runs hold
/// the same lines.
fn follow_order(text: &str, yours: &str) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let your_lines: Vec<&str> = yours.split_inclusive('\n').collect();
    let your_runs = marker_runs(&your_lines);
    let mut out: Vec<&str> = lines.clone();
    for (marker, start, end) in marker_runs(&lines) {
        let Some((_, ys, ye)) = your_runs.iter().find(|(m, _, _)| *m == marker) else {
            continue;
        };
        let (ours, theirs) = (&lines[start..end], &your_lines[*ys..*ye]);
        fn sorted<'a>(run: &[&'a str]) -> Vec<&'a str> {
            let mut run = run.to_vec();
            run.sort_unstable();
            run
        }
        if ours != theirs && sorted(ours) == sorted(theirs) {
            out.splice(start..end, theirs.iter().copied());
        }
    }
    out.concat()
}

/// Applies `--force` or `--merge` to the conflicts, or refuses with every one of them shown.
fn settle(
    ws: &mut Workspace,
    conflicts: Vec<Conflict>,
    from: u32,
    opts: &UpgradeOptions,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Vec<PathBuf>> {
    let mut with_markers = Vec::new();
    if conflicts.is_empty() {
        return Ok(with_markers);
    }
    if opts.force {
        for c in conflicts {
            match c.new {
                Some(new) => ws.stage_with_note(c.path, new, Some("replaced (--force)".into())),
                None => ws.stage_removal(c.path, Some("removed (--force)".into())),
            }
        }
        return Ok(with_markers);
    }
    if opts.merge {
        for c in conflicts {
            let Some(new) = c.new else {
                warnings.push(match moved_test(&c.path) {
                    Some(module) => Diagnostic::warning(format!(
                        "{} is no longer part of the scaffold {SCAFFOLD_VERSION} ({module} is, a module of the one envtest test binary), but you changed it: kept, a test binary of its own",
                        c.path.display()
                    )).help(format!("move your changes into {module}, then delete the file")),
                    None => Diagnostic::warning(format!(
                        "{} is no longer part of the scaffold {SCAFFOLD_VERSION} (opgen-runtime has it), but you changed it: kept, and nothing uses it",
                        c.path.display()
                    )).help("move what you added into your own modules, then delete the file"),
                });
                continue;
            };
            match diffy::merge(&c.base, &c.yours, &new) {
                Ok(merged) => ws.stage_with_note(c.path, merged, Some("merged".into())),
                Err(marked) => {
                    warnings.push(Diagnostic::warning(format!(
                        "{}: your changes and the new scaffold's overlap: conflict markers written (`<<<<<<< ours` is yours, `>>>>>>> theirs` the new scaffold's)",
                        c.path.display()
                    )).help("resolve them by hand, then build"));
                    with_markers.push(c.path.clone());
                    ws.stage_with_note(c.path, marked, Some("merged, with conflicts".into()));
                }
            }
        }
        return Ok(with_markers);
    }
    let mut problems: Vec<Diagnostic> = conflicts
        .iter()
        .map(|c| conflict_diagnostic(c, from))
        .collect();
    let last = problems.len() - 1;
    problems[last].help = Some(
        "nothing was written; pass --merge to merge both sides (conflict markers where they overlap), or --force to take the new scaffold's version (your edits are lost)"
            .to_owned(),
    );
    Err(Error::many(problems))
}

/// How many lines of the scaffold's side of a conflict are shown.
const SHOWN_SCAFFOLD_LINES: usize = 120;

fn conflict_diagnostic(c: &Conflict, from: u32) -> Diagnostic {
    let path = c.path.display();
    let scaffold = format!("scaffold {from}");
    let yours = unified_diff(
        &c.base,
        &c.yours,
        &format!("{path} ({scaffold})"),
        &format!("{path} (yours)"),
        usize::MAX,
    );
    let message = match &c.new {
        None => match moved_test(&c.path) {
            Some(module) => format!(
                "{path} is no longer part of the scaffold ({module} is, a module of the one envtest test binary), but you changed it:\n{yours}"
            ),
            None => format!(
                "{path} is no longer part of the scaffold (opgen-runtime holds it), but you changed it:\n{yours}"
            ),
        },
        Some(new) if c.base.is_empty() => {
            let theirs = unified_diff(
                &c.yours,
                new,
                &format!("{path} (yours)"),
                &format!("{path} (scaffold {SCAFFOLD_VERSION})"),
                SHOWN_SCAFFOLD_LINES,
            );
            format!(
                "{path} is new in the scaffold, and you have a file of your own there:\n{theirs}"
            )
        }
        Some(new) => {
            let theirs = unified_diff(
                &c.base,
                new,
                &format!("{path} ({scaffold})"),
                &format!("{path} (scaffold {SCAFFOLD_VERSION})"),
                SHOWN_SCAFFOLD_LINES,
            );
            let merge = match diffy::merge(&c.base, &c.yours, new) {
                Ok(_) => "--merge combines them cleanly".to_owned(),
                Err(marked) => format!(
                    "--merge leaves {} conflict(s) to resolve by hand",
                    marked.lines().filter(|l| l.starts_with("<<<<<<<")).count()
                ),
            };
            format!(
                "{path}: you changed it, and the new scaffold changes it too ({merge})\nyour changes:\n{yours}the scaffold's changes:\n{theirs}"
            )
        }
    };
    Diagnostic::error(message)
}

/// Where scaffold 5 moved an envtest test of an earlier scaffold (`tests/<name>.rs`, a test
/// binary of its own): `tests/envtest/<name>.rs`.
fn moved_test(path: &Path) -> Option<String> {
    let rest = path.strip_prefix("tests").ok()?;
    let name = rest.to_str()?;
    (rest.components().count() == 1
        && (name.ends_with("_controller.rs") || name.ends_with("_webhooks.rs")))
    .then(|| format!("tests/envtest/{name}"))
}

fn unified_diff(from: &str, to: &str, from_name: &str, to_name: &str, max_lines: usize) -> String {
    let patch = diffy::DiffOptions::new()
        .set_original_filename(from_name.to_owned())
        .set_modified_filename(to_name.to_owned())
        .create_patch(from, to);
    let text = diffy::PatchFormatter::new().fmt_patch(&patch).to_string();
    let total = text.lines().count();
    if total <= max_lines {
        return indent(&text);
    }
    let shown: Vec<&str> = text.lines().take(max_lines).collect();
    indent(&format!(
        "{}\n… {} more lines\n",
        shown.join("\n"),
        total - max_lines
    ))
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    {l}\n")).collect()
}

/// The project's scaffold generation: PROJECT's `scaffoldVersion`, or, for projects written
/// before it was recorded, 2 when they use opgen-runtime and 1 otherwise.
fn generation_of(ws: &Workspace, project: &Project) -> Result<u32> {
    match project.scaffold_version {
        Some(v) if (1..=SCAFFOLD_VERSION).contains(&v) => Ok(v),
        Some(v) => Err(Error::with_help(
            format!(
                "PROJECT has scaffoldVersion {v}, and this opgen knows scaffolds 1 to {SCAFFOLD_VERSION}"
            ),
            if v > SCAFFOLD_VERSION {
                "a newer opgen wrote this project: upgrade opgen itself"
            } else {
                "fix the value in PROJECT, or restore it from version control"
            },
        )),
        None => {
            let manifest = ws.read(Path::new(CARGO_TOML))?.unwrap_or_default();
            let runtime = ws.exists(&Path::new(RUNTIME_CRATE_PATH).join(CARGO_TOML))
                || manifest.contains("opgen-runtime");
            Ok(if runtime { 2 } else { 1 })
        }
    }
}

/// What a project's scaffold was rendered with beyond PROJECT.
#[derive(Clone)]
struct Inputs {
    boilerplate: String,
    /// The year the license headers carry, when they do.
    year: Option<String>,
    k8s_version: K8sVersion,
    enclosing_workspace: Option<String>,
}

impl Inputs {
    fn read(ws: &Workspace) -> Result<Self> {
        let boilerplate = ws.read(Path::new(BOILERPLATE_PATH))?.unwrap_or_default();
        let manifest = ws.read(Path::new(CARGO_TOML))?.ok_or_else(|| {
            Error::with_help(
                format!("{} has no Cargo.toml", ws.root().display()),
                "restore it from version control: opgen upgrade reads the Kubernetes version from it",
            )
        })?;
        Ok(Inputs {
            year: header_year(ws, &boilerplate)?,
            k8s_version: k8s_version(&manifest, &ws.root().join(CARGO_TOML))?,
            enclosing_workspace: manifest.lines().find_map(|l| {
                l.strip_prefix("# This project lies inside the Cargo workspace of ")?
                    .strip_suffix(", which does not list it:")
                    .map(str::to_owned)
            }),
            boilerplate,
        })
    }
}

/// The year in the license header of src/lib.rs or src/main.rs (`YEAR` in the boilerplate).
fn header_year(ws: &Workspace, boilerplate: &str) -> Result<Option<String>> {
    let Some((before, after)) = boilerplate.lines().find_map(|l| l.split_once("YEAR")) else {
        return Ok(None);
    };
    for file in ["src/lib.rs", "src/main.rs"] {
        let text = ws.read(Path::new(file))?.unwrap_or_default();
        let year = text.lines().find_map(|l| {
            let year = l.strip_prefix(before)?.strip_suffix(after)?;
            (!year.is_empty() && year.chars().all(|c| c.is_ascii_digit())).then(|| year.to_owned())
        });
        if year.is_some() {
            return Ok(year);
        }
    }
    Ok(None)
}

/// The Kubernetes version of the k8s-openapi feature (`v1_33`) in the project's Cargo.toml.
fn k8s_version(manifest: &str, path: &Path) -> Result<K8sVersion> {
    let table: toml::Table = manifest.parse().map_err(|e: toml::de::Error| {
        let at = e.span().map_or(0, |span| span.start);
        let line = manifest[..at].matches('\n').count() + 1;
        let column = manifest[..at]
            .rsplit('\n')
            .next()
            .map_or(0, |l| l.chars().count())
            + 1;
        Error::with_help(
            format!(
                "{}:{line}:{column}: not a valid Cargo.toml: {}",
                path.display(),
                e.message()
            ),
            "fix it so that cargo reads it, then run opgen upgrade again",
        )
    })?;
    let features = table
        .get("dependencies")
        .and_then(|d| d.get("k8s-openapi"))
        .and_then(|k| k.get("features"))
        .and_then(toml::Value::as_array);
    let minor = features
        .into_iter()
        .flatten()
        .find_map(|f| f.as_str()?.strip_prefix("v1_")?.parse::<u32>().ok());
    match minor.and_then(|m| K8sVersion::ALL.into_iter().find(|v| v.minor() == m)) {
        Some(version) => Ok(version),
        None => Err(Error::with_help(
            format!(
                "{}: the k8s-openapi dependency has no Kubernetes version feature this opgen knows (v1_33 to v1_37)",
                path.display()
            ),
            "opgen upgrade renders the scaffold for that version: set one, e.g. features = [\"v1_33\"]",
        )),
    }
}

/// A directory that does not exist: the scaffold is rendered into a workspace over nothing.
fn scratch_root(project: &Project) -> PathBuf {
    std::env::temp_dir().join(format!(
        "opgen-upgrade-{}-never-created/{}",
        std::process::id(),
        project.project_name
    ))
}

/// Every file scaffold `generation` writes for `project` (init, then its resources' create api
/// and create webhook), path → content; PROJECT itself left out.
fn render(
    generation: u32,
    project: &Project,
    inputs: &Inputs,
    opgen_version: &str,
) -> Result<BTreeMap<PathBuf, String>> {
    let rendered = templates::with_generation(generation, || -> Result<_> {
        let mut scratch = Workspace::new(scratch_root(project));
        let mut replay = Project {
            resources: Vec::new(),
            ..project.clone()
        };
        let mut ctx = ProjectContext::new(&replay, License::None, None, inputs.k8s_version);
        ctx.license = !inputs.boilerplate.trim().is_empty();
        ctx.header = fill_year(&inputs.boilerplate);
        ctx.boilerplate = inputs.boilerplate.clone();
        ctx.enclosing_workspace = inputs.enclosing_workspace.clone();
        ctx.opgen_version = opgen_version.to_owned();
        // Every plan's Rust formatted in one rustfmt run at the end, not one per plan.
        scratch.defer_formatting();
        scaffold_init::plan(&ctx)?.apply(&mut scratch, false)?;
        super::replay::create_recorded_resources(&mut scratch, &mut replay, project)?;
        scaffold::format_deferred(&mut scratch)?;
        let mut files = BTreeMap::new();
        for change in scratch.changes()? {
            if change.path == Path::new(project::FILE_NAME) {
                continue;
            }
            if let Some(content) = scratch.read(&change.path)? {
                files.insert(change.path, content);
            }
        }
        Ok(files)
    })
    .map_err(|e| {
        let mut e = e;
        if let Some(first) = e.diagnostics.first_mut() {
            first.message = format!(
                "cannot render scaffold {generation} for this project: {}",
                first.message
            );
        }
        e
    })?;
    // The headers carry the year the project was made in, not this one.
    let Some(year) = &inputs.year else {
        return Ok(rendered);
    };
    let today = fill_year(&inputs.boilerplate);
    let then = format!("{}\n", inputs.boilerplate.replace("YEAR", year));
    Ok(rendered
        .into_iter()
        .map(|(path, content)| match content.strip_prefix(&today) {
            Some(rest) if !today.is_empty() => (path, format!("{then}{rest}")),
            _ => (path, content),
        })
        .collect())
}

/// Where scaffold 1's framework items live now; `None` when nothing replaces them one to one.
fn generation_1_replacement(path: &[String]) -> Option<(&'static str, String)> {
    let s: Vec<&str> = path.iter().map(String::as_str).collect();
    let moved = |to: String| Some(("moved", to));
    match s.as_slice() {
        ["cli", ..] => moved(
            "opgen_runtime::ManagerArgs (flatten it into your clap struct, as the new src/main.rs does)".into(),
        ),
        ["error", ..] | ["Error"] | ["Result"] => moved("opgen_runtime::{Error, Result}".into()),
        ["instance_name"] => moved("opgen_runtime::instance_name".into()),
        [m @ ("leader_election" | "logging" | "manager" | "metrics" | "server"), ..] => {
            moved(format!("opgen_runtime::{m}"))
        }
        ["testing", ..] => moved(
            "opgen_runtime::testing (the `testing` feature; test_context takes the project name: test_context(client, PROJECT_NAME))".into(),
        ),
        ["controllers", item @ ("Context" | "ControllerEntry" | "ErrorBackoff" | "set_condition")] => {
            moved(format!("opgen_runtime::{item}"))
        }
        ["controllers", "is_not_found"] => moved("opgen_runtime::controller::is_not_found".into()),
        ["controllers", "backoff" | "conditions", ..] => {
            moved("opgen_runtime::{ErrorBackoff, condition, set_condition}".into())
        }
        ["controllers", "ensure_crd_installed" | "log_reconcile_result"] => Some((
            "gone",
            "opgen_runtime::controller::run does it: register `run: |ctx| controller::run(ctx, NAME, reconcile, error_policy).boxed()` as a new controller does".into(),
        )),
        ["webhooks", "WebhookEntry"] => moved("opgen_runtime::WebhookEntry".into()),
        ["webhooks", item @ ("Route" | "ValidationResult" | "Warnings" | "Conversion" | "router"
            | "should_serve" | "MAX_REVIEW_BYTES" | "CONVERSION_PATH")] => {
            moved(format!("opgen_runtime::webhook::{item}"))
        }
        ["webhooks", "mutate" | "validate"] => Some((
            "gone",
            "implement opgen_runtime::Defaulter / Validator for the kind and register Route::defaulting::<Kind>(PATH) / Route::validating::<Kind>(PATH), as `opgen create webhook` writes them now".into(),
        )),
        ["webhooks", "convert" | "to_hub" | "from_hub"] => Some((
            "gone",
            "implement opgen_runtime::Converter between the hub and each spoke, as `opgen create webhook --conversion` writes it now".into(),
        )),
        _ => None,
    }
}

/// Uses of scaffold 1's framework modules left in the project's Rust files after the upgrade
/// (in files the user changed, which keep their code): each at its file:line:col with what
/// replaces it. In a file with conflict markers the user's side is read, lines kept in place.
fn generation_1_references(ws: &Workspace, crate_name: &str) -> Result<Vec<Diagnostic>> {
    let mut found = Vec::new();
    for dir in ["src", "tests"] {
        for file in ws.list_files(Path::new(dir), ".rs")? {
            let Some(text) = ws.read(&file)? else {
                continue;
            };
            let Ok(ast) = syn::parse_file(&yours_of_merge(&text)) else {
                continue;
            };
            let mut refs = References {
                crate_name,
                found: Vec::new(),
            };
            syn::visit::Visit::visit_file(&mut refs, &ast);
            let mut seen = BTreeSet::new();
            for (segments, span) in refs.found {
                let Some((how, to)) = generation_1_replacement(&segments) else {
                    continue;
                };
                if still_defined(ws, &segments)? {
                    continue;
                }
                let start = span.start();
                if !seen.insert((start.line, start.column)) {
                    continue;
                }
                let width = segments.last().map_or(1, String::len);
                found.push(
                    Diagnostic::warning(format!(
                        "`{}` of scaffold 1 is {how}: this line needs a hand edit",
                        segments.join("::")
                    ))
                    .at(Location::new(file.clone(), start.line, start.column + 1)
                        .with_source(&text, width))
                    .help(format!("use {to}")),
                );
            }
        }
    }
    Ok(found)
}

/// `text` with the markers and the base and new sides of its conflicts blanked: the user's side,
/// on the lines it has in `text`.
fn yours_of_merge(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut keep = true;
    for line in text.split_inclusive('\n') {
        let marker = ["<<<<<<<", "|||||||", "=======", ">>>>>>>"]
            .iter()
            .position(|m| line.starts_with(m));
        match marker {
            Some(0 | 3) => keep = true,
            Some(_) => keep = false,
            None if keep => {
                out.push_str(line);
                continue;
            }
            None => {}
        }
        if line.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// Whether the project (after the upgrade) still defines what a scaffold-1 path names: the
/// user may have kept a module of their own under that name.
fn still_defined(ws: &Workspace, segments: &[String]) -> Result<bool> {
    let module = |m: &str| -> Result<Option<String>> {
        for file in [format!("src/{m}.rs"), format!("src/{m}/mod.rs")] {
            if let Some(text) = ws.read(Path::new(&file))? {
                return Ok(Some(text));
            }
        }
        Ok(None)
    };
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    Ok(match segments.as_slice() {
        [only] => ws
            .read(Path::new("src/lib.rs"))?
            .is_some_and(|lib| contains_word(&lib, only)),
        [m @ ("controllers" | "webhooks"), item, ..] => {
            module(m)?.is_some_and(|text| contains_word(&text, item))
        }
        [m, ..] => module(m)?.is_some(),
        [] => true,
    })
}

fn contains_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        !text[..at].chars().next_back().is_some_and(ident)
            && !text[at + word.len()..].chars().next().is_some_and(ident)
    })
}

/// Paths below `crate::` (or the crate's name, in tests/) in `use` items and code.
struct References<'a> {
    crate_name: &'a str,
    found: Vec<(Vec<String>, proc_macro2::Span)>,
}

impl References<'_> {
    fn push(&mut self, segments: Vec<String>, span: proc_macro2::Span) {
        if let Some((first, rest)) = segments.split_first()
            && (first == "crate" || first == self.crate_name)
            && !rest.is_empty()
        {
            self.found.push((rest.to_vec(), span));
        }
    }

    /// Each leaf's path, at its name (`self` included) or its `*`.
    fn use_tree(&mut self, tree: &syn::UseTree) {
        for leaf in use_leaves(tree) {
            let mut path: Vec<String> = leaf.path.iter().map(|(i, _)| i.to_string()).collect();
            let span = match leaf.kind {
                UseKind::Name | UseKind::Rename(_) => match leaf.path.last() {
                    Some((name, _)) => name.span(),
                    None => continue,
                },
                UseKind::SelfName(name) => {
                    path.push(name.to_string());
                    name.span()
                }
                UseKind::Glob(star) => star.span,
            };
            self.push(path, span);
        }
    }
}

impl<'ast> syn::visit::Visit<'ast> for References<'_> {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&item.tree);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if let Some(last) = path.segments.last() {
            self.push(segments, last.ident.span());
        }
        syn::visit::visit_path(self, path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaffold_1_paths_map_to_the_runtime() {
        let path = |s: &str| s.split("::").map(str::to_owned).collect::<Vec<_>>();
        assert_eq!(
            generation_1_replacement(&path("controllers::Context")).map(|r| r.1),
            Some("opgen_runtime::Context".to_owned())
        );
        assert_eq!(
            generation_1_replacement(&path("webhooks::Route")).map(|r| r.1),
            Some("opgen_runtime::webhook::Route".to_owned())
        );
        assert_eq!(
            generation_1_replacement(&path("webhooks::mutate")).map(|r| r.0),
            Some("gone")
        );
        // The registries and the user's own modules are not scaffold 1's framework.
        assert_eq!(
            generation_1_replacement(&path("controllers::CONTROLLERS")),
            None
        );
        assert_eq!(
            generation_1_replacement(&path("api::v1alpha1::Memcached")),
            None
        );
    }

    #[test]
    fn the_users_side_of_a_merge_keeps_its_lines() {
        let merged = "a\n<<<<<<< ours\nmine\n=======\ntheirs\n>>>>>>> theirs\nb\n";
        assert_eq!(yours_of_merge(merged), "a\n\nmine\n\n\n\nb\n");
        let diff3 = "<<<<<<< ours\nmine\n||||||| original\nold\n=======\nnew\n>>>>>>> theirs\n";
        assert_eq!(yours_of_merge(diff3), "\nmine\n\n\n\n\n\n");
    }

    #[test]
    fn inserted_lines_follow_the_users_order() {
        let base = "&[\n    a::W,\n    b::W,\n    // +opgen:scaffold:webhooks\n];\n";
        let yours = "&[\n    b::W,\n    a::W,\n    // +opgen:scaffold:webhooks\n];\n";
        assert_eq!(follow_order(base, yours), yours);
        // Other lines, or a run the user changed, keep their order.
        let edited = "&[\n    b::W,\n    c::W,\n    // +opgen:scaffold:webhooks\n];\n";
        assert_eq!(follow_order(base, edited), base);
        let yaml = "resources:\n- a.yaml\n- b.yaml\n# +opgen:scaffold:samples\n";
        let your_yaml = "resources:\n- b.yaml\n- a.yaml\n# +opgen:scaffold:samples\n";
        assert_eq!(follow_order(yaml, your_yaml), your_yaml);
    }

    #[test]
    fn words_are_whole_identifiers() {
        assert!(contains_word("pub struct Context {", "Context"));
        assert!(!contains_word("pub struct MyContext {", "Context"));
        assert!(!contains_word("let context_x = 1;", "context"));
    }
}
