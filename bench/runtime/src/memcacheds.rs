//! The Memcached objects: created by the harness, watched for the operators' writes.

use std::{collections::HashMap, time::Instant};

use futures::{StreamExt, TryStreamExt, future, stream};
use kube::{
    Api,
    api::{ApiResource, DynamicObject, GroupVersionKind, PostParams},
    runtime::{WatchStreamExt, watcher},
};
use serde_json::{Value, json};
use tokio::{sync::watch, task::JoinHandle};

use crate::Error;

/// Creates in flight at once (a client creating many objects, not one at a time).
const CREATE_CONCURRENCY: usize = 16;

/// `cache.example.com/v1alpha1` `Memcached`, the kind of examples/memcached-operator's CRD.
pub fn resource() -> ApiResource {
    let gvk = GroupVersionKind::gvk("cache.example.com", "v1alpha1", "Memcached");
    ApiResource::from_gvk_with_plural(&gvk, "memcacheds")
}

/// Creates one Memcached with the CRD's defaults (3 replicas).
pub async fn create(api: &Api<DynamicObject>, name: &str) -> Result<(), Error> {
    let object = DynamicObject::new(name, &resource()).data(json!({ "spec": {} }));
    api.create(&PostParams::default(), &object)
        .await
        .map_err(|e| format!("creating Memcached {name}: {e}"))?;
    Ok(())
}

/// Creates every named Memcached and returns when each create was sent.
pub async fn create_all(
    api: &Api<DynamicObject>,
    names: &[String],
) -> Result<HashMap<String, Instant>, Error> {
    stream::iter(names)
        .map(|name| async move {
            let sent = Instant::now();
            create(api, name).await.map(|()| (name.clone(), sent))
        })
        .buffer_unordered(CREATE_CONCURRENCY)
        .try_collect()
        .await
}

/// When each object was first seen written by the operator, and first seen `Available`.
#[derive(Default)]
struct Seen {
    first_write: HashMap<String, Instant>,
    available: HashMap<String, Instant>,
}

/// A watch on the Memcached objects of one namespace, recording [`Seen`].
pub struct Watch {
    seen: watch::Receiver<Seen>,
    task: JoinHandle<()>,
}

impl Watch {
    pub fn start(api: Api<DynamicObject>) -> Self {
        let (sender, seen) = watch::channel(Seen::default());
        let task = tokio::spawn(
            watcher(api, watcher::Config::default())
                .default_backoff()
                .applied_objects()
                .filter_map(|object| future::ready(object.ok()))
                .for_each(move |object| {
                    let now = Instant::now();
                    let name = object.metadata.name.clone().unwrap_or_default();
                    sender.send_if_modified(|seen| {
                        let mut modified = false;
                        if written_by_operator(&object) && !seen.first_write.contains_key(&name) {
                            seen.first_write.insert(name.clone(), now);
                            modified = true;
                        }
                        if is_available(&object) && !seen.available.contains_key(&name) {
                            seen.available.insert(name.clone(), now);
                            modified = true;
                        }
                        modified
                    });
                    future::ready(())
                }),
        );
        Watch { seen, task }
    }

    /// When the operator first wrote to `name`.
    pub async fn first_write(&mut self, name: &str) -> Instant {
        let seen = self
            .seen
            .wait_for(|seen| seen.first_write.contains_key(name));
        seen.await
            .expect("the watch task outlives its receiver")
            .first_write[name]
    }

    /// When each of `names` was first seen `Available`.
    pub async fn available(&mut self, names: &[String]) -> HashMap<String, Instant> {
        let seen = self
            .seen
            .wait_for(|seen| names.iter().all(|name| seen.available.contains_key(name)));
        let seen = seen.await.expect("the watch task outlives its receiver");
        names
            .iter()
            .map(|name| (name.clone(), seen.available[name]))
            .collect()
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Whether the operator has touched the object: a finalizer or a status condition (the first
/// write of both operators is one of these).
fn written_by_operator(object: &DynamicObject) -> bool {
    object
        .metadata
        .finalizers
        .as_ref()
        .is_some_and(|f| !f.is_empty())
        || !conditions(object).is_empty()
}

fn is_available(object: &DynamicObject) -> bool {
    conditions(object)
        .iter()
        .any(|c| c["type"] == "Available" && c["status"] == "True")
}

fn conditions(object: &DynamicObject) -> &[Value] {
    object.data["status"]["conditions"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
}
