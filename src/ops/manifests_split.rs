//! A whole `opgen manifests` run on two threads. syn's trees cannot leave the thread that
//! parsed them, so each thread parses its own half of the kinds' files and every file without
//! a kind, and stands in a [`NamespaceStub`] for each file of the other half, as a run from the
//! manifests cache does for the files an edit did not touch. Each builds the model and the CRDs
//! of its own kinds; only owned data (stubs, then the generators' results) crosses threads.
//!
//! The split answers only what one thread would, the way the cache does. The CRDs' warnings go
//! in the kinds' order, and the other generators' must be the same in both halves; anything else
//! (an error, a warning of the markers or the model, a kind that reaches a file of the other
//! half or is declared in both, a package or item marker in a kind's file) and the caller runs
//! on one thread, which then reports it.

use super::manifests::Generated;
use super::manifests_cache::{Facts, Generate, KindKey, Partial};
use super::namespace_stub::NamespaceStub;
use crate::diag::Diagnostic;
use crate::load::{self, ModPath, Scope, SourceFile};
use crate::parallel;
use crate::teardown;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc;

/// Why a run was not split between two threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotSplit {
    /// Fewer than two kinds' files, or one core.
    Unsplittable,
    /// The sources have errors, which one thread reports.
    Errors,
    /// What else made one thread do it.
    Other(&'static str),
}

impl NotSplit {
    /// Why, for `-vv`; `None` when there was nothing to split.
    pub(crate) fn why(self) -> Option<&'static str> {
        match self {
            NotSplit::Unsplittable => None,
            NotSplit::Errors => Some("the sources have errors"),
            NotSplit::Other(why) => Some(why),
        }
    }
}

const UNPARSED: NotSplit = NotSplit::Other("a file does not parse");
const WARNED: NotSplit = NotSplit::Other("the markers or the model have warnings");
const TWICE: NotSplit = NotSplit::Other("a kind is declared in both halves");

/// Which thread parses a file whole.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Owner {
    /// A file without kinds: both threads (a kind of either half may reach its types).
    Both,
    Caller,
    Worker,
}

/// The generators on the files of `texts` that `scope` selects, on two threads, and the
/// caller's files (those of the other half as stubs).
pub(crate) fn whole(
    src: &Path,
    texts: &BTreeMap<PathBuf, String>,
    modules: &BTreeMap<PathBuf, ModPath>,
    scope: Scope,
    generate: &Generate,
) -> Result<(Generated, Vec<SourceFile>), NotSplit> {
    // Too little text for two halves worth a thread: not even looked at.
    let min = min_half();
    if texts.values().map(String::len).sum::<usize>() < 2 * min {
        return Err(NotSplit::Unsplittable);
    }
    let selected: Vec<(&PathBuf, &String)> = texts
        .iter()
        .filter(|(path, text)| load::is_selected(src, path, text, scope))
        .collect();
    let Some(owners) = halves(&selected, modules, min) else {
        return Err(NotSplit::Unsplittable);
    };
    if parallel::threads() < 2 {
        return Err(NotSplit::Unsplittable);
    }
    let half = |owner: Owner, tx: mpsc::Sender<Stubs>, rx: mpsc::Receiver<Stubs>| {
        let parse = selected
            .iter()
            .zip(&owners)
            .filter(|(_, o)| **o == Owner::Both || **o == owner)
            .map(|((path, text), _)| ((*path).clone(), modules[*path].clone(), (*text).clone()))
            .collect();
        let Ok(parsed) = load::parse_all(parse) else {
            // Dropping `tx` tells the other thread.
            return Err(UNPARSED);
        };
        let mut parsed = parsed.into_iter();
        let mut files: Vec<Option<SourceFile>> = owners
            .iter()
            .map(|o| match o {
                Owner::Both => parsed.next(),
                o if *o == owner => parsed.next(),
                _ => None,
            })
            .collect();
        let own: Stubs = files
            .iter()
            .enumerate()
            .filter(|(i, _)| owners[*i] == owner)
            .filter_map(|(i, f)| Some((i, NamespaceStub::of(&f.as_ref()?.ast))))
            .collect();
        let mut kinds = HashSet::new();
        for (_, stub) in &own {
            stub.kinds(&mut kinds);
        }
        // The other thread has stopped only if it could not parse (or panicked).
        if tx.send(own).is_err() {
            return Err(UNPARSED);
        }
        let Ok(other) = rx.recv() else {
            return Err(UNPARSED);
        };
        let mut stubs = HashSet::new();
        for (i, stub) in other {
            let (path, module) = (selected[i].0, &modules[selected[i].0]);
            files[i] = Some(SourceFile {
                path: path.clone(),
                module: module.clone(),
                text: String::new(),
                ast: stub.to_file(),
                skipped: Vec::new(),
            });
            stubs.insert(i);
        }
        let files: Vec<SourceFile> = files.into_iter().collect::<Option<_>>().ok_or(UNPARSED)?;
        let generated =
            generate(&files, Some(&Partial { kinds, stubs })).map_err(|_| NotSplit::Errors)?;
        let facts = generated.facts.as_ref().ok_or(NotSplit::Errors)?;
        if facts.warning_ends.first() != Some(&0) {
            return Err(WARNED);
        }
        // Each kind made from this half's files and those without kinds only.
        let other_half = |i: &usize| owners[*i] != Owner::Both && owners[*i] != owner;
        if facts.kind_files.iter().flatten().any(other_half) {
            return Err(NotSplit::Other(
                "a kind's types stand in files of both halves",
            ));
        }
        Ok((generated, files))
    };
    let (to_worker, from_caller) = mpsc::channel();
    let (to_caller, from_worker) = mpsc::channel();
    let (caller, worker) = std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name("opgen-half".into())
            .stack_size(parallel::STACK_SIZE)
            .spawn_scoped(s, || {
                half(Owner::Worker, to_caller, from_caller).map(|(generated, files)| {
                    teardown::discard(files);
                    generated
                })
            })
            .expect("start a worker thread");
        let caller = half(Owner::Caller, to_worker, from_worker);
        let worker = worker
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e));
        (caller, worker)
    });
    let ((caller, files), worker) = (caller?, worker?);
    Ok((merge(caller, worker, &owners)?, files))
}

/// Files by index, each with its stub.
type Stubs = Vec<(usize, NamespaceStub)>;

/// Each selected file's [`Owner`]: the files of one kind (by the kind's name as written, else
/// the file's path), and kinds' files whose paths name each other's modules (or the module
/// above a file, which may re-export its items), on one thread; the heaviest group first on the
/// thread with less text. `None` when fewer than two groups, or the lighter half holds less than
/// `min` bytes (0: any) or less than twice the files both threads parse.
fn halves(
    selected: &[(&PathBuf, &String)],
    modules: &BTreeMap<PathBuf, ModPath>,
    min: usize,
) -> Option<Vec<Owner>> {
    let kind_files: Vec<usize> = (0..selected.len())
        .filter(|i| load::may_declare_kind(selected[*i].1))
        .collect();
    // Each kind file's group, as the smallest index of a file in it (union-find).
    let mut group: Vec<usize> = (0..selected.len()).collect();
    fn root(group: &mut [usize], mut i: usize) -> usize {
        while group[i] != i {
            group[i] = group[group[i]];
            i = group[i];
        }
        i
    }
    fn join(group: &mut [usize], a: usize, b: usize) {
        let (a, b) = (root(group, a), root(group, b));
        group[a.max(b)] = a.min(b);
    }
    let mut by_kind: BTreeMap<&str, usize> = BTreeMap::new();
    let by_module: BTreeMap<&[String], usize> = kind_files
        .iter()
        .map(|i| (modules[selected[*i].0].as_slice(), *i))
        .collect();
    let mut by_parent: BTreeMap<&[String], Vec<usize>> = BTreeMap::new();
    for &i in &kind_files {
        let module = modules[selected[i].0].as_slice();
        let parent = &module[..module.len().saturating_sub(1)];
        by_parent.entry(parent).or_default().push(i);
    }
    for &i in &kind_files {
        let (path, text) = selected[i];
        let key = kind_name(text).or(path.to_str()).unwrap_or_default();
        if let Some(&first) = by_kind.get(key) {
            join(&mut group, first, i);
        } else {
            by_kind.insert(key, i);
        }
        for (module, looked_up) in named_modules(&modules[path], load::without_test_module(text)) {
            let module = module.as_slice();
            if let Some(&other) = by_module.get(module) {
                join(&mut group, i, other);
            }
            for &other in by_parent
                .get(module)
                .filter(|_| looked_up)
                .into_iter()
                .flatten()
            {
                join(&mut group, i, other);
            }
        }
    }
    let mut groups: BTreeMap<usize, (usize, Vec<usize>)> = BTreeMap::new();
    for &i in &kind_files {
        let g = groups.entry(root(&mut group, i)).or_default();
        g.0 += selected[i].1.len();
        g.1.push(i);
    }
    if groups.len() < 2 {
        return None;
    }
    let mut groups: Vec<(usize, Vec<usize>)> = groups.into_values().collect();
    groups.sort_by_key(|g| std::cmp::Reverse(g.0));
    let mut owners = vec![Owner::Both; selected.len()];
    let (mut caller, mut worker) = (0, 0);
    for (size, files) in groups {
        let (owner, load) = if caller <= worker {
            (Owner::Caller, &mut caller)
        } else {
            (Owner::Worker, &mut worker)
        };
        *load += size;
        for i in files {
            owners[i] = owner;
        }
    }
    // Both threads parse the files without kinds, and the second thread and its merge cost
    // about a millisecond: a split pays only when the lighter half's kinds are large (stop 59).
    let both: usize = (0..selected.len())
        .filter(|i| owners[*i] == Owner::Both)
        .map(|i| selected[i].1.len())
        .sum();
    let lighter = caller.min(worker);
    let pays = min == 0 || (lighter >= min && lighter >= 2 * both);
    pays.then_some(owners)
}

/// The least text of kinds' files (bytes) on each thread for a split: the 100 kinds × 50 fields
/// (290 KB a half) run a third faster on two threads; the real-world APIs, whose halves are
/// 100 KB or less beside their shared types, did not run faster at all. `OPGEN_SPLIT_MIN_BYTES`
/// sets another; 0 splits whatever can be split, however small (as the tests do).
fn min_half() -> usize {
    std::env::var("OPGEN_SPLIT_MIN_BYTES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(128 * 1024)
}

/// The modules a text's `crate::` and `super::` paths name, as module paths from the crate
/// root, for a file of module `module`: every module each path goes through, and (`true`) the
/// one its last segment is looked up in, which may re-export it from a file below (`pub use
/// kind_types::*`, as `opgen import go` writes a package's mod.rs).
fn named_modules(module: &[String], text: &str) -> Vec<(Vec<String>, bool)> {
    let mut out = Vec::new();
    for start in ["crate::", "super::"] {
        let finder = memchr::memmem::Finder::new(start);
        let mut rest = text;
        while let Some(at) = finder.find(rest.as_bytes()) {
            let before = rest[..at].chars().next_back();
            rest = &rest[at..];
            let len = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':' || c == '*'))
                .unwrap_or(rest.len());
            let path = &rest[..len];
            rest = &rest[len..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut base: Vec<String> = Vec::new();
            let mut segments = path.split("::").filter(|s| !s.is_empty()).peekable();
            if segments.peek() == Some(&"crate") {
                segments.next();
            } else {
                base = module.to_vec();
                while segments.next_if_eq(&"super").is_some() {
                    base.pop();
                }
            }
            let segments: Vec<&str> = segments.collect();
            for segment in segments.iter().take(segments.len().saturating_sub(1)) {
                out.push((base.clone(), false));
                base.push((*segment).to_owned());
            }
            out.push((base, true));
        }
    }
    out
}

/// The first `kind = "..."` of a text: the kind of its `#[kube(...)]`, to keep a kind's
/// versions on one thread.
fn kind_name(text: &str) -> Option<&str> {
    let at = memchr::memmem::find(text.as_bytes(), b"kind = \"")? + "kind = \"".len();
    let rest = &text[at..];
    Some(&rest[..rest.find('"')?])
}

/// The two halves' results as one thread makes them: the CRDs, their warnings and the CSV
/// descriptions in the kinds' order, then the caller's roles, webhooks and their warnings (every
/// file with RBAC or webhook markers is one both parsed, checked here); why not when the halves
/// do not add up.
fn merge(caller: Generated, worker: Generated, owners: &[Owner]) -> Result<Generated, NotSplit> {
    let (Some(caller_facts), Some(worker_facts)) = (&caller.facts, &worker.facts) else {
        return Err(TWICE);
    };
    if caller_facts.kinds != worker_facts.kinds {
        return Err(TWICE);
    }
    let markers_in_kind_file = owners.iter().enumerate().any(|(i, owner)| {
        let facts = match owner {
            Owner::Both => return false,
            Owner::Caller => &caller_facts.files[i],
            Owner::Worker => &worker_facts.files[i],
        };
        !facts.0.is_empty() || facts.1
    });
    if markers_in_kind_file {
        return Err(NotSplit::Other(
            "a kind's file holds package, RBAC or webhook markers",
        ));
    }
    let others = |g: &'_ Generated, facts: &Facts| -> Vec<Diagnostic> {
        let crds_end = facts.warning_ends.last().copied().unwrap_or_default();
        g.warnings[crds_end..].to_vec()
    };
    let others_warnings = others(&caller, caller_facts);
    if others_warnings != others(&worker, worker_facts) {
        return Err(NotSplit::Other(
            "the halves' RBAC, webhook or CSV warnings differ",
        ));
    }
    let kinds = caller_facts.kinds.clone();
    let files = caller_facts.files.clone();
    let (roles, webhooks) = (caller.roles.clone(), caller.webhooks.clone());
    let mut built: BTreeMap<KindKey, _> = BTreeMap::new();
    let mut csv = Vec::new();
    for half in [caller, worker] {
        let facts = half.facts.expect("checked above");
        csv.extend(half.csv);
        let mut warnings = half.warnings.into_iter();
        let mut taken = facts.warning_ends[0];
        for ((crd, files), end) in half
            .crds
            .into_iter()
            .zip(facts.kind_files)
            .zip(&facts.warning_ends[1..])
        {
            let key = (crd.0.group.clone(), crd.0.kind.clone());
            let own: Vec<Diagnostic> = warnings.by_ref().take(end - taken).collect();
            taken = *end;
            if built.insert(key, (crd, files, own)).is_some() {
                return Err(TWICE);
            }
        }
    }
    if !built.keys().eq(kinds.iter()) {
        return Err(TWICE);
    }
    let mut crds = Vec::with_capacity(built.len());
    let mut kind_files = Vec::with_capacity(built.len());
    let mut warnings: Vec<Diagnostic> = Vec::new();
    let mut warning_ends = vec![0];
    for (crd, files, own) in built.into_values() {
        crds.push(crd);
        kind_files.push(files);
        warnings.extend(own);
        warning_ends.push(warnings.len());
    }
    warnings.extend(others_warnings);
    // One thread would have reported a warning both halves report once, or twice.
    if warnings
        .iter()
        .enumerate()
        .any(|(i, w)| warnings[..i].contains(w))
    {
        return Err(NotSplit::Other("both halves report the same warning"));
    }
    csv.sort_by(|a, b| (&a.group, &a.kind).cmp(&(&b.group, &b.kind)));
    Ok(Generated {
        crds,
        roles,
        webhooks,
        csv,
        warnings,
        facts: Some(Facts {
            files,
            kinds,
            kind_files,
            warning_ends,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn halves_of(files: &[(&str, &[&str], &str)]) -> Option<Vec<Owner>> {
        let texts: Vec<(PathBuf, String)> = files
            .iter()
            .map(|(path, _, text)| (PathBuf::from(path), (*text).to_owned()))
            .collect();
        let modules: BTreeMap<PathBuf, ModPath> = files
            .iter()
            .map(|(path, module, _)| {
                let module = module.iter().map(|s| (*s).to_owned()).collect();
                (PathBuf::from(path), module)
            })
            .collect();
        let selected: Vec<(&PathBuf, &String)> = texts.iter().map(|(p, t)| (p, t)).collect();
        halves(&selected, &modules, 128 * 1024)
    }

    /// A kind's file, with enough comment lines to be worth a thread of its own.
    fn kind(name: &str, body: &str) -> String {
        format!(
            "#[derive(CustomResource)]\n#[kube(group = \"a.io\", version = \"v1\", kind = \"{name}\")]\npub struct {name}Spec {{ {body} }}\n{}",
            "// A comment line of the kind's file.\n".repeat(4_000)
        )
    }

    #[test]
    fn small_halves_are_not_split() {
        let (a, b) = (kind("A", "x: i32"), kind("B", "y: i32"));
        let files: [(&str, &[&str], &str); 2] = [
            ("src/api/v1/a.rs", &["api", "v1", "a"], &a),
            ("src/api/v1/b.rs", &["api", "v1", "b"], &b),
        ];
        assert!(halves_of(&files).is_some());
        let small = [
            ("src/api/v1/a.rs", &["api", "v1", "a"][..], &a[..1_000]),
            ("src/api/v1/b.rs", &["api", "v1", "b"][..], &b[..1_000]),
        ];
        assert!(halves_of(&small).is_none());
        // Nor when both threads would parse more shared types than each saves.
        let shared = "pub struct Shared;\n".repeat(10_000);
        let mut with_shared = files.to_vec();
        with_shared.push(("src/api/v1/common.rs", &["api", "v1", "common"], &shared));
        assert!(halves_of(&with_shared).is_none());
    }

    #[test]
    fn a_kinds_files_stay_together_and_files_without_kinds_go_to_both() {
        let (a1, a2, b, c) = (
            kind("A", "x: i32"),
            kind("A", "x: i64"),
            kind("B", &"y: String, ".repeat(40)),
            kind("C", "z: bool"),
        );
        let owners = halves_of(&[
            (
                "src/api/common.rs",
                &["api", "common"],
                "pub struct Shared;",
            ),
            ("src/api/v1/a.rs", &["api", "v1", "a"], &a1),
            ("src/api/v1/b.rs", &["api", "v1", "b"], &b),
            ("src/api/v1/c.rs", &["api", "v1", "c"], &c),
            ("src/api/v2/a.rs", &["api", "v2", "a"], &a2),
        ])
        .unwrap();
        assert!(owners[0] == Owner::Both);
        // A's two versions, the heaviest group, alone; B and C on the other thread.
        assert!(owners[1] == owners[4] && owners[1] != Owner::Both);
        assert!(owners[2] == owners[3] && owners[2] != owners[1] && owners[2] != Owner::Both);
    }

    #[test]
    fn kinds_files_that_name_each_others_modules_stay_together() {
        let a = kind("A", "b: crate::api::v1::b::BPart");
        let b = kind("B", "y: i32");
        let c = kind("C", "a: super::super::v2::d::Thing");
        let d = kind("D", "z: i32");
        let owners = halves_of(&[
            ("src/api/v1/a.rs", &["api", "v1", "a"], &a),
            ("src/api/v1/b.rs", &["api", "v1", "b"], &b),
            ("src/api/v1/c.rs", &["api", "v1", "c"], &c),
            ("src/api/v2/d.rs", &["api", "v2", "d"], &d),
        ])
        .unwrap();
        assert!(owners[0] == owners[1] && owners[2] == owners[3] && owners[0] != owners[2]);
        // Joined into one group, nothing is left to split.
        let e = kind("E", "c: crate::api::v1::c::Thing, a: crate::api::v1::a::X");
        assert!(
            halves_of(&[
                ("src/api/v1/a.rs", &["api", "v1", "a"], &a),
                ("src/api/v1/b.rs", &["api", "v1", "b"], &b),
                ("src/api/v1/c.rs", &["api", "v1", "c"], &c),
                ("src/api/v2/d.rs", &["api", "v2", "d"], &d),
                ("src/api/v2/e.rs", &["api", "v2", "e"], &e),
            ])
            .is_none()
        );
    }

    #[test]
    fn paths_name_the_modules_they_go_through() {
        let module: Vec<String> = ["api", "v1", "a"].map(String::from).into();
        let text = "use crate::api::v2::Thing; x: super::b::B, y: my_crate::c::C, z: super::*";
        let named: Vec<String> = named_modules(&module, text)
            .iter()
            .map(|(m, looked_up)| format!("{}{}", m.join("::"), if *looked_up { " *" } else { "" }))
            .collect();
        assert_eq!(
            named,
            [
                "",
                "api",
                "api::v2 *",
                "api::v1",
                "api::v1::b *",
                "api::v1 *"
            ]
        );
    }
}
