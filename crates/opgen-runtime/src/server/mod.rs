//! HTTP servers: health probes (HTTP), metrics (HTTPS when secure), and the
//! plumbing the [`webhook`](crate::webhook) router is served with (HTTPS).

mod auth;
pub mod tls;

use std::sync::{
    Arc,
    atomic::{AtomicBool, Ordering},
};

use axum::serve::Listener;
use axum::{
    Router,
    extract::State,
    http::{StatusCode, header},
    middleware,
    response::IntoResponse,
    routing::get,
};
use kube::Client;
use tokio::{net::TcpListener, task::JoinHandle};
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;
use tracing::{error, info};

use crate::{Error, Result, metrics::Metrics};

const OPENMETRICS_CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// `/healthz` answers while the process runs; `/readyz` once `ready` is set.
pub fn health_router(ready: Arc<AtomicBool>) -> Router {
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .with_state(ready)
}

/// `/metrics`, behind TokenReview + SubjectAccessReview when `auth` holds a client.
pub fn metrics_router(metrics: Arc<Metrics>, auth: Option<Client>) -> Router {
    let router = Router::new()
        .route("/metrics", get(serve_metrics))
        .with_state(metrics);
    match auth {
        Some(client) => router.layer(middleware::from_fn_with_state(client, auth::authorize)),
        None => router,
    }
}

/// Binds `address` right away, so a bad address fails at startup, then serves
/// `router` in the background until `shutdown` is cancelled: over HTTPS with
/// `tls`, else over plain HTTP.
pub async fn spawn(
    name: &'static str,
    address: &str,
    tls: Option<TlsAcceptor>,
    router: Router,
    shutdown: CancellationToken,
) -> Result<JoinHandle<()>> {
    let listener = bind(name, address).await?;
    Ok(serve(name, listener, tls, router, shutdown))
}

/// Binds the `name` server to `address`.
pub async fn bind(name: &str, address: &str) -> Result<TcpListener> {
    TcpListener::bind(address)
        .await
        .map_err(|source| Error::Io {
            context: format!("cannot bind the {name} server to {address}"),
            source,
        })
}

/// Serves `router` on `listener` in the background until `shutdown` is
/// cancelled, then lets open requests finish. HTTP/1.1 only.
pub fn serve(
    name: &'static str,
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    router: Router,
    shutdown: CancellationToken,
) -> JoinHandle<()> {
    let address = listener
        .local_addr()
        .map_or_else(|_| "?".into(), |address| address.to_string());
    match tls {
        Some(acceptor) => {
            info!(address, "serving {name} over HTTPS");
            let listener = tls::TlsListener::new(name, listener, acceptor);
            tokio::spawn(run(name, listener, router, shutdown))
        }
        None => {
            info!(address, "serving {name} over HTTP");
            tokio::spawn(run(name, listener, router, shutdown))
        }
    }
}

async fn run<L>(name: &'static str, listener: L, router: Router, shutdown: CancellationToken)
where
    L: Listener,
    L::Addr: std::fmt::Debug,
{
    let server = axum::serve(listener, router).with_graceful_shutdown(shutdown.cancelled_owned());
    if let Err(error) = server.await {
        error!(%error, "{name} server failed");
    }
}

async fn readyz(State(ready): State<Arc<AtomicBool>>) -> impl IntoResponse {
    if ready.load(Ordering::Relaxed) {
        (StatusCode::OK, "ok")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "not ready")
    }
}

async fn serve_metrics(State(metrics): State<Arc<Metrics>>) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, OPENMETRICS_CONTENT_TYPE)],
        metrics.encode(),
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::{
        io::{AsyncReadExt, AsyncWriteExt},
        net::TcpStream,
        time::timeout,
    };
    use tokio_rustls::rustls::sign::SingleCertAndKey;

    use super::*;
    use crate::testing::{https_request, mock_client};

    const REQUEST: &[u8] = b"GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";

    #[tokio::test]
    async fn secure_metrics_are_served_over_https_and_need_a_token() {
        let certificate = tls::self_signed().expect("self-signed certificate");
        let trusted = certificate.cert[0].clone();
        let acceptor =
            tls::acceptor(Arc::new(SingleCertAndKey::from(certificate))).expect("TLS acceptor");
        let (client, api_server) = mock_client();
        // No token: rejected before any TokenReview.
        let scenario = api_server.run(|server| server.expect_no_more_requests());
        let router = metrics_router(Arc::new(Metrics::new("test")), Some(client));
        let listener = bind("metrics", "127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("local address");
        let shutdown = CancellationToken::new();
        let server = serve(
            "metrics",
            listener,
            Some(acceptor),
            router,
            shutdown.clone(),
        );

        let (alpn, response) = https_request(address, trusted, REQUEST).await;
        assert!(response.starts_with("HTTP/1.1 401"), "{response}");
        assert_eq!(alpn.as_deref(), Some(&b"http/1.1"[..]), "HTTP/2 is off");

        // Plain HTTP on the HTTPS port gets no HTTP answer.
        let mut plain = TcpStream::connect(address).await.expect("TCP connect");
        plain.write_all(REQUEST).await.expect("request sent");
        let mut answer = Vec::new();
        let _ = timeout(Duration::from_secs(5), plain.read_to_end(&mut answer)).await;
        assert!(!answer.starts_with(b"HTTP/"), "cleartext HTTP was answered");

        shutdown.cancel();
        timeout(Duration::from_secs(5), server)
            .await
            .expect("server stops on shutdown")
            .expect("server task");
        scenario.verify().await;
    }

    #[tokio::test]
    async fn insecure_metrics_are_plain_http_without_auth() {
        let listener = bind("metrics", "127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("local address");
        let shutdown = CancellationToken::new();
        let router = metrics_router(Arc::new(Metrics::new("test")), None);
        let server = serve("metrics", listener, None, router, shutdown.clone());

        let mut stream = TcpStream::connect(address).await.expect("TCP connect");
        stream.write_all(REQUEST).await.expect("request sent");
        let mut response = Vec::new();
        stream
            .read_to_end(&mut response)
            .await
            .expect("response read");
        let response = String::from_utf8_lossy(&response);
        assert!(response.starts_with("HTTP/1.1 200"), "{response}");

        shutdown.cancel();
        timeout(Duration::from_secs(5), server)
            .await
            .expect("server stops on shutdown")
            .expect("server task");
    }
}
