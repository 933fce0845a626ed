//! `import crd`: kinds from CustomResourceDefinitions. Each version of each CRD becomes a
//! marker-annotated `*_types.rs` file (`generators::rust_types`); the kind is scaffolded as
//! `create api --controller=false` scaffolds it (module, sample, helper roles, PROJECT), its
//! types file replaced by the imported one, and `manifests` then regenerates the CRDs, which are
//! compared with the imported ones: every difference is a warning naming its path.
//!
//! With `external`, the types go to `src/api/external/<group>/<version>/`, a module marked
//! `+kubebuilder:skip`: types of an API the project uses but does not serve (kubebuilder's
//! external APIs), with no CRD, no sample and nothing in PROJECT.

use crate::diag::{Diagnostic, Diagnostics, Error, Result};
use crate::generators::crd::k8s::K8sTypes;
use crate::generators::rust_types::{self, KindVersion};
use crate::generators::rustfmt::{self, Formatted};
use crate::generators::scaffold::api::ResourceContext;
use crate::generators::scaffold::{Policy, ScaffoldPlan};
use crate::load_crd::CrdDocument;
use crate::ops::create_api::{ApiOptions, create_api};
use crate::ops::manifests::{CRD_DIR, ManifestOptions, k8s_types, manifests};
use crate::pluralize;
use crate::project::{Gvk, Project};
use crate::writer::Workspace;
use heck::ToSnakeCase;
use serde_json::{Map, Value, json};
use std::path::Path;

#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// Types only, in a module opgen writes no CRD for.
    pub external: bool,
    /// Replace types files that exist.
    pub force: bool,
}

#[derive(Debug, Default)]
pub struct ImportReport {
    pub warnings: Vec<Diagnostic>,
    /// `Kind.group` of every imported CRD.
    pub kinds: Vec<String>,
}

/// A CRD's names and versions, as apiextensions.k8s.io/v1 has them.
struct Crd {
    group: String,
    kind: String,
    plural: String,
    singular: String,
    namespaced: bool,
    short_names: Vec<String>,
    categories: Vec<String>,
    annotations: Vec<(String, String)>,
    labels: Vec<(String, String)>,
    versions: Vec<Map<String, Value>>,
    /// The CRD as v1 (a v1beta1 one converted), to compare the regenerated one with.
    object: Value,
}

/// Stages the types of every CRD in `docs` (and, unless external, their scaffolding and the
/// regenerated manifests).
pub fn import_crds(
    ws: &mut Workspace,
    project: &mut Project,
    docs: &[CrdDocument],
    opts: &ImportOptions,
) -> Result<ImportReport> {
    if docs.is_empty() {
        return Err(Error::with_help(
            "no CustomResourceDefinition found in the input",
            "pass CRD YAML files, directories holding them, or - for standard input",
        ));
    }
    let mut diags = Diagnostics::default();
    let mut crds: Vec<(&CrdDocument, Crd)> = Vec::new();
    let mut report = ImportReport::default();
    for doc in docs {
        match read_crd(&doc.object) {
            Ok((crd, notes)) => {
                for n in notes {
                    report
                        .warnings
                        .push(Diagnostic::warning(n).at(doc.location()));
                }
                let name = format!("{}.{}", crd.kind, crd.group);
                if crds
                    .iter()
                    .any(|(_, c)| c.kind == crd.kind && c.group == crd.group)
                {
                    diags.push(
                        Diagnostic::error(format!("the CRD of {name} is given twice"))
                            .at(doc.location()),
                    );
                    continue;
                }
                crds.push((doc, crd));
            }
            Err(message) => diags.push(Diagnostic::error(message).at(doc.location())),
        }
    }
    diags.finish()?;

    let header = super::file_header(ws)?;
    // The project's Kubernetes version: embedded k8s types are recognised as its schemas.
    let (k8s, _) = k8s_types(ws)?;
    let mut diags = Diagnostics::default();
    for (doc, crd) in &crds {
        let result = if opts.external {
            stage_external(ws, crd, &header, &k8s, opts)
        } else {
            stage_owned(ws, project, crd, &header, &k8s, opts)
        };
        match result {
            Ok(warnings) => {
                for w in warnings {
                    report.warnings.push(w.at(doc.location()));
                }
                report.kinds.push(format!("{}.{}", crd.kind, crd.group));
            }
            Err(e) => {
                // Located at the CRD they are about, when they have no place of their own.
                for d in e.diagnostics {
                    diags.push(match d.location {
                        Some(_) => d,
                        None => d.at(doc.location()),
                    });
                }
            }
        }
    }
    diags.finish()?;

    if !opts.external {
        ws.stage(crate::project::FILE_NAME, project.to_yaml());
        let generated = manifests(ws, &ManifestOptions::default()).map_err(|mut e| {
            let sources: Vec<String> = crds
                .iter()
                .map(|(doc, _)| doc.source.display().to_string())
                .collect();
            e.diagnostics.push(
                Diagnostic::error(format!(
                    "`opgen manifests` refuses the types imported from {} (the files named above were not written: nothing was)",
                    sources.join(", ")
                ))
                .help("the imported CRD breaks a rule the API server enforces (fix the input), or the error is opgen's: please report it"),
            );
            e
        })?;
        report.warnings.extend(generated.warnings);
        for (doc, crd) in &crds {
            let path = Path::new(CRD_DIR).join(format!("{}_{}.yaml", crd.group, crd.plural));
            let Some(text) = ws.read(&path)? else {
                continue;
            };
            let written: Value = serde_saphyr::from_str(&text).map_err(|e| {
                Error::msg(format!(
                    "internal error: {} does not parse: {e}",
                    path.display()
                ))
            })?;
            let found = differences(&normalize(&crd.object), &normalize(&written));
            if !found.is_empty() {
                let shown: Vec<String> = found.iter().take(10).map(|d| format!("  {d}")).collect();
                let more = found.len().saturating_sub(10);
                let more = if more > 0 {
                    format!("\n  ... and {more} more")
                } else {
                    String::new()
                };
                report.warnings.push(
                    Diagnostic::warning(format!(
                        "the CRD opgen writes for {}.{} differs from the imported one at {} place(s):\n{}{more}",
                        crd.kind,
                        crd.group,
                        found.len(),
                        shown.join("\n")
                    ))
                    .at(doc.location())
                    .help("edit the imported types or their markers, or accept the difference"),
                );
            }
        }
    }
    // `create api` warns about a kind once per version.
    let mut seen = std::collections::HashSet::new();
    report.warnings.retain(|w| seen.insert(w.to_string()));
    Ok(report)
}

/// The types of every version, scaffolded as `create api --controller=false` does.
fn stage_owned(
    ws: &mut Workspace,
    project: &mut Project,
    crd: &Crd,
    header: &str,
    k8s: &K8sTypes,
    opts: &ImportOptions,
) -> Result<Vec<Diagnostic>> {
    let suffix = format!(".{}", project.domain);
    let Some(group) = crd.group.strip_suffix(&suffix).filter(|g| !g.is_empty()) else {
        return Err(Error::with_help(
            format!(
                "the API group {:?} of {} is not in this project's domain {:?}, so the project cannot own it",
                crd.group, crd.kind, project.domain
            ),
            "pass --external to import its types only (no CRD: the API belongs to someone else), or import it into a project whose domain it is in",
        ));
    };
    let mut warnings = Vec::new();
    let flect = pluralize::flect_plural(&crd.kind);
    for version in &crd.versions {
        let name = version_name(version);
        let api = ApiOptions {
            gvk: Gvk::new(group, name, &crd.kind),
            plural: (crd.plural != flect).then(|| crd.plural.clone()),
            namespaced: Some(crd.namespaced),
            resource: true,
            controller: false,
            finalizer: true,
            force: opts.force,
        };
        warnings.extend(create_api(ws, project, &api)?);
        let ctx = ResourceContext::new(
            project,
            group,
            name,
            &crd.kind,
            &crd.plural,
            crd.namespaced,
            true,
            false,
            header.to_owned(),
        );
        let (source, notes) = render(crd, version, header, k8s)?;
        warnings.extend(notes);
        ws.stage(
            format!("{}/{}_types.rs", ctx.version_dir, ctx.kind_snake),
            source,
        );
        // A kind without a spec (kube-derive's `no_spec`) has fields beside metadata instead.
        let has_spec = version
            .get("schema")
            .and_then(|s| s.pointer("/openAPIV3Schema/properties/spec"))
            .is_some();
        let (todo_type, spec) = if has_spec {
            (format!("{}Spec", crd.kind), "spec: {}\n")
        } else {
            (crd.kind.clone(), "")
        };
        ws.stage(
            format!("config/samples/{}", ctx.sample_file),
            format!(
                "apiVersion: {}/{name}\nkind: {}\nmetadata:\n  labels:\n    app.kubernetes.io/name: {}\n    app.kubernetes.io/managed-by: kustomize\n  name: {}-sample\n# TODO(user): Add fields here (see the {todo_type} type in {}/{}_types.rs).\n{spec}",
                crd.group,
                crd.kind,
                project.project_name,
                ctx.kind_lower,
                ctx.version_dir,
                ctx.kind_snake
            ),
        );
    }
    Ok(warnings)
}

/// The types of every version under `src/api/external/`, in modules opgen writes no CRD for.
fn stage_external(
    ws: &mut Workspace,
    crd: &Crd,
    header: &str,
    k8s: &K8sTypes,
    opts: &ImportOptions,
) -> Result<Vec<Diagnostic>> {
    // The core group ("") is `core`, as in k8s-openapi.
    let group_mod = if crd.group.is_empty() {
        "core".to_owned()
    } else {
        crd.group.replace(['.', '-'], "_")
    };
    let mut plan = ScaffoldPlan::default();
    let mut warnings = Vec::new();
    plan.insert("src/api/mod.rs", "modules", "pub mod external;");
    plan.write_rust(
        "src/api/external/mod.rs",
        format!(
            "{header}//! Types of APIs this project uses but does not serve, imported by\n//! `opgen import crd --external`: one module per API group. opgen writes no CRD for them\n//! (each version module says `+kubebuilder:skip`).\n\n// +opgen:scaffold:modules\n"
        ),
        Policy::IfMissing,
    );
    plan.insert(
        "src/api/external/mod.rs",
        "modules",
        format!("pub mod {group_mod};"),
    );
    let group_dir = format!("src/api/external/{group_mod}");
    plan.write_rust(
        format!("{group_dir}/mod.rs"),
        format!(
            "{header}//! The `{}` API group, one module per version.\n\n// +opgen:scaffold:modules\n",
            crd.group
        ),
        Policy::IfMissing,
    );
    let kind_snake = crd.kind.to_snake_case();
    for version in &crd.versions {
        let name = version_name(version);
        let version_mod = name.replace('-', "_");
        plan.insert(
            format!("{group_dir}/mod.rs"),
            "modules",
            format!("pub mod {};", crate::names::module_ident(&version_mod)),
        );
        let version_dir = format!("{group_dir}/{version_mod}");
        plan.write_rust(
            format!("{version_dir}/mod.rs"),
            format!(
                "{header}//! API version `{name}` of the `{}` group, imported by `opgen import crd --external`.\n//!\n//! +groupName={}\n//! +kubebuilder:skip\n\n// +opgen:scaffold:kinds\n",
                crd.group, crd.group
            ),
            Policy::IfMissing,
        );
        plan.insert(
            format!("{version_dir}/mod.rs"),
            "kinds",
            format!("pub mod {kind_snake}_types;\npub use {kind_snake}_types::*;"),
        );
        let (source, notes) = render(crd, version, header, k8s)?;
        warnings.extend(notes);
        plan.write(
            format!("{version_dir}/{kind_snake}_types.rs"),
            source,
            Policy::UserOwned,
        );
    }
    warnings.extend(plan.apply(ws, opts.force)?);
    Ok(warnings)
}

/// One version's types file, formatted, and what it could not reproduce.
fn render(
    crd: &Crd,
    version: &Map<String, Value>,
    header: &str,
    k8s: &K8sTypes,
) -> Result<(String, Vec<Diagnostic>)> {
    let default_singular = crd.kind.to_lowercase();
    let rendered = rust_types::render(
        &KindVersion {
            group: &crd.group,
            kind: &crd.kind,
            plural: &crd.plural,
            default_singular: &default_singular,
            singular: &crd.singular,
            namespaced: crd.namespaced,
            short_names: &crd.short_names,
            categories: &crd.categories,
            annotations: &crd.annotations,
            labels: &crd.labels,
            version,
            several_versions: crd.versions.len() > 1,
        },
        header,
        Some(k8s),
    );
    let source = match rustfmt::format(&rendered.source) {
        Ok(Formatted::Done(s) | Formatted::Unavailable(s)) => s,
        Err(e) => {
            return Err(Error::msg(format!(
                "internal error: the types rendered for {} {} do not parse: {e}",
                crd.kind,
                version_name(version)
            )));
        }
    };
    let name = version_name(version);
    let warnings = rendered
        .warnings
        .into_iter()
        .map(|w| Diagnostic::warning(format!("{} {name}: {w}", crd.kind)))
        .collect();
    Ok((source, warnings))
}

fn version_name(v: &Map<String, Value>) -> &str {
    v.get("name").and_then(Value::as_str).unwrap_or_default()
}

/// The CRD's names and versions; a v1beta1 CRD is converted to v1 (with a note).
fn read_crd(object: &Value) -> std::result::Result<(Crd, Vec<String>), String> {
    let mut notes = Vec::new();
    let mut object = object.clone();
    let api_version = object["apiVersion"].as_str().unwrap_or_default().to_owned();
    match api_version.as_str() {
        "apiextensions.k8s.io/v1" => {}
        "apiextensions.k8s.io/v1beta1" => {
            object = to_v1(&object);
            notes.push(
                "this is an apiextensions.k8s.io/v1beta1 CRD (removed in Kubernetes 1.22); it is imported as v1".to_owned(),
            );
        }
        other => return Err(format!("unknown CRD apiVersion {other:?}")),
    }
    let spec = &object["spec"];
    let text = |v: &Value, what: &str| -> std::result::Result<String, String> {
        v.as_str()
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| format!("the CRD has no {what}"))
    };
    let kind = text(&spec["names"]["kind"], "spec.names.kind")?;
    let plural = text(&spec["names"]["plural"], "spec.names.plural")?;
    let group = spec["group"].as_str().unwrap_or_default().to_owned();
    // A Rust type name (`create api` checks the rest for owned kinds; external ones live in
    // `<kind>_types` modules, which no kind name makes a keyword).
    let pascal = kind.starts_with(|c: char| c.is_ascii_uppercase())
        && kind.chars().all(|c| c.is_ascii_alphanumeric())
        && kind != "Self";
    if !pascal {
        return Err(format!(
            "the kind {kind:?} is not a PascalCase name (^[A-Z][A-Za-z0-9]*$), so it cannot name a Rust type"
        ));
    }
    let singular = spec["names"]["singular"]
        .as_str()
        .map_or_else(|| kind.to_lowercase(), str::to_owned);
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    if let Some(list_kind) = spec["names"]["listKind"].as_str()
        && list_kind != format!("{kind}List")
    {
        notes.push(format!(
            "listKind {list_kind:?} is not imported: kube-derive names the list {kind}List"
        ));
    }
    if let Some(conversion) = spec.get("conversion")
        && conversion["strategy"].as_str() == Some("Webhook")
    {
        notes.push("the conversion webhook is not imported: add it with `opgen create webhook --conversion`".to_owned());
    }
    let versions: Vec<Map<String, Value>> = spec["versions"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_object().cloned()).collect())
        .unwrap_or_default();
    if versions.is_empty() {
        return Err("the CRD has no versions".into());
    }
    for v in &versions {
        let name = version_name(v);
        if name.is_empty() {
            return Err("a version of the CRD has no name".into());
        }
        let schema = v.get("schema").and_then(|s| s.get("openAPIV3Schema"));
        if !schema.is_some_and(Value::is_object) {
            return Err(format!(
                "version {name} of the CRD has no schema (schema.openAPIV3Schema), so there are no types to import"
            ));
        }
    }
    Ok((
        Crd {
            group,
            kind,
            plural,
            singular,
            namespaced: spec["scope"].as_str() != Some("Cluster"),
            short_names: strings(&spec["names"]["shortNames"]),
            categories: strings(&spec["names"]["categories"]),
            annotations: pairs(&object["metadata"]["annotations"]),
            labels: pairs(&object["metadata"]["labels"]),
            versions,
            object,
        },
        notes,
    ))
}

/// The string entries of a metadata map, but the generators' version annotations.
fn pairs(map: &Value) -> Vec<(String, String)> {
    map.as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| {
            *k != "controller-gen.kubebuilder.io/version"
                && k.as_str() != crate::generators::crd::VERSION_ANNOTATION
                // What `kubectl apply` keeps on an object read back from a cluster.
                && !k.starts_with("kubectl.kubernetes.io/")
        })
        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
        .collect()
}

/// A v1beta1 CRD as v1: the CRD-wide schema, subresources and columns moved into each version.
pub fn to_v1(object: &Value) -> Value {
    let mut out = object.clone();
    out["apiVersion"] = json!("apiextensions.k8s.io/v1");
    let spec = &object["spec"];
    let mut versions: Vec<Value> = spec["versions"].as_array().cloned().unwrap_or_default();
    if versions.is_empty()
        && let Some(v) = spec["version"].as_str()
    {
        versions.push(json!({"name": v, "served": true, "storage": true}));
    }
    for v in &mut versions {
        if v.get("schema").is_none()
            && let Some(s) = spec.get("validation")
        {
            v["schema"] = s.clone();
        }
        if v.get("subresources").is_none()
            && let Some(s) = spec.get("subresources")
        {
            v["subresources"] = s.clone();
        }
        if v.get("additionalPrinterColumns").is_none()
            && let Some(Value::Array(cols)) = spec.get("additionalPrinterColumns")
        {
            let cols: Vec<Value> = cols
                .iter()
                .map(|c| {
                    let mut c = c.clone();
                    if let Some(o) = c.as_object_mut()
                        && let Some(p) = o.remove("JSONPath")
                    {
                        o.insert("jsonPath".into(), p);
                    }
                    c
                })
                .collect();
            v["additionalPrinterColumns"] = Value::Array(cols);
        }
    }
    let out_spec = out["spec"].as_object_mut().expect("spec is an object");
    for key in [
        "version",
        "validation",
        "subresources",
        "additionalPrinterColumns",
        "preserveUnknownFields",
    ] {
        out_spec.remove(key);
    }
    out_spec.insert("versions".into(), Value::Array(versions));
    out
}

/// A CRD without what no generator writes the same way: the status, the creation timestamp
/// and the generator's version annotation.
pub fn normalize(crd: &Value) -> Value {
    let mut crd = crd.clone();
    if let Some(o) = crd.as_object_mut() {
        o.remove("status");
    }
    if let Some(meta) = crd.get_mut("metadata").and_then(Value::as_object_mut) {
        // What the API server adds to an object read back from a cluster.
        for key in [
            "creationTimestamp",
            "generation",
            "managedFields",
            "resourceVersion",
            "uid",
        ] {
            meta.remove(key);
        }
        if let Some(a) = meta.get_mut("annotations").and_then(Value::as_object_mut) {
            a.remove("controller-gen.kubebuilder.io/version");
            a.remove(crate::generators::crd::VERSION_ANNOTATION);
            a.retain(|k, _| !k.starts_with("kubectl.kubernetes.io/"));
            if a.is_empty() {
                meta.remove("annotations");
            }
        }
    }
    crd
}

/// Where `a` and `b` differ, as `path: a → b` lines.
pub fn differences(a: &Value, b: &Value) -> Vec<String> {
    let mut out = Vec::new();
    diff(a, b, String::new(), &mut out);
    out
}

fn diff(a: &Value, b: &Value, path: String, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let p = format!("{path}.{k}");
                match (x.get(k), y.get(k)) {
                    (Some(va), Some(vb)) => diff(va, vb, p, out),
                    (Some(va), None) => out.push(format!("{p}: {} → (absent)", short(va))),
                    (None, Some(vb)) => out.push(format!("{p}: (absent) → {}", short(vb))),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                diff(va, vb, format!("{path}[{i}]"), out);
            }
        }
        _ if numbers_equal(a, b) => {}
        _ => out.push(format!("{path}: {} → {}", short(a), short(b))),
    }
}

fn numbers_equal(a: &Value, b: &Value) -> bool {
    a == b || matches!((a.as_f64(), b.as_f64()), (Some(x), Some(y)) if x == y)
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 80 {
        format!("{}...", s.chars().take(77).collect::<String>())
    } else {
        s
    }
}
