//! `create webhook`: defaulting, validating and conversion admission webhooks for an
//! existing kind.

use crate::diag::{Diagnostic, Error, Result};
use crate::generators::scaffold::webhook::{
    self, CRD_KUSTOMIZATION, ConversionContext, DEFAULT_KUSTOMIZATION,
    NETWORK_POLICY_KUSTOMIZATION, WebhookContext,
};
use crate::project::{self, Gvk, Project, Resource, ResourceWebhooks};
use crate::writer::Workspace;
use std::path::Path;

#[derive(Debug, Clone, Default)]
pub struct WebhookOptions {
    pub gvk: Gvk,
    pub defaulting: bool,
    pub validation: bool,
    pub conversion: bool,
    /// With `conversion`: the other versions, converted to and from `version` (the hub).
    pub spokes: Vec<String>,
    pub force: bool,
    /// The webhooks' `+kubebuilder:webhook` markers as a Go project has them (`import go`),
    /// instead of kubebuilder's.
    pub defaulting_marker: Option<String>,
    pub validation_marker: Option<String>,
}

/// Stages the webhooks into the workspace and records them in `project`; returns warnings.
pub fn create_webhook(
    ws: &mut Workspace,
    project: &mut Project,
    opts: &WebhookOptions,
) -> Result<Vec<Diagnostic>> {
    let resource = checked_resource(project, opts)?;
    check_other_versions(project, opts)?;
    let existing = resource.webhooks.clone().unwrap_or_default();
    check_repeated(project, opts, &existing)?;
    let defaulting = opts.defaulting || existing.defaulting;
    let validation = opts.validation || existing.validation;

    let resource_ctx = super::webhook_resource_context(ws, project, &resource)?;

    let mut warnings = enable_webhook_config(ws)?;
    if opts.defaulting || opts.validation {
        let ctx = WebhookContext::new(resource_ctx.clone(), defaulting, validation).with_markers(
            opts.defaulting_marker.as_deref(),
            opts.validation_marker.as_deref(),
        );
        // Adding a second kind of webhook rewrites the user-owned file with both: that needs --force.
        warnings.extend(webhook::plan(&ctx)?.apply(ws, opts.force)?);
    }
    if opts.conversion {
        if let Some(crd) = ws.read(Path::new(CRD_KUSTOMIZATION))? {
            ws.stage(CRD_KUSTOMIZATION, webhook::with_crd_patches_section(&crd));
        }
        let ctx = ConversionContext::new(resource_ctx, &opts.spokes);
        warnings.extend(webhook::conversion_plan(&ctx)?.apply(ws, opts.force)?);
    }

    let entry = project.find_mut(&opts.gvk).expect("found above");
    let mut spoke = existing.spoke.clone();
    for v in &opts.spokes {
        if !spoke.contains(v) {
            spoke.push(v.clone());
        }
    }
    entry.webhooks = Some(ResourceWebhooks {
        conversion: opts.conversion || existing.conversion,
        defaulting,
        spoke,
        validation,
        webhook_version: "v1".to_owned(),
    });
    ws.stage(project::FILE_NAME, project.to_yaml());
    Ok(warnings)
}

/// The kind the webhooks are for, once the options ask for some webhook (and spokes go
/// with a conversion).
fn checked_resource(project: &Project, opts: &WebhookOptions) -> Result<Resource> {
    if !opts.defaulting && !opts.validation && !opts.conversion {
        return Err(Error::with_help(
            "create webhook needs at least one of --defaulting, --programmatic-validation and --conversion",
            "e.g. opgen create webhook --group cache --version v1alpha1 --kind Memcached --defaulting",
        ));
    }
    let api_group = project.api_group(&opts.gvk.group);
    let Some(resource) = project.find(&opts.gvk).filter(|r| r.api.is_some()).cloned() else {
        return Err(Error::with_help(
            format!(
                "no API {api_group}/{} {} in PROJECT",
                opts.gvk.version, opts.gvk.kind
            ),
            "create it first with `opgen create api`",
        ));
    };
    if opts.conversion {
        check_spokes(project, opts)?;
    } else if !opts.spokes.is_empty() {
        return Err(Error::msg("--spoke goes with --conversion"));
    }
    Ok(resource)
}

/// A kind's defaulting and validating webhooks live in one file and serve every version:
/// the configuration's matchPolicy Equivalent has the API server convert a request for
/// another version to the webhook's. So another version's refuses this version's.
fn check_other_versions(project: &Project, opts: &WebhookOptions) -> Result<()> {
    let api_group = project.api_group(&opts.gvk.group);
    let elsewhere = project.other_versions(&opts.gvk).find(|r| {
        r.webhooks
            .as_ref()
            .is_some_and(|w| w.defaulting || w.validation)
    });
    if let Some(other) = elsewhere
        && (opts.defaulting || opts.validation)
    {
        let version = &other.version;
        let w = other.webhooks.clone().unwrap_or_default();
        let (what, verb) = match (w.defaulting, w.validation) {
            (true, true) => ("defaulting and validation webhooks", "serve"),
            (true, false) => ("defaulting webhook", "serves"),
            _ => ("validation webhook", "serves"),
        };
        let missing = [
            (opts.defaulting && !w.defaulting, "--defaulting"),
            (
                opts.validation && !w.validation,
                "--programmatic-validation",
            ),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, f)| *f)
        .collect::<Vec<_>>()
        .join(" ");
        let help = if missing.is_empty() {
            format!(
                "nothing to scaffold: {} objects reach it as {version}",
                opts.gvk.version
            )
        } else {
            format!(
                "{} objects reach it as {version}: add to it with `opgen create webhook --group {} --version {version} --kind {} {missing} --force` (--force scaffolds the webhook file again)",
                opts.gvk.version, opts.gvk.group, opts.gvk.kind
            )
        };
        return Err(Error::with_help(
            format!(
                "the {what} of {} on {api_group}/{version} already {verb} {}: a kind's webhooks serve all its versions (the API server's default matchPolicy, Equivalent, converts a {} request to {version} for them)",
                opts.gvk.kind, opts.gvk.version, opts.gvk.version
            ),
            help,
        ));
    }
    Ok(())
}

/// A webhook the kind has already is scaffolded again only with --force.
fn check_repeated(
    project: &Project,
    opts: &WebhookOptions,
    existing: &ResourceWebhooks,
) -> Result<()> {
    let repeated = [
        (opts.defaulting && existing.defaulting, "defaulting"),
        (opts.validation && existing.validation, "validation"),
        (opts.conversion && existing.conversion, "conversion"),
    ];
    if let Some((_, what)) = repeated.iter().find(|(r, _)| *r)
        && !opts.force
    {
        return Err(Error::with_help(
            format!(
                "a {what} webhook already exists for {}/{} {}",
                project.api_group(&opts.gvk.group),
                opts.gvk.version,
                opts.gvk.kind
            ),
            "pass --force to scaffold its file again (your edits in it are lost)",
        ));
    }
    Ok(())
}

/// The webhook and cert-manager parts of config/default, and the webhook's network policy in
/// its kustomization; returns the warning when that has no list to add it to. (config/default
/// comes first: the conversion plan inserts into it.)
fn enable_webhook_config(ws: &mut Workspace) -> Result<Vec<Diagnostic>> {
    let kustomization = ws.read(Path::new(DEFAULT_KUSTOMIZATION))?.ok_or_else(|| {
        Error::msg(format!(
            "{DEFAULT_KUSTOMIZATION} is missing; nothing was written"
        ))
    })?;
    ws.stage(
        DEFAULT_KUSTOMIZATION,
        webhook::enable_in_default_kustomization(&kustomization)?,
    );

    let mut warnings = Vec::new();
    // The policy itself is written with the other config files, once per project.
    if let Some(text) = ws.read(Path::new(NETWORK_POLICY_KUSTOMIZATION))? {
        match webhook::with_webhook_network_policy(&text) {
            Some(listed) => ws.stage(NETWORK_POLICY_KUSTOMIZATION, listed),
            None => warnings.push(Diagnostic::warning(format!(
                "{NETWORK_POLICY_KUSTOMIZATION} has no `resources:` list: add `- allow-webhook-traffic.yaml` to it by hand"
            ))),
        }
    }
    Ok(warnings)
}

/// Spokes must be other existing versions of the same kind.
fn check_spokes(project: &Project, opts: &WebhookOptions) -> Result<()> {
    if opts.spokes.is_empty() {
        return Err(Error::with_help(
            "--conversion needs the versions to convert: --spoke <version>[,<version>...]",
            format!(
                "the hub is --version {}; every spoke converts to and from it",
                opts.gvk.version
            ),
        ));
    }
    for spoke in &opts.spokes {
        if spoke == &opts.gvk.version {
            return Err(Error::msg(format!(
                "invalid spoke version {spoke:?}: it is the hub (--version)"
            )));
        }
        let exists = project
            .find(&opts.gvk.with_version(spoke))
            .is_some_and(|r| r.api.is_some());
        if !exists {
            return Err(Error::with_help(
                format!(
                    "invalid spoke version {spoke:?}: PROJECT has no {} {} in that version",
                    project.api_group(&opts.gvk.group),
                    opts.gvk.kind
                ),
                format!(
                    "create it first: opgen create api --group {} --version {spoke} --kind {} --controller=false",
                    opts.gvk.group, opts.gvk.kind
                ),
            ));
        }
    }
    Ok(())
}
