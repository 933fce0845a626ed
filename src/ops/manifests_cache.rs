//! The manifests cache (`target/opgen/manifests`): what the last `opgen manifests` made of
//! the sources, so that the next run parses and regenerates only what an edit can change.
//!
//! It is a memo of the generators, keyed by opgen's build, the options and each source file's
//! content; it never describes the disk, which the writer still compares. A file whose stamp
//! (size, modification and change times, inode) is the one kept when it was read is taken to
//! hold what it held then, and is not read. A run uses the cache only where the result is the
//! one a run without it makes:
//!
//! * The same `.rs` files, each selected by the same scope, and every edited file's namespace
//!   ([`NamespaceStub`]: its type names, kinds, `use`s and modules) and `//!` markers as
//!   before: then every type path resolves as before, and every package has its markers.
//! * The kinds rebuilt are those made from an edited file (`Model::kind_files`). The model is
//!   built from those files, the files holding package or item (RBAC, webhook) markers, and a
//!   stub of every other file, so that names resolve as in the whole crate.
//! * Anything else is a whole run: a new or vanished kind, a rebuilt kind that now reaches a
//!   stubbed file, any warning or error (which the whole run then reports). Only runs without
//!   warnings are kept.

use super::manifests::{CachedCrd, Generated};
use super::manifests_split::{self, NotSplit};
use super::namespace_stub::NamespaceStub;
use crate::diag::Result;
use crate::generators::crd::Crd;
use crate::generators::csv::CsvKind;
use crate::load::{self, ModPath, Scope, SourceFile, Sources};
use crate::teardown;
use crate::writer::{self, Stamp, Workspace};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::hash::Hasher;
use std::path::{Path, PathBuf};

const FILE: &str = "manifests";
/// Raised whenever what the cache holds changes shape.
const FORMAT: u32 = 4;
/// Each cached CRD's JSON, in a file of its own named by its YAML's hash: read only for the
/// samples of its kind, written only when the kind is rebuilt.
const CRD_DIR: &str = "manifests-crds";

fn json_file(yaml_hash: u64) -> String {
    format!("{CRD_DIR}/{yaml_hash:016x}.json")
}

/// The [`json_file`]s in the cache of the project at `root`: one listing, not a look-up per kind.
fn json_files(root: &Path) -> HashSet<String> {
    let Ok(entries) = std::fs::read_dir(root.join(writer::CACHE_DIR).join(CRD_DIR)) else {
        return HashSet::new();
    };
    entries
        .filter_map(|e| Some(format!("{CRD_DIR}/{}", e.ok()?.file_name().to_str()?)))
        .collect()
}

/// How long before a run a file must have last changed for its stamp to be kept. File times
/// follow a coarse clock (a few milliseconds; two seconds on FAT), and before Linux 6.13 two
/// writes in one tick leave the same times: a file changed just before opgen read it could
/// change again unseen. Such a file is read again next run, as git rereads racily clean files.
const SETTLED: std::time::Duration = std::time::Duration::from_secs(2);

/// `stamp` if the file it is of had settled when `sources` were stamped.
fn settled(stamp: Option<Stamp>, sources: &Sources) -> Option<Stamp> {
    let before = sources.taken().checked_sub(SETTLED)?;
    stamp.filter(|s| s.changed_before(before))
}

/// A kind by its API group and name.
pub(crate) type KindKey = (String, String);

#[derive(Serialize, Deserialize)]
struct Cache {
    format: u32,
    key: String,
    /// The run loaded every file (`Scope::All`), not only the relevant ones.
    all: bool,
    /// Every `.rs` file under `src/`, in path order.
    files: Vec<CachedFile>,
    /// Every kind, in the model's order.
    kinds: Vec<CachedKind>,
    roles: String,
    webhooks: String,
}

#[derive(Serialize, Deserialize, Clone, Default)]
struct CachedFile {
    path: PathBuf,
    /// The run's scope selected the file: the model was built from it.
    loaded: bool,
    /// Of its text; the rest is known of loaded files only.
    hash: u64,
    /// The file's stamp when it was read, if it had [`SETTLED`]: the same stamp, the same text,
    /// and the file is not read.
    stamp: Option<Stamp>,
    module: ModPath,
    stub: NamespaceStub,
    package_markers: Vec<String>,
    item_markers: bool,
}

#[derive(Serialize, Deserialize)]
struct CachedKind {
    group: String,
    kind: String,
    plural: String,
    /// What the CRD was made from: indices into `files`.
    files: Vec<usize>,
    /// Of the CRD's YAML: a run that finds the file so takes it as written, and rebuilds a kind
    /// whose file is gone or edited. It names the file of the CRD's JSON ([`json_file`]).
    yaml_hash: u64,
    /// The file's stamp when it was last found so: the same stamp, the same file.
    yaml_stamp: Option<Stamp>,
    csv: Vec<CsvKind>,
}

/// What a run of the generators tells the cache besides its result, of the model's files.
#[derive(Debug, Default)]
pub(crate) struct Facts {
    /// Each file's `//!` markers, and whether it holds RBAC or webhook markers.
    pub files: Vec<(Vec<String>, bool)>,
    /// Every kind of the model, in its order.
    pub kinds: Vec<KindKey>,
    /// For each kind built (in `Generated::crds`' order), the files it was made from.
    pub kind_files: Vec<Vec<usize>>,
    /// Where the markers' and the model's warnings end in `Generated::warnings`, then where
    /// each kind's CRD's end (in `Generated::crds`' order); the other generators' follow. A run
    /// split between two threads puts the two halves' warnings in this order.
    pub warning_ends: Vec<usize>,
}

/// The CRD files as the project holds them now, by group and plural.
pub(crate) trait Written {
    /// What tells the file from its next version without reading it.
    fn stamp(&self, group: &str, plural: &str) -> Option<Stamp>;
    fn text(&self, group: &str, plural: &str) -> Option<String>;
}

/// What a run from the cache asks of the generators.
pub(crate) struct Partial {
    /// The kinds to build; the model names the others without resolving them.
    pub kinds: HashSet<KindKey>,
    /// The files that are stubs (by index): nothing but names is read of them.
    pub stubs: HashSet<usize>,
}

/// The generators on some files: a whole run (`None`) or a partial one.
pub(crate) type Generate<'a> =
    dyn Fn(&[SourceFile], Option<&Partial>) -> Result<Generated> + Sync + 'a;

/// A run of the generators, with or without the cache.
pub(crate) struct Run {
    pub generated: Generated,
    /// Why the cache was not used: `(true, why)` when it was unreadable or another build's
    /// (for `-v`), `(false, why)` when there was none yet or the edit needed a whole run
    /// (for `-vv`); and why a whole run was not split between two threads (for `-vv`).
    pub notes: Vec<(bool, String)>,
    next: Option<Next>,
}

/// What [`Run::store`] keeps: the cache a reuse updated, or what a whole run loaded, made into
/// a cache only when it is written (not for `--check`, `--dry-run` or a run with warnings).
enum Next {
    Updated(Cache),
    Whole { key: String, loaded: Whole },
}

/// What identifies a run's inputs besides the sources: opgen's build (its version, and the
/// binary's size and time, so that a rebuilt opgen never reads an older one's cache) and
/// `settings`, whatever else the generators read.
pub(crate) fn key(settings: &str) -> String {
    let exe = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|m| {
            let time = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .unwrap_or_default();
            format!("{} {}", m.len(), time.as_nanos())
        })
        .unwrap_or_default();
    format!("opgen {} ({exe}) {settings}", env!("CARGO_PKG_VERSION"))
}

/// The generators' result on the `.rs` files under `src` (`sources`): from the cache of the
/// project in `ws` where it holds, else from a whole run (`Scope::Relevant`, then
/// `Scope::All` if that fails and left a file out). `key: None` leaves the cache alone.
pub(crate) fn run(
    ws: &Workspace,
    key: Option<String>,
    src: &Path,
    sources: &mut Sources,
    written: &dyn Written,
    generate: &Generate,
) -> Result<Run> {
    let Some(key) = key else {
        let (generated, loaded) = whole(ws, src, sources, generate)?;
        let notes = loaded.notes(None);
        teardown::discard(loaded);
        return Ok(Run {
            generated,
            notes,
            next: None,
        });
    };
    let note = match Cache::read(ws.root(), &key) {
        Ok(cache) => match cache.reuse(ws, src, sources, written, generate) {
            Some((generated, next)) => {
                return Ok(Run {
                    generated,
                    notes: Vec::new(),
                    next: next.map(Next::Updated),
                });
            }
            None => (
                false,
                "the manifests cache did not cover this edit: a whole run",
            ),
        },
        Err(why) => why,
    };
    let (generated, loaded) = whole(ws, src, sources, generate)?;
    Ok(Run {
        generated,
        notes: loaded.notes(Some(note)),
        next: Some(Next::Whole { key, loaded }),
    })
}

/// The generators on every file `Scope::Relevant` selects, or on every file if that fails and
/// left a file out (a type may live in a file without markers), and whether that was needed;
/// on two threads where `manifests_split` can.
fn whole(
    ws: &Workspace,
    src: &Path,
    sources: &mut Sources,
    generate: &Generate,
) -> Result<(Generated, Whole)> {
    let texts = sources.read_all(ws)?;
    let modules = load::modules_of(src, texts);
    let skipped = || {
        texts
            .iter()
            .any(|(path, text)| !load::is_selected(src, path, text, Scope::Relevant))
    };
    let split = |scope| manifests_split::whole(src, texts, &modules, scope, generate);
    // Errors with the relevant files alone, and no others to add, are one thread's to report.
    // The halves are the same with every file (files without kinds are parsed by both), so
    // a split that then succeeds is what one thread makes of every file after it failed on the
    // relevant ones.
    let (all, split) = match split(Scope::Relevant) {
        Err(NotSplit::Errors) if skipped() => (true, split(Scope::All)),
        other => (false, other),
    };
    let not_split = match split {
        Ok((generated, files)) => {
            let loaded = Whole {
                all,
                files,
                modules,
                not_split: None,
            };
            return Ok((generated, loaded));
        }
        Err(why) => why,
    };
    let (files, skipped) = load::load_texts(src, texts, &modules, Scope::Relevant)?;
    match generate(&files, None) {
        Ok(g) => Ok((
            g,
            Whole {
                all: false,
                files,
                modules,
                not_split: Some(not_split),
            },
        )),
        Err(_) if skipped => {
            let (files, _) = load::load_texts(src, texts, &modules, Scope::All)?;
            let g = generate(&files, None)?;
            Ok((
                g,
                Whole {
                    all: true,
                    files,
                    modules,
                    not_split: Some(not_split),
                },
            ))
        }
        Err(e) => Err(e),
    }
}

/// What a whole run loaded: with `Scope::All` or not, the files, and every file's module.
struct Whole {
    all: bool,
    files: Vec<SourceFile>,
    modules: BTreeMap<PathBuf, ModPath>,
    /// Why the run was not split between two threads (`None`: it was).
    not_split: Option<NotSplit>,
}

impl Whole {
    /// The run's notes: why the cache was not used (`cache`), then why one thread did it.
    fn notes(&self, cache: Option<(bool, &str)>) -> Vec<(bool, String)> {
        let threads = match self.not_split {
            None => Some("a whole run on two threads".to_owned()),
            Some(not_split) => not_split
                .why()
                .map(|why| format!("a whole run on one thread: {why}")),
        };
        let one_thread = threads.map(|note| (false, note));
        let cache = cache.map(|(worth_v, why)| (worth_v, why.to_owned()));
        cache.into_iter().chain(one_thread).collect()
    }
}

/// The hash the cache keeps of a source file or a CRD's text.
pub(crate) fn hash(text: &str) -> u64 {
    // A fixed seed: the same in every run of one opgen build (the cache's key names the build).
    use std::hash::BuildHasher;
    let mut h = foldhash::fast::FixedState::with_seed(0x6f70_6765_6e00).build_hasher();
    h.write(text.as_bytes());
    h.finish()
}

impl Run {
    /// Keeps the cache of the project at `root` for the next run, `sources` being the sources
    /// it ran on and `yaml` the [`hash`] of each CRD's text in `generated.crds`' order (`None`
    /// for those taken from the cache). Nothing is kept of a run with warnings.
    pub(crate) fn store(
        &mut self,
        root: &Path,
        sources: &Sources,
        yaml: &[Option<u64>],
    ) -> std::io::Result<()> {
        if !self.generated.warnings.is_empty() {
            return Ok(());
        }
        let whole = matches!(self.next, Some(Next::Whole { .. }));
        let cache = match self.next.take() {
            Some(Next::Updated(cache)) => Some(cache),
            Some(Next::Whole { key, loaded }) => {
                let cache = Cache::whole(key, &loaded, sources, &self.generated);
                teardown::discard(loaded);
                cache
            }
            None => None,
        };
        let Some(mut cache) = cache else {
            return Ok(());
        };
        if yaml.len() != cache.kinds.len() {
            return Ok(());
        }
        std::fs::create_dir_all(root.join(writer::CACHE_DIR).join(CRD_DIR))?;
        let mut gone = Vec::new();
        for ((kind, (crd, cached)), yaml) in
            cache.kinds.iter_mut().zip(&self.generated.crds).zip(yaml)
        {
            match (cached, yaml) {
                (Some(_), _) => {}
                (None, Some(yaml_hash)) => {
                    let was = std::mem::replace(&mut kind.yaml_hash, *yaml_hash);
                    if was != kind.yaml_hash {
                        gone.push(was);
                    }
                    kind.yaml_stamp = None;
                    writer::write_cache(root, &json_file(kind.yaml_hash), |out| {
                        serde_json::to_writer(out, &crd.object).map_err(std::io::Error::other)
                    })?;
                }
                (None, None) => return Ok(()),
            }
        }
        // The JSON no kind has now: after a whole run, whatever another cache left.
        let kept: HashSet<String> = cache.kinds.iter().map(|k| json_file(k.yaml_hash)).collect();
        let gone: Vec<String> = if whole {
            json_files(root).into_iter().collect()
        } else {
            gone.into_iter().map(json_file).collect()
        };
        for file in gone.iter().filter(|f| !kept.contains(*f)) {
            let _ = std::fs::remove_file(root.join(writer::CACHE_DIR).join(file));
        }
        let written = writer::write_cache(root, FILE, |out| {
            postcard::to_io(&cache, out)
                .map(drop)
                .map_err(std::io::Error::other)
        });
        teardown::discard(cache);
        written
    }
}

impl Cache {
    /// The cache of the project at `root` for runs keyed `key`, or why there is none to use
    /// (and whether that is worth a note at `-v`).
    fn read(root: &Path, key: &str) -> Result<Cache, (bool, &'static str)> {
        let bytes =
            writer::read_cache(root, FILE).ok_or((false, "no manifests cache yet: a whole run"))?;
        let cache: Cache = postcard::from_bytes(&bytes).map_err(|_| {
            (
                true,
                "the manifests cache is unreadable: a whole run, and a new cache",
            )
        })?;
        if cache.format != FORMAT || cache.key != key {
            return Err((
                true,
                "the manifests cache is another opgen build's or other settings': a whole run, and a new cache",
            ));
        }
        Ok(cache)
    }

    /// The cache of a whole run, whose model was built from `files` (those its scope selected
    /// of `texts`). The CRDs' texts are filled in by [`Run::store`].
    fn whole(
        key: String,
        loaded: &Whole,
        sources: &Sources,
        generated: &Generated,
    ) -> Option<Cache> {
        // A whole run read every file.
        let texts = sources.texts();
        if texts.len() != sources.len() {
            return None;
        }
        let Whole {
            all,
            files,
            modules,
            ..
        } = loaded;
        let facts = generated.facts.as_ref()?;
        let mut model_files = files.iter().zip(&facts.files).peekable();
        let mut cached = Vec::with_capacity(texts.len());
        let mut to_all = Vec::with_capacity(files.len());
        for (i, (path, text)) in texts.iter().enumerate() {
            // The stamps are by index, in the listing's order: the map's, checked.
            if sources.path(i) != path {
                return None;
            }
            let Some((f, (package_markers, item_markers))) =
                model_files.next_if(|(f, _)| f.path == *path)
            else {
                cached.push(CachedFile {
                    path: path.clone(),
                    hash: hash(text),
                    stamp: settled(sources.stamp(i), sources),
                    module: modules[path].clone(),
                    ..CachedFile::default()
                });
                continue;
            };
            to_all.push(i);
            cached.push(CachedFile {
                path: path.clone(),
                loaded: true,
                hash: hash(text),
                stamp: settled(sources.stamp(i), sources),
                module: f.module.clone(),
                stub: NamespaceStub::of(&f.ast),
                package_markers: package_markers.clone(),
                item_markers: *item_markers,
            });
        }
        let kinds = generated
            .crds
            .iter()
            .zip(&facts.kind_files)
            .map(|((crd, _), files)| CachedKind {
                group: crd.group.clone(),
                kind: crd.kind.clone(),
                plural: crd.plural.clone(),
                files: files.iter().map(|m| to_all[*m]).collect(),
                yaml_hash: 0,
                yaml_stamp: None,
                csv: csv_of(&generated.csv, &crd.group, &crd.kind),
            })
            .collect();
        Some(Cache {
            format: FORMAT,
            key,
            all: *all,
            files: cached,
            kinds,
            roles: serde_json::Value::from(generated.roles.clone()).to_string(),
            webhooks: serde_json::Value::from(generated.webhooks.clone()).to_string(),
        })
    }

    fn scope(&self) -> Scope {
        if self.all {
            Scope::All
        } else {
            Scope::Relevant
        }
    }

    /// What the generators make of `sources`, from this cache and the files an edit changed,
    /// and the cache after it (`None` when it stays as it is), or `None` when only a whole run
    /// can tell. A file whose stamp is the one kept is not read.
    fn reuse(
        mut self,
        ws: &Workspace,
        src: &Path,
        sources: &mut Sources,
        written: &dyn Written,
        generate: &Generate,
    ) -> Option<(Generated, Option<Cache>)> {
        if sources.len() != self.files.len() {
            return None;
        }
        let scope = self.scope();
        let mut changed = BTreeSet::new();
        let mut edited_elsewhere = false;
        // A file read again (touched, or not settled last time) keeps its new stamp.
        let mut restamped = false;
        for (i, f) in self.files.iter_mut().enumerate() {
            if sources.path(i) != f.path {
                return None;
            }
            let stamp = sources.stamp(i);
            if stamp.is_some() && stamp == f.stamp {
                continue;
            }
            let kept = settled(stamp, sources);
            let text = sources.text(ws, i).ok()?;
            if load::is_selected(src, &f.path, text, scope) != f.loaded {
                return None;
            }
            let now = hash(text);
            if now != f.hash {
                if f.loaded {
                    changed.insert(i);
                } else {
                    // Not part of the model, but it may declare modules (src/lib.rs).
                    edited_elsewhere = true;
                    f.hash = now;
                }
            }
            restamped |= kept != f.stamp;
            f.stamp = kept;
        }
        // An edited file the model reads keeps its modules if it keeps its stub (checked below).
        if edited_elsewhere
            && load::modules_of(src, sources.read_all(ws).ok()?)
                .values()
                .zip(&self.files)
                .any(|(module, f)| *module != f.module)
        {
            return None;
        }
        // Rebuilt: the kinds made from an edited file, and those whose CRD file is not as written.
        // Parsed whole: the edited files and those the rebuilt kinds were made from (and below,
        // those with package or item markers). The other loaded files are stubs.
        let mut affected = HashSet::new();
        let mut whole: BTreeSet<usize> = changed.clone();
        let mut stamped = false;
        let jsons = json_files(ws.root());
        for k in &mut self.kinds {
            if k.files.iter().any(|f| changed.contains(f))
                || !k.file_as_written(&jsons, written, &mut stamped)
            {
                affected.insert((k.group.clone(), k.kind.clone()));
                whole.extend(&k.files);
            }
        }
        if changed.is_empty() && affected.is_empty() {
            let generated = self.cached();
            return Some((
                generated,
                (edited_elsewhere || stamped || restamped).then_some(self),
            ));
        }
        let mut to_all = Vec::new();
        let mut parsed = Vec::new();
        let mut stubs = HashSet::new();
        for (i, f) in self.files.iter().enumerate() {
            if !f.loaded {
                continue;
            }
            if f.item_markers || !f.package_markers.is_empty() {
                whole.insert(i);
            }
            if whole.contains(&i) {
                let text = sources.text(ws, i).ok()?.to_owned();
                parsed.push((f.path.clone(), f.module.clone(), text));
            } else {
                stubs.insert(to_all.len());
            }
            to_all.push(i);
        }
        // The stubs' trees are built, not parsed; in path order with the parsed files.
        let mut parsed = load::parse_all(parsed).ok()?.into_iter();
        let files: Vec<SourceFile> = (0..to_all.len())
            .map(|m| {
                let f = &self.files[to_all[m]];
                if !stubs.contains(&m) {
                    return parsed.next();
                }
                Some(SourceFile {
                    path: f.path.clone(),
                    module: f.module.clone(),
                    text: String::new(),
                    ast: f.stub.to_file(),
                    skipped: Vec::new(),
                })
            })
            .collect::<Option<_>>()?;
        let partial = Partial {
            kinds: affected,
            stubs,
        };
        let fresh = generate(&files, Some(&partial)).ok()?;
        let facts = fresh.facts.as_ref()?;
        if !fresh.warnings.is_empty()
            || facts.kinds
                != self
                    .kinds
                    .iter()
                    .map(|k| (k.group.clone(), k.kind.clone()))
                    .collect::<Vec<_>>()
            || facts
                .kind_files
                .iter()
                .flatten()
                .any(|m| !whole.contains(&to_all[*m]))
        {
            return None;
        }
        for (m, (file, (package_markers, item_markers))) in
            files.iter().zip(&facts.files).enumerate()
        {
            let i = to_all[m];
            if !whole.contains(&i) {
                continue;
            }
            let cached = &mut self.files[i];
            if changed.contains(&i) {
                if NamespaceStub::of(&file.ast) != cached.stub
                    || *package_markers != cached.package_markers
                {
                    return None;
                }
                cached.hash = hash(sources.text(ws, i).ok()?);
            }
            cached.item_markers = *item_markers;
        }
        teardown::discard(files);
        Some(self.merge(fresh, &to_all))
    }

    /// The cached result whole.
    fn cached(&self) -> Generated {
        let parse = |json: &str| serde_json::from_str(json).unwrap_or_default();
        Generated {
            crds: self.kinds.iter().map(cached_crd).collect(),
            roles: parse(&self.roles),
            webhooks: parse(&self.webhooks),
            csv: self.csv(),
            warnings: Vec::new(),
            facts: None,
        }
    }

    /// Every kind version's CSV description, in the kinds' order.
    fn csv(&self) -> Vec<CsvKind> {
        self.kinds
            .iter()
            .flat_map(|k| k.csv.iter().cloned())
            .collect()
    }

    /// The cached result with the kinds `fresh` built (its model's files being `to_all` of
    /// ours) and its roles and webhooks, and the cache after it.
    fn merge(mut self, fresh: Generated, to_all: &[usize]) -> (Generated, Option<Cache>) {
        let Generated {
            crds: built,
            roles,
            webhooks,
            csv,
            facts,
            ..
        } = fresh;
        let kind_files = facts.map(|f| f.kind_files).unwrap_or_default();
        let mut built: BTreeMap<KindKey, (Crd, Vec<usize>)> = built
            .into_iter()
            .zip(kind_files)
            .map(|((crd, _), files)| {
                let files = files.iter().map(|m| to_all[*m]).collect();
                ((crd.group.clone(), crd.kind.clone()), (crd, files))
            })
            .collect();
        let mut crds = Vec::with_capacity(self.kinds.len());
        for k in &mut self.kinds {
            match built.remove(&(k.group.clone(), k.kind.clone())) {
                Some((crd, files)) => {
                    k.files = files;
                    k.plural = crd.plural.clone();
                    k.csv = csv_of(&csv, &k.group, &k.kind);
                    crds.push((crd, None));
                }
                None => crds.push(cached_crd(k)),
            }
        }
        self.roles = serde_json::Value::from(roles.clone()).to_string();
        self.webhooks = serde_json::Value::from(webhooks.clone()).to_string();
        let generated = Generated {
            crds,
            roles,
            webhooks,
            csv: self.csv(),
            warnings: Vec::new(),
            facts: None,
        };
        (generated, Some(self))
    }
}

impl CachedKind {
    /// Whether the kind's CRD file holds what this cache made of it (and the cache has its
    /// JSON): by its stamp, or else by its text (then its stamp is kept, and `stamped` set).
    fn file_as_written(
        &mut self,
        jsons: &HashSet<String>,
        written: &dyn Written,
        stamped: &mut bool,
    ) -> bool {
        if !jsons.contains(&json_file(self.yaml_hash)) {
            return false;
        }
        let stamp = written.stamp(&self.group, &self.plural);
        if stamp.is_some() && stamp == self.yaml_stamp {
            return true;
        }
        let as_written = written
            .text(&self.group, &self.plural)
            .is_some_and(|text| hash(&text) == self.yaml_hash);
        if as_written && stamp.is_some() {
            self.yaml_stamp = stamp;
            *stamped = true;
        }
        as_written
    }
}

/// A cached kind's CRD, whose JSON is in its own cache file.
fn cached_crd(k: &CachedKind) -> (Crd, Option<CachedCrd>) {
    let crd = Crd {
        group: k.group.clone(),
        kind: k.kind.clone(),
        plural: k.plural.clone(),
        object: serde_json::Value::Null,
    };
    let cached = CachedCrd {
        json: json_file(k.yaml_hash),
    };
    (crd, Some(cached))
}

fn csv_of(csv: &[CsvKind], group: &str, kind: &str) -> Vec<CsvKind> {
    csv.iter()
        .filter(|c| c.group == group && c.kind == kind)
        .cloned()
        .collect()
}
