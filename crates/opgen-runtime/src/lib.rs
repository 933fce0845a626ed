//! The framework half of a [kube-rs] operator made with [opgen]: everything that does not vary
//! from one operator to the next, so that an operator's own crate holds only its types, its
//! reconcile functions, its webhook rules and a `main.rs` of a few lines.
//!
//! - [`Manager`]: runs the registered controllers (under leader election on a Lease with
//!   `--leader-elect`), serves the health probes, the metrics (HTTPS, TokenReview +
//!   SubjectAccessReview) and the admission and conversion webhooks (HTTPS, certificates
//!   reloaded when they change), and shuts down gracefully on SIGTERM, like controller-runtime's
//!   manager;
//! - [`ManagerArgs`]: its command-line flags, named like controller-runtime's so that
//!   kubebuilder-style manifests pass the same arguments; a clap struct to `#[command(flatten)]`
//!   into the operator's own;
//! - [`controller`]: the [`Context`] every reconcile gets (client, event recorder, metrics,
//!   per-object error backoff), [`controller::run`] around [`kube::runtime::Controller`], the
//!   error policy, a status written only when it changes ([`Context::update_status`]) and
//!   events ([`events::Recorder`]: repeats folded into series, as client-go does);
//! - [`watches`]: what a controller watches besides its kind ([`watches::Watches`]: the kinds
//!   it owns, objects its spec names, a label-selected primary reconciled only on the
//!   changes [`watches::Changed`] names, e.g. its generation);
//! - [`cache`]: what the watches keep, read by a reconcile without a request
//!   ([`Context::cache`]: by name, namespace, controller or a [`cache::Index`] the watches
//!   keep);
//! - [`owned`]: the objects a custom resource owns, applied (or created once) with it as their
//!   controller and never adopted from another or from nobody, and deleted once no longer
//!   wanted;
//! - [`Conditions`], [`set_condition`], [`find_condition`], [`is_condition_true`],
//!   [`degraded`]: `status.conditions` as apimachinery's `meta` helpers keep them (a
//!   transition time moves only with the status);
//! - [`quantity`]: Kubernetes quantities (`500m`, `1Gi`) parsed to exact, ordered numbers;
//! - [`webhook`]: the typed [`Defaulter`], [`Validator`] and [`Converter`] traits a kind
//!   implements, the AdmissionReview/ConversionReview plumbing around them, and
//!   [`webhook::move_fields`] for conversions that must not lose a field;
//! - `testing` (feature `testing`): a fake API server that keeps objects (reconcile unit tests
//!   that check outcomes) and a mocked one that checks an exact request sequence.
//!
//! # A whole `main.rs`
//!
//! ```no_run
//! use clap::Parser;
//! use opgen_runtime::{Manager, ManagerArgs};
//!
//! /// Runs the example controllers.
//! #[derive(Parser)]
//! struct Args {
//!     #[command(flatten)]
//!     manager: ManagerArgs,
//! }
//!
//! #[tokio::main]
//! async fn main() -> std::process::ExitCode {
//!     let args = Args::parse();
//!     Manager::new("example-operator")
//!         .lease_name("3c4f1a2b.example.com")
//!         .controllers(&[/* each kind's ControllerEntry */])
//!         .webhooks(&[/* each kind's WebhookEntry */])
//!         .main(args.manager)
//!         .await
//! }
//! ```
//!
//! # A reconcile that owns a Deployment
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use k8s_openapi::api::apps::v1::Deployment;
//! # use kube::{CustomResource, Resource, ResourceExt, runtime::{controller::Action, events::EventType}};
//! # use opgen_runtime::{Conditions, Context, Result, owned::apply_owned};
//! # #[derive(CustomResource, serde::Serialize, serde::Deserialize, Clone, Debug)]
//! # #[kube(group = "example.com", version = "v1", kind = "App", namespaced, status = "AppStatus", schema = "disabled")]
//! # struct AppSpec {}
//! # #[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq)]
//! # struct AppStatus { conditions: Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition> }
//! # fn desired_deployment(app: &App) -> Deployment { Deployment::default() }
//! async fn reconcile(app: Arc<App>, ctx: Arc<Context>) -> Result<Action> {
//!     // Applied with `app` as its controller; a same-named Deployment `app` does not control
//!     // is refused (Error::OwnedByAnother), never adopted.
//!     let applied = apply_owned(&ctx, &*app, desired_deployment(&app)).await?;
//!     let mut status = app.status.clone().unwrap_or_default();
//!     Conditions::of(&mut status.conditions, &*app).set("Available", "True", "Applied", "ok");
//!     // Written only when it changed: a no-op reconcile writes nothing.
//!     ctx.update_status(&*app, &status).await?;
//!     if applied.created() {
//!         let note = format!("created Deployment {}", applied.object.name_any());
//!         ctx.publish_event(&*app, EventType::Normal, "Created", "Create", note).await;
//!     }
//!     Ok(Action::await_change())
//! }
//! ```
//!
//! and its controller watches the Deployments it owns (which `apply_owned` then reads from the
//! cache) and reconciles an App when its spec changes, not when its status does:
//! `Watches::new().reconcile_when(Changed::GENERATION).owns::<Deployment>(watcher::Config::default())
//! .run(ctx, "app", reconcile, error_policy)` (or `owns_metadata`, which watches and caches the
//! Deployments' metadata alone, when nothing reads their spec or status from the cache).
//!
//! # Versions
//!
//! The crate follows semver. Its MSRV is Rust 1.89 (edition 2024); raising it is a minor
//! release. kube, kube-runtime and k8s-openapi are public dependencies: a kube major upgrade is
//! a major release of this crate. It enables no k8s-openapi version feature: the operator picks
//! the oldest Kubernetes version it supports.
//!
//! [kube-rs]: https://kube.rs
//! [opgen]: https://github.com/opgen-dev/opgen

#![warn(missing_docs)]

mod backoff;
pub mod cache;
pub mod cli;
mod conditions;
pub mod controller;
mod error;
pub mod events;
pub mod leader_election;
pub mod logging;
pub mod manager;
pub mod metrics;
pub mod owned;
pub mod quantity;
pub mod server;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod watches;
pub mod webhook;

pub use backoff::ErrorBackoff;
pub use cache::Cache;
pub use cli::ManagerArgs;
pub use conditions::{
    Conditions, condition, condition_at, degraded, find_condition, is_condition_true,
    remove_condition, set_condition,
};
pub use controller::{Context, ControllerEntry, StatusUpdate, StatusWrite};
pub use error::{Error, MetricLabel, Result};
pub use manager::Manager;
pub use webhook::{Converter, Defaulter, Validator, WebhookEntry};

/// The token [`Manager::run_until`] stops on and [`Context::shutdown`] holds (tokio-util's).
pub use tokio_util::sync::CancellationToken;

/// This replica's name: `$POD_NAME` (set from the downward API), else `$HOSTNAME`,
/// which Kubernetes sets to the pod name.
pub fn instance_name() -> Option<String> {
    ["POD_NAME", "HOSTNAME"]
        .into_iter()
        .find_map(|variable| std::env::var(variable).ok().filter(|name| !name.is_empty()))
}
