//! `create webhook`: defaulting and validating admission webhooks for an existing kind.

use crate::diag::{Diagnostic, Error, Result};
use crate::generators::scaffold::api::ResourceContext;
use crate::generators::scaffold::init::{BOILERPLATE_PATH, fill_year};
use crate::generators::scaffold::webhook::{self, DEFAULT_KUSTOMIZATION, WebhookContext};
use crate::pluralize;
use crate::project::{self, Project, ResourceWebhooks};
use crate::writer::Workspace;
use std::path::Path;

#[derive(Debug, Clone)]
pub struct WebhookOptions {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub defaulting: bool,
    pub validation: bool,
    pub conversion: bool,
    pub force: bool,
}

/// Stages the webhook into the workspace and records it in `project`; returns warnings.
pub fn create_webhook(
    ws: &mut Workspace,
    project: &mut Project,
    opts: &WebhookOptions,
) -> Result<Vec<Diagnostic>> {
    if !opts.defaulting && !opts.validation && !opts.conversion {
        return Err(Error::with_help(
            "create webhook needs at least one of --defaulting, --programmatic-validation and --conversion",
            "e.g. opgen create webhook --group cache --version v1alpha1 --kind Memcached --defaulting",
        ));
    }
    if opts.conversion {
        return Err(Error::with_help(
            "--conversion is not supported yet: opgen cannot scaffold conversion webhooks",
            "keep the versions' schemas compatible (the API server's None strategy only rewrites apiVersion), or serve conversion yourself",
        ));
    }
    let api_group = project.api_group(&opts.group);
    let Some(resource) = project
        .resources
        .iter()
        .find(|r| {
            r.group == opts.group
                && r.version == opts.version
                && r.kind == opts.kind
                && r.api.is_some()
        })
        .cloned()
    else {
        return Err(Error::with_help(
            format!(
                "no API {api_group}/{} {} in PROJECT",
                opts.version, opts.kind
            ),
            "create it first with `opgen create api`",
        ));
    };
    let existing = resource.webhooks.clone().unwrap_or_default();
    let repeated = [
        (opts.defaulting && existing.defaulting, "defaulting"),
        (opts.validation && existing.validation, "validation"),
    ];
    if let Some((_, what)) = repeated.iter().find(|(r, _)| *r)
        && !opts.force
    {
        return Err(Error::with_help(
            format!(
                "a {what} webhook already exists for {api_group}/{} {}",
                opts.version, opts.kind
            ),
            "pass --force to scaffold its file again (your edits in it are lost)",
        ));
    }
    let defaulting = opts.defaulting || existing.defaulting;
    let validation = opts.validation || existing.validation;

    let plural = resource
        .plural
        .clone()
        .unwrap_or_else(|| pluralize::flect_plural(&resource.kind));
    let namespaced = resource.api.as_ref().is_some_and(|a| a.namespaced);
    let header = ws
        .read(Path::new(BOILERPLATE_PATH))?
        .map(|b| fill_year(&b))
        .unwrap_or_default();
    let resource_ctx = ResourceContext::new(
        project,
        &opts.group,
        &opts.version,
        &opts.kind,
        &plural,
        namespaced,
        true,
        false,
        header,
    );
    let ctx = WebhookContext::new(resource_ctx, defaulting, validation);
    // Adding a second kind of webhook rewrites the user-owned file with both: that needs --force.
    let warnings = webhook::plan(&ctx)?.apply(ws, opts.force)?;

    let kustomization = ws.read(Path::new(DEFAULT_KUSTOMIZATION))?.ok_or_else(|| {
        Error::msg(format!(
            "{DEFAULT_KUSTOMIZATION} is missing; nothing was written"
        ))
    })?;
    ws.stage(
        DEFAULT_KUSTOMIZATION,
        webhook::enable_in_default_kustomization(&kustomization)?,
    );

    let entry = project
        .resources
        .iter_mut()
        .find(|r| r.group == opts.group && r.version == opts.version && r.kind == opts.kind)
        .expect("found above");
    entry.webhooks = Some(ResourceWebhooks {
        defaulting,
        validation,
        webhook_version: "v1".to_owned(),
        ..ResourceWebhooks::default()
    });
    ws.stage(project::FILE_NAME, project.to_yaml());
    Ok(warnings)
}
