//! `manifests`: CRDs and RBAC (and, with webhooks, their configurations) from the sources.
//!
//! load → markers → model → generators; everything is staged, so any error leaves the
//! tree untouched.

use crate::diag::{Diagnostic, Diagnostics, Error, Result, Severity};
use crate::generators::crd::{Crd, samples};
use crate::generators::crd::{CrdGenerator, CrdOptions, VERSION_ANNOTATION, k8s::K8sTypes};
use crate::generators::scaffold::api::{RBAC_KUSTOMIZATION, ResourceContext, helper_roles};
use crate::generators::scaffold::insert_above_marker;
use crate::generators::{crd, csv, rbac, webhook};
use crate::load::{self, Scope};
use crate::markers::{FileMarkers, MarkerCatalog, attach::attach};
use crate::model;
use crate::ops::manifests_cache::{self, Facts, Partial};
use crate::parallel;
use crate::pluralize;
use crate::project::Project;
use crate::teardown;
use crate::writer::Workspace;
use crate::yaml;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

pub const CRD_DIR: &str = "config/crd/bases";
pub const CRD_KUSTOMIZATION: &str = "config/crd/kustomization.yaml";
pub const ROLE_FILE: &str = "config/rbac/role.yaml";
pub const WEBHOOK_FILE: &str = "config/webhook/manifests.yaml";
pub const WEBHOOK_KUSTOMIZATION: &str = "config/webhook/kustomization.yaml";
pub const DEFAULT_KUSTOMIZATION: &str = "config/default/kustomization.yaml";
pub const SAMPLES_DIR: &str = "config/samples";

/// The sources' size (bytes) below which the CRDs and their YAML are made on one thread. On the
/// real-world APIs (`bench/realworld.sh`, 15–1,050 KB of Rust) a second thread took 10–18 %
/// more CPU and saved at most 6 % of wall time (stop 59); the 100 kinds × 50 fields (580 KB)
/// gain from it.
const SPREAD_MIN_BYTES: usize = 512 * 1024;

/// Whether sources of these texts make enough CRDs to build them, and their YAML, on every core.
fn worth_spreading<'a>(texts: impl Iterator<Item = &'a str>) -> bool {
    texts.map(str::len).sum::<usize>() >= SPREAD_MIN_BYTES
}

#[derive(Debug, Clone, Default)]
pub struct ManifestOptions {
    pub max_desc_len: Option<usize>,
    /// Least-privilege warnings, and samples that do not fit their CRD, become errors.
    pub strict: bool,
    /// controller-gen's `crd:generateEmbeddedObjectMeta=true`.
    pub generate_embedded_object_meta: bool,
    /// A CRD that differs only in the opgen version that wrote it stays as it is (`opgen edit`
    /// changes no manifest; stamping today's version is `opgen manifests`' job).
    pub keep_version_stamps: bool,
    /// Whether the run reads and keeps the manifests cache (`ops::manifests_cache`).
    pub cache: CacheUse,
}

/// What a run does with the manifests cache under `target/opgen/`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CacheUse {
    #[default]
    Off,
    /// Reads it, writes nothing (`--check`, `--dry-run`).
    Read,
    ReadWrite,
}

#[derive(Debug, Default)]
pub struct ManifestReport {
    pub warnings: Vec<Diagnostic>,
    /// Every file the command owns, whether or not it changed.
    pub files: Vec<PathBuf>,
    /// What the `+operator-sdk:csv` markers say of each kind version (for `opgen bundle`).
    pub csv: Vec<crate::generators::csv::CsvKind>,
    /// Sample objects checked against their CRD.
    pub samples_checked: usize,
    /// Why the manifests cache was not used, or could not be kept: `(true, why)` for `-v`,
    /// `(false, why)` (there was none yet, or the edit needed a whole run) for `-vv`; and why
    /// a whole run was not split between two threads, for `-vv`.
    pub notes: Vec<(bool, String)>,
}

/// What the generators made of the sources.
pub(crate) struct Generated {
    /// Each CRD, and its JSON when the manifests cache vouches for it (then its `object` is
    /// null, read from that JSON only where a sample needs it, and its file already holds it).
    pub crds: Vec<(Crd, Option<CachedCrd>)>,
    pub roles: Vec<Value>,
    pub webhooks: Vec<Value>,
    pub csv: Vec<crate::generators::csv::CsvKind>,
    pub warnings: Vec<Diagnostic>,
    /// What the manifests cache keeps of a run (none when the result came from it).
    pub facts: Option<Facts>,
}

/// A CRD the manifests cache vouches for: its file holds what a run would write.
pub(crate) struct CachedCrd {
    /// The cache file of its JSON (for `writer::read_cache`).
    pub json: String,
}

/// Stages every manifest generated from the sources under `src/`.
pub fn manifests(ws: &mut Workspace, opts: &ManifestOptions) -> Result<ManifestReport> {
    // Conformance fixtures and plain crates have no PROJECT; one that exists must parse.
    let project = if ws.exists(Path::new(crate::project::FILE_NAME)) {
        Some(Project::load(ws)?)
    } else {
        None
    };
    let settings = cargo_settings(ws)?;
    let (k8s, version_warning) = k8s_types_for(settings.k8s_minor);
    let embedded_object_meta = opts.generate_embedded_object_meta || settings.embedded_object_meta;
    let k8s = k8s.with_embedded_object_meta(embedded_object_meta);
    let src = Path::new("src");
    let key = (opts.cache != CacheUse::Off).then(|| {
        manifests_cache::key(&format!(
            // Not `strict`: it turns warnings into errors, and no run with either is kept.
            "desc={:?} embedded={embedded_object_meta} k8s={:?} project={:?}",
            opts.max_desc_len,
            k8s.minor(),
            project.as_ref().map(|p| (p.namespaced, &p.project_name)),
        ))
    });
    let generate = |files: &[load::SourceFile], partial: Option<&Partial>| {
        generate(files, opts, &k8s, project.as_ref(), partial)
    };
    let mut sources = load::Sources::list(ws, src, key.is_some())?;
    let mut run = manifests_cache::run(ws, key, src, &mut sources, &CrdFiles(ws), &generate)?;
    let mut notes = run.notes.clone();
    // None: a CRD the cache vouches for, whose file already holds it. Only the others are
    // handed to the threads: an edit's run rebuilds one CRD, and needs no second thread for it.
    let fresh: Vec<&Crd> = run
        .generated
        .crds
        .iter()
        .filter_map(|(crd, cached)| cached.is_none().then_some(crd))
        .collect();
    let spread = worth_spreading(sources.texts().values().map(String::as_str));
    let mut fresh_texts = parallel::map_if(spread, &fresh, |crd| {
        yaml::to_documents(std::slice::from_ref(&crd.object))
    })
    .into_iter();
    let crd_texts: Vec<Option<String>> = run
        .generated
        .crds
        .iter()
        .map(|(_, cached)| {
            cached
                .is_none()
                .then(|| fresh_texts.next().expect("one text per fresh CRD"))
        })
        .collect();
    let Generated {
        crds,
        roles,
        webhooks,
        csv,
        warnings,
        ..
    } = &run.generated;
    let mut warnings = warnings.clone();
    warnings.extend(version_warning);
    let samples = check_samples(ws, crds)?;
    if opts.strict && !samples.warnings.is_empty() {
        let refused = samples.warnings.into_iter().map(|mut d| {
            d.severity = Severity::Error;
            d
        });
        return Err(Error::many(warnings.into_iter().chain(refused).collect()));
    }
    warnings.extend(samples.warnings);

    let mut report = ManifestReport {
        warnings,
        files: Vec::new(),
        csv: csv.clone(),
        samples_checked: samples.objects,
        notes: Vec::new(),
    };
    // Hashed for the cache before the texts move into the workspace.
    let crd_hashes: Vec<Option<u64>> = if opts.cache == CacheUse::ReadWrite {
        let hash = |t: &Option<String>| t.as_deref().map(manifests_cache::hash);
        crd_texts.iter().map(hash).collect()
    } else {
        Vec::new()
    };
    let mut kustomization = ws.read(Path::new(CRD_KUSTOMIZATION))?;
    for ((crd, _), text) in crds.iter().zip(crd_texts) {
        let name = crd.file_name();
        let path = Path::new(CRD_DIR).join(&name);
        if let Some(text) = text {
            let restamp_only = opts.keep_version_stamps
                && ws
                    .read(&path)?
                    .is_some_and(|old| old != text && without_stamp(&old) == without_stamp(&text));
            if !restamp_only {
                ws.stage(&path, text);
            }
        }
        report.files.push(path);
        if let Some(text) = &kustomization {
            let entry = format!("- bases/{name}");
            let updated = insert_above_marker(text, "+opgen:scaffold:crdkustomizeresource", &entry);
            match updated {
                Some(t) => kustomization = Some(t),
                None if text.lines().any(|l| l.trim() == entry) => {}
                None => report.warnings.push(
                    Diagnostic::warning(format!(
                        "{CRD_KUSTOMIZATION} has no `# +opgen:scaffold:crdkustomizeresource` marker, so {entry} was not added"
                    ))
                    .help(format!("add `{entry}` to its resources by hand")),
                ),
            }
        }
    }
    remove_stale_crds(ws, &report.files, &mut kustomization)?;
    if let Some(text) = kustomization {
        ws.stage(CRD_KUSTOMIZATION, text);
    }
    if !crds.is_empty() {
        enable_crd_base(ws)?;
    }
    ws.stage(ROLE_FILE, yaml::to_documents(roles));
    report.files.push(PathBuf::from(ROLE_FILE));
    if !webhooks.is_empty() {
        ws.stage(WEBHOOK_FILE, yaml::to_documents(webhooks));
        report.files.push(PathBuf::from(WEBHOOK_FILE));
    } else if ws.exists(Path::new(WEBHOOK_KUSTOMIZATION)) {
        // config/webhook lists this file (a conversion webhook needs the Service only).
        ws.stage(
            WEBHOOK_FILE,
            "# No +kubebuilder:webhook markers: no admission webhook configurations (written by opgen manifests).\n",
        );
        report.files.push(PathBuf::from(WEBHOOK_FILE));
    }
    if let Some(project) = &project {
        sync_helper_roles(ws, project, crds, &mut report)?;
    }
    if opts.cache == CacheUse::ReadWrite
        && let Err(e) = run.store(ws.root(), &sources, &crd_hashes)
    {
        notes.push((true, format!("the manifests cache was not kept: {e}")));
    }
    teardown::discard(run);
    report.notes = notes;
    Ok(report)
}

/// The CRD files under `config/crd/bases/`, for the manifests cache.
struct CrdFiles<'a>(&'a Workspace);

impl manifests_cache::Written for CrdFiles<'_> {
    fn stamp(&self, group: &str, plural: &str) -> Option<crate::writer::Stamp> {
        self.0
            .stamp(&Path::new(CRD_DIR).join(crd::file_name(group, plural)))
    }

    fn text(&self, group: &str, plural: &str) -> Option<String> {
        let path = Path::new(CRD_DIR).join(crd::file_name(group, plural));
        self.0.read(&path).ok().flatten()
    }
}

/// The objects under `config/samples/` checked against the CRDs about to be written (the
/// bundle's `alm-examples` are these samples, rendered by kustomize).
fn check_samples(
    ws: &Workspace,
    crds: &[(Crd, Option<CachedCrd>)],
) -> Result<samples::SampleCheck> {
    let dir = Path::new(SAMPLES_DIR);
    let mut files = Vec::new();
    for suffix in [".yaml", ".yml"] {
        for path in ws.list_files(dir, suffix)? {
            if let Some(text) = ws.read(&path)? {
                files.push((path, text));
            }
        }
    }
    files.sort();
    // A cached CRD's object is read only when a sample may be of its kind.
    let read: Vec<Crd> = crds
        .iter()
        .filter_map(|(crd, cached)| {
            let cached = cached.as_ref()?;
            files
                .iter()
                .any(|(_, text)| text.contains(crd.kind.as_str()))
                .then(|| Crd {
                    group: crd.group.clone(),
                    kind: crd.kind.clone(),
                    plural: crd.plural.clone(),
                    object: crate::writer::read_cache(ws.root(), &cached.json)
                        .and_then(|json| serde_json::from_slice(&json).ok())
                        .unwrap_or_default(),
                })
        })
        .collect();
    let crds: Vec<&Crd> = crds
        .iter()
        .filter(|(_, cached)| cached.is_none())
        .map(|(crd, _)| crd)
        .chain(&read)
        .collect();
    Ok(samples::check(&files, &crds))
}

/// A CRD's text without its `opgen.dev/version` annotation line.
fn without_stamp(text: &str) -> String {
    let marker = format!("{VERSION_ANNOTATION}:");
    text.split_inclusive('\n')
        .filter(|l| !l.trim_start().starts_with(&marker))
        .collect()
}

/// Removes the CRDs opgen wrote earlier for kinds (or plurals) that are gone, and their
/// kustomization entries. CRDs without opgen's annotation are someone else's and stay.
fn remove_stale_crds(
    ws: &mut Workspace,
    current: &[PathBuf],
    kustomization: &mut Option<String>,
) -> Result<()> {
    let marker = format!("{VERSION_ANNOTATION}:");
    // By their text: `Path`'s comparisons go component by component.
    let current: HashSet<&std::ffi::OsStr> = current.iter().map(|p| p.as_os_str()).collect();
    for path in ws.list_files(Path::new(CRD_DIR), ".yaml")? {
        if current.contains(path.as_os_str()) || path.parent() != Some(Path::new(CRD_DIR)) {
            continue;
        }
        let ours = ws
            .read(&path)?
            .is_some_and(|text| text.lines().any(|l| l.trim_start().starts_with(&marker)));
        if !ours {
            continue;
        }
        ws.stage_removal(&path, Some("no kind in src/ defines it any more".into()));
        if let (Some(text), Some(name)) = (kustomization.as_mut(), path.file_name()) {
            let entry = format!("- bases/{}", name.to_string_lossy());
            *text = text
                .split_inclusive('\n')
                .filter(|l| l.trim() != entry)
                .collect();
        }
    }
    Ok(())
}

/// Keeps each kind's admin/editor/viewer ClusterRoles, and their kustomization entries, in
/// step with PROJECT and with the plural the CRD ended up with.
fn sync_helper_roles(
    ws: &mut Workspace,
    project: &Project,
    crds: &[(Crd, Option<CachedCrd>)],
    report: &mut ManifestReport,
) -> Result<()> {
    let Some(mut kustomization) = ws.read(Path::new(RBAC_KUSTOMIZATION))? else {
        return Ok(());
    };
    for r in project.resources.iter().filter(|r| r.api.is_some()) {
        let api_group = project.api_group(&r.group);
        let plural = crds
            .iter()
            .find(|(c, _)| c.group == api_group && c.kind == r.kind)
            .map(|(c, _)| c.plural.clone())
            .or_else(|| r.plural.clone())
            .unwrap_or_else(|| pluralize::flect_plural(&r.kind));
        let namespaced = r.api.as_ref().is_some_and(|a| a.namespaced);
        let ctx = ResourceContext::new(
            project,
            &r.group,
            &r.version,
            &r.kind,
            &plural,
            namespaced,
            true,
            false,
            String::new(),
        );
        for (file, content) in helper_roles(&ctx)? {
            let path = Path::new("config/rbac").join(&file);
            ws.stage(&path, content);
            report.files.push(path);
            let entry = format!("- {file}");
            match insert_above_marker(&kustomization, "+opgen:scaffold:rbac-helper-roles", &entry) {
                Some(updated) => kustomization = updated,
                None if kustomization.lines().any(|l| l.trim() == entry) => {}
                None => report.warnings.push(
                    Diagnostic::warning(format!(
                        "{RBAC_KUSTOMIZATION} has no `# +opgen:scaffold:rbac-helper-roles` marker, so {entry} was not added"
                    ))
                    .help(format!("add `{entry}` to its resources by hand")),
                ),
            }
        }
    }
    ws.stage(RBAC_KUSTOMIZATION, kustomization);
    Ok(())
}

/// What `opgen` reads from the project's Cargo.toml, parsed once.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct CargoSettings {
    /// The Kubernetes minor version the project builds against: the `v1_XX` feature of its
    /// k8s-openapi dependency.
    pub k8s_minor: Option<u32>,
    /// The project's own `[package.metadata.opgen] generate-embedded-object-meta = true`:
    /// `--generate-embedded-object-meta` for every `manifests` run, as `opgen import go`
    /// records it for an API whose controller-gen ran with
    /// `crd:generateEmbeddedObjectMeta=true`.
    pub embedded_object_meta: bool,
}

/// The key of [`CargoSettings::embedded_object_meta`] under `[package.metadata.opgen]`.
pub const EMBEDDED_OBJECT_META_KEY: &str = "generate-embedded-object-meta";

/// The project's [`CargoSettings`] (the defaults without a Cargo.toml). A Cargo.toml that
/// exists must be a valid manifest.
pub(crate) fn cargo_settings(ws: &Workspace) -> Result<CargoSettings> {
    let Some(manifest) = cargo_manifest(ws)? else {
        return Ok(CargoSettings::default());
    };
    let features = manifest
        .get("dependencies")
        .and_then(|d| d.get("k8s-openapi"))
        .and_then(|k| k.get("features"))
        .and_then(|f| f.as_array());
    let k8s_minor = features
        .into_iter()
        .flatten()
        .find_map(|feature| feature.as_str()?.strip_prefix("v1_")?.parse().ok());
    let embedded_object_meta = manifest
        .get("package")
        .and_then(|p| p.get("metadata"))
        .and_then(|m| m.get("opgen"))
        .and_then(|o| o.get(EMBEDDED_OBJECT_META_KEY))
        .and_then(toml::Value::as_bool)
        == Some(true);
    Ok(CargoSettings {
        k8s_minor,
        embedded_object_meta,
    })
}

/// The crate's Cargo.toml, parsed (None without one); its errors at their line.
fn cargo_manifest(ws: &Workspace) -> Result<Option<toml::Table>> {
    let Some(text) = ws.read(Path::new("Cargo.toml"))? else {
        return Ok(None);
    };
    let path = ws.root().join("Cargo.toml");
    let manifest: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let at = e.span().map_or(String::new(), |span| {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!(":{line}:{column}")
        });
        Error::with_help(
            format!(
                "{}{at}: not a valid Cargo manifest: {}",
                path.display(),
                e.message()
            ),
            "fix it by hand: cargo cannot read it either",
        )
    })?;
    if !manifest.contains_key("package") {
        return Err(Error::with_help(
            format!(
                "{}: not a crate's manifest (no [package] table)",
                path.display()
            ),
            "opgen reads the k8s-openapi feature of the operator crate's Cargo.toml; restore its [package] table",
        ));
    }
    Ok(Some(manifest))
}

/// Uncomments `#- ../crd` in config/default once there is a CRD to include: kustomize
/// refuses an empty config/crd, so a new project starts with the line commented out.
fn enable_crd_base(ws: &mut Workspace) -> Result<()> {
    let Some(text) = ws.read(Path::new(DEFAULT_KUSTOMIZATION))? else {
        return Ok(());
    };
    if !text.lines().any(|l| l.trim() == "#- ../crd") {
        return Ok(());
    }
    let updated: Vec<String> = text
        .split_inclusive('\n')
        .map(|l| {
            if l.trim() == "#- ../crd" {
                l.replacen("#- ../crd", "- ../crd", 1)
            } else {
                l.to_owned()
            }
        })
        .collect();
    ws.stage(DEFAULT_KUSTOMIZATION, updated.concat());
    Ok(())
}

/// The generators on `files`: every kind's CRD, or with `partial` those of its kinds (and
/// nothing read of its stub files but names).
fn generate(
    files: &[load::SourceFile],
    opts: &ManifestOptions,
    k8s: &K8sTypes,
    project: Option<&Project>,
    partial: Option<&Partial>,
) -> Result<Generated> {
    let catalog = MarkerCatalog::get();
    let mut diags = Diagnostics::default();
    let markers: Vec<_> = files
        .iter()
        .enumerate()
        .map(|(i, f)| match partial {
            Some(p) if p.stubs.contains(&i) => FileMarkers::default(),
            _ => attach(f, catalog, &mut diags),
        })
        .collect();
    let mut facts = Facts {
        files: markers
            .iter()
            .map(|m| {
                let package = m.package.iter().map(|m| m.text.clone()).collect();
                (package, !m.items.is_empty())
            })
            .collect(),
        ..Facts::default()
    };
    let model = match partial {
        Some(p) => model::build_kinds(files, markers, &p.kinds, &mut diags),
        None => model::build(files, markers, &mut diags),
    };
    let crd_generator = CrdGenerator::new(
        &model,
        k8s,
        CrdOptions {
            max_desc_len: opts.max_desc_len,
        },
    );
    facts.kinds = model.kind_keys();
    let kinds: Vec<&model::Kind> = model.kinds.iter().collect();
    facts.warning_ends.push(diags.len());
    // Stubs have no text: a split run's half counts its own files.
    let spread = worth_spreading(files.iter().map(|f| f.text.as_str()));
    let crds = crds_on_all_cores(
        &crd_generator,
        &kinds,
        spread,
        &mut diags,
        &mut facts.warning_ends,
    );
    facts.kind_files = kinds
        .iter()
        .map(|k| model.kind_files(k).into_iter().collect())
        .collect();
    let empty_role_ns = project
        .filter(|p| p.namespaced)
        .map(|p| format!("{}-system", p.project_name));
    let roles = rbac::generate(&model, empty_role_ns.as_deref(), &mut diags);
    for mut lint in rbac::lint(&model) {
        if opts.strict {
            lint.severity = Severity::Error;
        }
        diags.push(lint);
    }
    let webhooks = webhook::generate(&model, &mut diags);
    let csv = csv::describe(&model, &mut diags);
    let all_built = crds.len() == kinds.len();
    teardown::discard((crd_generator, kinds));
    teardown::discard(model);
    Ok(Generated {
        crds: crds.into_iter().map(|crd| (crd, None)).collect(),
        roles,
        webhooks,
        csv,
        warnings: diags.finish()?,
        facts: all_built.then_some(facts),
    })
}

/// What `generator.kind(kind, diags)` returns and reports for each of `kinds`, built on every
/// core. Each kind is first built against diagnostics of its own; that CRD is kept when it
/// reported nothing and `diags` holds no error yet, for then a build against `diags` takes the
/// same path (a generator looks at them only to skip checks after an error, and to not repeat
/// one). Any other kind is built again, in order, against `diags`: the same CRDs and messages,
/// in the same order, as one thread makes. `ends` gets the length of `diags` after each kind.
/// Without `spread`, every kind is built on the calling thread.
fn crds_on_all_cores(
    generator: &CrdGenerator,
    kinds: &[&model::Kind],
    spread: bool,
    diags: &mut Diagnostics,
    ends: &mut Vec<usize>,
) -> Vec<Crd> {
    if diags.has_errors() {
        let mut crds = Vec::with_capacity(kinds.len());
        for kind in kinds {
            crds.extend(generator.kind(kind, diags));
            ends.push(diags.len());
        }
        return crds;
    }
    let tried = parallel::map_if(spread, kinds, |kind| {
        let mut own = Diagnostics::default();
        let crd = generator.kind(kind, &mut own);
        (crd, own.is_empty())
    });
    let mut crds = Vec::with_capacity(kinds.len());
    for (kind, (crd, quiet)) in kinds.iter().zip(tried) {
        let crd = if quiet && !diags.has_errors() {
            crd
        } else {
            generator.kind(kind, diags)
        };
        crds.extend(crd);
        ends.push(diags.len());
    }
    crds
}

/// The k8s-openapi schemas for the Kubernetes version the project builds against, and a
/// warning when opgen does not cover that version.
pub(crate) fn k8s_types(ws: &Workspace) -> Result<(K8sTypes, Option<Diagnostic>)> {
    Ok(k8s_types_for(cargo_settings(ws)?.k8s_minor))
}

/// [`k8s_types`] of the minor version a Cargo.toml selects.
pub(crate) fn k8s_types_for(minor: Option<u32>) -> (K8sTypes, Option<Diagnostic>) {
    match minor {
        Some(minor) => {
            let types = K8sTypes::for_version(minor);
            let warning = (types.minor() != minor).then(|| {
                Diagnostic::warning(format!(
                    "Cargo.toml selects Kubernetes 1.{minor}, which opgen's k8s-openapi {} schemas do not cover; using 1.{}",
                    K8sTypes::k8s_openapi_version(),
                    types.minor()
                ))
            });
            (types, warning)
        }
        None => (K8sTypes::new(), None),
    }
}

/// The webhook configurations the sources declare, without staging anything.
pub fn webhook_configurations(ws: &Workspace) -> Result<Vec<Value>> {
    with_model(ws, Scope::All, |model, diags| {
        let webhooks = webhook::generate(model, diags);
        std::mem::take(diags).finish()?;
        Ok(webhooks)
    })?
}

/// Runs `f` on the model of the sources under `src/` (`scope` of them) and the diagnostics
/// that building it reported.
pub(crate) fn with_model<R>(
    ws: &Workspace,
    scope: Scope,
    f: impl FnOnce(&model::Model, &mut Diagnostics) -> R,
) -> Result<R> {
    let (files, _) = load::load(ws, Path::new("src"), scope)?;
    let catalog = MarkerCatalog::get();
    let mut diags = Diagnostics::default();
    let markers = files
        .iter()
        .map(|f| attach(f, catalog, &mut diags))
        .collect();
    let model = model::build(&files, markers, &mut diags);
    Ok(f(&model, &mut diags))
}

/// The names (singular, short names, categories) that each version of `api_group`'s `kind`
/// declares in the sources, by version, for a new version to repeat; versions the sources do
/// not hold (or sources that do not parse: `opgen manifests` reports that) are missing.
pub fn kind_declared_names(
    ws: &Workspace,
    api_group: &str,
    kind: &str,
) -> Result<BTreeMap<String, crd::DeclaredNames>> {
    with_model(ws, Scope::Relevant, |model, _| {
        model
            .kinds
            .iter()
            .filter(|k| k.group == api_group && k.kind == kind)
            .flat_map(|k| &k.versions)
            .map(|v| (v.version.clone(), crd::declared_names(v)))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kind's types file, the spec with `marker` above it and `fields` after its first field.
    fn kind_file(kind: &str, marker: &str, fields: &str) -> String {
        format!(
            "use kube::CustomResource;\nuse serde::{{Deserialize, Serialize}};\n\n{marker}\n#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]\n#[kube(group = \"par.example.com\", version = \"v1\", kind = \"{kind}\", namespaced)]\npub struct {kind}Spec {{\n    pub name: String,\n{fields}}}\n"
        )
    }

    /// The CRDs and diagnostics of `kinds` (name, marker, fields), built by
    /// `CrdGenerator::generate` on one thread and by `crds_on_all_cores`.
    fn one_thread_and_all_cores(
        kinds: &[(&str, &str, &str)],
    ) -> [(Vec<Value>, Vec<Diagnostic>); 2] {
        let dir = tempfile::tempdir().unwrap();
        let mut ws = Workspace::new(dir.path());
        for (kind, marker, fields) in kinds {
            let path = format!("src/api/v1/{}.rs", kind.to_lowercase());
            ws.stage(path, kind_file(kind, marker, fields));
        }
        let (files, _) = load::load(&ws, Path::new("src"), Scope::All).unwrap();
        let mut diags = Diagnostics::default();
        let markers = files
            .iter()
            .map(|f| attach(f, MarkerCatalog::get(), &mut diags))
            .collect();
        let model = model::build(&files, markers, &mut diags);
        assert!(diags.is_empty(), "{diags:?}");
        let k8s = K8sTypes::new();
        let generator = CrdGenerator::new(&model, &k8s, CrdOptions::default());
        let run = |all_cores: bool| {
            let mut diags = Diagnostics::default();
            let crds = if all_cores {
                let kinds: Vec<&model::Kind> = model.kinds.iter().collect();
                crds_on_all_cores(&generator, &kinds, true, &mut diags, &mut Vec::new())
            } else {
                generator.generate(&mut diags)
            };
            let diags = match diags.finish() {
                Ok(warnings) => warnings,
                Err(e) => e.diagnostics,
            };
            (crds.into_iter().map(|c| c.object).collect(), diags)
        };
        [run(false), run(true)]
    }

    #[test]
    fn crds_built_on_all_cores_are_those_of_one_thread_in_order() {
        let clean: Vec<String> = (0..12).map(|i| format!("Clean{i:02}")).collect();
        let mut kinds: Vec<(&str, &str, &str)> = clean
            .iter()
            .map(|k| (k.as_str(), "", "    pub replicas: Option<i32>,\n"))
            .collect();
        let [(one, one_diags), (all, all_diags)] = one_thread_and_all_cores(&kinds);
        assert_eq!(one.len(), 12);
        assert!(one_diags.is_empty(), "{one_diags:?}");
        assert_eq!(all, one);
        assert_eq!(all_diags, one_diags);

        // Errors: after the first, one thread checks no more CEL rules (so the second bad rule
        // is not reported), and only the first kind with an error loses its CRD; the messages
        // keep kind order.
        let bad_rule = "// +kubebuilder:validation:XValidation:rule=\"self.nme.size() > 0\"";
        let bad_label = "// +kubebuilder:metadata:labels=\"no-value\"";
        kinds.insert(3, ("Broken1", bad_rule, ""));
        kinds.insert(7, ("Broken2", bad_rule, ""));
        kinds.push(("Zeta", bad_label, ""));
        let [(one, one_diags), (all, all_diags)] = one_thread_and_all_cores(&kinds);
        let messages: Vec<&str> = one_diags.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(messages[0].contains("Broken1"), "{messages:?}");
        assert!(messages[1].contains("\"no-value\""), "{messages:?}");
        assert_eq!(one.len(), 14);
        assert!(!one.iter().any(|c| c["spec"]["names"]["kind"] == "Broken1"));
        assert_eq!(all, one);
        assert_eq!(all_diags, one_diags);
    }
}
