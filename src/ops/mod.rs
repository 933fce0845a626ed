//! What opgen's commands do, independent of how they are invoked: each operation stages its
//! writes in a [`crate::writer::Workspace`] and leaves committing to the caller, so that
//! `opgen new` can chain `init`, `create api` and `manifests` into one all-or-nothing write.

pub mod bundle;
pub mod create_api;
pub mod create_helm;
pub mod create_webhook;
pub mod delete;
pub mod dev_webhooks;
pub mod diff;
pub mod docs;
pub mod edit;
pub mod import_crd;
pub mod import_go;
pub mod init;
pub mod lint;
pub mod manifests;
pub mod manifests_cache;
mod manifests_split;
pub(crate) mod namespace_stub;
pub mod recover;
pub mod relayout;
pub mod replay;
pub mod upgrade;

use crate::diag::Result;
use crate::generators::scaffold::api::ResourceContext;
use crate::generators::scaffold::init::{BOILERPLATE_PATH, fill_year};
use crate::project::{Project, Resource};
use crate::writer::Workspace;
use std::path::Path;

/// The license header for new Rust files, from the project's boilerplate file if it has one.
fn file_header(ws: &Workspace) -> Result<String> {
    Ok(ws
        .read(Path::new(BOILERPLATE_PATH))?
        .map(|b| fill_year(&b))
        .unwrap_or_default())
}

/// `project` as `create api` saw it when it scaffolded `resource`: only the resources recorded
/// before it. Templates depend on them (a later version of a kind is not the storage one), so
/// comparing a file against today's rendering needs them as they were.
fn as_created(project: &Project, resource: &Resource) -> Project {
    let mut then = project.clone();
    let gvk = resource.gvk();
    let at = project
        .resources
        .iter()
        .position(|r| r.is(&gvk))
        .unwrap_or(project.resources.len());
    then.resources.truncate(at);
    then
}

/// The context `create webhook` renders a recorded kind version's webhook files with, and
/// `delete webhook` compares them against.
fn webhook_resource_context(
    ws: &Workspace,
    project: &Project,
    resource: &Resource,
) -> Result<ResourceContext> {
    let plural = resource
        .plural
        .clone()
        .unwrap_or_else(|| crate::pluralize::flect_plural(&resource.kind));
    let namespaced = resource.api.as_ref().is_some_and(|a| a.namespaced);
    let mut ctx = ResourceContext::new(
        project,
        &resource.group,
        &resource.version,
        &resource.kind,
        &plural,
        namespaced,
        true,
        false,
        file_header(ws)?,
    );
    // A kind of another domain (`import go`) keeps its own group, and its types are where
    // PROJECT says.
    ctx.api_group = full_group(&resource.group, &resource.domain);
    if let Some(module) = resource
        .path
        .strip_prefix(&format!("{}::", project.crate_name()))
    {
        ctx.api_module = format!("crate::{module}");
        ctx.crate_api_module = resource.path.clone();
    }
    Ok(ctx)
}

/// The API group of a PROJECT resource: its group and domain.
pub(crate) fn full_group(group: &str, domain: &str) -> String {
    match (group.is_empty(), domain.is_empty()) {
        (true, _) => domain.to_owned(),
        (_, true) => group.to_owned(),
        _ => format!("{group}.{domain}"),
    }
}
