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

//! Test helpers: a mocked API server (tower-test) and a [`Context`] on top of it.
//!
//! A test runs a scenario on the [`ApiServerVerifier`] in the background: the
//! scenario awaits each expected request in order, asserts it, and answers with
//! a canned response. [`Scenario::verify`] fails the test when the scenario
//! panicked or did not complete within a second (an expected call never came).

use std::{future::Future, sync::Arc, time::Duration};

use http::{Method, Request, Response, StatusCode, header};
use kube::{Client, client::Body};
use serde::Serialize;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tower_test::mock::{self, Handle, SendResponse};

use crate::{controllers::Context, metrics::Metrics};

/// A client whose requests are answered by the returned verifier.
pub fn mock_client() -> (Client, ApiServerVerifier) {
    let (service, handle) = mock::pair::<Request<Body>, Response<Body>>();
    (Client::new(service, "default"), ApiServerVerifier(handle))
}

/// A [`Context`] over `client`, watching all namespaces.
pub fn test_context(client: Client) -> Arc<Context> {
    Arc::new(Context::new(
        client,
        Arc::new(Metrics::default()),
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
        let (request, respond) = self
            .0
            .next_request()
            .await
            .unwrap_or_else(|| panic!("expected {method} {path}, but the client is gone"));
        assert_eq!(
            (request.method(), request.uri().path()),
            (&method, path),
            "unexpected request {}",
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
