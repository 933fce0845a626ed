// Copyright 2026 The cnat-operator Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

//! Controllers, one module per kind, and the registry the manager starts them from.
//!
//! Adding a kind adds its module above `+opgen:scaffold:controller-modules` and its
//! entry above `+opgen:scaffold:controllers`; nothing else here changes.

use std::{fmt::Debug, sync::Arc};

use futures::future::BoxFuture;
use k8s_openapi::NamespaceResourceScope;
use kube::{
    Api, Client, Resource,
    api::ListParams,
    runtime::{
        controller::{self, Action},
        events::{Recorder, Reporter},
        reflector::{Lookup, ObjectRef},
        watcher,
    },
};
use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;
use tracing::{debug, warn};

use crate::{Error, PROJECT_NAME, Result, instance_name, metrics::Metrics};

mod backoff;
mod conditions;

pub use backoff::ErrorBackoff;
pub use conditions::set_condition;

pub mod at;
// +opgen:scaffold:controller-modules

/// A controller the manager can start.
#[derive(Clone, Copy, Debug)]
pub struct ControllerEntry {
    /// Name used in logs and as the `controller` metric label.
    pub name: &'static str,
    /// Runs the controller until [`Context::shutdown`] is cancelled.
    pub run: fn(Arc<Context>) -> BoxFuture<'static, Result<()>>,
}

/// Every controller of this operator. The manager runs them all concurrently.
pub const CONTROLLERS: &[ControllerEntry] = &[
    at::CONTROLLER,
    // +opgen:scaffold:controllers
];

/// State shared by all controllers and their reconciles.
pub struct Context {
    /// Kubernetes API client.
    pub client: Client,
    /// Publishes `events.k8s.io/v1` Events. Shared so repeated events fold into series.
    pub recorder: Recorder,
    /// Reconcile counters and durations.
    pub metrics: Arc<Metrics>,
    /// Retry delays of objects whose last reconcile failed.
    pub backoff: ErrorBackoff,
    /// Namespaces to watch. Empty means all namespaces.
    pub namespaces: Vec<String>,
    /// Cancelled on SIGTERM or Ctrl-C: controllers finish running reconciles and return.
    pub shutdown: CancellationToken,
}

impl Context {
    /// Creates the context, with events reported as [`PROJECT_NAME`] from this pod.
    pub fn new(
        client: Client,
        metrics: Arc<Metrics>,
        namespaces: Vec<String>,
        shutdown: CancellationToken,
    ) -> Self {
        let reporter = Reporter {
            controller: PROJECT_NAME.into(),
            instance: instance_name(),
        };
        Self {
            recorder: Recorder::new(client.clone(), reporter),
            client,
            metrics,
            backoff: ErrorBackoff::default(),
            namespaces,
            shutdown,
        }
    }

    /// The APIs a controller of a namespaced kind watches: one per watched
    /// namespace, or a single cluster-wide one.
    pub fn watched_apis<K>(&self) -> Vec<Api<K>>
    where
        K: Resource<Scope = NamespaceResourceScope>,
        K::DynamicType: Default,
    {
        if self.namespaces.is_empty() {
            return vec![Api::all(self.client.clone())];
        }
        self.namespaces
            .iter()
            .map(|namespace| Api::namespaced(self.client.clone(), namespace))
            .collect()
    }
}

/// Fails with a hint when the kind's CRD is missing, instead of letting the
/// watcher retry forever. A list with limit 1 is the cheapest call that checks it.
pub async fn ensure_crd_installed<K>(api: &Api<K>) -> Result<()>
where
    K: Resource + Clone + DeserializeOwned + Debug,
    K::DynamicType: Default,
{
    match api.list(&ListParams::default().limit(1)).await {
        Ok(_) => Ok(()),
        Err(error) if is_not_found(&error) => {
            let dyntype = K::DynamicType::default();
            Err(Error::CrdNotInstalled(format!(
                "{}.{}",
                K::plural(&dyntype),
                K::group(&dyntype)
            )))
        }
        Err(error) => Err(error.into()),
    }
}

/// True for a 404 from the API server.
///
/// Checks the code rather than `Status::is_not_found`, which in kube 5 only
/// matches when the response also carries `reason: NotFound`.
pub fn is_not_found(error: &kube::Error) -> bool {
    matches!(error, kube::Error::Api(status) if status.code == 404)
}

/// Logs what a controller stream yields. Reconcile failures are logged by the
/// error policies, so they are skipped here.
pub fn log_reconcile_result<K, E>(
    controller: &str,
    result: std::result::Result<(ObjectRef<K>, Action), controller::Error<E, watcher::Error>>,
) where
    K: Lookup,
    E: std::error::Error,
{
    match result {
        Ok((object, action)) => debug!(controller, %object, ?action, "reconciled"),
        Err(controller::Error::ReconcilerFailed(..)) => {}
        // A requeued object was deleted meanwhile: expected, nothing to do.
        Err(error @ controller::Error::ObjectNotFound(_)) => debug!(controller, %error),
        Err(error) => warn!(controller, %error, "controller error"),
    }
}
