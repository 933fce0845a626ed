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

use super::relayout::{self, FileKind, ModPath, Moves};
use crate::diag::{Diagnostic, Error, Result};
use crate::generators::rustfmt::{self, Formatted};
use crate::generators::scaffold::api::{self, ResourceContext};
use crate::generators::scaffold::init::{BOILERPLATE_PATH, License, boilerplate};
use crate::generators::scaffold::webhook::{self, ConversionContext, WebhookContext};
use crate::generators::scaffold::{
    Action, Policy, ScaffoldPlan, insert_above_marker, remove_fragment,
};
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
        if let Some(laid_out) = layout_on_disk(ws, project)?
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
            warnings.extend(set_multigroup(ws, project, to)?);
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

fn set_multigroup(ws: &mut Workspace, project: &mut Project, to: bool) -> Result<Vec<Diagnostic>> {
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
    let Some(group) = groups.first().map(|g| g.to_string()) else {
        project.multigroup = to;
        return Ok(Vec::new());
    };
    let group_mod = module_name(&group);
    let old_project = project.clone();
    let mut new_project = project.clone();
    new_project.multigroup = to;
    let header = super::file_header(ws)?;
    let layout = |multi: bool, tree: &str, name: &str| -> ModPath {
        if multi {
            vec![tree.to_owned(), group_mod.clone(), name.to_owned()]
        } else {
            vec![tree.to_owned(), name.to_owned()]
        }
    };
    // Modules to move, in PROJECT order, each once.
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
    let moves = Moves {
        moves: names
            .iter()
            .map(|(tree, name)| (layout(!to, tree, name), layout(to, tree, name)))
            .collect(),
        vanishing: if to {
            Vec::new()
        } else {
            TREES
                .iter()
                .map(|(tree, _)| vec![(*tree).to_owned(), group_mod.clone()])
                .collect()
        },
        crate_name: project.crate_name(),
    };

    let tree = relayout::module_tree(ws)?;
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

    // Every Rust file of the package, rewritten, at its new path.
    let mut files: BTreeMap<PathBuf, Option<String>> = BTreeMap::new();
    let mut sources = Vec::new();
    for dir in ["src", "tests", "examples", "benches"] {
        sources.extend(ws.list_files(Path::new(dir), ".rs")?);
    }
    if ws.exists(Path::new("build.rs")) {
        sources.push(PathBuf::from("build.rs"));
    }
    for path in &sources {
        let kind = match tree.files.get(path) {
            Some(module) => FileKind::Lib(module.clone()),
            None if path.starts_with("src") && !is_other_crate_root(path) => continue,
            None => FileKind::External,
        };
        let text = ws.read(path)?.unwrap_or_default();
        match relayout::rewrite_paths(path, &text, &kind, &tree, &moves) {
            Ok(new) if new != text => {
                files.insert(path.clone(), Some(keep_formatted(&text, new)));
            }
            Ok(_) => {}
            Err(found) => problems.extend(found),
        }
    }
    if !problems.is_empty() {
        return Err(Error::many(problems));
    }
    let current =
        |files: &BTreeMap<PathBuf, Option<String>>, path: &Path| -> Result<Option<String>> {
            match files.get(path) {
                Some(content) => Ok(content.clone()),
                None => ws.read(path),
            }
        };

    // The moved modules' files, and whatever else lives in their directories.
    let mut moved: Vec<(PathBuf, PathBuf)> = Vec::new();
    for (from, to) in &moves.moves {
        let (old_base, new_base) = (
            format!("src/{}", from.join("/")),
            format!("src/{}", to.join("/")),
        );
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
    // The envtest tests of the kinds, and the helper roles.
    let mut plans = Vec::new();
    for r in &project.resources {
        let old = resource_plans(&super::as_created(&old_project, r), r, &header)?;
        let new = resource_plans(&super::as_created(&new_project, r), r, &header)?;
        plans.push((old, new));
    }
    let mut pristine: Vec<(PathBuf, String)> = Vec::new();
    let mut roles: Vec<(PathBuf, PathBuf, String)> = Vec::new();
    let mut lines: Vec<(PathBuf, String, String, String)> = Vec::new();
    let mut group_files: BTreeMap<PathBuf, String> = BTreeMap::new();
    for (old, new) in &plans {
        let writes = |plan: &[Action], policy: Policy| -> Vec<(PathBuf, String)> {
            plan.iter()
                .filter_map(|a| match a {
                    Action::Write {
                        path,
                        content,
                        policy: p,
                    } if *p == policy => Some((path.clone(), content.clone())),
                    _ => None,
                })
                .collect()
        };
        for ((old_path, old_content), (new_path, new_content)) in writes(old, Policy::UserOwned)
            .into_iter()
            .zip(writes(new, Policy::UserOwned))
        {
            if old_path.starts_with("tests") && old_path != new_path && ws.exists(&old_path) {
                moved.push((old_path.clone(), new_path.clone()));
            }
            // An unedited sample stays where it is, its comment following the types file: left
            // as it was, it would no longer be what opgen wrote, and `delete api` would refuse
            // it as edited. An edited one is never touched.
            if ws.read(&old_path)?.as_deref() == Some(old_content.as_str()) {
                pristine.push((new_path, new_content));
            }
        }
        for ((old_path, _), (new_path, new_content)) in writes(old, Policy::ToolOwned)
            .into_iter()
            .zip(writes(new, Policy::ToolOwned))
        {
            roles.push((old_path, new_path, new_content));
        }
        for (path, content) in writes(if to { new } else { old }, Policy::IfMissing) {
            group_files.insert(path, content);
        }
        // The lines of config/ and of tests/envtest/main.rs (the library's `mod` lines move
        // with their modules, below).
        let inserts = |plan: &[Action]| -> Vec<(PathBuf, String, String)> {
            plan.iter()
                .filter_map(|a| match a {
                    Action::Insert {
                        path,
                        marker,
                        fragment,
                    } if !path.to_string_lossy().ends_with(".rs") || path.starts_with("tests") => {
                        Some((path.clone(), fragment.clone(), marker.clone()))
                    }
                    _ => None,
                })
                .collect()
        };
        for ((path, old_line, marker), (_, new_line, _)) in
            inserts(old).into_iter().zip(inserts(new))
        {
            // Versions of one kind share its helper roles: one rename each.
            if old_line != new_line
                && !lines
                    .iter()
                    .any(|(p, o, _, _)| *p == path && *o == old_line)
            {
                lines.push((path, old_line, new_line, marker));
            }
        }
    }
    let mut seen = BTreeSet::new();
    moved.retain(|m| seen.insert(m.clone()));

    let removed: BTreeSet<&PathBuf> = moved.iter().map(|(old, _)| old).collect();
    for (old, new) in &moved {
        if ws.exists(new) && !removed.contains(new) {
            problems.push(Diagnostic::error(format!(
                "{} cannot move to {}: that file exists",
                old.display(),
                new.display()
            )));
        }
    }
    if !problems.is_empty() {
        let last = problems.len() - 1;
        problems[last].help = Some(
            "nothing was changed; move or remove those files, then run the command again"
                .to_owned(),
        );
        return Err(Error::many(problems));
    }
    // Data files beside the modules (anything not UTF-8) move as bytes.
    let mut data_files: BTreeMap<PathBuf, Vec<u8>> = BTreeMap::new();
    let mut contents = Vec::new();
    for (old, _) in &moved {
        contents.push(match files.get(old) {
            Some(text) => Ok(text.clone()),
            None => match ws.read_bytes(old)? {
                Some(bytes) => String::from_utf8(bytes)
                    .map(Some)
                    .map_err(|e| e.into_bytes()),
                None => Ok(None),
            },
        });
    }
    for ((old, new), content) in moved.iter().zip(contents) {
        files.insert(old.clone(), None);
        match content {
            Ok(text) => {
                files.insert(new.clone(), text);
            }
            Err(bytes) => {
                data_files.insert(new.clone(), bytes);
            }
        }
    }
    for (path, content) in pristine {
        files.insert(path, Some(content));
    }
    let mut warnings = Vec::new();
    for (old, new, content) in roles {
        if ws.exists(&old) {
            files.insert(old, None);
        }
        files.insert(new, Some(content));
    }
    for (path, old_line, new_line, marker) in lines {
        let text = current(&files, &path)?.unwrap_or_default();
        let renamed = if path.to_string_lossy().ends_with(".rs") {
            // A `mod` line: where its new name sorts in the run above the marker (rustfmt's
            // order), as `create` inserts it.
            remove_fragment(&text, &old_line)
                .and_then(|without| insert_above_marker(&without, &marker, &new_line))
        } else {
            replace_line(&text, &old_line, &new_line)
        };
        match renamed {
            Some(new_text) => {
                files.insert(path, Some(new_text));
            }
            None => warnings.push(Diagnostic::warning(format!(
                "{} does not list `{old_line}`: add `{new_line}` by hand where it belongs",
                path.display()
            ))),
        }
    }

    let used_trees: BTreeSet<&str> = moves
        .moves
        .iter()
        .map(|(from, _)| from[0].as_str())
        .collect();
    // Leaving the group: its declaration goes first, as a kind named like the group (`mod
    // cache;`) takes its place and would be taken for it.
    if !to {
        for (tree_name, _) in TREES.iter().filter(|(t, _)| used_trees.contains(t)) {
            let root = PathBuf::from(format!("src/{tree_name}/mod.rs"));
            let text = current(&files, &root)?.unwrap_or_default();
            match take_mod_item(&root, &text, &group_mod)? {
                Some((without, _)) => {
                    files.insert(root, Some(without));
                }
                None => problems.push(Diagnostic::error(format!(
                    "{} does not declare `mod {group_mod};`",
                    root.display()
                ))),
            }
        }
    }
    // Module declarations: out of the old parent, into the new one.
    for (from, _) in &moves.moves {
        let (tree_name, marker) = TREES
            .iter()
            .find(|(t, _)| *t == from[0])
            .copied()
            .expect("moves are in the three trees");
        let marker = format!("+opgen:scaffold:{marker}");
        let old_parent = module_file(&tree, &from[..from.len() - 1])?;
        let new_parent = parent_file(to, &group_mod, tree_name);
        let name = from.last().expect("a module path");
        let text = current(&files, &old_parent)?.unwrap_or_default();
        let Some((without, item)) = take_mod_item(&old_parent, &text, name)? else {
            problems.push(Diagnostic::error(format!(
                "{} does not declare `mod {name};`",
                old_parent.display()
            )));
            continue;
        };
        files.insert(old_parent.clone(), Some(without));
        let target = match current(&files, &new_parent)? {
            Some(text) => text,
            None => group_files.get(&new_parent).cloned().unwrap_or_default(),
        };
        match insert_above_marker(&target, &marker, &item) {
            Some(with) => {
                files.insert(new_parent, Some(with));
            }
            None => problems.push(
                Diagnostic::error(format!("{} has no `// {marker}` marker", new_parent.display()))
                    .help(format!("restore the marker comment, then run the command again (it goes where `{item}` belongs)")),
            ),
        }
    }
    // The group's own declaration in each tree's root module, and its module file.
    for (tree_name, marker) in TREES.iter().filter(|(t, _)| used_trees.contains(t)) {
        let root = PathBuf::from(format!("src/{tree_name}/mod.rs"));
        let text = current(&files, &root)?.unwrap_or_default();
        let group_file = PathBuf::from(format!("src/{tree_name}/{group_mod}/mod.rs"));
        if to {
            let marker = format!("+opgen:scaffold:{marker}");
            match insert_above_marker(&text, &marker, &format!("pub mod {group_mod};")) {
                Some(with) => {
                    files.insert(root, Some(with));
                }
                None => problems.push(Diagnostic::error(format!(
                    "{} has no `// {marker}` marker",
                    root.display()
                )).help(format!("restore the marker comment, or add `pub mod {group_mod};` there by hand and run the command again"))),
            }
        } else {
            let left = current(&files, &group_file)?.unwrap_or_default();
            match group_files.get(&group_file) {
                Some(fresh) if *fresh == left => {
                    files.insert(group_file, None);
                }
                _ => problems.push(Diagnostic::error(format!(
                    "{} holds code of yours besides the module declarations, and the group module goes away",
                    group_file.display()
                )).help("move that code elsewhere by hand, then run the command again")),
            }
        }
    }
    // A module has one file: `x.rs` beside a new `x/mod.rs` (or the reverse) is rustc's E0761.
    for (path, content) in &files {
        if content.is_none() {
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
            && !files.contains_key(&twin)
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
    if !problems.is_empty() {
        return Err(Error::many(problems));
    }

    for (path, content) in files {
        match content {
            Some(text) => ws.stage(path, text),
            None => ws.stage_removal(path, None),
        }
    }
    for (path, bytes) in data_files {
        ws.stage_bytes(path, bytes);
    }
    project.multigroup = to;
    record_paths(project);
    Ok(warnings)
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
fn layout_on_disk(ws: &Workspace, project: &Project) -> Result<Option<bool>> {
    let tree = relayout::module_tree(ws)?;
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

/// `new` formatted with rustfmt when `old` was (longer paths can change the layout and the
/// order of `use`s); as it is otherwise, or without rustfmt.
fn keep_formatted(old: &str, new: String) -> String {
    let formatted = |text: &str| match rustfmt::format(text) {
        Ok(Formatted::Done(out)) => Some(out),
        _ => None,
    };
    match formatted(old) {
        Some(out) if out == old => formatted(&new).unwrap_or(new),
        _ => new,
    }
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

/// Everything `create api` and `create webhook` write for `r` in `project`'s layout.
fn resource_plans(project: &Project, r: &Resource, header: &str) -> Result<Vec<Action>> {
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
            plan.actions.extend(
                webhook::plan(&WebhookContext::new(
                    ctx.clone(),
                    w.defaulting,
                    w.validation,
                ))?
                .actions,
            );
        }
        if w.conversion {
            plan.actions
                .extend(webhook::conversion_plan(&ConversionContext::new(ctx, &w.spoke))?.actions);
        }
    }
    Ok(plan.actions)
}

/// The file of module `module` (before the moves).
fn module_file(tree: &relayout::ModuleTree, module: &[String]) -> Result<PathBuf> {
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
    let ast = relayout::parse(file, text)?;
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
