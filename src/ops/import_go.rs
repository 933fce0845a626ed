//! `import go`: kinds from Go API packages. `load_go` loads them as controller-gen does,
//! `generators::rust_from_go` writes their types as marker-annotated Rust (one file per Go file,
//! under `src/api/[<group>/]<version>/`; types of other packages they name under
//! `src/api/upstream/`), the kinds are recorded in PROJECT, and `manifests` writes their CRDs.
//! Existing files are refused unless `force`; nothing is written on any error.

use super::full_group;
use crate::diag::{Diagnostic, Error, Result};
use crate::generators::rust_from_go::{self, ImportedKind, Layout};
use crate::generators::scaffold::api::{
    ImportedController, ResourceContext, imported_controller_plan,
};
use crate::generators::scaffold::{Policy, ScaffoldPlan};
use crate::load_go::{GoController, GoPackage, GoProject};
use crate::markers::catalog::MarkerCatalog;
use crate::markers::typed::{self, RbacMarker, Typed, WebhookMarker};
use crate::ops::create_webhook::{WebhookOptions, create_webhook};
use crate::ops::manifests::{EMBEDDED_OBJECT_META_KEY, ManifestOptions, k8s_types, manifests};
use crate::pluralize;
use crate::project::{Gvk, Project, Resource, ResourceApi};
use crate::writer::Workspace;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone, Default)]
pub struct ImportGoOptions {
    /// Replace files that exist.
    pub force: bool,
    /// controller-gen's `crd:generateEmbeddedObjectMeta=true`, for `manifests`.
    pub generate_embedded_object_meta: bool,
    /// `--controllers`: the Go module's controllers and samples.
    pub controllers: Option<GoControllers>,
}

/// What `--controllers` reads of the Go module besides its API packages.
#[derive(Debug, Clone, Default)]
pub struct GoControllers {
    /// The imported directory (Go files are named relative to it).
    pub dir: std::path::PathBuf,
    pub files: Vec<GoController>,
    /// `config/samples/*.yaml`: file name and text.
    pub samples: Vec<(String, String)>,
    /// What its PROJECT says (conversions, a namespace-scoped manager).
    pub project: GoProject,
}

#[derive(Debug, Default)]
pub struct ImportGoReport {
    pub warnings: Vec<Diagnostic>,
    /// `Kind.group/version` of every imported kind.
    pub kinds: Vec<String>,
}

/// Stages the Rust of `packages`, their PROJECT resources and the regenerated manifests.
pub fn import_go(
    ws: &mut Workspace,
    project: &mut Project,
    packages: &[GoPackage],
    opts: &ImportGoOptions,
) -> Result<ImportGoReport> {
    let header = super::file_header(ws)?;
    let (k8s, _) = k8s_types(ws)?;
    let layout = Layout {
        multigroup: project.multigroup,
        domain: project.domain.clone(),
    };
    let rendered = rust_from_go::render(packages, &layout, &header)?;
    check_groups(project, &rendered.kinds)?;
    if let Some(go) = &opts.controllers {
        check_manager_scope(go, project)?;
    }
    let mut report = ImportGoReport {
        warnings: rendered.warnings,
        ..ImportGoReport::default()
    };
    if let Some(go) = &opts.controllers
        && project.namespaced
    {
        report.warnings.extend(foreign_namespaces(go, project));
    }
    if let Some(w) = k8s_version_warning(packages, k8s.minor()) {
        report.warnings.push(w);
    }
    let plan = rust_plan(
        ws,
        &rendered.files,
        &rendered.kinds,
        layout.multigroup,
        &header,
    )?;
    report.warnings.extend(plan.apply(ws, opts.force)?);
    let controlled = match &opts.controllers {
        Some(go) => {
            let samples = copy_samples(ws, &rendered.kinds, go, &mut report)?;
            controllers(
                ws,
                project,
                &rendered.kinds,
                go,
                &samples,
                opts.force,
                &mut report,
            )?
        }
        None => BTreeSet::new(),
    };
    record_kinds(
        project,
        &rendered.kinds,
        &controlled,
        opts.force,
        &mut report,
    )?;
    ws.stage(crate::project::FILE_NAME, project.to_yaml());
    if let Some(go) = &opts.controllers {
        webhooks(ws, project, &rendered.kinds, go, opts.force, &mut report)?;
    }
    if opts.generate_embedded_object_meta {
        record_embedded_object_meta(ws)?;
    }
    report.warnings.extend(regenerate_manifests(
        ws,
        opts.generate_embedded_object_meta,
    )?);
    let mut seen = std::collections::HashSet::new();
    report.warnings.retain(|w| seen.insert(w.to_string()));
    Ok(report)
}

/// A project of one group takes the kinds of that group only.
fn check_groups(project: &Project, kinds: &[ImportedKind]) -> Result<()> {
    let groups: BTreeSet<&str> = kinds.iter().map(|k| k.group.as_str()).collect();
    let project_groups: BTreeSet<String> = project
        .resources
        .iter()
        .map(|r| full_group(&r.group, &r.domain))
        .collect();
    if !project.multigroup
        && (groups.len() > 1
            || groups
                .iter()
                .any(|g| !project_groups.is_empty() && !project_groups.contains(*g)))
    {
        return Err(Error::with_help(
            format!(
                "the Go packages hold the API groups {}, and this project keeps one group (PROJECT has no `multigroup: true`)",
                groups.iter().copied().collect::<Vec<_>>().join(", ")
            ),
            "run `opgen edit --multigroup` first: each group then gets its own src/api/<group>/ module",
        ));
    }
    Ok(())
}

/// `--controllers`: the Go project's manager watches as this project's does (cluster-wide or
/// namespace-scoped), or its controllers' roles and tests would not fit.
fn check_manager_scope(go: &GoControllers, project: &Project) -> Result<()> {
    if go.project.namespaced == project.namespaced {
        return Ok(());
    }
    let (theirs, ours) = if go.project.namespaced {
        (
            "namespace-scoped (its PROJECT has `namespaced: true`)",
            "cluster-wide",
        )
    } else {
        ("cluster-wide", "namespace-scoped")
    };
    Err(Error::with_help(
        format!(
            "the Go project's manager is {theirs} and this project's is {ours}: the controllers' roles and tests would not fit (nothing was written)"
        ),
        if go.project.namespaced {
            "import into a project made with `opgen init --namespaced`"
        } else {
            "import into a project made without `--namespaced`"
        },
    ))
}

/// The plan that writes the rendered Rust files and declares their modules: `src/api/<m>/...`
/// is the module `<m>` in src/api/mod.rs, a group's versions are in its own mod.rs.
fn rust_plan(
    ws: &Workspace,
    files: &BTreeMap<String, String>,
    kinds: &[ImportedKind],
    multigroup: bool,
    header: &str,
) -> Result<ScaffoldPlan> {
    let mut plan = ScaffoldPlan::default();
    let mut modules = BTreeSet::new();
    for (path, source) in files {
        plan.write_rust(path, source.clone(), Policy::UserOwned);
        let rel: Vec<&str> = path
            .strip_prefix("src/api/")
            .unwrap_or(path)
            .split('/')
            .collect();
        if let Some(first) = rel.first() {
            modules.insert((
                "src/api/mod.rs".to_owned(),
                first.trim_end_matches(".rs").to_owned(),
            ));
        }
        if multigroup && rel.len() == 3 && rel[0] != "upstream" {
            modules.insert((format!("src/api/{}/mod.rs", rel[0]), rel[1].to_owned()));
        }
    }
    for (file, module) in &modules {
        if file != "src/api/mod.rs" && !ws.exists(std::path::Path::new(file)) {
            // A new group module is written with all its versions: the plan's insertions at
            // a marker of a file the plan itself writes would keep only the last.
            if modules.range((file.clone(), String::new())..).next()
                != Some(&(file.clone(), module.clone()))
            {
                continue;
            }
            let group = kinds
                .iter()
                .find(|k| k.module.split("::").nth(1) == file.split('/').nth(2))
                .map_or("", |k| k.group.as_str());
            let versions: String = modules
                .iter()
                .filter(|(f, _)| f == file)
                .map(|(_, m)| format!("pub mod {m};\n"))
                .collect();
            plan.write_rust(
                file,
                format!("{header}//! The `{group}` API group, one module per version.\n\n{versions}// +opgen:scaffold:modules\n"),
                Policy::IfMissing,
            );
            continue;
        }
        let text = ws.read(std::path::Path::new(file))?.unwrap_or_default();
        let line = format!("pub mod {module};");
        if !text.lines().any(|l| l.trim() == line) {
            plan.insert(file.clone(), "modules", line);
        }
    }
    Ok(plan)
}

/// The imported kinds as PROJECT resources, with a controller where `--controllers` wrote one.
fn record_kinds(
    project: &mut Project,
    kinds: &[ImportedKind],
    controlled: &BTreeSet<(String, String, String)>,
    force: bool,
    report: &mut ImportGoReport,
) -> Result<()> {
    let crate_name = project.crate_name();
    for kind in kinds {
        record(project, kind, &crate_name, force)?;
        if controlled.contains(&(kind.group.clone(), kind.version.clone(), kind.kind.clone()))
            && let Some(r) = project.resources.last_mut()
        {
            r.controller = true;
        }
        report
            .kinds
            .push(format!("{}.{}/{}", kind.kind, kind.group, kind.version));
    }
    Ok(())
}

/// `opgen manifests` on the imported types; its refusal says that nothing was written.
fn regenerate_manifests(
    ws: &mut Workspace,
    generate_embedded_object_meta: bool,
) -> Result<Vec<Diagnostic>> {
    let generated = manifests(
        ws,
        &ManifestOptions {
            generate_embedded_object_meta,
            ..ManifestOptions::default()
        },
    )
    .map_err(|mut e| {
        e.diagnostics.push(
            Diagnostic::error("`opgen manifests` refuses the imported types (nothing was written)")
                .help("the Go API breaks a rule the API server enforces (controller-gen writes such CRDs; the API server refuses them), or the error is opgen's: please report it"),
        );
        e
    })?;
    Ok(generated.warnings)
}

/// The Kubernetes minor the Go API builds against (its k8s.io/api or apimachinery module,
/// v0.N.x for 1.N) when it is not the project's: the embedded Kubernetes types' schemas then
/// differ from controller-gen's in descriptions and newer fields.
fn k8s_version_warning(packages: &[GoPackage], project_minor: u32) -> Option<Diagnostic> {
    let module = packages
        .iter()
        .filter(|p| p.module == "k8s.io/api" || p.module == "k8s.io/apimachinery")
        .min_by_key(|p| p.module != "k8s.io/api")?;
    let minor: u32 = module
        .module_version
        .strip_prefix("v0.")?
        .split('.')
        .next()?
        .parse()
        .ok()?;
    (minor != project_minor).then(|| {
        Diagnostic::warning(format!(
            "the Go API builds against {} {} (Kubernetes 1.{minor}) and this project selects Kubernetes 1.{project_minor}: the Kubernetes types it embeds (pod templates, conditions...) are written as 1.{project_minor} has them, which controller-gen on the Go module would not",
            module.module, module.module_version
        ))
        .help(format!(
            "select 1.{minor} in Cargo.toml (k8s-openapi's feature `v1_{minor}`) and run `opgen manifests`, if the operator targets it"
        ))
    })
}

/// `[package.metadata.opgen] generate-embedded-object-meta = true` in Cargo.toml, so that every
/// later `manifests` (and `create api`) writes the CRDs as this import did.
fn record_embedded_object_meta(ws: &mut Workspace) -> Result<()> {
    let path = std::path::Path::new("Cargo.toml");
    let Some(text) = ws.read(path)? else {
        return Ok(());
    };
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e| Error::msg(format!("Cargo.toml: {e}")))?;
    let package = doc["package"].or_insert(toml_edit::table());
    let metadata = package["metadata"].or_insert(toml_edit::table());
    if let Some(t) = metadata.as_table_mut() {
        t.set_implicit(true);
    }
    let opgen = metadata["opgen"].or_insert(toml_edit::table());
    opgen[EMBEDDED_OBJECT_META_KEY] = toml_edit::value(true);
    ws.stage(path, doc.to_string());
    Ok(())
}

/// The Go project's sample of each imported kind (the first of its config/samples/ files that
/// holds one), written as `create api` names it (`<group>_<version>_<kind>.yaml`, the group's
/// first label) and listed in config/samples/kustomization.yaml, an empty `spec:` as `{}`;
/// returns the names written.
fn copy_samples(
    ws: &mut Workspace,
    kinds: &[ImportedKind],
    go: &GoControllers,
    report: &mut ImportGoReport,
) -> Result<BTreeSet<String>> {
    let mut plan = ScaffoldPlan::default();
    let mut written = BTreeSet::new();
    for kind in kinds {
        let api_version = format!("apiVersion: {}/{}", kind.group, kind.version);
        let kind_line = format!("kind: {}", kind.kind);
        let Some((_, text)) = go.samples.iter().find(|(_, text)| {
            text.lines().any(|l| l.trim_end() == api_version)
                && text.lines().any(|l| l.trim_end() == kind_line)
        }) else {
            continue;
        };
        let group = kind.group.split('.').next().unwrap_or_default();
        let name = format!("{group}_{}_{}.yaml", kind.version, kind.kind.to_lowercase());
        let (text, emptied) = empty_spec_as_object(text);
        if emptied {
            report.warnings.push(Diagnostic::warning(format!(
                "config/samples/{name}: the Go sample's `spec:` holds nothing (YAML's null, which the API server refuses): written as `spec: {{}}`; fill it in"
            )));
        }
        plan.write(format!("config/samples/{name}"), text, Policy::IfMissing);
        plan.insert(
            "config/samples/kustomization.yaml",
            "samples",
            format!("- {name}"),
        );
        written.insert(name);
    }
    report.warnings.extend(plan.apply(ws, false)?);
    Ok(written)
}

/// `--controllers`: the admission webhooks the Go `+kubebuilder:webhook` markers declare for
/// imported kinds, and the conversions the Go PROJECT declares, scaffolded as `create webhook`
/// scaffolds them but with the Go markers (their paths included). A Go webhook of a kind not
/// imported (a built-in or another project's kind) is a warning at its line.
fn webhooks(
    ws: &mut Workspace,
    project: &mut Project,
    kinds: &[ImportedKind],
    go: &GoControllers,
    force: bool,
    report: &mut ImportGoReport,
) -> Result<()> {
    let mut markers: Vec<(&ImportedKind, Option<String>, Option<String>)> = Vec::new();
    for marker in go.files.iter().flat_map(|f| &f.webhooks) {
        let Some(Typed::Webhook(WebhookMarker::Webhook(hook))) = typed_marker(&marker.text) else {
            report.warnings.push(
                Diagnostic::warning("this Go webhook marker does not parse, so it is not imported")
                    .at(marker.pos.location()),
            );
            continue;
        };
        let (groups, resources, versions) = (&hook.groups, &hook.resources, &hook.versions);
        let mutating = hook.mutating;
        let Some(kind) = kinds.iter().find(|k| {
            groups.contains(&k.group)
                && resources.contains(&k.plural)
                && versions.contains(&k.version)
        }) else {
            report.warnings.push(
                Diagnostic::warning(format!(
                    "this Go webhook ({} of {}) is not imported: opgen scaffolds webhooks for the kinds the project serves",
                    resources.join(", "),
                    groups.iter().map(|g| if g.is_empty() { "core" } else { g.as_str() }).collect::<Vec<_>>().join(", ")
                ))
                .at(marker.pos.location()),
            );
            continue;
        };
        let at = match markers.iter().position(|(k, _, _)| std::ptr::eq(*k, kind)) {
            Some(at) => at,
            None => {
                markers.push((kind, None, None));
                markers.len() - 1
            }
        };
        let slot = if mutating {
            &mut markers[at].1
        } else {
            &mut markers[at].2
        };
        if slot.is_some() {
            report.warnings.push(
                Diagnostic::warning(format!(
                    "a second {} webhook of {} {}/{}: opgen scaffolds one per kind, so this one is left out",
                    if mutating { "mutating" } else { "validating" },
                    kind.kind,
                    kind.group,
                    kind.version
                ))
                .at(marker.pos.location()),
            );
            continue;
        }
        *slot = Some(marker.text.clone());
    }
    for kind in kinds {
        let admission = markers.iter().find(|(k, _, _)| std::ptr::eq(*k, kind));
        let conversion =
            go.project.conversions.iter().find(|c| {
                c.group == kind.group && c.version == kind.version && c.kind == kind.kind
            });
        if admission.is_none() && conversion.is_none() {
            continue;
        }
        let (defaulting_marker, validation_marker) = admission
            .map(|(_, d, v)| (d.clone(), v.clone()))
            .unwrap_or_default();
        let opts = WebhookOptions {
            gvk: Gvk::new(
                kind.group.split('.').next().unwrap_or_default(),
                &kind.version,
                &kind.kind,
            ),
            defaulting: defaulting_marker.is_some(),
            validation: validation_marker.is_some(),
            conversion: conversion.is_some(),
            spokes: conversion.map(|c| c.spokes.clone()).unwrap_or_default(),
            force,
            defaulting_marker,
            validation_marker,
        };
        report.warnings.extend(create_webhook(ws, project, &opts)?);
    }
    Ok(())
}

/// A Go marker as the generators read it (None if it does not parse).
fn typed_marker(text: &str) -> Option<Typed> {
    typed::parse(MarkerCatalog::get(), text).map(|(_, m)| m)
}

/// A namespace-scoped manager runs in `<project>-system`: a Go RBAC marker naming another
/// namespace writes a Role there, which the manager is not bound to.
fn foreign_namespaces(go: &GoControllers, project: &Project) -> Vec<Diagnostic> {
    let ours = format!("{}-system", project.project_name);
    let mut seen = BTreeSet::new();
    go.files
        .iter()
        .flat_map(|f| &f.rbac)
        .filter_map(|m| {
            let Some(Typed::Rbac(RbacMarker::Rbac(rule))) = typed_marker(&m.text) else {
                return None;
            };
            let theirs = rule.namespace?;
            // One warning per namespace, at its first marker.
            (theirs != ours && seen.insert(theirs.clone())).then(|| {
                Diagnostic::warning(format!(
                    "this marker's Role is in the namespace {theirs}, and this project's manager runs in {ours}, so it is not bound to it (nor to the other markers naming {theirs})"
                ))
                .at(m.pos.location())
                .help(format!("import into a project named as the Go project (the namespace is `<projectName>-system`), or change the markers' namespace to {ours}"))
            })
        })
        .collect()
}

/// The file of RBAC markers no imported controller carries.
const GO_RBAC: &str = "src/controllers/go_rbac.rs";

/// `--controllers`: for each imported kind a Go reconciler reconciles (`For(&pkg.Kind{})`; the
/// one named `<Kind>Reconciler` first), a controller with the Go file's RBAC markers and its
/// envtest test on the kind's sample (copied from the Go project's config/samples/); the RBAC
/// markers of every other Go file in [`GO_RBAC`], so that the role is the Go project's.
/// Returns the kinds given a controller, as (group, version, kind).
fn controllers(
    ws: &mut Workspace,
    project: &Project,
    kinds: &[ImportedKind],
    go: &GoControllers,
    samples: &BTreeSet<String>,
    force: bool,
    report: &mut ImportGoReport,
) -> Result<BTreeSet<(String, String, String)>> {
    let header = super::file_header(ws)?;
    let rel = |f: &std::path::Path| {
        f.strip_prefix(&go.dir)
            .unwrap_or(f)
            .to_string_lossy()
            .replace('\\', "/")
    };
    let mut taken = BTreeSet::new();
    let mut used = BTreeSet::new();
    let mut plan = ScaffoldPlan::default();
    for kind in kinds {
        let reconciles = |c: &&GoController| {
            c.reconciler.is_some()
                && c.reconciles
                    .as_ref()
                    .is_some_and(|(p, k)| *p == kind.package && *k == kind.kind)
        };
        // The kind's own reconciler (`CaptainReconciler`) before others (`CaptainBackupReconciler`).
        let Some(go_file) = go
            .files
            .iter()
            .filter(reconciles)
            .filter(|c| !used.contains(&c.file))
            .min_by_key(|c| {
                c.reconciler
                    .as_ref()
                    .map(|(n, _)| *n != format!("{}Reconciler", kind.kind))
            })
        else {
            continue;
        };
        let (group, _) = kind
            .group
            .split_once('.')
            .unwrap_or((kind.group.as_str(), ""));
        let mut resource = ResourceContext::new(
            project,
            group,
            &kind.version,
            &kind.kind,
            &kind.plural,
            kind.namespaced,
            false,
            true,
            header.to_owned(),
        );
        resource.api_module = format!("crate::{}", kind.module);
        resource.crate_api_module = format!("{}::{}", project.crate_name(), kind.module);
        resource.api_group = kind.group.clone();
        let has_sample = samples.contains(&resource.sample_file);
        if !has_sample {
            report.warnings.push(Diagnostic::warning(format!(
                "no sample of {} {}/{} in the Go project's config/samples/: its controller has no envtest test",
                kind.kind, kind.group, kind.version
            )));
        }
        let (reconciler, at) = go_file
            .reconciler
            .clone()
            .expect("filtered on a reconciler");
        let imported = ImportedController {
            resource,
            go_file: rel(&go_file.file),
            go_line: at.line,
            reconciler,
            rbac: go_file.rbac.iter().map(|m| m.text.clone()).collect(),
            has_sample,
        };
        // One plan per controller: a group's controllers module, written by the first, takes
        // the next one's module line.
        report
            .warnings
            .extend(imported_controller_plan(&imported)?.apply(ws, force)?);
        used.insert(go_file.file.clone());
        taken.insert((kind.group.clone(), kind.version.clone(), kind.kind.clone()));
    }
    let rest: String = go
        .files
        .iter()
        .filter(|c| !used.contains(&c.file) && !c.rbac.is_empty())
        .map(|c| {
            let what = c
                .reconciler
                .as_ref()
                .map_or(String::new(), |(n, _)| format!(" ({n})"));
            let markers: String = c.rbac.iter().map(|m| format!("// {}\n", m.text)).collect();
            format!("//\n// From {}{what}:\n{markers}", rel(&c.file))
        })
        .collect();
    if !rest.is_empty() {
        plan.write_rust(
            GO_RBAC,
            format!(
                "{header}//! The RBAC markers of the Go files `opgen import go --controllers` made no controller of\n//! (a reconciler of a kind not imported, a kind's second controller, markers outside a\n//! controller), kept so that the manager's role stays the one controller-gen writes.\n\n/// Holds the markers below for `opgen manifests`.\n{rest}pub struct GoRbac;\n"
            ),
            Policy::UserOwned,
        );
        plan.insert(
            "src/controllers/mod.rs",
            "controller-modules",
            "pub mod go_rbac;".to_owned(),
        );
    }
    report.warnings.extend(plan.apply(ws, force)?);
    Ok(taken)
}

/// `spec:` with nothing but comments below it (kubebuilder's `# TODO(user): Add fields here`)
/// as `spec: {}`, and whether it was so.
fn empty_spec_as_object(text: &str) -> (String, bool) {
    let lines: Vec<&str> = text.lines().collect();
    let Some(at) = lines.iter().position(|l| l.trim_end() == "spec:") else {
        return (text.to_owned(), false);
    };
    let body_is_empty = lines[at + 1..]
        .iter()
        .take_while(|l| l.is_empty() || l.starts_with([' ', '#']))
        .all(|l| {
            let t = l.trim();
            t.is_empty() || t.starts_with('#')
        });
    if !body_is_empty {
        return (text.to_owned(), false);
    }
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    out[at] = "spec: {}".to_owned();
    (out.join("\n") + "\n", true)
}

/// The kind in PROJECT, as kubebuilder records a resource of another domain: the group's first
/// label as `group`, the rest as `domain`.
fn record(project: &mut Project, kind: &ImportedKind, crate_name: &str, force: bool) -> Result<()> {
    let (group, domain) = kind
        .group
        .split_once('.')
        .unwrap_or((kind.group.as_str(), ""));
    let exists = project.resources.iter().position(|r| {
        full_group(&r.group, &r.domain) == kind.group
            && r.version == kind.version
            && r.kind == kind.kind
    });
    if let Some(at) = exists {
        if !force {
            return Err(Error::with_help(
                format!(
                    "PROJECT already has {} {}/{}",
                    kind.kind, kind.group, kind.version
                ),
                "pass --force to import it again over the existing types",
            ));
        }
        project.resources.remove(at);
    }
    let flect = pluralize::flect_plural(&kind.kind.to_lowercase());
    project.resources.push(Resource {
        api: Some(ResourceApi {
            crd_version: "v1".to_owned(),
            namespaced: kind.namespaced,
        }),
        controller: false,
        domain: domain.to_owned(),
        finalizer: true,
        group: group.to_owned(),
        kind: kind.kind.clone(),
        path: format!("{crate_name}::{}", kind.module),
        plural: (kind.plural != flect).then(|| kind.plural.clone()),
        version: kind.version.clone(),
        webhooks: None,
    });
    Ok(())
}
