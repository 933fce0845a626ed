//! `init`: a new operator project in an existing directory.

use crate::diag::{Diagnostic, Error, Result};
pub use crate::generators::scaffold::init::{K8sVersion, License};
use crate::generators::scaffold::{
    self, Action, Policy, ScaffoldPlan, init::ProjectContext, manifest,
};
use crate::names;
use crate::project::{self, Project};
use crate::writer::Workspace;
use std::path::Path;

#[derive(Debug, Clone)]
pub struct InitOptions {
    pub domain: String,
    pub repo: Option<String>,
    pub project_name: Option<String>,
    pub owner: Option<String>,
    pub license: License,
    pub k8s_version: K8sVersion,
    pub namespaced: bool,
    pub multigroup: bool,
    /// Replace the adopted crate's conflicting files and requirements with the scaffold's.
    pub force: bool,
}

/// `cargo new`'s own source files: a crate with nothing else in them can take the scaffold's.
const CARGO_NEW_MAIN: &str = "fn main() {\n    println!(\"Hello, world!\");\n}\n";
const CARGO_NEW_LIB: &str = "pub fn add(left: u64, right: u64) -> u64 {\n    left + right\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn it_works() {\n        let result = add(2, 2);\n        assert_eq!(result, 4);\n    }\n}\n";

/// Stages a new project at the workspace root; returns its PROJECT record and any warnings.
/// An existing crate there (e.g. from `cargo new`) is adopted: it keeps its name, its
/// dependencies and its files; the scaffold adds what is missing, and only real conflicts
/// (files of its own the scaffold would replace, incompatible dependency requirements) are
/// refused, unless `force`.
pub fn init(ws: &mut Workspace, opts: &InitOptions) -> Result<(Project, Vec<Diagnostic>)> {
    if ws.exists(Path::new(project::FILE_NAME)) {
        return Err(Error::with_help(
            format!(
                "{} already holds an opgen project: found {}",
                ws.root().display(),
                project::FILE_NAME
            ),
            "add kinds with `opgen create api`; run `opgen init` in a new or empty directory (or a crate made by `cargo new`) for another project",
        ));
    }
    let manifest_path = ws.root().join("Cargo.toml");
    let existing_manifest = ws.read(Path::new("Cargo.toml"))?;
    let existing = match &existing_manifest {
        Some(text) => Some(manifest::existing_crate(&manifest_path, text)?),
        None => None,
    };
    names::validate_domain(&opts.domain)?;
    if let Some(owner) = &opts.owner
        && (owner.trim().is_empty() || owner.chars().any(char::is_control))
    {
        return Err(Error::msg(format!(
            "invalid value {owner:?} for --owner: must be a name on one line (it goes into the license header of every file), without control characters"
        )));
    }
    let project_name = match (&opts.project_name, &existing) {
        (Some(name), _) => name.clone(),
        (None, Some(existing)) => existing.package_name.replace('_', "-"),
        (None, None) => default_project_name(ws.root())?,
    };
    names::validate_project_name(&project_name)?;
    if let Some(existing) = &existing
        && existing.package_name.replace('-', "_") != project_name.replace('-', "_")
    {
        return Err(Error::with_help(
            format!(
                "the crate in {} is named {:?}, but the project would be {project_name:?}",
                ws.root().display(),
                existing.package_name
            ),
            "opgen init keeps an existing crate's name: leave out --project-name, or rename the package in Cargo.toml first",
        ));
    }
    if let Some(repo) = &opts.repo {
        validate_repo(repo)?;
    }
    let mut project = Project::new(&opts.domain, &project_name, opts.repo.as_deref());
    project.namespaced = opts.namespaced;
    project.multigroup = opts.multigroup;

    let mut ctx = ProjectContext::new(
        &project,
        opts.license,
        opts.owner.as_deref(),
        opts.k8s_version,
    );
    ctx.enclosing_workspace = enclosing_workspace(ws.root());
    let mut plan = scaffold::init::plan(&ctx)?;
    let conflicts = match &existing_manifest {
        Some(text) => adopt(ws, &mut plan, &manifest_path, text, opts.force)?,
        None => Vec::new(),
    };
    // The manifest's conflicts and the files' are reported together.
    let warnings = match plan.apply(ws, opts.force) {
        Ok(_) if !conflicts.is_empty() => return Err(Error::many(conflicts)),
        Err(e) if !conflicts.is_empty() => {
            return Err(Error::many(
                conflicts.into_iter().chain(e.diagnostics).collect(),
            ));
        }
        applied => applied?,
    };
    ws.stage(project::FILE_NAME, project.to_yaml());
    Ok((project, warnings))
}

/// Turns the plan for a new project into one for the crate already there: its Cargo.toml
/// merged with the scaffold's (whose conflicts are returned), `cargo new`'s placeholder
/// sources replaced, the scaffold's ignore patterns added to its .gitignore, the scaffold's
/// modules and items added to its own library. Every other file
/// of the crate that the plan would write stays a conflict for `apply` to report.
fn adopt(
    ws: &Workspace,
    plan: &mut ScaffoldPlan,
    manifest_path: &Path,
    existing: &str,
    force: bool,
) -> Result<Vec<Diagnostic>> {
    let mut conflicts = Vec::new();
    for action in plan.actions_mut()? {
        let Action::Write {
            path,
            content,
            policy,
        } = action
        else {
            continue;
        };
        let placeholder = match path.to_str() {
            Some("src/main.rs") => Some(CARGO_NEW_MAIN),
            Some("src/lib.rs") => Some(CARGO_NEW_LIB),
            _ => None,
        };
        if path == Path::new("Cargo.toml") {
            match manifest::adopt(manifest_path, existing, content, force) {
                Ok(merged) => *content = merged,
                Err(found) => conflicts.extend(found),
            }
            *policy = Policy::ToolOwned;
        } else if path == Path::new(".gitignore")
            && let Some(theirs) = ws.read(path)?
        {
            *content = merge_ignore_patterns(&theirs, content);
            *policy = Policy::ToolOwned;
        } else if placeholder.is_some() && ws.read(path)?.as_deref() == placeholder {
            *policy = Policy::ToolOwned;
        } else if path == Path::new("src/lib.rs")
            && let Some(theirs) = ws.read(path)?
        {
            match add_to_library(&ws.root().join(&*path), &theirs, content) {
                Ok(merged) => {
                    *content = merged;
                    *policy = Policy::ToolOwned;
                }
                // `--force` replaces the library with the scaffold's, as any other file.
                Err(found) if !force => conflicts.extend(found),
                Err(_) => {}
            }
        }
    }
    Ok(conflicts)
}

/// The crate's own library root with the items of the scaffold's appended: its modules, the
/// names the scaffolded code uses and the manager. An item of the crate with the name of one of
/// them is a conflict at its line, as is a library that does not parse.
fn add_to_library(
    path: &Path,
    theirs: &str,
    ours: &str,
) -> std::result::Result<String, Vec<Diagnostic>> {
    use syn::spanned::Spanned;
    let at = |span: proc_macro2::Span| {
        crate::diag::Location::new(path, span.start().line, span.start().column + 1)
    };
    let help = "rename it, or add opgen's items to the library by hand and pass --force, which replaces src/lib.rs with the scaffold's";
    let parsed = syn::parse_file(theirs).map_err(|e| {
        vec![
            Diagnostic::error(format!(
                "src/lib.rs does not parse ({e}), so opgen init cannot add its modules to it"
            ))
            .at(at(e.span())),
        ]
    })?;
    let scaffold = syn::parse_file(ours).expect("the scaffold's lib.rs parses");
    let lines: Vec<&str> = ours.lines().collect();
    let (mut added, mut conflicts) = (String::new(), Vec::new());
    let mut previous_end = 0;
    for item in &scaffold.items {
        let Some(name) = item_name(item) else {
            continue;
        };
        if let Some(mine) = parsed.items.iter().find(|i| item_name(i) == Some(name)) {
            conflicts.push(
                Diagnostic::error(format!(
                    "src/lib.rs already has an item named `{name}`, which opgen init adds to the library"
                ))
                .at(at(mine.span()))
                .help(help),
            );
            continue;
        }
        let (start, end) = (item.span().start().line, item.span().end().line);
        if previous_end != 0 && start != previous_end + 1 {
            added.push('\n');
        }
        for line in &lines[start - 1..end] {
            added.push_str(line);
            added.push('\n');
        }
        previous_end = end;
    }
    if !conflicts.is_empty() {
        return Err(conflicts);
    }
    Ok(format!(
        "{}\n\n// Added by opgen init: the scaffold's modules, the names its code uses and the manager.\n{added}",
        theirs.trim_end()
    ))
}

fn item_name(item: &syn::Item) -> Option<&syn::Ident> {
    match item {
        syn::Item::Mod(m) => Some(&m.ident),
        syn::Item::Const(c) => Some(&c.ident),
        syn::Item::Static(s) => Some(&s.ident),
        syn::Item::Fn(f) => Some(&f.sig.ident),
        syn::Item::Struct(s) => Some(&s.ident),
        syn::Item::Enum(e) => Some(&e.ident),
        syn::Item::Type(t) => Some(&t.ident),
        syn::Item::Trait(t) => Some(&t.ident),
        _ => None,
    }
}

/// `theirs` with the patterns of `ours` it lacks (`/target` and `/target/` count as one).
fn merge_ignore_patterns(theirs: &str, ours: &str) -> String {
    let key = |line: &str| line.trim().trim_end_matches('/').to_owned();
    let have: std::collections::HashSet<String> = theirs.lines().map(key).collect();
    let missing: Vec<&str> = ours
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#') && !have.contains(&key(l)))
        .collect();
    if missing.is_empty() {
        return theirs.to_owned();
    }
    let mut merged = theirs.to_owned();
    if !merged.is_empty() && !merged.ends_with('\n') {
        merged.push('\n');
    }
    merged.push_str("\n# Added by opgen init\n");
    for line in missing {
        merged.push_str(line);
        merged.push('\n');
    }
    merged
}

/// The manifest, relative to `root`, of the Cargo workspace `root` lies in without being one
/// of its members. Cargo refuses to build such a package ("believes it's in a workspace when
/// it's not"), as after `opgen new` inside another Rust repository.
pub(crate) fn enclosing_workspace(root: &Path) -> Option<String> {
    let root = std::path::absolute(root).ok()?;
    for (depth, dir) in root.ancestors().enumerate().skip(1) {
        let Ok(text) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        // Cargo takes the first manifest up the tree with a [workspace] table.
        let Ok(manifest) = text.parse::<toml::Table>() else {
            return None;
        };
        let Some(workspace) = manifest.get("workspace").and_then(toml::Value::as_table) else {
            continue;
        };
        let rel = root.strip_prefix(dir).ok()?;
        let paths = |key: &str| -> Vec<String> {
            workspace
                .get(key)
                .and_then(toml::Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        };
        let member = paths("members").iter().any(|m| {
            glob::Pattern::new(m.trim_end_matches('/')).is_ok_and(|p| p.matches_path(rel))
        });
        let excluded = paths("exclude").iter().any(|e| rel.starts_with(e));
        if member || excluded {
            return None;
        }
        return Some(format!("{}Cargo.toml", "../".repeat(depth)));
    }
    None
}

fn default_project_name(root: &Path) -> Result<String> {
    let dir = root
        .canonicalize()
        .unwrap_or_else(|_| root.to_path_buf())
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    names::validate_project_name(&dir).map_err(|_| {
        Error::with_help(
            format!(
                "the directory name {dir:?} is not a valid project name (a DNS-1123 label that starts with a letter)"
            ),
            "pass --project-name <name>, e.g. --project-name memcached-operator",
        )
    })?;
    Ok(dir)
}

fn validate_repo(repo: &str) -> Result<()> {
    // Go's module path rules (golang.org/x/mod/module.CheckPath), which kubebuilder's --repo follows.
    let ok = !repo.is_empty()
        && !repo.contains("://")
        && repo
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._~/".contains(c))
        && repo.split('/').all(|element| {
            !element.is_empty() && !element.starts_with('.') && !element.ends_with('.')
        });
    if ok {
        Ok(())
    } else {
        Err(Error::msg(format!(
            "invalid value {repo:?} for --repo: must be a module path such as github.com/example/memcached-operator (no scheme, no spaces, no empty, `.` or `..` elements)"
        )))
    }
}

/// Makes the new project at `dir` a git repository, as `cargo new` does: not when `dir` is
/// already inside one (a project in a monorepo). A warning when git cannot do it: the project
/// is complete without, but `make verify-manifests` compares with git.
pub fn git_init(dir: &Path) -> Option<Diagnostic> {
    let inside = std::process::Command::new("git")
        .args(["rev-parse", "--is-inside-work-tree"])
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
    match inside {
        Ok(s) if s.success() => None,
        Ok(_) => {
            let out = std::process::Command::new("git")
                .args(["init", "--quiet"])
                .current_dir(dir)
                .output();
            match out {
                Ok(o) if o.status.success() => None,
                Ok(o) => Some(Diagnostic::warning(format!(
                    "`git init` failed, so the project is not a git repository (`make verify-manifests` needs one): {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                ))),
                Err(e) => Some(Diagnostic::warning(format!("cannot run git init: {e}"))),
            }
        }
        Err(e) => Some(Diagnostic::warning(format!(
            "git not found ({e}): the project is not a git repository (`make verify-manifests` needs one); pass --vcs none to skip this"
        ))),
    }
}
