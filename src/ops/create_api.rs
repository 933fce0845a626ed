//! `create api`: a new kind (types, sample, helper roles) and/or its controller.

use crate::diag::{Diagnostic, Error, Result};
use crate::generators::scaffold::api::{self, ResourceContext};
use crate::names;
use crate::pluralize;
use crate::project::{self, Gvk, Project, Resource, ResourceApi};
use crate::writer::Workspace;

#[derive(Debug, Clone)]
pub struct ApiOptions {
    pub gvk: Gvk,
    pub plural: Option<String>,
    /// None: the scope of the kind's other versions, else namespaced.
    pub namespaced: Option<bool>,
    pub resource: bool,
    pub controller: bool,
    /// The controller keeps a finalizer on each object, for cleanup outside the cluster.
    pub finalizer: bool,
    pub force: bool,
}

/// Stages the new API into the workspace and records it in `project`; returns warnings.
pub fn create_api(
    ws: &mut Workspace,
    project: &mut Project,
    opts: &ApiOptions,
) -> Result<Vec<Diagnostic>> {
    names::validate_group(&opts.gvk.group)?;
    names::validate_version(&opts.gvk.version)?;
    names::validate_kind(&opts.gvk.kind)?;
    if let Some(plural) = &opts.plural {
        names::validate_plural(plural)?;
    }
    names::validate_domain(&project.api_group(&opts.gvk.group)).map_err(|_| {
        Error::msg(format!(
            "invalid value {:?} for --group: the API group {:?} must be a DNS-1123 subdomain of at most 253 characters",
            opts.gvk.group,
            project.api_group(&opts.gvk.group)
        ))
    })?;
    if !opts.resource && !opts.controller {
        return Err(Error::with_help(
            "nothing to create: --resource=false and --controller=false were both given",
            "drop one of them: --resource=false scaffolds only a controller, --controller=false only the API types",
        ));
    }
    check_group(project, &opts.gvk.group)?;

    let existing = project.find(&opts.gvk).cloned();
    if !opts.resource && existing.as_ref().is_none_or(|r| r.api.is_none()) {
        return Err(Error::with_help(
            format!(
                "--resource=false needs the API {}/{} {} to exist already, and PROJECT has no such API",
                project.api_group(&opts.gvk.group),
                opts.gvk.version,
                opts.gvk.kind
            ),
            "create the API first with `opgen create api --controller=false ...`, then add the controller",
        ));
    }
    if let Some(existing) = &existing {
        let repeats_resource = opts.resource && existing.api.is_some();
        let repeats_controller = opts.controller && existing.controller;
        if (repeats_resource || repeats_controller) && !opts.force {
            return Err(Error::with_help(
                format!(
                    "the API {}/{} {} already exists in PROJECT",
                    project.api_group(&opts.gvk.group),
                    opts.gvk.version,
                    opts.gvk.kind
                ),
                "pass --force to scaffold it again (this replaces the types, controller and sample files), or pick another kind or version",
            ));
        }
    }
    check_kind_collisions(project, opts)?;
    check_reserved_modules(project, opts)?;

    // A new version of a kind takes the plural and scope its other versions have, unless told
    // otherwise: every version of a kind must have the same (issue #23 item 12).
    let sibling = project
        .other_versions(&opts.gvk)
        .find(|r| r.api.is_some())
        .cloned();
    let plural = opts
        .plural
        .clone()
        .or_else(|| existing.as_ref().and_then(|r| r.plural.clone()))
        .or_else(|| sibling.as_ref().and_then(|r| r.plural.clone()))
        .unwrap_or_else(|| pluralize::flect_plural(&opts.gvk.kind));
    // A kind of 63 characters passes its own check; its plural, the CRD's resource name,
    // may not.
    if opts.plural.is_none() && names::validate_plural(&plural).is_err() {
        return Err(Error::with_help(
            format!(
                "invalid value {:?} for --kind: its plural `{plural}` ({} characters) cannot name the CRD's resource, which must be a lowercase DNS-1123 label of at most 63 characters",
                opts.gvk.kind,
                plural.len()
            ),
            "choose a shorter kind, or pass a shorter --plural",
        ));
    }
    let namespaced = match existing.as_ref().and_then(|r| r.api.as_ref()) {
        Some(api) if !opts.resource => api.namespaced,
        _ => opts
            .namespaced
            .or_else(|| {
                sibling
                    .as_ref()
                    .and_then(|r| r.api.as_ref())
                    .map(|a| a.namespaced)
            })
            .unwrap_or(true),
    };

    let mut ctx = ResourceContext::new(
        project,
        &opts.gvk.group,
        &opts.gvk.version,
        &opts.gvk.kind,
        &plural,
        namespaced,
        opts.resource,
        opts.controller,
        super::file_header(ws)?,
    );
    ctx.finalizer = opts.finalizer;
    repeat_sibling_names(ws, &mut ctx)?;
    let mut warnings = api::plan(&ctx)?.apply(ws, opts.force)?;
    if existing.is_none() {
        warnings.extend(names::builtin_kind_warning(&opts.gvk.kind));
    }

    let recorded_plural = opts
        .plural
        .clone()
        .or_else(|| sibling.as_ref().and_then(|r| r.plural.clone()));
    record(project, &ctx, opts, recorded_plural, existing.is_some());
    ws.stage(project::FILE_NAME, project.to_yaml());
    Ok(warnings)
}

/// Gives a new version of a kind the singular, short names and categories its other version
/// declares in the sources: every version must declare the same.
fn repeat_sibling_names(ws: &Workspace, ctx: &mut ResourceContext) -> Result<()> {
    if let Some(sibling) = &ctx.storage_version {
        let mut declared = super::manifests::kind_declared_names(ws, &ctx.api_group, &ctx.kind)?;
        if let Some(names) = declared.remove(sibling) {
            ctx.declared = names;
        }
    }
    Ok(())
}

/// A single-group project holds one API group; kubebuilder has the same rule.
fn check_group(project: &Project, group: &str) -> Result<()> {
    if project.multigroup {
        return Ok(());
    }
    match project.resources.iter().find(|r| r.group != group) {
        Some(other) => Err(Error::with_help(
            format!(
                "this project already has the group {:?}, and a single-group project holds only one API group",
                other.group
            ),
            "run `opgen edit --multigroup` first: it moves the existing kinds into group directories (src/api/<group>/<version>, ...) and fixes their module paths",
        )),
        None => Ok(()),
    }
}

/// Two kinds whose lower-case names are equal would share a singular name, a sample, helper
/// roles and, in one group, a CRD.
fn check_kind_collisions(project: &Project, opts: &ApiOptions) -> Result<()> {
    let lower = opts.gvk.kind.to_lowercase();
    for r in &project.resources {
        let same_scope =
            project.multigroup.then_some(&r.group) == project.multigroup.then_some(&opts.gvk.group);
        if same_scope && r.kind != opts.gvk.kind && r.kind.to_lowercase() == lower {
            return Err(Error::msg(format!(
                "invalid value {:?} for --kind: it collides with the existing kind {:?}; both have the lower-case name `{lower}`, which names the resource, its sample and its helper roles",
                opts.gvk.kind, r.kind
            )));
        }
        if opts.controller
            && same_scope
            && r.kind == opts.gvk.kind
            && r.version != opts.gvk.version
            && r.controller
        {
            return Err(Error::with_help(
                format!(
                    "kind {} already has a controller (scaffolded with version {})",
                    opts.gvk.kind, r.version
                ),
                "one controller serves every version of a kind: pass --controller=false for this version",
            ));
        }
    }
    Ok(())
}

/// Modules the scaffold itself keeps in `src/controllers/`.
const CONTROLLER_SUPPORT_MODULES: &[&str] = &["backoff", "conditions"];

/// A kind's controller module (or, multigroup, the group's) must not shadow them.
fn check_reserved_modules(project: &Project, opts: &ApiOptions) -> Result<()> {
    let (name, flag) = if project.multigroup {
        (names::module_name(&opts.gvk.group), "--group")
    } else {
        (
            heck::ToSnakeCase::to_snake_case(opts.gvk.kind.as_str()),
            "--kind",
        )
    };
    if opts.controller && CONTROLLER_SUPPORT_MODULES.contains(&name.as_str()) {
        let value = if project.multigroup {
            &opts.gvk.group
        } else {
            &opts.gvk.kind
        };
        return Err(Error::msg(format!(
            "invalid value {value:?} for {flag}: its controller module `{name}` would clash with src/controllers/{name}.rs, which the scaffold uses"
        )));
    }
    Ok(())
}

fn record(
    project: &mut Project,
    ctx: &ResourceContext,
    opts: &ApiOptions,
    plural: Option<String>,
    exists: bool,
) {
    let resource = Resource {
        api: opts.resource.then(|| ResourceApi {
            crd_version: "v1".to_owned(),
            namespaced: ctx.namespaced,
        }),
        controller: opts.controller,
        domain: project.domain.clone(),
        finalizer: opts.finalizer,
        group: ctx.group.clone(),
        kind: ctx.kind.clone(),
        path: ctx.recorded_path(),
        plural,
        version: ctx.version.clone(),
        webhooks: None,
    };
    if exists {
        let entry = project.find_mut(&opts.gvk).expect("checked above");
        entry.api = entry.api.take().or(resource.api);
        entry.controller |= resource.controller;
        entry.plural = resource.plural.or(entry.plural.take());
    } else {
        project.resources.push(resource);
    }
}
