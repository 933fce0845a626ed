//! PROJECT's resources scaffolded again: what `opgen upgrade` renders as a project's base and
//! new scaffold, and what the examples' test replays.

use super::{create_api, create_webhook};
use crate::diag::Result;
use crate::project::Project;
use crate::writer::Workspace;

/// Scaffolds every resource `recorded` lists into `ws` as `opgen create api` and `opgen create
/// webhook` did, in PROJECT's order, recording them in `project` (which starts without them):
/// what upgrade renders as a project's base and new scaffold, and what the examples' test
/// replays.
pub fn create_recorded_resources(
    ws: &mut Workspace,
    project: &mut Project,
    recorded: &Project,
) -> Result<()> {
    for r in &recorded.resources {
        let options = create_api::ApiOptions {
            gvk: r.gvk(),
            plural: r.plural.clone(),
            namespaced: Some(r.api.as_ref().is_none_or(|a| a.namespaced)),
            resource: r.api.is_some(),
            controller: r.controller,
            finalizer: r.finalizer,
            force: false,
        };
        create_api::create_api(ws, project, &options)?;
    }
    // Webhooks after every API: a conversion webhook needs its spokes.
    for r in &recorded.resources {
        let Some(hooks) = &r.webhooks else { continue };
        let options = create_webhook::WebhookOptions {
            gvk: r.gvk(),
            defaulting: hooks.defaulting,
            validation: hooks.validation,
            conversion: hooks.conversion,
            spokes: hooks.spoke.clone(),
            force: false,
            ..Default::default()
        };
        create_webhook::create_webhook(ws, project, &options)?;
    }
    Ok(())
}
