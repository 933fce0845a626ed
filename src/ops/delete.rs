//! `delete webhook` and `delete api`. `delete webhook` is the inverse of `create webhook`. The plan create would run today is
//! rendered again and reverted: its user-owned files go (refused when edited), its inserted
//! lines go (refused when not found as written), PROJECT forgets the webhooks.

use crate::diag::{Diagnostic, Error, Result};
use crate::generators::scaffold::api::{self, ResourceContext};
use crate::generators::scaffold::webhook::{
    self, CRD_KUSTOMIZATION, ConversionContext, DEFAULT_KUSTOMIZATION,
    NETWORK_POLICY_KUSTOMIZATION, WebhookContext,
};
use crate::generators::scaffold::{Action, Policy, ScaffoldPlan, format_rust};
use crate::load::{self, ModuleTree};
use crate::ops::manifests::{WEBHOOK_FILE, WEBHOOK_KUSTOMIZATION};
use crate::pluralize;
use crate::project::{self, Gvk, Project, ResourceWebhooks};
use crate::writer::Workspace;
use std::path::Path;

#[derive(Debug, Clone)]
pub struct DeleteWebhookOptions {
    pub gvk: Gvk,
    /// The webhooks to delete; none set: every webhook of the kind version.
    pub defaulting: bool,
    pub validation: bool,
    pub conversion: bool,
    pub force: bool,
}

/// Stages the removal of the webhooks `opts` names (all of them by default) of one kind
/// version; returns warnings. A file the remaining webhooks share with the removed one (the
/// admission module serving defaulting and validation) is rewritten as `create webhook` writes
/// it for the remaining ones, merged with the user's edits; edits that overlap what goes are
/// refused unless `force`.
pub fn delete_webhook(
    ws: &mut Workspace,
    project: &mut Project,
    opts: &DeleteWebhookOptions,
) -> Result<Vec<Diagnostic>> {
    let api_group = project.api_group(&opts.gvk.group);
    let Some(resource) = project.find(&opts.gvk).cloned() else {
        return Err(Error::msg(format!(
            "no resource {api_group}/{} {} in PROJECT",
            opts.gvk.version, opts.gvk.kind
        )));
    };
    let Some(hooks) = resource.webhooks.clone() else {
        return Err(Error::with_help(
            format!(
                "{api_group}/{} {} has no webhooks in PROJECT",
                opts.gvk.version, opts.gvk.kind
            ),
            "nothing to delete",
        ));
    };
    let all = !(opts.defaulting || opts.validation || opts.conversion);
    for (asked, has, what) in [
        (opts.defaulting, hooks.defaulting, "defaulting"),
        (opts.validation, hooks.validation, "validating"),
        (opts.conversion, hooks.conversion, "conversion"),
    ] {
        if asked && !has {
            return Err(Error::with_help(
                format!(
                    "{api_group}/{} {} has no {what} webhook",
                    opts.gvk.version, opts.gvk.kind
                ),
                format!("its webhooks: {}", hook_names(&hooks)),
            ));
        }
    }
    let removed = |asked: bool, has: bool| has && (all || asked);
    let remaining = ResourceWebhooks {
        defaulting: !removed(opts.defaulting, hooks.defaulting) && hooks.defaulting,
        validation: !removed(opts.validation, hooks.validation) && hooks.validation,
        conversion: !removed(opts.conversion, hooks.conversion) && hooks.conversion,
        spoke: if removed(opts.conversion, hooks.conversion) {
            Vec::new()
        } else {
            hooks.spoke.clone()
        },
        webhook_version: hooks.webhook_version.clone(),
    };
    // The header is part of the files compared: the year is today's, as create would write it.
    let mut plans = vec![
        webhook_plans(ws, project, &resource, &hooks)?,
        webhook_plans(ws, project, &resource, &remaining)?,
    ];
    // What the other webhooks still need stays (group modules, the shared config files).
    for other in project.resources.iter().filter(|r| !r.is(&opts.gvk)) {
        if let Some(w) = &other.webhooks {
            plans.push(webhook_plans(ws, project, other, w)?);
        }
    }
    // One rustfmt run for every plan.
    format_rust(&mut plans.iter_mut().collect::<Vec<_>>())?;
    let mut plans = plans.into_iter().map(ScaffoldPlan::into_actions);
    let plan = plans.next().expect("the resource's plan")?;
    let mut kept = plans.next().expect("its plan after")?;
    let mut warnings = rewrite_shared(ws, &plan, &kept, opts.force)?;
    for other in plans {
        kept.extend(other?);
    }
    warnings.extend(revert_own(ws, plan, &kept, opts.force)?);
    let entry = project.find_mut(&opts.gvk).expect("found above");
    let removed_conversion = hooks.conversion && !remaining.conversion;
    entry.webhooks =
        (remaining.defaulting || remaining.validation || remaining.conversion).then_some(remaining);
    let left = |f: fn(&ResourceWebhooks) -> bool| {
        project
            .resources
            .iter()
            .any(|r| r.webhooks.as_ref().is_some_and(f))
    };
    if removed_conversion
        && !left(|w| w.conversion)
        && let Some(text) = ws.read(Path::new(CRD_KUSTOMIZATION))?
    {
        match webhook::without_crd_patches_section(&text) {
            Some(without) => ws.stage(CRD_KUSTOMIZATION, without),
            None => warnings.push(Diagnostic::warning(format!(
                "{CRD_KUSTOMIZATION}: its conversion `patches:` and `configurations:` section is not as opgen added it, so it stays; remove it by hand if no CRD needs it"
            ))),
        }
    }
    // The last webhook switches off what `create webhook` switched on.
    if !left(|w| w.defaulting || w.validation || w.conversion) {
        if let Some(text) = ws.read(Path::new(DEFAULT_KUSTOMIZATION))? {
            ws.stage(
                DEFAULT_KUSTOMIZATION,
                webhook::disable_in_default_kustomization(&text),
            );
        }
        if let Some(text) = ws.read(Path::new(NETWORK_POLICY_KUSTOMIZATION))? {
            ws.stage(
                NETWORK_POLICY_KUSTOMIZATION,
                webhook::without_webhook_network_policy(&text),
            );
        }
        // `opgen manifests` writes it while config/webhook lists it.
        if !ws.exists(Path::new(WEBHOOK_KUSTOMIZATION)) && ws.exists(Path::new(WEBHOOK_FILE)) {
            ws.stage_removal(WEBHOOK_FILE, None);
        }
    }
    ws.stage(project::FILE_NAME, project.to_yaml());
    Ok(warnings)
}

/// `defaulting, validating and conversion`, of those `hooks` has.
fn hook_names(hooks: &ResourceWebhooks) -> String {
    let names: Vec<&str> = [
        (hooks.defaulting, "defaulting"),
        (hooks.validation, "validating"),
        (hooks.conversion, "conversion"),
    ]
    .into_iter()
    .filter_map(|(has, name)| has.then_some(name))
    .collect();
    names.join(", ")
}

/// The files both `before` and `after` write, with other contents (the admission module when
/// one of its two hooks goes): rewritten to `after`'s, the user's edits merged in. An edit
/// that overlaps what changes is refused, or with `force` replaced (and named).
fn rewrite_shared(
    ws: &mut Workspace,
    before: &[Action],
    after: &[Action],
    force: bool,
) -> Result<Vec<Diagnostic>> {
    let mut warnings = Vec::new();
    for action in after {
        let Action::Write { path, content, .. } = action else {
            continue;
        };
        let Some(then) = before.iter().find_map(|a| match a {
            Action::Write {
                path: p, content, ..
            } if p == path => Some(content),
            _ => None,
        }) else {
            continue;
        };
        if then == content {
            continue;
        }
        let Some(now) = ws.read(path)? else {
            continue;
        };
        match diffy::merge(then, &now, content) {
            Ok(merged) => ws.stage(path.clone(), merged),
            Err(_) if force => {
                warnings.push(Diagnostic::warning(format!(
                    "{}: your edits overlapped the removed webhook's code and were replaced (--force)",
                    path.display()
                )));
                ws.stage(path.clone(), content.clone());
            }
            Err(_) => {
                return Err(Error::with_help(
                    format!(
                        "{}: your edits overlap the code of the webhook being deleted",
                        path.display()
                    ),
                    "remove that hook's code (its impl and `+kubebuilder:webhook` marker) by hand and delete again, or pass --force to rewrite the file as `create webhook` writes it for the remaining webhooks (your edits are lost)",
                ));
            }
        }
    }
    Ok(warnings)
}

/// What `create webhook` writes for the webhooks `hooks` of `resource` today (its Rust not
/// formatted yet).
fn webhook_plans(
    ws: &Workspace,
    project: &Project,
    resource: &project::Resource,
    hooks: &ResourceWebhooks,
) -> Result<ScaffoldPlan> {
    let resource_ctx = super::webhook_resource_context(ws, project, resource)?;
    let mut plan = ScaffoldPlan::default();
    if hooks.defaulting || hooks.validation {
        let ctx = WebhookContext::new(resource_ctx.clone(), hooks.defaulting, hooks.validation);
        plan.extend(webhook::plan(&ctx)?);
    }
    if hooks.conversion {
        let ctx = ConversionContext::new(resource_ctx, &hooks.spoke);
        plan.extend(webhook::conversion_plan(&ctx)?);
    }
    Ok(plan)
}

/// Reverts the actions of `plan` that `kept` (the plans of what stays) does not repeat: shared
/// module declarations and files written once stay while something still needs them. Files
/// written once go when nothing needs them and they are as opgen wrote them.
fn revert_own(
    ws: &mut Workspace,
    plan: Vec<Action>,
    kept: &[Action],
    force: bool,
) -> Result<Vec<Diagnostic>> {
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
    let mut seen = std::collections::BTreeSet::new();
    let own: Vec<Action> = plan
        .into_iter()
        .filter(|a| !shared(a))
        // Two plans of one kind (defaulting and conversion) write the same shared files.
        .filter(|a| match a {
            Action::Write { path, .. } => seen.insert(path.clone()),
            Action::Insert { path, fragment, .. } => seen.insert(path.join(fragment)),
        })
        .collect();
    let once: Vec<(std::path::PathBuf, String)> = own
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
        .filter_map(|a| a.written_with(Policy::ToolOwned).cloned())
        .collect();
    let plan = ScaffoldPlan::from_actions(own);
    let mut warnings = plan.revert(ws, force)?;
    // Regenerated by opgen: removed without comparing.
    for path in tool_owned {
        if ws.exists(&path) {
            ws.stage_removal(path, None);
        }
    }
    // A mod.rs or config file nothing needs any more goes when it is back to what create
    // wrote (a mod.rs with only its markers left); otherwise it holds the user's work and stays.
    for (path, fresh) in once {
        match ws.read(&path)? {
            Some(now) if now == fresh => ws.stage_removal(path, None),
            Some(_) => warnings.push(Diagnostic::warning(format!(
                "{} is no longer needed by opgen's scaffold but differs from what opgen wrote: left in place",
                path.display()
            ))),
            None => {}
        }
    }
    Ok(warnings)
}

#[derive(Debug, Clone)]
pub struct DeleteApiOptions {
    pub gvk: Gvk,
    pub force: bool,
}

/// Stages the removal of one kind version: what `create api` wrote for it, minus what the
/// remaining resources' plans also write (shared module declarations and `mod.rs` files).
pub fn delete_api(
    ws: &mut Workspace,
    project: &mut Project,
    opts: &DeleteApiOptions,
) -> Result<Vec<Diagnostic>> {
    let api_group = project.api_group(&opts.gvk.group);
    let Some(resource) = project.find(&opts.gvk).cloned() else {
        return Err(Error::msg(format!(
            "no resource {api_group}/{} {} in PROJECT",
            opts.gvk.version, opts.gvk.kind
        )));
    };
    // Webhook files use the kind's types: removing the API under them breaks the build, and
    // removing them too is one flag away from losing the user's webhook code by surprise.
    if resource.webhooks.is_some() {
        return Err(Error::with_help(
            format!(
                "{api_group}/{} {} still has webhooks",
                opts.gvk.version, opts.gvk.kind
            ),
            format!(
                "delete them first: opgen delete webhook --group {} --version {} --kind {}",
                opts.gvk.group, opts.gvk.version, opts.gvk.kind
            ),
        ));
    }
    if let Some(hub) = project.versions_of(&opts.gvk).find(|r| {
        r.webhooks
            .as_ref()
            .is_some_and(|w| w.spoke.contains(&opts.gvk.version))
    }) {
        return Err(Error::with_help(
            format!(
                "{api_group}/{} {} is a spoke of the conversion webhook of version {}",
                opts.gvk.version, opts.gvk.kind, hub.version
            ),
            format!(
                "delete that webhook first: opgen delete webhook --group {} --version {} --kind {}",
                opts.gvk.group, hub.version, opts.gvk.kind
            ),
        ));
    }
    // The modules as they are before the delete: what user code may still name.
    let tree = load::module_tree(ws)?;
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
    // The singular, short names and categories each version's file declares: a version made
    // beside another repeats that one's.
    let declared = super::manifests::kind_declared_names(
        ws,
        &super::full_group(&resource.group, &resource.domain),
        &resource.kind,
    )?;
    let mut ctx = context(&super::as_created(project, &resource), &resource);
    if let Some(names) = ctx.storage_version.as_ref().and_then(|v| declared.get(v)) {
        ctx.declared = names.clone();
    }
    let mut plan = api::plan(&ctx)?;
    // What the other resources still need stays.
    let mut kept = Vec::new();
    for other in project.resources.iter().filter(|r| !r.is(&opts.gvk)) {
        kept.push(api::plan(&context(project, other))?);
    }
    // One rustfmt run for every plan.
    format_rust(
        &mut std::iter::once(&mut plan)
            .chain(&mut kept)
            .collect::<Vec<_>>(),
    )?;
    let kept: Vec<Action> = kept
        .into_iter()
        .map(ScaffoldPlan::into_actions)
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .flatten()
        .collect();
    let mut warnings = revert_own(ws, plan.into_actions()?, &kept, opts.force)?;
    let before = project.clone();
    project.resources.retain(|r| !r.is(&opts.gvk));
    // The kind's other versions were scaffolded around this one (`storage = false` while it
    // was the storage version): those still as written are rewritten as create writes them
    // now, so that one of them is the storage version.
    if resource.api.is_some() {
        for other in project.versions_of(&opts.gvk).filter(|r| r.api.is_some()) {
            let rewritten = |p: &Project| -> Result<Vec<(std::path::PathBuf, String)>> {
                let mut ctx = context(&super::as_created(p, other), other);
                if let Some(names) = declared.get(&other.version) {
                    ctx.declared = names.clone();
                }
                Ok(api::plan(&ctx)?
                    .into_actions()?
                    .into_iter()
                    .filter_map(|a| match a {
                        Action::Write { path, content, .. }
                            if path.to_string_lossy().ends_with("_types.rs")
                                || path.starts_with("config/samples") =>
                        {
                            Some((path, content))
                        }
                        _ => None,
                    })
                    .collect())
            };
            for ((path, then), (_, now)) in rewritten(&before)?.into_iter().zip(rewritten(project)?)
            {
                if then == now {
                    continue;
                }
                match ws.read(&path)? {
                    Some(text) if text == then => ws.stage(path, now),
                    Some(_) if path.starts_with("config/samples") => {}
                    Some(_) => warnings.push(Diagnostic::warning(format!(
                        "{} was scaffolded with `storage = false` while {} was the storage version, and it was edited since: make one remaining version of {} the storage version by hand",
                        path.display(),
                        opts.gvk.version,
                        opts.gvk.kind
                    ))),
                    None => {}
                }
            }
        }
    }
    warnings.extend(uses_of_removed_modules(
        ws,
        &tree,
        &project.crate_name(),
        opts.force,
    )?);
    ws.stage(project::FILE_NAME, project.to_yaml());
    Ok(warnings)
}

/// Paths in the package's remaining Rust files (src/, tests/, examples/, benches/, build.rs)
/// that name a module whose file this delete removes: refused at file:line:col, or with
/// `force` warned about (the crate then does not build until they go).
fn uses_of_removed_modules(
    ws: &Workspace,
    tree: &ModuleTree,
    crate_name: &str,
    force: bool,
) -> Result<Vec<Diagnostic>> {
    use super::relayout::{FileKind, Moves, rewrite_paths};
    let vanishing: Vec<_> = tree
        .files
        .iter()
        .filter(|(path, _)| !ws.exists(path))
        .map(|(_, module)| module.clone())
        .collect();
    if vanishing.is_empty() {
        return Ok(Vec::new());
    }
    let moves = Moves {
        moves: Vec::new(),
        vanishing,
        crate_name: crate_name.to_owned(),
    };
    let mut sources = Vec::new();
    for dir in ["src", "tests", "examples", "benches"] {
        sources.extend(ws.list_files(Path::new(dir), ".rs")?);
    }
    if ws.exists(Path::new("build.rs")) {
        sources.push("build.rs".into());
    }
    let mut uses = Vec::new();
    for path in &sources {
        let kind = match tree.files.get(path) {
            Some(module) => FileKind::Lib(module.clone()),
            None if path.starts_with("src") && !super::edit::is_other_crate_root(path) => continue,
            None => FileKind::External,
        };
        let text = ws.read(path)?.unwrap_or_default();
        if let Err(found) = rewrite_paths(path, &text, &kind, tree, &moves) {
            uses.extend(found);
        }
    }
    if uses.is_empty() {
        return Ok(Vec::new());
    }
    if force {
        return Ok(uses
            .into_iter()
            .map(|d| Diagnostic {
                severity: crate::diag::Severity::Warning,
                help: Some("the crate does not build until this use goes".to_owned()),
                ..d
            })
            .collect());
    }
    let last = uses.len() - 1;
    uses[last].help = Some(
        "nothing was changed; remove or change these uses first, or pass --force to delete the kind anyway (the crate then does not build until they go)".to_owned(),
    );
    Err(Error::many(uses))
}
