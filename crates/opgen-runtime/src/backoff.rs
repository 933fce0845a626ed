//! Per-object exponential backoff for failed reconciles.

use std::{
    collections::HashMap,
    sync::{Mutex, MutexGuard, PoisonError},
    time::Duration,
};

use kube::{
    Resource,
    core::DynamicObject,
    runtime::reflector::{Lookup, ObjectRef},
};

/// Retry delays keyed by object: the first failure waits `initial`, each further
/// one twice as long, up to `max`. A successful reconcile resets the object.
#[derive(Debug)]
pub struct ErrorBackoff {
    initial: Duration,
    max: Duration,
    delays: Mutex<HashMap<ObjectRef<DynamicObject>, Duration>>,
}

impl Default for ErrorBackoff {
    /// 5 seconds doubling up to 5 minutes.
    fn default() -> Self {
        Self::new(Duration::from_secs(5), Duration::from_secs(5 * 60))
    }
}

impl ErrorBackoff {
    /// Creates a backoff from `initial` doubling up to `max`.
    pub fn new(initial: Duration, max: Duration) -> Self {
        Self {
            initial,
            max,
            delays: Mutex::default(),
        }
    }

    /// Returns how long to wait before retrying `obj`, and doubles the next delay.
    pub fn next_delay<K>(&self, obj: &K) -> Duration
    where
        K: Resource + Lookup,
        <K as Lookup>::DynamicType: Default,
    {
        let mut delays = self.lock();
        let next = delays.entry(key(obj)).or_insert(self.initial);
        let delay = *next;
        *next = (delay * 2).min(self.max);
        delay
    }

    /// Forgets the failures of `obj`, after it reconciled successfully.
    pub fn reset<K>(&self, obj: &K)
    where
        K: Resource + Lookup,
        <K as Lookup>::DynamicType: Default,
    {
        self.lock().remove(&key(obj));
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<ObjectRef<DynamicObject>, Duration>> {
        // The map holds plain durations, so it is consistent even after a panic.
        self.delays.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn key<K>(obj: &K) -> ObjectRef<DynamicObject>
where
    K: Resource + Lookup,
    <K as Lookup>::DynamicType: Default,
{
    ObjectRef::from_obj(obj).erase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::ObjectMeta;

    fn config_map(name: &str) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("default".into()),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn delays_double_up_to_the_maximum_per_object() {
        let backoff = ErrorBackoff::new(Duration::from_secs(5), Duration::from_secs(15));
        let (a, b) = (config_map("a"), config_map("b"));

        assert_eq!(backoff.next_delay(&a), Duration::from_secs(5));
        assert_eq!(backoff.next_delay(&a), Duration::from_secs(10));
        assert_eq!(backoff.next_delay(&a), Duration::from_secs(15));
        assert_eq!(backoff.next_delay(&a), Duration::from_secs(15));
        assert_eq!(backoff.next_delay(&b), Duration::from_secs(5));
    }

    #[test]
    fn reset_starts_over() {
        let backoff = ErrorBackoff::default();
        let a = config_map("a");
        backoff.next_delay(&a);
        backoff.next_delay(&a);

        backoff.reset(&a);

        assert_eq!(backoff.next_delay(&a), Duration::from_secs(5));
    }
}
