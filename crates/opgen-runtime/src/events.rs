//! The `events.k8s.io/v1` Events an operator publishes, with repeats folded into series as
//! client-go's event broadcaster and kube-runtime's `Recorder` fold them: an event like one
//! published in the last six minutes (same type, action, reason, regarding and related object)
//! patches that one's `series` instead of creating another.
//!
//! kube-runtime's `Recorder` keeps every event it published in those six minutes, whole, to
//! patch it again; an operator reconciling a thousand objects kept about 4 MiB of them (each
//! new resourceVersion of an object makes a new event). This one keeps what the next patch
//! needs: the event's name, its count and when it was last seen.

use std::{
    collections::HashMap,
    fmt::Write as _,
    sync::{Mutex, PoisonError},
};

use k8s_openapi::{
    api::{core::v1::ObjectReference, events::v1::Event as K8sEvent},
    apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta},
    jiff::{SignedDuration, Timestamp},
};
use kube::{
    Api, Client,
    api::{Patch, PatchParams, PostParams},
    runtime::events::{Event, EventType, Reporter},
};
use serde_json::json;

/// How long a series stays open after its last event (client-go's and kube-runtime's six
/// minutes): a repeat after that starts a new event.
const SERIES_TTL: SignedDuration = SignedDuration::from_mins(6);

/// How often the series past their TTL are dropped: at most once a minute, on a publish.
const SWEEP_EVERY: SignedDuration = SignedDuration::from_mins(1);

/// Publishes Events for one operator ([`Context::publish_event`](crate::Context::publish_event)
/// uses the context's). Keep one per operator, so that its repeats fold into series.
pub struct Recorder {
    client: Client,
    reporter: Reporter,
    series: Mutex<OpenSeries>,
}

/// The series published in the last [`SERIES_TTL`], by [`series_key`].
#[derive(Default)]
struct OpenSeries {
    by_key: HashMap<Box<str>, Series>,
    swept: Option<Timestamp>,
}

struct Series {
    /// The name of the Event the repeats patch.
    name: Box<str>,
    count: i32,
    last_seen: Timestamp,
}

impl OpenSeries {
    fn sweep(&mut self, now: Timestamp) {
        if self.swept.is_some_and(|swept| now - SWEEP_EVERY < swept) {
            return;
        }
        self.swept = Some(now);
        self.by_key
            .retain(|_, series| series.last_seen + SERIES_TTL > now);
        // A burst of events must not keep its table for the operator's lifetime.
        if self.by_key.capacity() > 4 * self.by_key.len().max(16) {
            self.by_key.shrink_to_fit();
        }
    }
}

impl Recorder {
    /// A recorder whose events name `reporter` as their reporting controller and instance.
    pub fn new(client: Client, reporter: Reporter) -> Self {
        Self {
            client,
            reporter,
            series: Mutex::default(),
        }
    }

    /// Publishes `event` about `regarding` in its namespace (`default` for a cluster-scoped
    /// object): creates an Event, or, when a like event was published in the last six minutes,
    /// counts this one in that event's series (a merge patch of `series` alone, as client-go
    /// sends). A series whose Event is gone (the API server expires Events after an hour by
    /// default) starts again with a new one.
    ///
    /// # Errors
    ///
    /// The API server's, when it refuses the Event (RBAC: `create` and `patch` on
    /// `events.k8s.io` `events`).
    pub async fn publish(
        &self,
        event: &Event,
        regarding: &ObjectReference,
    ) -> Result<(), kube::Error> {
        let now = Timestamp::now();
        let key = series_key(event, regarding);
        let namespace = regarding.namespace.as_deref().unwrap_or("default");
        let api: Api<K8sEvent> = Api::namespaced(self.client.clone(), namespace);

        if let Some((name, count)) = self.count_repeat(&key, now) {
            let patch = json!({
                "series": { "count": count, "lastObservedTime": MicroTime(now) }
            });
            match api
                .patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
                .await
            {
                Err(kube::Error::Api(status)) if status.is_not_found() => {}
                result => return result.map(drop),
            }
        }

        let created = api
            .create(
                &PostParams::default(),
                &self.new_event(event, regarding, now),
            )
            .await?;
        let name = created.metadata.name.unwrap_or_default().into_boxed_str();
        self.lock().by_key.insert(
            key,
            Series {
                name,
                count: 1,
                last_seen: now,
            },
        );
        Ok(())
    }

    /// Counts a repeat of the open series `key`: its Event's name and new count, or `None` when
    /// no series is open.
    fn count_repeat(&self, key: &str, now: Timestamp) -> Option<(Box<str>, i32)> {
        let mut open = self.lock();
        open.sweep(now);
        let series = open
            .by_key
            .get_mut(key)
            .filter(|series| series.last_seen + SERIES_TTL > now)?;
        series.count += 1;
        series.last_seen = now;
        Some((series.name.clone(), series.count))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, OpenSeries> {
        self.series.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn new_event(&self, event: &Event, regarding: &ObjectReference, now: Timestamp) -> K8sEvent {
        let controller = &self.reporter.controller;
        // client-go's name: the object's, then the time in hexadecimal nanoseconds.
        let name = format!(
            "{}.{:x}",
            regarding.name.as_deref().unwrap_or(controller),
            now.as_nanosecond()
        );
        K8sEvent {
            metadata: ObjectMeta {
                name: Some(name),
                namespace: regarding.namespace.clone(),
                ..ObjectMeta::default()
            },
            event_time: Some(MicroTime(now)),
            type_: Some(type_name(event.type_).to_owned()),
            action: Some(event.action.clone()),
            reason: Some(event.reason.clone()),
            note: event.note.clone(),
            regarding: Some(regarding.clone()),
            related: event.secondary.clone(),
            reporting_controller: Some(controller.clone()),
            reporting_instance: Some(
                self.reporter
                    .instance
                    .clone()
                    .unwrap_or_else(|| controller.clone()),
            ),
            ..K8sEvent::default()
        }
    }
}

fn type_name(type_: EventType) -> &'static str {
    match type_ {
        EventType::Normal => "Normal",
        EventType::Warning => "Warning",
    }
}

/// What makes two events alike, in one string: the type, action and reason, and every field
/// of the regarding and related references (a new resourceVersion of the object is another
/// series, as in client-go). The reporter is the recorder's own.
fn series_key(event: &Event, regarding: &ObjectReference) -> Box<str> {
    let mut key = String::with_capacity(160);
    for part in [type_name(event.type_), &event.action, &event.reason] {
        key.push_str(part);
        key.push('\0');
    }
    for reference in [Some(regarding), event.secondary.as_ref()] {
        let Some(reference) = reference else {
            key.push('\u{1}');
            continue;
        };
        for field in [
            &reference.api_version,
            &reference.kind,
            &reference.namespace,
            &reference.name,
            &reference.uid,
            &reference.resource_version,
            &reference.field_path,
        ] {
            // None and Some("") stay apart.
            let _ = match field {
                Some(value) => write!(key, "={value}\0"),
                None => write!(key, "\0"),
            };
        }
    }
    key.into_boxed_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Method, StatusCode, mock_client};

    fn reporter() -> Reporter {
        Reporter {
            controller: "demo-operator".into(),
            instance: Some("demo-operator-7d4b9-x2x8z".into()),
        }
    }

    fn regarding(resource_version: &str) -> ObjectReference {
        ObjectReference {
            api_version: Some("demo.opgen.dev/v1".into()),
            kind: Some("Demo".into()),
            namespace: Some("team-a".into()),
            name: Some("demo".into()),
            uid: Some("6a0c7f0e-2f7e-4c55-9d43-6d1a8f0e2b11".into()),
            resource_version: Some(resource_version.into()),
            field_path: None,
        }
    }

    fn reconciled() -> Event {
        Event {
            type_: EventType::Normal,
            reason: "Reconciled".into(),
            note: Some("ok".into()),
            action: "Reconcile".into(),
            secondary: None,
        }
    }

    const EVENTS: &str = "/apis/events.k8s.io/v1/namespaces/team-a/events";

    #[tokio::test]
    async fn a_repeat_patches_the_series_of_the_first_event() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            let create = server.expect(Method::POST, EVENTS).await;
            let created = create.body.clone();
            assert_eq!(
                created["metadata"]["name"].as_str().map(|n| &n[..5]),
                Some("demo.")
            );
            assert_eq!(created["reportingController"], "demo-operator");
            assert_eq!(created["reportingInstance"], "demo-operator-7d4b9-x2x8z");
            assert_eq!(created["regarding"]["resourceVersion"], "7");
            assert_eq!(created["type"], "Normal");
            assert_eq!(created["note"], "ok");
            assert!(created.get("series").is_none(), "{created}");
            let name = created["metadata"]["name"].as_str().unwrap().to_owned();
            create.respond(StatusCode::CREATED, &created);

            for count in [2, 3] {
                let patch = server
                    .expect(Method::PATCH, &format!("{EVENTS}/{name}"))
                    .await;
                assert_eq!(
                    patch.content_type.as_deref(),
                    Some("application/merge-patch+json")
                );
                let body = patch.body.clone();
                assert_eq!(body["series"]["count"], count, "{body}");
                assert!(body["series"]["lastObservedTime"].is_string(), "{body}");
                assert_eq!(body.as_object().map(|o| o.len()), Some(1), "{body}");
                patch.respond(StatusCode::OK, &created);
            }
            // Another resourceVersion of the object is another series.
            let other = server.expect(Method::POST, EVENTS).await;
            assert_eq!(other.body["regarding"]["resourceVersion"], "8");
            let body = other.body.clone();
            other.respond(StatusCode::CREATED, &body);
            server.expect_no_more_requests().await;
        });

        let recorder = Recorder::new(client, reporter());
        for _ in 0..3 {
            recorder
                .publish(&reconciled(), &regarding("7"))
                .await
                .unwrap();
        }
        recorder
            .publish(&reconciled(), &regarding("8"))
            .await
            .unwrap();
        drop(recorder);
        scenario.verify().await;
    }

    #[tokio::test]
    async fn a_series_whose_event_is_gone_starts_again() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            let create = server.expect(Method::POST, EVENTS).await;
            let first = create.body.clone();
            create.respond(StatusCode::CREATED, &first);
            let name = first["metadata"]["name"].as_str().unwrap().to_owned();
            server
                .expect(Method::PATCH, &format!("{EVENTS}/{name}"))
                .await
                .respond(
                    StatusCode::NOT_FOUND,
                    &kube::core::Status::failure("gone", "NotFound").with_code(404),
                );
            let again = server.expect(Method::POST, EVENTS).await;
            let second = again.body.clone();
            assert!(second.get("series").is_none(), "{second}");
            let second = json!({ "metadata": { "name": "demo.second" }, "note": second["note"] });
            again.respond(StatusCode::CREATED, &second);
            // The next repeat counts in the new event's series, from 2.
            let patch = server
                .expect(Method::PATCH, &format!("{EVENTS}/demo.second"))
                .await;
            assert_eq!(patch.body["series"]["count"], 2);
            patch.respond(StatusCode::OK, &second);
            server.expect_no_more_requests().await;
        });

        let recorder = Recorder::new(client, reporter());
        for _ in 0..3 {
            recorder
                .publish(&reconciled(), &regarding("7"))
                .await
                .unwrap();
        }
        drop(recorder);
        scenario.verify().await;
    }

    #[tokio::test]
    async fn a_refused_event_is_an_error_and_opens_no_series() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            for _ in 0..2 {
                server.expect(Method::POST, EVENTS).await.respond(
                    StatusCode::FORBIDDEN,
                    &kube::core::Status::failure("no", "Forbidden").with_code(403),
                );
            }
            server.expect_no_more_requests().await;
        });

        let recorder = Recorder::new(client, reporter());
        for _ in 0..2 {
            let error = recorder.publish(&reconciled(), &regarding("7")).await;
            assert!(
                matches!(&error, Err(kube::Error::Api(status)) if status.code == 403),
                "{error:?}"
            );
        }
        drop(recorder);
        scenario.verify().await;
    }

    #[test]
    fn series_keys_tell_every_field_and_absence_apart() {
        let event = reconciled();
        let base = series_key(&event, &regarding("7"));
        let mut no_namespace = regarding("7");
        no_namespace.namespace = None;
        let mut empty_namespace = regarding("7");
        empty_namespace.namespace = Some(String::new());
        let mut warning = reconciled();
        warning.type_ = EventType::Warning;
        let mut related = reconciled();
        related.secondary = Some(ObjectReference::default());
        let mut other_note = reconciled();
        other_note.note = Some("other".into());

        let keys = [
            series_key(&event, &regarding("8")),
            series_key(&event, &no_namespace),
            series_key(&event, &empty_namespace),
            series_key(&warning, &regarding("7")),
            series_key(&related, &regarding("7")),
        ];
        for key in &keys {
            assert_ne!(*key, base);
        }
        assert_ne!(keys[1], keys[2]);
        // The note is what happened this time, not which series it belongs to.
        assert_eq!(series_key(&other_note, &regarding("7")), base);
    }

    #[test]
    fn series_past_their_ttl_are_swept() {
        let start = Timestamp::UNIX_EPOCH + SignedDuration::from_hours(1000);
        let mut open = OpenSeries::default();
        for (i, age) in [10, 5, 1].into_iter().enumerate() {
            open.by_key.insert(
                format!("k{i}").into(),
                Series {
                    name: "e".into(),
                    count: 1,
                    last_seen: start - SignedDuration::from_mins(age),
                },
            );
        }
        open.sweep(start);
        let mut left: Vec<_> = open.by_key.keys().map(|k| k.to_string()).collect();
        left.sort();
        assert_eq!(left, ["k1", "k2"]);
        // Not again within the minute: k1 (5 min old then) outlives its TTL until the next sweep.
        open.sweep(start + SignedDuration::from_secs(90) - SWEEP_EVERY);
        assert_eq!(open.by_key.len(), 2);
        open.sweep(start + SignedDuration::from_mins(2));
        assert_eq!(open.by_key.len(), 1);
    }
}
