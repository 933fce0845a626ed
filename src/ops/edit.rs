//! `opgen edit`: changes a project option recorded in PROJECT and what depends on it.
//!
//! `--multigroup` moves every kind's modules into (or out of) its group's module, as
//! `create api` lays them out in that mode: `src/api/<version>` ↔ `src/api/<group>/<version>`,
//! and likewise the controllers, webhooks, envtest tests and helper roles. Files still as
//! opgen wrote them are written as `create` writes them in the new layout; edited ones move
//! with their paths rewritten ([`super::relayout`]); other files in the moved directories move
//! as they are (bytes). An unedited sample stays where it is, its TODO comment naming the moved
//! types file; an edited one stays as it is. It moves from the layout the modules
//! are in, which PROJECT's `multigroup` (edited by hand) may contradict. `--license`/`--owner`
//! rewrite the license header later files get (existing files keep theirs, as with
//! kubebuilder).

use super::relayout::{self, FileKind, Moves};
use crate::diag::{Diagnostic, Error, Result};
use crate::generators::rustfmt::{self, Formatted};
use crate::generators::scaffold::api::{self, ResourceContext};
use crate::generators::scaffold::init::{BOILERPLATE_PATH, License, boilerplate};
use crate::generators::scaffold::webhook::{self, ConversionContext, WebhookContext};
use crate::generators::scaffold::{
    Action, Policy, ScaffoldPlan, format_rust_with, insert_above_marker, remove_fragment,
};
use crate::load::{self, ModPath, ModuleTree};
use crate::names::module_name;
use crate::pluralize;
use crate::project::{self, Project, Resource};
use crate::writer::Workspace;
use heck::ToSnakeCase;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default)]
pub struct EditOptions {
    pub multigroup: Option<bool>,
    pub license: Option<License>,
    pub owner: Option<String>,
}

/// Stages the edit; returns warnings (and notes on what stayed as it was).
pub fn edit(
    ws: &mut Workspace,
    project: &mut Project,
    opts: &EditOptions,
) -> Result<Vec<Diagnostic>> {
    if opts.multigroup.is_none() && opts.license.is_none() && opts.owner.is_none() {
        return Err(Error::with_help(
            "nothing to edit: no option was given",
            "pass --multigroup[=false], --license or --owner (see opgen edit --help)",
        ));
    }
    let mut warnings = Vec::new();
    // The move first: it compares files with the header they were created with.
    if let Some(to) = opts.multigroup {
        // The modules say where the code is; PROJECT may have been edited by hand.
        let tree = load::module_tree(ws)?;
        if let Some(laid_out) = layout_on_disk(&tree, project)?
            && laid_out != project.multigroup
        {
            warnings.push(Diagnostic::warning(format!(
                "PROJECT says `multigroup: {}`, but the modules are laid out {}: opgen goes by the modules",
                project.multigroup,
                if laid_out { "by group (src/api/<group>/<version>)" } else { "for one group (src/api/<version>)" }
            )));
            project.multigroup = laid_out;
        }
        if to == project.multigroup {
            warnings.push(Diagnostic::warning(format!(
                "the project is already {}: nothing to move",
                if to { "multigroup" } else { "single-group" }
            )));
            record_paths(project);
        } else {
            warnings.extend(set_multigroup(ws, &tree, project, to)?);
        }
    }
    if opts.license.is_some() || opts.owner.is_some() {
        edit_license(ws, project, opts)?;
    }
    ws.stage(project::FILE_NAME, project.to_yaml());
    Ok(warnings)
}

fn edit_license(ws: &mut Workspace, project: &Project, opts: &EditOptions) -> Result<()> {
    if let Some(owner) = &opts.owner
        && (owner.trim().is_empty() || owner.chars().any(char::is_control))
    {
        return Err(Error::msg(format!(
            "invalid value {owner:?} for --owner: must be a name on one line, without control characters"
        )));
    }
    let license = opts.license.unwrap_or(License::Apache2);
    if license == License::None && opts.owner.is_some() {
        return Err(Error::with_help(
            "--owner names the copyright holder of the license header, and --license none has none",
            "drop --owner, or pass --license apache2",
        ));
    }
    match license {
        License::None => ws.stage_removal(BOILERPLATE_PATH, None),
        License::Apache2 => ws.stage(
            BOILERPLATE_PATH,
            boilerplate(license, opts.owner.as_deref(), &project.project_name),
        ),
    }
    Ok(())
}

/// The three module trees a kind's code lives in, with the scaffold marker that lists
/// their modules.
const TREES: [(&str, &str); 3] = [
    ("api", "modules"),
    ("controllers", "controller-modules"),
    ("webhooks", "webhook-modules"),
];

/// Moves the kinds' code into the layout `to` (multigroup or not), staging every change in
/// `ws`. On an error the workspace holds part of the move, and the caller drops it unwritten.
/// Moves the kinds' modules into the layout `to`; `tree` is the package's module tree as it is.
fn set_multigroup(
    ws: &mut Workspace,
    tree: &ModuleTree,
    project: &mut Project,
    to: bool,
) -> Result<Vec<Diagnostic>> {
    let Some(group) = the_group(project, to)? else {
        project.multigroup = to;
        return Ok(Vec::new());
    };
    let group_mod = module_name(&group);
    let moves = module_moves(project, to, &group_mod);
    check_moved_modules_exist(tree, &moves)?;
    // The scaffold of both layouts is compared with the files as they are, before anything is
    // staged. Its Rust is formatted in one rustfmt batch with the rewrites of the files it did
    // not write; those it wrote are rewritten only when edited (an unedited one is written
    // anew, as `create` writes it in the new layout).
    let mut plans = scaffold_plans(ws, project, to, &moves)?;
    let scaffolded: BTreeSet<PathBuf> = plans
        .iter()
        .step_by(2)
        .flat_map(|old| old.rendered())
        .filter_map(|a| a.written_with(Policy::UserOwned).cloned())
        .collect();
    let (written, others): (Vec<PathBuf>, Vec<PathBuf>) = rust_sources(ws)?
        .into_iter()
        .partition(|path| scaffolded.contains(path));
    let mut problems = Vec::new();
    let others = rewrite_sources(ws, tree, &moves, &others, &mut problems)?;
    let others = {
        let sources = formatting_sources(&others);
        let formatted = format_rust_with(&mut plans.iter_mut().collect::<Vec<_>>(), &sources)?;
        keep_formatted(others, formatted)
    };
    let scaffold = ScaffoldChanges::new(ws, project, to, &moves, plans)?;
    let pristine: BTreeSet<&Path> = scaffold
        .pristine
        .iter()
        .map(|(old, _, _)| old.as_path())
        .collect();
    let edited: Vec<PathBuf> = written
        .into_iter()
        .filter(|path| !pristine.contains(path.as_path()))
        .collect();
    let edited = rewrite_sources(ws, tree, &moves, &edited, &mut problems)?;
    if !problems.is_empty() {
        return Err(Error::many(problems));
    }
    let edited = {
        let formatted = rustfmt::format_all(&formatting_sources(&edited));
        keep_formatted(edited, formatted)
    };
    for (path, text) in others.into_iter().chain(edited) {
        ws.stage(path, text);
    }
    let moved = files_to_move(ws, &moves, &scaffold.tests)?;
    move_files(ws, &moved)?;
    let warnings = scaffold.stage(ws)?;

    let used_trees: BTreeSet<&str> = moves
        .moves
        .iter()
        .map(|(from, _)| from[0].as_str())
        .collect();
    // Leaving the group: its declaration goes first, as a kind named like the group (`mod
    // cache;`) takes its place and would be taken for it.
    if !to {
        remove_group_declarations(ws, &used_trees, &group_mod, &mut problems)?;
    }
    move_module_declarations(
        ws,
        tree,
        &moves,
        to,
        &group_mod,
        &scaffold.group_files,
        &mut problems,
    )?;
    settle_group_modules(
        ws,
        &used_trees,
        to,
        &group_mod,
        &scaffold.group_files,
        &mut problems,
    )?;
    check_module_twins(ws, &mut problems);
    if !problems.is_empty() {
        return Err(Error::many(problems));
    }
    project.multigroup = to;
    record_paths(project);
    Ok(warnings)
}

/// The one API group of the kinds (`None`: no kinds); more than one is refused when leaving
/// multigroup.
fn the_group(project: &Project, to: bool) -> Result<Option<String>> {
    let groups: BTreeSet<&str> = project.resources.iter().map(|r| r.group.as_str()).collect();
    if !to && groups.len() > 1 {
        return Err(Error::with_help(
            format!(
                "a single-group project holds one API group, and this one has {}",
                groups
                    .iter()
                    .map(|g| format!("{g:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            "delete the APIs of all groups but one first (opgen delete api), or keep the project multigroup",
        ));
    }
    Ok(groups.first().map(|g| g.to_string()))
}

/// The kinds' modules in the three trees, each from its place in the layout it leaves to its
/// place in layout `to`, in PROJECT order, each once.
fn module_moves(project: &Project, to: bool, group_mod: &str) -> Moves {
    let layout = |multi: bool, tree: &str, name: &str| -> ModPath {
        if multi {
            vec![tree.to_owned(), group_mod.to_owned(), name.to_owned()]
        } else {
            vec![tree.to_owned(), name.to_owned()]
        }
    };
    let mut names: Vec<(&str, String)> = Vec::new();
    for r in &project.resources {
        let kind = r.kind.to_snake_case();
        if r.api.is_some() {
            names.push(("api", r.version.clone()));
        }
        if r.controller {
            names.push(("controllers", kind.clone()));
        }
        if let Some(w) = &r.webhooks {
            if w.defaulting || w.validation {
                names.push(("webhooks", kind.clone()));
            }
            if w.conversion {
                names.push(("webhooks", format!("{kind}_conversion")));
            }
        }
    }
    let mut seen = BTreeSet::new();
    names.retain(|n| seen.insert(n.clone()));
    Moves {
        moves: names
            .iter()
            .map(|(tree, name)| (layout(!to, tree, name), layout(to, tree, name)))
            .collect(),
        vanishing: if to {
            Vec::new()
        } else {
            TREES
                .iter()
                .map(|(tree, _)| vec![(*tree).to_owned(), group_mod.to_owned()])
                .collect()
        },
        crate_name: project.crate_name(),
    }
}

/// Every module PROJECT's kinds have must be in the module tree, where the move finds it.
fn check_moved_modules_exist(tree: &ModuleTree, moves: &Moves) -> Result<()> {
    let mut problems = Vec::new();
    for (from, _) in &moves.moves {
        if !tree.files.values().any(|m| m == from) {
            problems.push(Diagnostic::error(format!(
                "PROJECT lists the module `crate::{}`, and src/lib.rs does not lead to its file",
                from.join("::")
            )).help(format!(
                "restore src/{}.rs (or its `mod` declaration), or remove the kind with opgen delete",
                from.join("/")
            )));
        }
    }
    if !problems.is_empty() {
        return Err(Error::many(problems));
    }
    Ok(())
}

/// The package's Rust files: src/, tests/, examples/, benches/ and build.rs.
fn rust_sources(ws: &Workspace) -> Result<Vec<PathBuf>> {
    let mut sources = Vec::new();
    for dir in ["src", "tests", "examples", "benches"] {
        sources.extend(ws.list_files(Path::new(dir), ".rs")?);
    }
    if ws.exists(Path::new("build.rs")) {
        sources.push(PathBuf::from("build.rs"));
    }
    Ok(sources)
}

/// Each of `sources` that names a moved module, with its paths rewritten: `(path, text,
/// rewritten)`, to be staged at its current path (the files of moved modules move
/// afterwards). A path that cannot be resolved is added to `problems`.
fn rewrite_sources(
    ws: &Workspace,
    tree: &ModuleTree,
    moves: &Moves,
    sources: &[PathBuf],
    problems: &mut Vec<Diagnostic>,
) -> Result<Vec<(PathBuf, String, String)>> {
    let mut rewritten = Vec::new();
    for path in sources {
        let kind = match tree.files.get(path) {
            Some(module) => FileKind::Lib(module.clone()),
            None if path.starts_with("src") && !is_other_crate_root(path) => continue,
            None => FileKind::External,
        };
        let text = ws.read(path)?.unwrap_or_default();
        match relayout::rewrite_paths(path, &text, &kind, tree, moves) {
            Ok(new) if new != text => rewritten.push((path.clone(), text, new)),
            Ok(_) => {}
            Err(found) => problems.extend(found),
        }
    }
    Ok(rewritten)
}

/// The directory (and single file) of each moved module: `(src/<from>, src/<to>)`.
fn module_dirs(moves: &Moves) -> Vec<(String, String)> {
    moves
        .moves
        .iter()
        .map(|(from, to)| {
            (
                format!("src/{}", from.join("/")),
                format!("src/{}", to.join("/")),
            )
        })
        .collect()
}

/// (old path, new path) of every file that moves: the moved modules' files and whatever else
/// lives in their directories, then the envtest tests `tests` of the kinds. A file in the
/// way of one is refused.
fn files_to_move(
    ws: &Workspace,
    moves: &Moves,
    tests: &[(PathBuf, PathBuf)],
) -> Result<Vec<(PathBuf, PathBuf)>> {
    let mut moved: Vec<(PathBuf, PathBuf)> = Vec::new();
    for (old_base, new_base) in module_dirs(moves) {
        let mut paths = ws.list_files(Path::new(&old_base), "")?;
        let single = PathBuf::from(format!("{old_base}.rs"));
        if ws.exists(&single) {
            paths.push(single);
        }
        for old in paths {
            let rest = old.to_string_lossy()[old_base.len()..].to_owned();
            moved.push((old, PathBuf::from(format!("{new_base}{rest}"))));
        }
    }
    moved.extend(tests.iter().cloned());
    let mut seen = BTreeSet::new();
    moved.retain(|m| seen.insert(m.clone()));

    let removed: BTreeSet<&PathBuf> = moved.iter().map(|(old, _)| old).collect();
    let mut problems = Vec::new();
    for (old, new) in &moved {
        if ws.exists(new) && !removed.contains(new) {
            problems.push(Diagnostic::error(format!(
                "{} cannot move to {}: that file exists",
                old.display(),
                new.display()
            )));
        }
    }
    if let Some(last) = problems.last_mut() {
        last.help = Some(
            "nothing was changed; move or remove those files, then run the command again"
                .to_owned(),
        );
        return Err(Error::many(problems));
    }
    Ok(moved)
}

/// Stages the moves: text as the workspace has it (paths rewritten), data files beside the
/// modules (anything not UTF-8) as bytes. Every file is read before any moves.
fn move_files(ws: &mut Workspace, moved: &[(PathBuf, PathBuf)]) -> Result<()> {
    let mut contents = Vec::new();
    for (old, _) in moved {
        contents.push(match ws.read_bytes(old)? {
            Some(bytes) => String::from_utf8(bytes)
                .map(Some)
                .map_err(|e| e.into_bytes()),
            None => Ok(None),
        });
    }
    for ((old, new), content) in moved.iter().zip(contents) {
        ws.stage_removal(old, None);
        match content {
            Ok(Some(text)) => ws.stage(new, text),
            Ok(None) => ws.stage_removal(new, None),
            Err(bytes) => ws.stage_bytes(new, bytes),
        }
    }
    Ok(())
}

/// What the scaffold writes for the kinds in the layout the project leaves and in the one it
/// takes, file by file.
struct ScaffoldChanges {
    /// (old path, new path) of the kinds' envtest tests, which are named after the layout.
    tests: Vec<(PathBuf, PathBuf)>,
    /// User-owned files still as opgen wrote them (old path), with what `create` writes at their
    /// new path.
    pristine: Vec<(PathBuf, PathBuf, String)>,
    /// (old path, new path, new content) of the helper roles.
    roles: Vec<(PathBuf, PathBuf, String)>,
    /// (file, old line, new line, marker) of the lines inserted into config/ and
    /// tests/envtest/main.rs (the library's `mod` lines move with their modules).
    lines: Vec<(PathBuf, String, String, String)>,
    /// The files `create` writes when missing in the multigroup layout (the group modules).
    group_files: BTreeMap<PathBuf, String>,
}

/// What `create` writes for each kind in the layout the project leaves and in the one it
/// takes (two plans per kind, in that order), the Rust that [`ScaffoldChanges::new`] reads
/// left to format.
fn scaffold_plans(
    ws: &Workspace,
    project: &Project,
    to: bool,
    moves: &Moves,
) -> Result<Vec<ScaffoldPlan>> {
    let mut new_project = project.clone();
    new_project.multigroup = to;
    let header = super::file_header(ws)?;
    let mut plans = Vec::new();
    for r in &project.resources {
        let mut old = resource_plan(&super::as_created(project, r), r, &header)?;
        let mut new = resource_plan(&super::as_created(&new_project, r), r, &header)?;
        let (old_read, new_read) =
            read_formatted(&old, &new, moves, &config_prefixes(project, to, r))?;
        old.leave_unformatted(|a| !is_read(a, &old_read, !to));
        new.leave_unformatted(|a| !is_read(a, &new_read, to));
        plans.extend([old, new]);
    }
    Ok(plans)
}

impl ScaffoldChanges {
    /// The changes of [`scaffold_plans`]'s `plans`, their Rust formatted.
    fn new(
        ws: &Workspace,
        project: &Project,
        to: bool,
        moves: &Moves,
        plans: Vec<ScaffoldPlan>,
    ) -> Result<Self> {
        let mut changes = ScaffoldChanges {
            tests: Vec::new(),
            pristine: Vec::new(),
            roles: Vec::new(),
            lines: Vec::new(),
            group_files: BTreeMap::new(),
        };
        let mut plans = plans.into_iter();
        for r in &project.resources {
            let (Some(old), Some(new)) = (plans.next(), plans.next()) else {
                unreachable!("two plans per resource")
            };
            let (old, new) = (old.into_actions()?, new.into_actions()?);
            changes.add(ws, &old, &new, to, moves, &config_prefixes(project, to, r))?;
        }
        Ok(changes)
    }

    /// Adds the plans of one resource in the old layout (`old`) and the new one (`new`).
    fn add(
        &mut self,
        ws: &Workspace,
        old: &[Action],
        new: &[Action],
        to: bool,
        moves: &Moves,
        prefixes: &(String, String),
    ) -> Result<()> {
        for PairedWrite {
            old_path,
            new_path,
            policy,
            old_content,
            new_content,
        } in paired_writes(old, new, moves, prefixes)?
        {
            match policy {
                Policy::UserOwned => {
                    if old_path.starts_with("tests") && old_path != new_path && ws.exists(&old_path)
                    {
                        self.tests.push((old_path.clone(), new_path.clone()));
                    }
                    // An unedited sample stays where it is, its comment following the types
                    // file: left as it was, it would no longer be what opgen wrote, and `delete
                    // api` would refuse it as edited. An edited one is never touched. A file the
                    // same in both layouts is moved as it is (see `read_formatted`).
                    if old_content != new_content
                        && ws.read(&old_path)?.as_deref() == Some(old_content)
                    {
                        self.pristine
                            .push((old_path.clone(), new_path, new_content.to_owned()));
                    }
                }
                Policy::ToolOwned => {
                    self.roles
                        .push((old_path, new_path, new_content.to_owned()));
                }
                _ => {}
            }
        }
        for a in if to { new } else { old } {
            if let Action::Write {
                path,
                content,
                policy: Policy::IfMissing,
            } = a
            {
                self.group_files.insert(path.clone(), content.clone());
            }
        }
        for (path, marker, old_line, new_line) in paired_inserts(old, new)? {
            // Versions of one kind share its helper roles: one rename each.
            if old_line != new_line
                && !self
                    .lines
                    .iter()
                    .any(|(p, o, _, _)| p == path && o == old_line)
            {
                self.lines.push((
                    path.clone(),
                    old_line.to_owned(),
                    new_line.to_owned(),
                    marker.to_owned(),
                ));
            }
        }
        Ok(())
    }

    /// Stages the unedited files rendered anew, the helper roles at their new names and the
    /// renamed lines; a line not found is a warning.
    fn stage(&self, ws: &mut Workspace) -> Result<Vec<Diagnostic>> {
        for (_, path, content) in &self.pristine {
            ws.stage(path, content.as_str());
        }
        for (old, new, content) in &self.roles {
            if ws.exists(old) {
                ws.stage_removal(old, None);
            }
            ws.stage(new, content.as_str());
        }
        let mut warnings = Vec::new();
        for (path, old_line, new_line, marker) in &self.lines {
            let text = ws.read(path)?.unwrap_or_default();
            let renamed = if path.to_string_lossy().ends_with(".rs") {
                // A `mod` line: where its new name sorts in the run above the marker (rustfmt's
                // order), as `create` inserts it.
                remove_fragment(&text, old_line)
                    .and_then(|without| insert_above_marker(&without, marker, new_line))
            } else {
                replace_line(&text, old_line, new_line)
            };
            match renamed {
                Some(new_text) => ws.stage(path, new_text),
                None => warnings.push(Diagnostic::warning(format!(
                    "{} does not list `{old_line}`: add `{new_line}` by hand where it belongs",
                    path.display()
                ))),
            }
        }
        Ok(warnings)
    }
}

/// The Rust files of one resource's plans, `old` and `new` (not formatted yet), that
/// [`ScaffoldChanges::add`] reads formatted, by plan: user-owned files that differ between the
/// layouts (compared with the file on disk, then written) and the new layout's tool-owned
/// files (written); with the group modules, see [`is_read`]. A user-owned file rendered the
/// same in both layouts is not read: unedited, it is what moving it writes; edited, it moves
/// as the user has it. Most files are such (about 150 of 160 in a 20-kind project), and each
/// one formatted costs a rustfmt pass.
fn read_formatted(
    old: &ScaffoldPlan,
    new: &ScaffoldPlan,
    moves: &Moves,
    prefixes: &(String, String),
) -> Result<(BTreeSet<PathBuf>, BTreeSet<PathBuf>)> {
    let (mut old_read, mut new_read) = (BTreeSet::new(), BTreeSet::new());
    for pair in paired_writes(old.rendered(), new.rendered(), moves, prefixes)? {
        match pair.policy {
            Policy::UserOwned if pair.old_content != pair.new_content => {
                old_read.insert(pair.old_path);
                new_read.insert(pair.new_path);
            }
            Policy::ToolOwned => {
                new_read.insert(pair.new_path);
            }
            _ => {}
        }
    }
    Ok((old_read, new_read))
}

/// Whether `add` reads the write `a` of a plan formatted: one of its `paths`, or a group module
/// (written when missing) of the plan in the multigroup layout (`multigroup`).
fn is_read(a: &Action, paths: &BTreeSet<PathBuf>, multigroup: bool) -> bool {
    match a {
        Action::Write { path, policy, .. } => {
            paths.contains(path) || (multigroup && *policy == Policy::IfMissing)
        }
        Action::Insert { .. } => false,
    }
}

/// The prefix of `r`'s file names under config/ and tests/ in the layout the project leaves
/// and in the one it takes (`memcached`, `cache_memcached`).
fn config_prefixes(project: &Project, to: bool, r: &Resource) -> (String, String) {
    let prefix = |multigroup: bool| {
        let mut layout = project.clone();
        layout.multigroup = multigroup;
        context(&layout, r, "", false, false, String::new()).config_prefix()
    };
    (prefix(!to), prefix(to))
}

/// Where a file the scaffold writes in the old layout is in the new one: the same path, or
/// its module's new place, or, named after the kind under config/ or tests/, the new layout's
/// name for it. Candidates, most likely first.
fn relocated(path: &Path, moves: &Moves, (old, new): &(String, String)) -> Vec<PathBuf> {
    let mut candidates = vec![path.to_owned()];
    let text = path.to_string_lossy();
    for (old_base, new_base) in module_dirs(moves) {
        if text == format!("{old_base}.rs") {
            candidates.push(PathBuf::from(format!("{new_base}.rs")));
        } else if let Ok(rest) = path.strip_prefix(&old_base) {
            candidates.push(Path::new(&new_base).join(rest));
        }
    }
    if let Some(name) = path.file_name().map(|n| n.to_string_lossy())
        && let Some(rest) = name.strip_prefix(&format!("{old}_"))
    {
        candidates.push(path.with_file_name(format!("{new}_{rest}")));
    }
    candidates
}

/// A file the scaffold writes in both layouts.
struct PairedWrite<'a> {
    old_path: PathBuf,
    new_path: PathBuf,
    policy: Policy,
    old_content: &'a str,
    new_content: &'a str,
}

/// The user- and tool-owned files of one resource's plans in the old and the new layout,
/// paired by path (each old file with its path in the new layout). A file of one layout
/// without a counterpart in the other is an error: the edit could not say what becomes of it.
fn paired_writes<'a>(
    old: &'a [Action],
    new: &'a [Action],
    moves: &Moves,
    prefixes: &(String, String),
) -> Result<Vec<PairedWrite<'a>>> {
    let owned = |plan: &'a [Action]| -> Vec<(&'a PathBuf, Policy, &'a str)> {
        plan.iter()
            .filter_map(|a| match a {
                Action::Write {
                    path,
                    content,
                    policy: policy @ (Policy::UserOwned | Policy::ToolOwned),
                } => Some((path, *policy, content.as_str())),
                _ => None,
            })
            .collect()
    };
    let mut by_path: BTreeMap<&PathBuf, (Policy, &str)> = owned(new)
        .into_iter()
        .map(|(path, policy, content)| (path, (policy, content)))
        .collect();
    let mut pairs = Vec::new();
    for (old_path, policy, old_content) in owned(old) {
        let found = relocated(old_path, moves, prefixes)
            .into_iter()
            .find(|p| by_path.get(p).is_some_and(|(q, _)| *q == policy));
        let Some((new_path, (_, new_content))) =
            found.and_then(|p| by_path.remove_entry(&p).map(|(p, v)| (p.clone(), v)))
        else {
            return Err(Error::msg(format!(
                "internal error: the new layout's scaffold has no file for {}",
                old_path.display()
            )));
        };
        pairs.push(PairedWrite {
            old_path: old_path.clone(),
            new_path,
            policy,
            old_content,
            new_content,
        });
    }
    if let Some(path) = by_path.keys().next() {
        return Err(Error::msg(format!(
            "internal error: the old layout's scaffold has no file for {}",
            path.display()
        )));
    }
    Ok(pairs)
}

/// The lines one resource's plans insert into config/ and tests/ (whose paths both layouts
/// share), paired by file and marker: (file, marker, old line, new line). The two layouts
/// insert the same number of lines at each marker, in the same order.
fn paired_inserts<'a>(
    old: &'a [Action],
    new: &'a [Action],
) -> Result<Vec<(&'a PathBuf, &'a str, &'a str, &'a str)>> {
    type Lines<'a> = BTreeMap<(&'a PathBuf, &'a str), Vec<&'a str>>;
    let inserts = |plan: &'a [Action]| -> Lines<'a> {
        let mut lines: Lines<'a> = BTreeMap::new();
        for a in plan {
            if let Action::Insert {
                path,
                marker,
                fragment,
            } = a
                && (!path.to_string_lossy().ends_with(".rs") || path.starts_with("tests"))
            {
                lines
                    .entry((path, marker.as_str()))
                    .or_default()
                    .push(fragment.as_str());
            }
        }
        lines
    };
    let (old, mut new) = (inserts(old), inserts(new));
    let mut pairs = Vec::new();
    for ((path, marker), old_lines) in old {
        match new.remove(&(path, marker)) {
            Some(new_lines) if new_lines.len() == old_lines.len() => {
                for (o, n) in old_lines.into_iter().zip(new_lines) {
                    pairs.push((path, marker, o, n));
                }
            }
            _ => {
                return Err(Error::msg(format!(
                    "internal error: the two layouts' scaffolds insert different lines at `{marker}` in {}",
                    path.display()
                )));
            }
        }
    }
    if let Some((path, marker)) = new.keys().next() {
        return Err(Error::msg(format!(
            "internal error: only the new layout's scaffold inserts lines at `{marker}` in {}",
            path.display()
        )));
    }
    Ok(pairs)
}

/// Leaving the group: its `mod` declaration out of each tree's root module.
fn remove_group_declarations(
    ws: &mut Workspace,
    used_trees: &BTreeSet<&str>,
    group_mod: &str,
    problems: &mut Vec<Diagnostic>,
) -> Result<()> {
    for (tree_name, _) in TREES.iter().filter(|(t, _)| used_trees.contains(t)) {
        let root = PathBuf::from(format!("src/{tree_name}/mod.rs"));
        let text = ws.read(&root)?.unwrap_or_default();
        match take_mod_item(&root, &text, group_mod)? {
            Some((without, _)) => ws.stage(root, without),
            None => problems.push(Diagnostic::error(format!(
                "{} does not declare `mod {group_mod};`",
                root.display()
            ))),
        }
    }
    Ok(())
}

/// Module declarations: out of the old parent, into the new one.
fn move_module_declarations(
    ws: &mut Workspace,
    tree: &ModuleTree,
    moves: &Moves,
    to: bool,
    group_mod: &str,
    group_files: &BTreeMap<PathBuf, String>,
    problems: &mut Vec<Diagnostic>,
) -> Result<()> {
    for (from, _) in &moves.moves {
        let (tree_name, marker) = TREES
            .iter()
            .find(|(t, _)| *t == from[0])
            .copied()
            .expect("moves are in the three trees");
        let marker = format!("+opgen:scaffold:{marker}");
        let old_parent = module_file(tree, &from[..from.len() - 1])?;
        let new_parent = parent_file(to, group_mod, tree_name);
        let name = from.last().expect("a module path");
        let text = ws.read(&old_parent)?.unwrap_or_default();
        let Some((without, item)) = take_mod_item(&old_parent, &text, name)? else {
            problems.push(Diagnostic::error(format!(
                "{} does not declare `mod {name};`",
                old_parent.display()
            )));
            continue;
        };
        ws.stage(old_parent, without);
        let target = match ws.read(&new_parent)? {
            Some(text) => text,
            None => group_files.get(&new_parent).cloned().unwrap_or_default(),
        };
        match insert_above_marker(&target, &marker, &item) {
            Some(with) => ws.stage(new_parent, with),
            None => problems.push(
                Diagnostic::error(format!("{} has no `// {marker}` marker", new_parent.display()))
                    .help(format!("restore the marker comment, then run the command again (it goes where `{item}` belongs)")),
            ),
        }
    }
    Ok(())
}

/// The group's own declaration in each tree's root module, and its module file: added when
/// entering the group, the file removed when leaving it (refused if it holds more than `create`
/// wrote).
fn settle_group_modules(
    ws: &mut Workspace,
    used_trees: &BTreeSet<&str>,
    to: bool,
    group_mod: &str,
    group_files: &BTreeMap<PathBuf, String>,
    problems: &mut Vec<Diagnostic>,
) -> Result<()> {
    for (tree_name, marker) in TREES.iter().filter(|(t, _)| used_trees.contains(t)) {
        let root = PathBuf::from(format!("src/{tree_name}/mod.rs"));
        let text = ws.read(&root)?.unwrap_or_default();
        let group_file = PathBuf::from(format!("src/{tree_name}/{group_mod}/mod.rs"));
        if to {
            let marker = format!("+opgen:scaffold:{marker}");
            match insert_above_marker(&text, &marker, &format!("pub mod {group_mod};")) {
                Some(with) => ws.stage(root, with),
                None => problems.push(Diagnostic::error(format!(
                    "{} has no `// {marker}` marker",
                    root.display()
                )).help(format!("restore the marker comment, or add `pub mod {group_mod};` there by hand and run the command again"))),
            }
        } else {
            let left = ws.read(&group_file)?.unwrap_or_default();
            match group_files.get(&group_file) {
                Some(fresh) if *fresh == left => ws.stage_removal(group_file, None),
                _ => problems.push(Diagnostic::error(format!(
                    "{} holds code of yours besides the module declarations, and the group module goes away",
                    group_file.display()
                )).help("move that code elsewhere by hand, then run the command again")),
            }
        }
    }
    Ok(())
}

/// A module has one file: `x.rs` beside a new `x/mod.rs` (or the reverse) is rustc's E0761.
fn check_module_twins(ws: &Workspace, problems: &mut Vec<Diagnostic>) {
    let staged: BTreeMap<&Path, bool> = ws.staged().collect();
    for (path, exists) in &staged {
        if !exists {
            continue;
        }
        let twin = if path.file_name().is_some_and(|n| n == "mod.rs") {
            path.parent().map(|dir| dir.with_extension("rs"))
        } else if path.extension().is_some_and(|e| e == "rs") {
            Some(path.with_extension("").join("mod.rs"))
        } else {
            None
        };
        if let Some(twin) = twin
            && !staged.contains_key(twin.as_path())
            && ws.exists(&twin)
        {
            problems.push(
                Diagnostic::error(format!(
                    "{}: this module's file would also be {}, which this change creates (rustc: error[E0761])",
                    twin.display(),
                    path.display()
                ))
                .help("rename or move your module, then run the command again"),
            );
        }
    }
}

/// Each resource's `path` in PROJECT as `create api` records it in the project's layout.
fn record_paths(project: &mut Project) {
    let layout = project.clone();
    for r in &mut project.resources {
        let plural = r
            .plural
            .clone()
            .unwrap_or_else(|| pluralize::flect_plural(&r.kind));
        r.path = context(&layout, r, &plural, true, false, String::new()).recorded_path();
    }
}

/// Whether the kinds' modules are laid out by group (`true`) or for one group (`false`), as
/// the module tree from src/lib.rs has them; `None` when no kind's module is found either way.
/// Kinds laid out both ways are an error: opgen cannot tell which way to move them.
fn layout_on_disk(tree: &ModuleTree, project: &Project) -> Result<Option<bool>> {
    let mut found: BTreeMap<bool, String> = BTreeMap::new();
    for r in &project.resources {
        let group = module_name(&r.group);
        let (tree_name, name) = if r.api.is_some() {
            ("api", r.version.clone())
        } else if r.controller {
            ("controllers", r.kind.to_snake_case())
        } else {
            continue;
        };
        let by_group = vec![tree_name.to_owned(), group, name.clone()];
        let single = vec![tree_name.to_owned(), name];
        // The group layout first: a kind named like its group has `controllers::cache` both ways.
        let layout = if tree.modules.contains(&by_group) {
            true
        } else if tree.modules.contains(&single) {
            false
        } else {
            continue;
        };
        let module = if layout { by_group } else { single };
        found
            .entry(layout)
            .or_insert_with(|| format!("crate::{}", module.join("::")));
    }
    match (found.get(&false), found.get(&true)) {
        (Some(single), Some(by_group)) => Err(Error::with_help(
            format!(
                "the kinds are laid out both ways: `{single}` for one group, `{by_group}` by group, so opgen cannot tell which way to move them"
            ),
            "move the modules by hand into one layout (and set `multigroup:` in PROJECT to match), then run the command again; nothing was written",
        )),
        (Some(_), None) => Ok(Some(false)),
        (None, Some(_)) => Ok(Some(true)),
        (None, None) => Ok(None),
    }
}

/// The sources [`keep_formatted`] needs formatted for `files`: each old and new.
fn formatting_sources(files: &[(PathBuf, String, String)]) -> Vec<&str> {
    files
        .iter()
        .flat_map(|(_, old, new)| [old.as_str(), new.as_str()])
        .collect()
}

/// Each `(path, old, new)` as `(path, new)`, `new` formatted with rustfmt when `old` was
/// (longer paths can change the layout and the order of `use`s); as it is otherwise, or
/// without rustfmt. `formatted`: rustfmt's answers for [`formatting_sources`], so that they
/// go through one batch with other sources (a new is formatted for nothing where its old was
/// not).
fn keep_formatted(
    files: Vec<(PathBuf, String, String)>,
    formatted: Vec<Result<Formatted, String>>,
) -> Vec<(PathBuf, String)> {
    let mut formatted = formatted.into_iter();
    files
        .into_iter()
        .map(|(path, old, new)| {
            let (old_out, new_out) = (formatted.next(), formatted.next());
            let was_formatted = matches!(old_out, Some(Ok(Formatted::Done(out))) if out == old);
            match new_out {
                Some(Ok(Formatted::Done(out))) if was_formatted => (path, out),
                _ => (path, new),
            }
        })
        .collect()
}

/// `src/main.rs`, `src/bin/*`: crates of their own that name the library by its name.
pub(super) fn is_other_crate_root(path: &Path) -> bool {
    path == Path::new("src/main.rs") || path.starts_with("src/bin")
}

fn context(
    project: &Project,
    r: &Resource,
    plural: &str,
    resource: bool,
    controller: bool,
    header: String,
) -> ResourceContext {
    ResourceContext::new(
        project,
        &r.group,
        &r.version,
        &r.kind,
        plural,
        r.api.as_ref().is_some_and(|a| a.namespaced),
        resource,
        controller,
        header,
    )
}

/// Everything `create api` and `create webhook` write for `r` in `project`'s layout (its Rust
/// not formatted yet).
fn resource_plan(project: &Project, r: &Resource, header: &str) -> Result<ScaffoldPlan> {
    let plural = r
        .plural
        .clone()
        .unwrap_or_else(|| pluralize::flect_plural(&r.kind));
    let mut plan: ScaffoldPlan = api::plan(&context(
        project,
        r,
        &plural,
        r.api.is_some(),
        r.controller,
        header.to_owned(),
    ))?;
    if let Some(w) = &r.webhooks {
        let ctx = context(project, r, &plural, true, false, header.to_owned());
        if w.defaulting || w.validation {
            plan.extend(webhook::plan(&WebhookContext::new(
                ctx.clone(),
                w.defaulting,
                w.validation,
            ))?);
        }
        if w.conversion {
            plan.extend(webhook::conversion_plan(&ConversionContext::new(
                ctx, &w.spoke,
            ))?);
        }
    }
    Ok(plan)
}

fn module_file(tree: &ModuleTree, module: &[String]) -> Result<PathBuf> {
    tree.files
        .iter()
        .find(|(_, m)| m.as_slice() == module)
        .map(|(f, _)| f.clone())
        .ok_or_else(|| {
            Error::msg(format!(
                "the module `crate::{}` has no file of its own",
                module.join("::")
            ))
        })
}

/// The file that declares the modules of `parent` after the edit.
fn parent_file(to: bool, group_mod: &str, tree: &str) -> PathBuf {
    if to {
        PathBuf::from(format!("src/{tree}/{group_mod}/mod.rs"))
    } else {
        PathBuf::from(format!("src/{tree}/mod.rs"))
    }
}

/// `text` without the top-level `mod name;` item (its attributes and whole lines), and the
/// item's text; `None` when there is no such item.
fn take_mod_item(file: &Path, text: &str, name: &str) -> Result<Option<(String, String)>> {
    use syn::spanned::Spanned;
    let ast = load::parse(file, text)?;
    let Some(item) = ast.items.iter().find_map(|i| match i {
        syn::Item::Mod(m) if m.ident == name && m.content.is_none() => Some(m),
        _ => None,
    }) else {
        return Ok(None);
    };
    let range = item.span().byte_range();
    let start = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
    let start = if text[start..range.start].trim().is_empty() {
        start
    } else {
        range.start
    };
    let end = match text[range.end..].find('\n') {
        Some(i) if text[range.end..range.end + i].trim().is_empty() => range.end + i + 1,
        _ => range.end,
    };
    let item_text = text[range].to_owned();
    let mut out = text[..start].to_owned();
    out.push_str(&text[end..]);
    Ok(Some((out, item_text)))
}

/// `text` with the line that reads `old` (trimmed) reading `new`, indented alike.
fn replace_line(text: &str, old: &str, new: &str) -> Option<String> {
    let mut found = false;
    let out: String = text
        .split_inclusive('\n')
        .map(|line| {
            if !found && line.trim() == old.trim() {
                found = true;
                let indent: String = line
                    .chars()
                    .take_while(|c| c.is_whitespace() && *c != '\n')
                    .collect();
                let eol = if line.ends_with('\n') { "\n" } else { "" };
                format!("{indent}{}{eol}", new.trim())
            } else {
                line.to_owned()
            }
        })
        .collect();
    found.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &str, content: &str, policy: Policy) -> Action {
        Action::Write {
            path: path.into(),
            content: content.to_owned(),
            policy,
        }
    }

    fn moves() -> Moves {
        Moves {
            moves: vec![(
                vec!["api".to_owned(), "v1".to_owned()],
                vec!["api".to_owned(), "cache".to_owned(), "v1".to_owned()],
            )],
            ..Default::default()
        }
    }

    #[test]
    fn plans_pair_by_path_whatever_their_order() {
        let old = [
            write("src/api/v1/memcached_types.rs", "types", Policy::UserOwned),
            write(
                "config/rbac/memcached_admin_role.yaml",
                "role",
                Policy::ToolOwned,
            ),
            write(
                "config/samples/cache_v1_memcached.yaml",
                "sample",
                Policy::UserOwned,
            ),
        ];
        let new = [
            write(
                "config/samples/cache_v1_memcached.yaml",
                "sample'",
                Policy::UserOwned,
            ),
            write(
                "config/rbac/cache_memcached_admin_role.yaml",
                "role'",
                Policy::ToolOwned,
            ),
            write(
                "src/api/cache/v1/memcached_types.rs",
                "types'",
                Policy::UserOwned,
            ),
        ];
        let prefixes = ("memcached".to_owned(), "cache_memcached".to_owned());
        let pairs: Vec<_> = paired_writes(&old, &new, &moves(), &prefixes)
            .unwrap()
            .into_iter()
            .map(|p| (p.old_path, p.new_path, p.old_content, p.new_content))
            .collect();
        let pair = |old: &str, new: &str, a, b| (PathBuf::from(old), PathBuf::from(new), a, b);
        assert_eq!(
            pairs,
            [
                pair(
                    "src/api/v1/memcached_types.rs",
                    "src/api/cache/v1/memcached_types.rs",
                    "types",
                    "types'"
                ),
                pair(
                    "config/rbac/memcached_admin_role.yaml",
                    "config/rbac/cache_memcached_admin_role.yaml",
                    "role",
                    "role'"
                ),
                pair(
                    "config/samples/cache_v1_memcached.yaml",
                    "config/samples/cache_v1_memcached.yaml",
                    "sample",
                    "sample'"
                ),
            ]
        );
    }

    #[test]
    fn a_file_of_one_layout_only_is_an_error_not_dropped() {
        let prefixes = ("memcached".to_owned(), "cache_memcached".to_owned());
        let old = [write(
            "src/api/v1/memcached_types.rs",
            "t",
            Policy::UserOwned,
        )];
        let new = [
            write(
                "src/api/cache/v1/memcached_types.rs",
                "t",
                Policy::UserOwned,
            ),
            write(
                "tests/envtest/cache_memcached_controller.rs",
                "e",
                Policy::UserOwned,
            ),
        ];
        let err = paired_writes(&old, &new, &moves(), &prefixes)
            .err()
            .expect("an unpaired file");
        assert!(
            err.to_string()
                .contains("tests/envtest/cache_memcached_controller.rs"),
            "{err}"
        );
        assert!(paired_writes(&new, &old, &moves(), &prefixes).is_err());
        let insert = |fragment: &str| Action::Insert {
            path: "config/rbac/kustomization.yaml".into(),
            marker: "rbac-helper-roles".to_owned(),
            fragment: fragment.to_owned(),
        };
        let old = [insert("- a.yaml"), insert("- b.yaml")];
        let new = [insert("- x_a.yaml")];
        assert!(paired_inserts(&old, &new).is_err());
    }
}
