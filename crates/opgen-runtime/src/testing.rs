//! Test support (feature `testing`): a mocked API server (tower-test) and a
//! [`Context`] on top of it, for reconcile unit tests, and an HTTPS client for
//! round trips through the metrics and webhook servers.
//!
//! A test runs a scenario on the [`ApiServerVerifier`] in the background: the
//! scenario awaits each expected request in order, asserts it, and answers with
//! a canned response. [`Scenario::verify`] fails the test when the scenario
//! panicked or did not complete within a second (an expected call never came).

use std::{future::Future, net::SocketAddr, sync::Arc, time::Duration};

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
        let task = tokio::spawn((controller.run)(ctx.clone()));
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
        assert!(
            request.method() == method && path_matches(request.uri().path()),
            "expected {method} {path}, got {} {}",
            request.method(),
            request.uri()
        );
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
        let body = serde_json::to_vec(body).expect("response body serializes");
        let response = Response::builder()
            .status(status)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body))
            .expect("valid response");
        self.respond.send_response(response);
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
