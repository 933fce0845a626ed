//! Test support (feature `testing`): a mocked API server (tower-test) and a
//! [`Context`] on top of it, for reconcile unit tests, and an HTTPS client for
//! round trips through the metrics and webhook servers.
//!
//! Two kinds of API server for unit tests:
//! - [`fake_client`]: a [`FakeApiServer`] that keeps objects and answers every request as a
//!   simple API server would, recording each. A test then checks outcomes (the object's
//!   finalizers and status, the events posted) rather than the order of the calls, so adding a
//!   call to a reconcile does not break it.
//! - [`mock_client`]: an [`ApiServerVerifier`] running a scenario in the background: the
//!   scenario awaits each expected request in order, asserts it, and answers with a canned
//!   response. [`Scenario::verify`] fails the test when the scenario panicked or did not
//!   complete within a second (an expected call never came).

use std::{
    collections::BTreeMap,
    future::Future,
    net::SocketAddr,
    sync::{Arc, Mutex, PoisonError},
    time::Duration,
};

use http::{Request, Response, header};
use kube::{Client, client::Body};
use serde::Serialize;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
    task::JoinHandle,
};
use tokio_rustls::{
    TlsConnector,
    rustls::{
        ClientConfig, RootCertStore,
        crypto::ring,
        pki_types::{CertificateDer, ServerName},
    },
};
use tokio_util::sync::CancellationToken;
use tower_test::mock::{self, Handle, SendResponse};

use crate::{
    controller::{Context, ControllerEntry},
    metrics::Metrics,
};

pub use http::{Method, StatusCode};

/// Sends the `tracing` output of the code under test to the test's captured output; call it
/// first in a test (a second call is a no-op).
pub fn init_tracing() {
    let _ = tracing_subscriber::fmt()
        .with_test_writer()
        .with_ansi(false)
        .try_init();
}

/// A controller running in the background as the manager runs it, for integration tests
/// (e.g. on an opgen-envtest API server): its own [`Context`] and shutdown token.
pub struct RunningController {
    ctx: Arc<Context>,
    task: JoinHandle<crate::Result<()>>,
}

impl RunningController {
    /// Starts `controller` of the operator `manager_name` with `client`, watching
    /// `namespaces` (empty: all).
    pub fn start(
        controller: ControllerEntry,
        client: Client,
        manager_name: &str,
        namespaces: Vec<String>,
    ) -> Self {
        let ctx = Arc::new(Context::new(
            client,
            manager_name,
            Arc::new(Metrics::new(&manager_name.replace('-', "_"))),
            namespaces,
            CancellationToken::new(),
        ));
        let run = (controller.run)(ctx.clone());
        let task = tokio::spawn(async move {
            let result = run.await;
            // A test waiting for the controller's work would otherwise only time out: say why
            // it stopped (say, a Forbidden first list) where the test's output shows it.
            if let Err(error) = &result {
                tracing::error!(controller = controller.name, %error, "the controller stopped");
            }
            result
        });
        Self { ctx, task }
    }

    /// The controller's context (its metrics, for one).
    pub fn context(&self) -> &Arc<Context> {
        &self.ctx
    }

    /// Shuts the controller down and returns how it ended; panics if it does not stop
    /// within 30 seconds or panicked.
    pub async fn stop(self) -> crate::Result<()> {
        self.ctx.shutdown.cancel();
        tokio::time::timeout(Duration::from_secs(30), self.task)
            .await
            .expect("the controller stops within 30 seconds of shutdown")
            .expect("the controller task does not panic")
    }
}

/// A client whose requests the returned [`FakeApiServer`] answers. Call it inside a Tokio
/// runtime (`#[tokio::test]`): the server runs as a task of it.
pub fn fake_client() -> (Client, FakeApiServer) {
    let (service, mut handle) = mock::pair::<Request<Body>, Response<Body>>();
    let server = FakeApiServer::default();
    let state = server.clone();
    tokio::spawn(async move {
        while let Some((request, respond)) = handle.next_request().await {
            let request = RecordedRequest::read(request).await;
            let (status, body) = state.answer(&request);
            state.lock().requests.push(request);
            respond.send_response(json_response(status, &body));
        }
    });
    (Client::new(service, "default"), server)
}

/// An API server for unit tests that keeps the objects it is given or sent, by path, and
/// records every request. It understands what a controller sends: GET, DELETE, JSON and
/// merge patches, server-side apply (creating a missing object; an apply to `/status` sets
/// the status) and POST to a collection. It checks no schema, and no resourceVersion.
#[derive(Clone, Default)]
pub struct FakeApiServer(Arc<Mutex<FakeState>>);

#[derive(Default)]
struct FakeState {
    objects: BTreeMap<String, serde_json::Value>,
    requests: Vec<RecordedRequest>,
}

/// A request the [`FakeApiServer`] answered.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    /// The HTTP method.
    pub method: Method,
    /// The path, without the query.
    pub path: String,
    /// The raw query string.
    pub query: String,
    /// The `Content-Type` header.
    pub content_type: Option<String>,
    /// The JSON body, or `Null` when empty.
    pub body: serde_json::Value,
}

impl RecordedRequest {
    async fn read(request: Request<Body>) -> Self {
        let method = request.method().clone();
        let path = request.uri().path().to_owned();
        let query = request.uri().query().unwrap_or_default().to_owned();
        let content_type = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .map(String::from);
        let bytes = request
            .into_body()
            .collect_bytes()
            .await
            .expect("request body is readable");
        let body = if bytes.is_empty() {
            serde_json::Value::Null
        } else {
            serde_json::from_slice(&bytes).expect("request body is JSON")
        };
        Self {
            method,
            path,
            query,
            content_type,
            body,
        }
    }
}

impl FakeApiServer {
    fn lock(&self) -> std::sync::MutexGuard<'_, FakeState> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stores `object` at `path` (e.g. `/apis/cache.example.com/v1/namespaces/default/memcacheds/test`),
    /// as if it had been created.
    pub fn insert(&self, path: &str, object: &impl Serialize) {
        let value = serde_json::to_value(object).expect("the object serializes");
        self.lock().objects.insert(path.to_owned(), value);
    }

    /// The object stored at `path`, if any.
    pub fn object(&self, path: &str) -> Option<serde_json::Value> {
        self.lock().objects.get(path).cloned()
    }

    /// Every request answered so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.lock().requests.clone()
    }

    /// The bodies of the objects POSTed to the collection at `path` (e.g. the events of a
    /// namespace), in order.
    pub fn created_in(&self, path: &str) -> Vec<serde_json::Value> {
        self.lock()
            .requests
            .iter()
            .filter(|r| r.method == Method::POST && r.path == path)
            .map(|r| r.body.clone())
            .collect()
    }

    fn answer(&self, request: &RecordedRequest) -> (StatusCode, serde_json::Value) {
        let (path, status_only) = match request.path.strip_suffix("/status") {
            Some(object) => (object, true),
            None => (request.path.as_str(), false),
        };
        let mut state = self.lock();
        let objects = &mut state.objects;
        match request.method {
            Method::GET if is_collection(path) => {
                let items: Vec<_> = objects
                    .iter()
                    .filter(|(key, object)| {
                        in_collection(key, path) && selected(object, &request.query)
                    })
                    .map(|(_, object)| object.clone())
                    .collect();
                let list = serde_json::json!({
                    "apiVersion": "v1", "kind": "List", "metadata": {}, "items": items,
                });
                (StatusCode::OK, list)
            }
            Method::GET => match objects.get(path) {
                Some(object) => (StatusCode::OK, object.clone()),
                None => not_found(path),
            },
            Method::DELETE => {
                let Some(object) = objects.get(path) else {
                    return not_found(path);
                };
                let expected = &request.body["preconditions"]["uid"];
                if !expected.is_null() && *expected != object["metadata"]["uid"] {
                    let status = kube::core::Status::failure(
                        "Precondition failed: UID in precondition does not match the object",
                        "Conflict",
                    )
                    .with_code(409);
                    return (
                        StatusCode::CONFLICT,
                        serde_json::to_value(status).expect("a Status serializes"),
                    );
                }
                let object = objects.remove(path).expect("checked above");
                (StatusCode::OK, object)
            }
            Method::POST => {
                let mut object = request.body.clone();
                let name = object["metadata"]["name"]
                    .as_str()
                    .map(str::to_owned)
                    .unwrap_or_else(|| {
                        let prefix = object["metadata"]["generateName"].as_str().unwrap_or("");
                        format!("{prefix}{}", objects.len())
                    });
                object["metadata"]["name"] = name.clone().into();
                objects.insert(format!("{path}/{name}"), object.clone());
                (StatusCode::CREATED, object)
            }
            Method::PATCH => {
                let content_type = request.content_type.as_deref().unwrap_or_default();
                let existing = objects.get(path).cloned();
                let patched = match (content_type, existing) {
                    ("application/apply-patch+yaml", None) if status_only => {
                        return not_found(path);
                    }
                    ("application/apply-patch+yaml", existing) => {
                        let mut object = existing.unwrap_or_else(|| request.body.clone());
                        if status_only {
                            object["status"] = request.body["status"].clone();
                        } else {
                            json_patch::merge(&mut object, &request.body);
                        }
                        object
                    }
                    (_, None) => return not_found(path),
                    ("application/json-patch+json", Some(mut object)) => {
                        // As the API server does, a `test` of a missing path against null
                        // passes (kube-runtime's finalizer sends one).
                        let operations: Vec<serde_json::Value> = request
                            .body
                            .as_array()
                            .expect("a JSON patch is a list")
                            .iter()
                            .filter(|op| {
                                !(op["op"] == "test"
                                    && op["value"].is_null()
                                    && op["path"]
                                        .as_str()
                                        .is_some_and(|p| object.pointer(p).is_none()))
                            })
                            .cloned()
                            .collect();
                        let patch: json_patch::Patch =
                            serde_json::from_value(operations.into()).expect("a JSON patch");
                        if let Err(error) = json_patch::patch(&mut object, &patch) {
                            let status = kube::core::Status::failure(
                                &format!("the JSON patch does not apply: {error}"),
                                "Invalid",
                            )
                            .with_code(422);
                            return (
                                StatusCode::UNPROCESSABLE_ENTITY,
                                serde_json::to_value(status).expect("a Status serializes"),
                            );
                        }
                        object
                    }
                    (_, Some(mut object)) => {
                        json_patch::merge(&mut object, &request.body);
                        object
                    }
                };
                objects.insert(path.to_owned(), patched.clone());
                (StatusCode::OK, patched)
            }
            _ => panic!(
                "the fake API server does not answer {} {}",
                request.method, request.path
            ),
        }
    }
}

/// Whether `path` names a collection: `/api/v1/<plural>`,
/// `/api/v1/namespaces/<namespace>/<plural>` or the same under `/apis/<group>/<version>`.
fn is_collection(path: &str) -> bool {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let prefix = if segments.first() == Some(&"api") {
        2
    } else {
        3
    };
    match segments.len().checked_sub(prefix) {
        Some(1) => true,
        Some(3) => segments[prefix] == "namespaces",
        _ => false,
    }
}

/// Whether the object stored at `key` is an item of the collection at `path`; a collection
/// without a namespace holds the objects of every namespace.
fn in_collection(key: &str, path: &str) -> bool {
    let Some((parent, _name)) = key.rsplit_once('/') else {
        return false;
    };
    if parent == path {
        return true;
    }
    // `/api/v1/configmaps` holds `/api/v1/namespaces/<namespace>/configmaps/<name>`.
    let (root, plural) = path.rsplit_once('/').unwrap_or_default();
    parent
        .strip_prefix(root)
        .and_then(|rest| rest.strip_prefix("/namespaces/"))
        .and_then(|rest| rest.split_once('/'))
        .is_some_and(|(_, rest)| rest == plural)
}

/// Whether `object` matches the query's `labelSelector` (`key=value`, `key!=value` and `key`
/// terms) and `fieldSelector` (`metadata.name=` and `metadata.namespace=` only).
fn selected(object: &serde_json::Value, query: &str) -> bool {
    let metadata = &object["metadata"];
    let params = query.split('&').filter_map(|pair| pair.split_once('='));
    params
        .map(|(key, value)| (key, percent_decode(value)))
        .all(|(key, value)| match key {
            "labelSelector" => value.split(',').all(|term| {
                let labels = &metadata["labels"];
                if let Some((label, wanted)) = term.split_once("!=") {
                    labels[label] != wanted
                } else if let Some((label, wanted)) = term.split_once('=') {
                    labels[label] == wanted.trim_start_matches('=')
                } else {
                    !labels[term].is_null()
                }
            }),
            "fieldSelector" => value.split(',').all(|term| match term.split_once('=') {
                Some(("metadata.name", wanted)) => metadata["name"] == wanted,
                Some(("metadata.namespace", wanted)) => metadata["namespace"] == wanted,
                _ => panic!("the fake API server does not select on the field {term}"),
            }),
            _ => true,
        })
}

/// A query value as form encoding writes it (`%2F`, `+` for a space) decoded.
fn percent_decode(text: &str) -> String {
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        let escaped = (byte == b'%')
            .then(|| std::str::from_utf8(tail.get(..2)?).ok())
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        rest = match escaped {
            Some(decoded) => {
                bytes.push(decoded);
                &tail[2..]
            }
            None => {
                bytes.push(if byte == b'+' { b' ' } else { byte });
                tail
            }
        };
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn not_found(path: &str) -> (StatusCode, serde_json::Value) {
    let name = path.rsplit('/').next().unwrap_or_default();
    let status =
        kube::core::Status::failure(&format!("\"{name}\" not found"), "NotFound").with_code(404);
    (
        StatusCode::NOT_FOUND,
        serde_json::to_value(status).expect("a Status serializes"),
    )
}

fn json_response(status: StatusCode, body: &impl Serialize) -> Response<Body> {
    let body = serde_json::to_vec(body).expect("response body serializes");
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body))
        .expect("valid response")
}

/// A client whose requests are answered by the returned verifier.
pub fn mock_client() -> (Client, ApiServerVerifier) {
    let (service, handle) = mock::pair::<Request<Body>, Response<Body>>();
    (Client::new(service, "default"), ApiServerVerifier(handle))
}

/// A [`Context`] of the operator `manager_name` over `client`, watching all namespaces.
pub fn test_context(client: Client, manager_name: &str) -> Arc<Context> {
    Arc::new(Context::new(
        client,
        manager_name,
        Arc::new(Metrics::new(&manager_name.replace('-', "_"))),
        Vec::new(),
        CancellationToken::new(),
    ))
}

/// Fills `ctx`'s cache of kind `K` ([`Context::cache`]) with `objects`, as a controller's
/// watch would: for the unit test of a reconcile that reads its children from the cache. It
/// keeps no [`Index`](crate::cache::Index): [`Cache::indexed`](crate::Cache::indexed) scans
/// it, to the same result.
pub fn fill_cache<K>(ctx: &Context, objects: impl IntoIterator<Item = K>)
where
    K: kube::Resource<DynamicType = ()> + Clone + Send + Sync + 'static,
{
    let (store, mut writer) = kube::runtime::reflector::store();
    for object in objects {
        writer.apply_watcher_event(&kube::runtime::watcher::Event::Apply(object));
    }
    let no_index = Arc::new(crate::cache::Indexer::new(Vec::new()));
    ctx.caches.add(None, store, no_index);
}

/// The API server side of a test.
pub struct ApiServerVerifier(Handle<Request<Body>, Response<Body>>);

impl ApiServerVerifier {
    /// Runs `scenario` in the background.
    pub fn run<F, Fut>(self, scenario: F) -> Scenario
    where
        F: FnOnce(Self) -> Fut,
        Fut: Future<Output = ()> + Send + 'static,
    {
        Scenario(tokio::spawn(scenario(self)))
    }

    /// Waits for the next request and asserts its method and path.
    pub async fn expect(&mut self, method: Method, path: &str) -> ReceivedRequest {
        self.expect_where(method, path, |actual| actual == path)
            .await
    }

    /// Waits for the next request and asserts its method and that its path
    /// starts with `prefix`, for generated names (e.g. an event series).
    pub async fn expect_prefix(&mut self, method: Method, prefix: &str) -> ReceivedRequest {
        self.expect_where(method, &format!("{prefix}*"), |actual| {
            actual.starts_with(prefix)
        })
        .await
    }

    async fn expect_where(
        &mut self,
        method: Method,
        path: &str,
        path_matches: impl Fn(&str) -> bool,
    ) -> ReceivedRequest {
        let (request, respond) = self
            .0
            .next_request()
            .await
            .unwrap_or_else(|| panic!("expected {method} {path}, but the client is gone"));
        let request = RecordedRequest::read(request).await;
        assert!(
            request.method == method && path_matches(&request.path),
            "expected {method} {path}, got {} {}?{}",
            request.method,
            request.path,
            request.query
        );
        let RecordedRequest {
            query,
            content_type,
            body,
            ..
        } = request;
        ReceivedRequest {
            query,
            content_type,
            body,
            respond,
        }
    }

    /// Asserts that no further request comes, i.e. the client was dropped first.
    pub async fn expect_no_more_requests(mut self) {
        if let Some((request, _)) = self.0.next_request().await {
            panic!("unexpected request {} {}", request.method(), request.uri());
        }
    }
}

/// A request the verifier received, waiting for its response.
pub struct ReceivedRequest {
    /// The raw query string.
    pub query: String,
    /// The `Content-Type` header.
    pub content_type: Option<String>,
    /// The JSON body, or `Null` when empty.
    pub body: serde_json::Value,
    respond: SendResponse<Response<Body>>,
}

impl ReceivedRequest {
    /// Answers with `status` and `body` serialized as JSON.
    pub fn respond(self, status: StatusCode, body: &impl Serialize) {
        self.respond.send_response(json_response(status, body));
    }
}

/// A scenario running in the background.
pub struct Scenario(JoinHandle<()>);

impl Scenario {
    /// Waits for the scenario to complete; fails on panic or after one second.
    pub async fn verify(self) {
        tokio::time::timeout(Duration::from_secs(1), self.0)
            .await
            .expect("API server scenario timed out: an expected call was not made")
            .expect("API server scenario failed");
    }
}

/// Sends the raw HTTP/1.1 `request` over TLS to `address` (as `localhost`),
/// trusting only `trusted`, and returns the negotiated ALPN protocol and the raw
/// response. The request should carry `Connection: close`.
pub async fn https_request(
    address: SocketAddr,
    trusted: CertificateDer<'static>,
    request: &[u8],
) -> (Option<Vec<u8>>, String) {
    let mut roots = RootCertStore::empty();
    roots.add(trusted).expect("trust anchor");
    let mut config = ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()
        .expect("protocol versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    let tcp = TcpStream::connect(address).await.expect("TCP connect");
    let server_name = ServerName::try_from("localhost").expect("server name");
    let mut stream = TlsConnector::from(Arc::new(config))
        .connect(server_name, tcp)
        .await
        .expect("TLS handshake with the trusted certificate");
    let alpn = stream.get_ref().1.alpn_protocol().map(<[u8]>::to_vec);
    stream.write_all(request).await.expect("request sent");
    let mut response = Vec::new();
    stream
        .read_to_end(&mut response)
        .await
        .expect("response read");
    (alpn, String::from_utf8_lossy(&response).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
    use serde_json::json;

    const PATH: &str = "/api/v1/namespaces/default/configmaps/settings";

    fn config_map(name: &str) -> ConfigMap {
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some(name.into());
        cm.metadata.namespace = Some("default".into());
        cm
    }

    #[tokio::test]
    async fn the_fake_api_server_keeps_what_it_is_sent() {
        let (client, server) = fake_client();
        let api: Api<ConfigMap> = Api::namespaced(client, "default");
        let missing = api.get("settings").await.expect_err("nothing stored yet");
        assert!(crate::controller::is_not_found(&missing), "{missing}");

        server.insert(PATH, &config_map("settings"));
        let patch = json!([{"op": "add", "path": "/metadata/finalizers", "value": ["x/y"]}]);
        let patched = api
            .patch(
                "settings",
                &PatchParams::default(),
                &Patch::<()>::Json(serde_json::from_value(patch).unwrap()),
            )
            .await
            .expect("a JSON patch applies");
        assert_eq!(patched.metadata.finalizers, Some(vec!["x/y".to_owned()]));

        // Server-side apply merges into the object, or creates it.
        let apply = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "1"}});
        api.patch(
            "settings",
            &PatchParams::apply("test"),
            &Patch::Apply(&apply),
        )
        .await
        .expect("apply");
        let stored = server.object(PATH).expect("still stored");
        assert_eq!(stored["data"]["a"], "1");
        assert_eq!(stored["metadata"]["finalizers"], json!(["x/y"]));
        api.patch("other", &PatchParams::apply("test"), &Patch::Apply(&apply))
            .await
            .expect("apply creates");
        assert!(
            server
                .object("/api/v1/namespaces/default/configmaps/other")
                .is_some()
        );

        api.create(&PostParams::default(), &config_map("made"))
            .await
            .expect("create");
        assert_eq!(
            server.created_in("/api/v1/namespaces/default/configmaps")[0]["metadata"]["name"],
            "made"
        );
        api.delete("made", &DeleteParams::default())
            .await
            .expect("delete");
        assert!(
            server
                .object("/api/v1/namespaces/default/configmaps/made")
                .is_none()
        );

        let methods: Vec<Method> = server.requests().into_iter().map(|r| r.method).collect();
        assert_eq!(
            methods,
            [
                Method::GET,
                Method::PATCH,
                Method::PATCH,
                Method::PATCH,
                Method::POST,
                Method::DELETE
            ]
        );
    }

    #[tokio::test]
    async fn an_apply_to_status_sets_the_status_only() {
        let (client, server) = fake_client();
        let mut object = serde_json::to_value(config_map("settings")).unwrap();
        object["status"] = json!({"old": true});
        object["data"] = json!({"kept": "yes"});
        server.insert(PATH, &object);
        let api: Api<ConfigMap> = Api::namespaced(client, "default");
        let apply = json!({"apiVersion": "v1", "kind": "ConfigMap", "status": {"ready": true}, "data": {"kept": "no"}});
        api.patch_status(
            "settings",
            &PatchParams::apply("test"),
            &Patch::Apply(&apply),
        )
        .await
        .expect("apply the status");
        let stored = server.object(PATH).unwrap();
        assert_eq!(stored["status"], json!({"ready": true}));
        assert_eq!(stored["data"]["kept"], "yes");
    }

    #[tokio::test]
    async fn the_fake_api_server_lists_by_namespace_and_selector() {
        let (client, server) = fake_client();
        for (namespace, name, tier) in [
            ("default", "a", "web"),
            ("default", "b", "db"),
            ("other", "c", "web"),
        ] {
            let mut cm = config_map(name);
            cm.metadata.namespace = Some(namespace.into());
            cm.metadata.labels = Some([("tier".to_owned(), tier.to_owned())].into());
            let path = format!("/api/v1/namespaces/{namespace}/configmaps/{name}");
            server.insert(&path, &cm);
        }
        let names = |list: kube::core::ObjectList<ConfigMap>| -> Vec<String> {
            list.items.iter().map(kube::ResourceExt::name_any).collect()
        };
        let default: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
        let all: Api<ConfigMap> = Api::all(client);
        let list = |api: &Api<ConfigMap>, params: ListParams| {
            let api = api.clone();
            async move { api.list(&params).await.expect("a list") }
        };

        assert_eq!(
            names(list(&default, ListParams::default()).await),
            ["a", "b"]
        );
        assert_eq!(
            names(list(&all, ListParams::default()).await),
            ["a", "b", "c"]
        );
        let web = ListParams::default().labels("tier=web");
        assert_eq!(names(list(&all, web).await), ["a", "c"]);
        let not_web = ListParams::default().labels("tier!=web");
        assert_eq!(names(list(&all, not_web).await), ["b"]);
        let by_name = ListParams::default().fields("metadata.name=c");
        assert_eq!(names(list(&all, by_name).await), ["c"]);
        let missing_label = ListParams::default().labels("absent");
        assert!(names(list(&default, missing_label).await).is_empty());
    }

    #[tokio::test]
    async fn a_delete_whose_uid_precondition_fails_keeps_the_object() {
        let (client, server) = fake_client();
        let mut cm = config_map("settings");
        cm.metadata.uid = Some("new-uid".into());
        server.insert(PATH, &cm);
        let api: Api<ConfigMap> = Api::namespaced(client, "default");
        let params = DeleteParams {
            preconditions: Some(kube::api::Preconditions {
                uid: Some("old-uid".into()),
                resource_version: None,
            }),
            ..DeleteParams::default()
        };

        let error = api.delete("settings", &params).await.unwrap_err();

        assert!(crate::controller::is_conflict(&error), "{error}");
        assert!(server.object(PATH).is_some());
    }
}
