//! `delete webhook` and `delete api`. `delete webhook` is the inverse of `create webhook`. The plan create would run today is
//! rendered again and reverted: its user-owned files go (refused when edited), its inserted
//! lines go (refused when not found as written), PROJECT forgets the webhooks.

use crate::diag::{Diagnostic, Error, Result};
use crate::generators::scaffold::api::{self, ResourceContext};
use crate::generators::scaffold::webhook::{self, ConversionContext, WebhookContext};
use crate::generators::scaffold::{Action, Policy};
use crate::pluralize;
use crate::project::{self, Project};
use crate::writer::Workspace;

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
    // The header is part of the files compared: the year is today's, as create would write it.
    let resource_ctx = super::webhook_resource_context(ws, project, &resource)?;
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

#[derive(Debug, Clone)]
pub struct DeleteApiOptions {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub force: bool,
}

/// Stages the removal of one kind version: what `create api` wrote for it, minus what the
/// remaining resources' plans also write (shared module declarations and `mod.rs` files).
pub fn delete_api(
    ws: &mut Workspace,
    project: &mut Project,
    opts: &DeleteApiOptions,
) -> Result<Vec<Diagnostic>> {
    let api_group = project.api_group(&opts.group);
    let Some(resource) = project
        .find_resource(&opts.group, &opts.version, &opts.kind)
        .cloned()
    else {
        return Err(Error::msg(format!(
            "no resource {api_group}/{} {} in PROJECT",
            opts.version, opts.kind
        )));
    };
    // Webhook files use the kind's types: removing the API under them breaks the build, and
    // removing them too is one flag away from losing the user's webhook code by surprise.
    if resource.webhooks.is_some() {
        return Err(Error::with_help(
            format!(
                "{api_group}/{} {} still has webhooks",
                opts.version, opts.kind
            ),
            format!(
                "delete them first: opgen delete webhook --group {} --version {} --kind {}",
                opts.group, opts.version, opts.kind
            ),
        ));
    }
    if let Some(hub) = project.resources.iter().find(|r| {
        r.group == opts.group
            && r.kind == opts.kind
            && r.webhooks
                .as_ref()
                .is_some_and(|w| w.spoke.contains(&opts.version))
    }) {
        return Err(Error::with_help(
            format!(
                "{api_group}/{} {} is a spoke of the conversion webhook of version {}",
                opts.version, opts.kind, hub.version
            ),
            format!(
                "delete that webhook first: opgen delete webhook --group {} --version {} --kind {}",
                opts.group, hub.version, opts.kind
            ),
        ));
    }
    let header = super::file_header(ws)?;
    let context = |project: &Project, r: &project::Resource| {
        let plural = r
            .plural
            .clone()
            .unwrap_or_else(|| pluralize::flect_plural(&r.kind));
        ResourceContext::new(
            project,
            &r.group,
            &r.version,
            &r.kind,
            &plural,
            r.api.as_ref().is_some_and(|a| a.namespaced),
            r.api.is_some(),
            r.controller,
            header.clone(),
        )
    };
    let ctx = context(project, &resource);
    let mut plan = api::plan(&ctx)?;
    // What the other resources still need stays.
    let mut kept = Vec::new();
    for other in project
        .resources
        .iter()
        .filter(|r| !(r.group == opts.group && r.version == opts.version && r.kind == opts.kind))
    {
        kept.extend(api::plan(&context(project, other))?.actions);
    }
    let shared = |a: &Action| {
        kept.iter().any(|k| match (a, k) {
            (
                Action::Insert { path, fragment, .. },
                Action::Insert {
                    path: p,
                    fragment: f,
                    ..
                },
            ) => path == p && fragment == f,
            (Action::Write { path, .. }, Action::Write { path: p, .. }) => path == p,
            _ => false,
        })
    };
    let (shared_actions, own): (Vec<Action>, Vec<Action>) =
        plan.actions.drain(..).partition(|a| shared(a));
    drop(shared_actions);
    let once_per_scope: Vec<(std::path::PathBuf, String)> = own
        .iter()
        .filter_map(|a| match a {
            Action::Write {
                path,
                content,
                policy: Policy::IfMissing,
            } => Some((path.clone(), content.clone())),
            _ => None,
        })
        .collect();
    let tool_owned: Vec<std::path::PathBuf> = own
        .iter()
        .filter_map(|a| match a {
            Action::Write {
                path,
                policy: Policy::ToolOwned,
                ..
            } => Some(path.clone()),
            _ => None,
        })
        .collect();
    plan.actions = own;
    let mut warnings = plan.revert(ws, opts.force)?;
    // The kind's helper roles are regenerated by opgen: removed without comparing.
    for path in tool_owned {
        if ws.exists(&path) {
            ws.stage_removal(path, None);
        }
    }
    // A version's or group's mod.rs that no other kind needs goes when it is back to what
    // create wrote (only its markers left); otherwise it holds the user's code and stays.
    for (path, fresh) in once_per_scope {
        match ws.read(&path)? {
            Some(now) if now == fresh => ws.stage_removal(path, None),
            Some(_) => warnings.push(Diagnostic::warning(format!(
                "{} no longer declares any kind of opgen's but holds other code: left in place",
                path.display()
            ))),
            None => {}
        }
    }
    project
        .resources
        .retain(|r| !(r.group == opts.group && r.version == opts.version && r.kind == opts.kind));
    ws.stage(project::FILE_NAME, project.to_yaml());
    Ok(warnings)
}
