//! `delete webhook`: the inverse of `create webhook`. The plan create would run today is
//! rendered again and reverted: its user-owned files go (refused when edited), its inserted
//! lines go (refused when not found as written), PROJECT forgets the webhooks.

use crate::diag::{Diagnostic, Error, Result};
use crate::generators::scaffold::api::ResourceContext;
use crate::generators::scaffold::init::{BOILERPLATE_PATH, fill_year};
use crate::generators::scaffold::webhook::{self, ConversionContext, WebhookContext};
use crate::pluralize;
use crate::project::{self, Project};
use crate::writer::Workspace;
use std::path::Path;

#[derive(Debug, Clone)]
pub struct DeleteWebhookOptions {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub force: bool,
}

/// Stages the removal of every webhook of one kind version; returns warnings.
pub fn delete_webhook(
    ws: &mut Workspace,
    project: &mut Project,
    opts: &DeleteWebhookOptions,
) -> Result<Vec<Diagnostic>> {
    let api_group = project.api_group(&opts.group);
    let Some(resource) = project
        .resources
        .iter()
        .find(|r| r.group == opts.group && r.version == opts.version && r.kind == opts.kind)
        .cloned()
    else {
        return Err(Error::msg(format!(
            "no resource {api_group}/{} {} in PROJECT",
            opts.version, opts.kind
        )));
    };
    let Some(hooks) = resource.webhooks.clone() else {
        return Err(Error::with_help(
            format!(
                "{api_group}/{} {} has no webhooks in PROJECT",
                opts.version, opts.kind
            ),
            "nothing to delete",
        ));
    };
    let plural = resource
        .plural
        .clone()
        .unwrap_or_else(|| pluralize::flect_plural(&resource.kind));
    let namespaced = resource.api.as_ref().is_some_and(|a| a.namespaced);
    // The header is part of the files compared: the year is today's, as create would write it.
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
    let mut warnings = Vec::new();
    if hooks.defaulting || hooks.validation {
        let ctx = WebhookContext::new(resource_ctx.clone(), hooks.defaulting, hooks.validation);
        warnings.extend(webhook::plan(&ctx)?.revert(ws, opts.force)?);
    }
    if hooks.conversion {
        let ctx = ConversionContext::new(resource_ctx, &hooks.spoke);
        warnings.extend(webhook::conversion_plan(&ctx)?.revert(ws, opts.force)?);
    }
    let entry = project
        .resources
        .iter_mut()
        .find(|r| r.group == opts.group && r.version == opts.version && r.kind == opts.kind)
        .expect("found above");
    entry.webhooks = None;
    ws.stage(project::FILE_NAME, project.to_yaml());
    Ok(warnings)
}
