//! What opgen's commands do, independent of how they are invoked: each operation stages its
//! writes in a [`crate::writer::Workspace`] and leaves committing to the caller, so that
//! `opgen new` can chain `init`, `create api` and `manifests` into one all-or-nothing write.

pub mod create_api;
pub mod create_webhook;
pub mod delete;
pub mod dev_webhooks;
pub mod init;
pub mod manifests;
