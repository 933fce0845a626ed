//! The deployment controller's part, played by the harness: envtest runs no
//! kube-controller-manager, so nothing would ever make a Deployment available. Every Deployment
//! whose status lags its spec gets the status a rollout of all its replicas ends with.

use futures::{StreamExt, future};
use k8s_openapi::{
    api::apps::v1::Deployment, apimachinery::pkg::apis::meta::v1::Time, jiff::Timestamp,
};
use kube::{
    Api, Client, ResourceExt,
    api::{ListParams, Patch, PatchParams},
    runtime::{WatchStreamExt, watcher},
};
use serde_json::json;
use tokio::task::JoinHandle;

use crate::Error;

/// Status patches in flight at once.
const CONCURRENCY: usize = 16;

/// Stops the deployment controller when dropped.
pub struct DeploymentController(JoinHandle<()>);

impl Drop for DeploymentController {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Watches every Deployment and rolls out each one whose status lags its spec.
pub fn play_controller(client: Client) -> DeploymentController {
    let deployments: Api<Deployment> = Api::all(client.clone());
    let task = watcher(deployments, watcher::Config::default())
        .default_backoff()
        .applied_objects()
        .filter_map(|deployment| future::ready(deployment.ok()))
        .for_each_concurrent(CONCURRENCY, move |deployment| {
            let client = client.clone();
            async move {
                if let Err(e) = roll_out(client, &deployment).await {
                    eprintln!("runtime-bench: deployment controller: {e}");
                }
            }
        });
    DeploymentController(tokio::spawn(task))
}

/// Writes the status of a finished rollout: every replica updated, ready and available.
async fn roll_out(client: Client, deployment: &Deployment) -> Result<(), Error> {
    let replicas = deployment
        .spec
        .as_ref()
        .and_then(|s| s.replicas)
        .unwrap_or(1);
    let generation = deployment.metadata.generation;
    let status = deployment.status.clone().unwrap_or_default();
    if status.observed_generation == generation && status.available_replicas == Some(replicas) {
        return Ok(());
    }
    let now = Time(Timestamp::now());
    let condition = |type_: &str, reason: &str, message: &str| {
        json!({
            "type": type_, "status": "True", "reason": reason, "message": message,
            "lastUpdateTime": now, "lastTransitionTime": now,
        })
    };
    let name = deployment.name_any();
    let status = json!({ "status": {
        "observedGeneration": generation,
        "replicas": replicas,
        "updatedReplicas": replicas,
        "readyReplicas": replicas,
        "availableReplicas": replicas,
        "conditions": [
            condition("Available", "MinimumReplicasAvailable", "Deployment has minimum availability."),
            condition("Progressing", "NewReplicaSetAvailable", &format!("ReplicaSet \"{name}\" has successfully progressed.")),
        ],
    }});
    let namespace = deployment.namespace().unwrap_or_default();
    let api: Api<Deployment> = Api::namespaced(client, &namespace);
    match api
        .patch_status(&name, &PatchParams::default(), &Patch::Merge(&status))
        .await
    {
        Err(kube::Error::Api(e)) if e.code == 404 => Ok(()),
        Err(e) => Err(format!("rolling out Deployment {namespace}/{name}: {e}").into()),
        Ok(_) => Ok(()),
    }
}

/// Checks that each of `names` has one Deployment of its name, controlled by it, with the
/// replicas of the CRD's default size.
pub async fn check_controlled(
    client: Client,
    namespace: &str,
    names: &[String],
) -> Result<(), Error> {
    let api: Api<Deployment> = Api::namespaced(client, namespace);
    let deployments = api.list(&ListParams::default()).await?;
    let mut wrong = Vec::new();
    for name in names {
        let found = deployments.items.iter().find(|d| d.name_any() == *name);
        let controlled = found.is_some_and(|d| {
            d.owner_references().iter().any(|owner| {
                owner.controller == Some(true) && owner.kind == "Memcached" && owner.name == *name
            })
        });
        let replicas = found.and_then(|d| d.spec.as_ref()?.replicas);
        if !controlled || replicas != Some(3) {
            wrong.push(format!(
                "{name} (found: {}, controlled: {controlled}, replicas: {replicas:?})",
                found.is_some()
            ));
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "Deployments not as the operator should keep them: {}",
            wrong.join(", ")
        )
        .into())
    }
}
