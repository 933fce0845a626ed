//! The manifests cache never goes stale: a project is edited at random, step by step (fields
//! added, removed and retyped, docs and markers changed, shared types edited, kinds added,
//! deleted and moved to other files, package and RBAC markers changed, syntax and marker errors
//! made and mended, samples edited), and after each step `opgen manifests` with the cache must
//! do exactly what it does without one (`--no-cache`, in a copy of the project): the same exit
//! status, output, messages and files. A corrupt or foreign cache is rebuilt, with a note.
//! Likewise a whole run split between two threads (`manifests_split`) does what one thread
//! does, after each step and on every corpus project.
//!
//! `OPGEN_CACHE_STEPS` (default 80) and `OPGEN_CACHE_SEED` (default fixed) change the walk.

mod support;

use std::fmt::Write as _;
use std::path::Path;
use support::{opgen, opgen_on_threads, tree};

#[derive(Clone, Debug)]
struct Field {
    name: String,
    ty: &'static str,
    doc: String,
    max_length: Option<u32>,
}

#[derive(Clone, Debug)]
struct Kind {
    name: String,
    /// The file (module) it stands in, below src/api/v1/.
    module: String,
    fields: Vec<Field>,
}

/// The project the walk edits, rendered whole after each step.
#[derive(Clone, Debug)]
struct Project {
    kinds: Vec<Kind>,
    shared_doc: String,
    shared_extra: bool,
    group: &'static str,
    /// `*` (a least-privilege warning, so a run the cache does not keep) lasts one step.
    rbac_verbs: &'static str,
    /// A file (by its path below src/) that gets a syntax error appended, for one step.
    broken: Option<String>,
    /// For one step.
    unknown_marker: bool,
    sample_replicas: i64,
    /// src/lib.rs declares `util` (src/util.rs, there either way: no kinds, no markers, so
    /// never parsed; its module is `util` declared or not).
    util: bool,
}

const TYPES: &[&str] = &[
    "String",
    "i32",
    "Option<bool>",
    "Vec<String>",
    "Option<Shared>",
    "Option<Local>",
];

impl Project {
    fn new() -> Self {
        let kind = |name: &str, module: &str, ty: &'static str| Kind {
            name: name.to_owned(),
            module: module.to_owned(),
            fields: vec![
                Field {
                    name: "size".into(),
                    ty: "i32",
                    doc: "How many.".into(),
                    max_length: None,
                },
                Field {
                    name: "other".into(),
                    ty,
                    doc: "Something else.".into(),
                    max_length: None,
                },
            ],
        };
        Project {
            kinds: vec![
                kind("Shop", "shop_types", "Option<Shared>"),
                kind("Clerk", "clerk_types", "String"),
                kind("Till", "till_types", "Option<Local>"),
            ],
            shared_doc: "Shared is used by some kinds.".into(),
            shared_extra: false,
            group: "shop.example.com",
            rbac_verbs: "get;list;watch",
            broken: None,
            unknown_marker: false,
            sample_replicas: 3,
            util: false,
        }
    }

    fn files(&self) -> Vec<(String, String)> {
        let lib = if self.util {
            "pub mod api;\npub mod controllers;\npub mod util;\n"
        } else {
            "pub mod api;\npub mod controllers;\n"
        };
        let mut files = vec![("src/lib.rs".to_owned(), lib.to_owned())];
        files.push((
            "src/util.rs".to_owned(),
            "/// Helps.\npub fn helper() {}\n".to_owned(),
        ));
        files.extend([("src/api/mod.rs".to_owned(), "pub mod v1;\n".to_owned())]);
        let mut v1 = format!(
            "//! API version v1.\n//!\n//! +groupName={}\n\npub mod common;\n",
            self.group
        );
        for k in &self.kinds {
            writeln!(v1, "pub mod {};", k.module).unwrap();
        }
        files.push(("src/api/v1/mod.rs".to_owned(), v1));
        let extra = if self.shared_extra {
            "    /// Added later.\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub extra: Option<i64>,\n"
        } else {
            ""
        };
        files.push((
            "src/api/v1/common.rs".to_owned(),
            format!(
                "use serde::{{Deserialize, Serialize}};\n\n/// {}\n#[derive(Serialize, Deserialize, Clone, Debug, Default)]\npub struct Shared {{\n    /// A name.\n    // +kubebuilder:validation:MinLength=1\n    pub name: String,\n{extra}}}\n",
                self.shared_doc
            ),
        ));
        for k in &self.kinds {
            files.push((format!("src/api/v1/{}.rs", k.module), self.kind_file(k)));
        }
        files.push((
            "src/controllers/mod.rs".to_owned(),
            format!(
                "//! The controllers.\n\n// +kubebuilder:rbac:groups={},resources=shops,verbs={}\n// +kubebuilder:rbac:groups=\"\",resources=events,verbs=create;patch\npub fn reconcile() {{}}\n",
                self.group, self.rbac_verbs
            ),
        ));
        if let Some(path) = &self.broken {
            let file = files.iter_mut().find(|(p, _)| p == path).unwrap();
            file.1.push_str("\nfn broken( {}\n");
        }
        files
    }

    fn kind_file(&self, k: &Kind) -> String {
        let mut out = format!(
            "use super::common::*;\nuse kube::CustomResource;\nuse serde::{{Deserialize, Serialize}};\n\n/// {name}Spec is the desired state of a {name}.\n#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]\n#[kube(group = \"{group}\", version = \"v1\", kind = \"{name}\", namespaced, status = \"{name}Status\")]\n#[serde(rename_all = \"camelCase\")]\npub struct {name}Spec {{\n",
            name = k.name,
            group = self.group
        );
        for f in &k.fields {
            writeln!(out, "    /// {}", f.doc).unwrap();
            if let Some(n) = f.max_length {
                writeln!(out, "    // +kubebuilder:validation:MaxLength={n}").unwrap();
            }
            if self.unknown_marker && f.name == "size" && k.name == self.kinds[0].name {
                out.push_str("    // +kubebuilder:validation:Maximal=3\n");
            }
            if f.ty.starts_with("Option<") {
                out.push_str("    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n");
            }
            writeln!(out, "    pub {}: {},", f.name, f.ty).unwrap();
        }
        write!(
            out,
            "}}\n\n/// {name}Status is the observed state of a {name}.\n#[derive(Serialize, Deserialize, Clone, Debug, Default)]\npub struct {name}Status {{\n    /// Ready replicas.\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub ready: Option<i32>,\n}}\n\n/// Local to {name}.\n#[derive(Serialize, Deserialize, Clone, Debug, Default)]\npub struct Local {{\n    /// A flag.\n    pub on: bool,\n}}\n",
            name = k.name
        )
        .unwrap();
        out
    }

    fn sample(&self) -> String {
        let shop = &self.kinds.iter().find(|k| k.name == "Shop");
        let field = shop
            .and_then(|k| k.fields.iter().find(|f| f.ty == "i32"))
            .map_or("size".to_owned(), |f| f.name.clone());
        format!(
            "apiVersion: {}/v1\nkind: Shop\nmetadata:\n  name: sample\nspec:\n  {}: {}\n",
            self.group,
            heck_camel(&field),
            self.sample_replicas
        )
    }

    /// One random edit; what it did, for the log.
    fn mutate(&mut self, rng: &mut fastrand::Rng, step: usize) -> String {
        // A syntax or marker error lasts one step.
        if self.broken.take().is_some() {
            return "mended the syntax error".into();
        }
        if std::mem::take(&mut self.unknown_marker) {
            return "removed the unknown marker".into();
        }
        if self.rbac_verbs == "*" {
            self.rbac_verbs = "get;list;watch";
            return "RBAC verbs get;list;watch again".into();
        }
        let k = rng.usize(..self.kinds.len());
        match rng.u32(..100) {
            0..=19 => {
                let kind = &mut self.kinds[k];
                let f = rng.usize(..kind.fields.len());
                kind.fields[f].doc = format!("Edited at step {step}.");
                format!("doc of {}.{}", kind.name, kind.fields[f].name)
            }
            20..=34 => {
                let kind = &mut self.kinds[k];
                let ty = TYPES[rng.usize(..TYPES.len())];
                let name = format!("f{step}");
                kind.fields.push(Field {
                    name: name.clone(),
                    ty,
                    doc: format!("Added at step {step}."),
                    max_length: None,
                });
                format!("field {}.{name}: {ty}", kind.name)
            }
            35..=42 => {
                let kind = &mut self.kinds[k];
                if kind.fields.len() > 1 {
                    let f = rng.usize(..kind.fields.len());
                    let gone = kind.fields.remove(f);
                    format!("removed {}.{}", kind.name, gone.name)
                } else {
                    "nothing".into()
                }
            }
            43..=50 => {
                let kind = &mut self.kinds[k];
                let f = rng.usize(..kind.fields.len());
                let field = &mut kind.fields[f];
                if field.ty == "String" {
                    field.max_length = Some(rng.u32(1..100));
                } else {
                    field.ty = TYPES[rng.usize(..TYPES.len())];
                }
                format!("retyped or bounded {}.{}", kind.name, field.name)
            }
            51..=58 => {
                if rng.bool() {
                    self.shared_doc = format!("Shared, edited at step {step}.");
                } else {
                    self.shared_extra = !self.shared_extra;
                }
                "edited Shared".into()
            }
            59..=63 => {
                let name = format!("Kind{step}");
                self.kinds.push(Kind {
                    name: name.clone(),
                    module: format!("kind{step}_types"),
                    fields: vec![Field {
                        name: "size".into(),
                        ty: TYPES[rng.usize(..TYPES.len())],
                        doc: "How many.".into(),
                        max_length: None,
                    }],
                });
                format!("new kind {name}")
            }
            // Shop stays: the sample is one.
            64..=67 if k > 0 => {
                let gone = self.kinds.remove(k);
                format!("deleted kind {}", gone.name)
            }
            68..=71 => {
                let kind = &mut self.kinds[k];
                kind.module = format!("moved{step}_types");
                format!("moved {} to {}", kind.name, kind.module)
            }
            72..=75 => {
                let files = self.files();
                let (path, _) = &files[rng.usize(..files.len())];
                self.broken = Some(path.clone());
                format!("syntax error in {path}")
            }
            76..=78 => {
                self.unknown_marker = true;
                "unknown marker".into()
            }
            79..=83 => {
                self.rbac_verbs = ["get;list;watch", "get;list;watch;update", "*"][rng.usize(..3)];
                format!("RBAC verbs {}", self.rbac_verbs)
            }
            84..=86 => {
                self.group = ["shop.example.com", "store.example.com"][rng.usize(..2)];
                format!("group {}", self.group)
            }
            93..=95 => {
                self.util = !self.util;
                format!("src/util.rs declared: {}", self.util)
            }
            87..=92 => {
                self.sample_replicas = [3, -1, 7][rng.usize(..3)];
                format!("sample value {}", self.sample_replicas)
            }
            _ => "nothing".into(),
        }
    }
}

/// `snake_case` as serde's `rename_all = "camelCase"` writes it.
fn heck_camel(name: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Writes `project` into `dir`: every file it has, and no other source or sample.
fn render(project: &Project, dir: &Path) {
    let files = project.files();
    for old in walkdir::WalkDir::new(dir.join("src")).into_iter().flatten() {
        let rel = old
            .path()
            .strip_prefix(dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if old.file_type().is_file() && !files.iter().any(|(p, _)| *p == rel) {
            std::fs::remove_file(old.path()).unwrap();
        }
    }
    for (path, text) in &files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(&path, text).unwrap();
        }
    }
    std::fs::write(
        dir.join("PROJECT"),
        "domain: example.com\nlayout:\n- rust.opgen.dev/v1\nprojectName: shop\nversion: '3'\n",
    )
    .unwrap();
    let samples = dir.join("config/samples");
    std::fs::create_dir_all(&samples).unwrap();
    std::fs::write(samples.join("shop_v1_shop.yaml"), project.sample()).unwrap();
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

const NOTES: [&str; 5] = [
    "no manifests cache yet",
    "the manifests cache",
    "the manifests cache did not cover",
    TWO_THREADS,
    ONE_THREAD,
];

/// What a project's config/ holds (nothing before a first successful run).
fn config_tree(dir: &Path) -> std::collections::BTreeMap<std::path::PathBuf, String> {
    let config = dir.join("config");
    if config.exists() {
        tree(&config)
    } else {
        Default::default()
    }
}

/// stdout without the cache's notes, and whether there was one.
fn without_note(stdout: &[u8]) -> (String, bool) {
    let text = String::from_utf8_lossy(stdout);
    let mut noted = false;
    let kept = text
        .lines()
        .filter(|l| {
            let note = NOTES.iter().any(|n| l.starts_with(n));
            noted |= note;
            !note
        })
        .map(|l| format!("{l}\n"))
        .collect();
    (kept, noted)
}

#[test]
fn the_cache_gives_what_a_run_without_it_gives_after_every_random_edit() {
    let steps = env_number("OPGEN_CACHE_STEPS", 80) as usize;
    let seed = env_number("OPGEN_CACHE_SEED", 20_261_201);
    let mut rng = fastrand::Rng::with_seed(seed);
    let tmp = tempfile::tempdir().unwrap();
    let (cached, cold) = (tmp.path().join("cached"), tmp.path().join("cold"));
    let one_thread = tmp.path().join("one-thread");
    let mut project = Project::new();
    let mut log = Vec::new();
    let (mut answered, mut split) = (0, 0);
    for step in 0..=steps {
        if step > 0 {
            log.push(format!("step {step}: {}", project.mutate(&mut rng, step)));
        }
        render(&project, &cached);
        render(&project, &cold);
        render(&project, &one_thread);
        // Now and then a CRD file edited or deleted by hand: a run writes it again.
        let crds: Vec<_> = std::fs::read_dir(cached.join("config/crd/bases"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        if !crds.is_empty() && rng.u32(..100) < 6 {
            let name = &crds[rng.usize(..crds.len())];
            let delete = rng.bool();
            for dir in [&cached, &cold, &one_thread] {
                let path = dir.join("config/crd/bases").join(name);
                if delete {
                    std::fs::remove_file(&path).unwrap();
                } else {
                    let text = std::fs::read_to_string(&path).unwrap();
                    std::fs::write(&path, text.replace("type: object", "type: string")).unwrap();
                }
            }
            log.push(format!(
                "step {step}: CRD {name:?} deleted ({delete}) or edited by hand"
            ));
        }
        let with = opgen(&cached, &["manifests", "-vv"]);
        let without = opgen_on_threads(&cold, &["manifests", "-vv", "--no-cache"], 2);
        let serial = opgen_on_threads(&one_thread, &["manifests", "-vv", "--no-cache"], 1);
        let context = || format!("seed {seed}, after:\n{}", log.join("\n"));
        same_run(&without, &serial, &cold, &one_thread, &context);
        if String::from_utf8_lossy(&without.stdout).contains(TWO_THREADS) {
            split += 1;
        }
        same_run(&with, &without, &cached, &cold, &context);
        let (_, noted) = without_note(&with.stdout);
        if with.status.success() && !noted {
            answered += 1;
        }
        if std::env::var_os("OPGEN_CACHE_TRACE").is_some() {
            eprintln!(
                "{} ok={} noted={noted} warnings={}",
                log.last().map_or("start", String::as_str),
                with.status.success(),
                !with.stderr.is_empty()
            );
        }
    }
    // The walk is only worth something if the cache answered often: edits inside types (most
    // steps; about 78% were answered over 8 seeds × 300 steps) must not need a whole run.
    assert!(
        answered >= steps / 2,
        "the cache answered {answered} of {steps} steps; {}",
        log.join("\n")
    );
    eprintln!("the cache answered {answered} of {steps} steps (seed {seed})");
    // Two threads must have done most whole runs for the comparison with one to say much.
    assert!(
        split >= steps / 2,
        "two threads made {split} of {steps} whole runs; {}",
        log.join("\n")
    );
    eprintln!("two threads made {split} of {steps} whole runs");
}

/// The notes of a whole run split between two threads, and of one that could have been.
const TWO_THREADS: &str = "a whole run on two threads";
const ONE_THREAD: &str = "a whole run on one thread";

/// Fails unless runs `a` (in `a_dir`) and `b` did the same: exit status, output but for the
/// notes, messages, and config/.
fn same_run(
    a: &std::process::Output,
    b: &std::process::Output,
    a_dir: &Path,
    b_dir: &Path,
    context: &dyn Fn() -> String,
) {
    let (a_out, _) = without_note(&a.stdout);
    let (b_out, _) = without_note(&b.stdout);
    assert_eq!(a.status.code(), b.status.code(), "{}", context());
    assert_eq!(a_out, b_out, "stdout differs; {}", context());
    assert_eq!(
        String::from_utf8_lossy(&a.stderr),
        String::from_utf8_lossy(&b.stderr),
        "messages differ; {}",
        context()
    );
    let (a, b) = (config_tree(a_dir), config_tree(b_dir));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "{}",
        context()
    );
    for (path, text) in &a {
        assert_eq!(text, &b[path], "{} differs; {}", path.display(), context());
    }
}

#[test]
fn a_corrupt_or_foreign_cache_is_rebuilt_with_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    render(&Project::new(), dir);
    // The first run has no cache to use: worth a note at -vv only.
    let first = support::opgen_ok(dir, &["manifests", "-v"]);
    assert!(!first.contains("manifests cache"), "{first}");
    std::fs::remove_dir_all(dir.join("target")).unwrap();
    let first = support::opgen_ok(dir, &["manifests", "-vv"]);
    assert!(
        first.contains("no manifests cache yet: a whole run"),
        "{first}"
    );
    let cache = dir.join("target/opgen/manifests");
    assert!(cache.is_file());
    let output = tree(&dir.join("config"));

    // Answered by the cache: no note, nothing changed.
    let again = support::opgen_ok(dir, &["manifests", "-vv"]);
    assert!(!again.contains("manifests cache"), "{again}");

    // The cached CRDs' JSON (which the samples are checked against) gone: those kinds are
    // built again, and their JSON kept again.
    let json = dir.join("target/opgen/manifests-crds");
    let kept = std::fs::read_dir(&json).unwrap().count();
    assert!(kept > 0);
    std::fs::remove_dir_all(&json).unwrap();
    assert_eq!(support::opgen_ok(dir, &["manifests", "-vv"]), again);
    assert_eq!(std::fs::read_dir(&json).unwrap().count(), kept);
    assert_eq!(tree(&dir.join("config")), output);

    std::fs::write(&cache, b"not a cache").unwrap();
    std::fs::remove_dir_all(dir.join("config/crd")).unwrap();
    let corrupt = support::opgen_ok(dir, &["manifests", "-v"]);
    assert!(
        corrupt.contains("the manifests cache is unreadable: a whole run, and a new cache"),
        "{corrupt}"
    );
    assert_eq!(tree(&dir.join("config")), output);
    assert_ne!(std::fs::read(&cache).unwrap(), b"not a cache");

    // Other settings are another cache's: a whole run, whose output is its own.
    let foreign = support::opgen_ok(dir, &["manifests", "-v", "--max-desc-len", "0"]);
    assert!(
        foreign.contains("another opgen build's or other settings'"),
        "{foreign}"
    );
    let back = support::opgen_ok(dir, &["manifests", "-v"]);
    assert!(
        back.contains("another opgen build's or other settings'"),
        "{back}"
    );
    assert_eq!(tree(&dir.join("config")), output);

    // --check and --no-cache leave it as it is.
    let before = std::fs::read(&cache).unwrap();
    support::opgen_ok(dir, &["manifests", "--check"]);
    support::opgen_ok(
        dir,
        &[
            "manifests",
            "--no-cache",
            "--max-desc-len",
            "0",
            "--dry-run",
        ],
    );
    assert_eq!(std::fs::read(&cache).unwrap(), before);
}

/// A file whose stamp (size, modification and change times, inode) is the one the cache kept
/// is not read again. An edit that keeps the size and sets the modification time back still
/// moves the change time, which only the kernel sets: the file is read and its kind rebuilt.
#[test]
fn an_edit_that_keeps_the_size_and_the_modification_time_is_seen() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    render(&Project::new(), dir);
    support::opgen_ok(dir, &["manifests"]);
    // A stamp is kept only of a file that had not changed for two seconds before the run.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    support::opgen_ok(dir, &["manifests"]);

    let path = dir.join("src/api/v1/clerk_types.rs");
    let text = std::fs::read_to_string(&path).unwrap();
    let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
    assert!(text.contains("/// How many."), "{text}");
    std::fs::write(&path, text.replace("/// How many.", "/// How MANY.")).unwrap();
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(modified).unwrap();
    drop(file);
    let now = std::fs::metadata(&path).unwrap();
    assert_eq!(
        (now.len(), now.modified().unwrap()),
        (text.len() as u64, modified)
    );

    // Answered by the cache (no note), with the edit.
    let out = support::opgen_ok(dir, &["manifests", "-vv"]);
    assert!(!out.contains("manifests cache"), "{out}");
    let crds = dir.join("config/crd/bases");
    let clerks = std::fs::read_to_string(crds.join("shop.example.com_clerks.yaml")).unwrap();
    assert!(clerks.contains("How MANY."), "{clerks}");
    let shops = std::fs::read_to_string(crds.join("shop.example.com_shops.yaml")).unwrap();
    assert!(
        shops.contains("How many.") && !shops.contains("How MANY."),
        "{shops}"
    );
}

/// Every project of the corpus (tests/fixtures/controller-gen: controller-tools' testdata and
/// the real-world ports; the five operators of examples/, samples and webhooks included), each
/// of its files edited in turn (a comment added, so that its hash changes and its names do
/// not): with the cache, `opgen manifests` rebuilds the kinds made from that file and takes the
/// others from the cache, and writes what a run without the cache writes.
#[test]
fn every_corpus_kind_is_the_same_with_and_without_the_cache() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut projects: Vec<_> = [support::fixture("controller-gen"), examples]
        .iter()
        .flat_map(|corpus| std::fs::read_dir(corpus).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|dir| dir.join("src").is_dir())
        .collect();
    projects.sort();
    let tmp = tempfile::tempdir().unwrap();
    let (mut edits, mut answered, mut split) = (0, 0, 0);
    for fixture in projects {
        let name = fixture.file_name().unwrap().to_string_lossy().into_owned();
        let (cached, cold) = (
            tmp.path().join(&name),
            tmp.path().join(format!("{name}-cold")),
        );
        for dir in [&cached, &cold] {
            support::copy_tree(&fixture, dir);
            if !dir.join("PROJECT").exists() {
                std::fs::write(
                    dir.join("PROJECT"),
                    "domain: example.com\nlayout:\n- rust.opgen.dev/v1\nprojectName: corpus\nversion: '3'\n",
                )
                .unwrap();
            }
        }
        let sources: Vec<_> = walkdir::WalkDir::new(cached.join("src"))
            .sort_by_file_name()
            .into_iter()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
            .map(|e| e.path().strip_prefix(&cached).unwrap().to_path_buf())
            .collect();
        for step in 0..=sources.len() {
            if step > 0 {
                let file = &sources[step - 1];
                for dir in [&cached, &cold] {
                    let mut text = std::fs::read_to_string(dir.join(file)).unwrap();
                    text.push_str("\n// Edited by the cache test.\n");
                    std::fs::write(dir.join(file), text).unwrap();
                }
            }
            let serial = tmp.path().join(format!("{name}-one-thread"));
            if step == 0 {
                support::copy_tree(&cold, &serial);
            }
            let with = opgen(&cached, &["manifests", "-vv"]);
            let without = opgen_on_threads(&cold, &["manifests", "-vv", "--no-cache"], 2);
            if step == 0 {
                let one = opgen_on_threads(&serial, &["manifests", "-vv", "--no-cache"], 1);
                same_run(&without, &one, &cold, &serial, &|| {
                    format!("{name}, one thread")
                });
                split +=
                    usize::from(String::from_utf8_lossy(&without.stdout).contains(TWO_THREADS));
            }
            let what = format!(
                "{name}, step {step} ({:?})",
                step.checked_sub(1).map(|s| &sources[s])
            );
            same_run(&with, &without, &cached, &cold, &|| what.clone());
            let (_, noted) = without_note(&with.stdout);
            if step > 0 {
                edits += 1;
                answered += usize::from(with.status.success() && !noted);
            }
        }
    }
    eprintln!("the cache answered {answered} of {edits} edits of the corpus");
    eprintln!("two threads made {split} of the corpus projects' first runs");
    // Most corpus projects have one kind, or kinds whose files name each other (kept on one
    // thread); `gen` splits.
    assert!(
        split >= 1,
        "two threads made {split} of the corpus projects' first runs"
    );
    assert!(
        edits > 140 && answered * 2 > edits,
        "the cache answered {answered} of {edits} edits"
    );
}
