//! What opgen's commands do, independent of how they are invoked: each operation stages its
//! writes in a [`crate::writer::Workspace`] and leaves committing to the caller, so that
//! `opgen new` can chain `init`, `create api` and `manifests` into one all-or-nothing write.

pub mod bundle;
pub mod create_api;
pub mod create_helm;
pub mod create_webhook;
pub mod delete;
pub mod dev_webhooks;
pub mod init;
pub mod manifests;

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
    Ok(ResourceContext::new(
        project,
        &resource.group,
        &resource.version,
        &resource.kind,
        &plural,
        namespaced,
        true,
        false,
        file_header(ws)?,
    ))
}
