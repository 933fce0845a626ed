//! Authentication and authorization of metrics scrapes, as controller-runtime's
//! `filters.WithAuthenticationAndAuthorization` does: the bearer token must pass
//! a TokenReview, and its user must be allowed the request's verb on the
//! non-resource URL by a SubjectAccessReview.
//!
//! Needs RBAC: `create` on `tokenreviews.authentication.k8s.io` and
//! `subjectaccessreviews.authorization.k8s.io`.

use axum::{
    extract::{Request, State},
    http::{HeaderMap, StatusCode, header},
    middleware::Next,
    response::{IntoResponse, Response},
};
use k8s_openapi::api::{
    authentication::v1::{TokenReview, UserInfo},
    authorization::v1::{NonResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec},
};
use kube::{Api, Client, api::PostParams};
use tracing::warn;

/// Outcome of checking a request.
#[derive(Debug, PartialEq, Eq)]
enum Decision {
    Allowed,
    Unauthenticated,
    Forbidden,
}

/// Middleware that lets only authorized callers through.
pub async fn authorize(State(client): State<Client>, request: Request, next: Next) -> Response {
    let Some(token) = bearer_token(request.headers()) else {
        return (StatusCode::UNAUTHORIZED, "Unauthorized").into_response();
    };
    let verb = request.method().as_str().to_ascii_lowercase();
    match review(&client, token, request.uri().path(), &verb).await {
        Ok(Decision::Allowed) => next.run(request).await,
        Ok(Decision::Unauthenticated) => (StatusCode::UNAUTHORIZED, "Unauthorized").into_response(),
        Ok(Decision::Forbidden) => (StatusCode::FORBIDDEN, "Forbidden").into_response(),
        Err(error) => {
            warn!(%error, "cannot review metrics request");
            (StatusCode::INTERNAL_SERVER_ERROR, "Authorization failed").into_response()
        }
    }
}

fn bearer_token(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then(|| token.to_owned())
}

async fn review(client: &Client, token: String, path: &str, verb: &str) -> kube::Result<Decision> {
    // Built from JSON: `spec.token` is `Option<String>` up to k8s-openapi's v1_36 and `String`
    // from v1_37, and the project picks the version.
    let token_review: TokenReview =
        serde_json::from_value(serde_json::json!({ "spec": { "token": token } }))
            .expect("a TokenReview with a token deserializes");
    let status = Api::<TokenReview>::all(client.clone())
        .create(&PostParams::default(), &token_review)
        .await?
        .status
        .unwrap_or_default();
    let user = match status.user {
        Some(user) if status.authenticated == Some(true) => user,
        _ => return Ok(Decision::Unauthenticated),
    };

    let access_review = SubjectAccessReview {
        spec: access_review_spec(user, path, verb),
        ..Default::default()
    };
    let allowed = Api::<SubjectAccessReview>::all(client.clone())
        .create(&PostParams::default(), &access_review)
        .await?
        .status
        .is_some_and(|status| status.allowed);
    Ok(if allowed {
        Decision::Allowed
    } else {
        Decision::Forbidden
    })
}

fn access_review_spec(user: UserInfo, path: &str, verb: &str) -> SubjectAccessReviewSpec {
    SubjectAccessReviewSpec {
        user: user.username,
        groups: user.groups,
        uid: user.uid,
        extra: user.extra,
        non_resource_attributes: Some(NonResourceAttributes {
            path: Some(path.into()),
            verb: Some(verb.into()),
        }),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::mock_client;
    use axum::http::{HeaderValue, Method, StatusCode};
    use serde_json::json;

    fn headers(authorization: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_str(authorization).expect("valid header"),
        );
        headers
    }

    #[test]
    fn bearer_token_is_taken_from_the_authorization_header() {
        assert_eq!(bearer_token(&headers("Bearer abc")), Some("abc".into()));
        assert_eq!(bearer_token(&headers("bearer  abc ")), Some("abc".into()));
        assert_eq!(bearer_token(&headers("Basic abc")), None);
        assert_eq!(bearer_token(&headers("Bearer ")), None);
        assert_eq!(bearer_token(&HeaderMap::new()), None);
    }

    #[tokio::test]
    async fn token_review_then_subject_access_review_for_the_metrics_path() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            let request = server
                .expect(Method::POST, "/apis/authentication.k8s.io/v1/tokenreviews")
                .await;
            assert_eq!(request.body["spec"]["token"], "scraper-token");
            request.respond(
                StatusCode::CREATED,
                &json!({
                    "apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {},
                    "status": {"authenticated": true, "user": {"username": "system:serviceaccount:monitoring:prometheus", "groups": ["system:serviceaccounts"]}}
                }),
            );

            let request = server
                .expect(Method::POST, "/apis/authorization.k8s.io/v1/subjectaccessreviews")
                .await;
            assert_eq!(
                request.body["spec"],
                json!({
                    "user": "system:serviceaccount:monitoring:prometheus",
                    "groups": ["system:serviceaccounts"],
                    "nonResourceAttributes": {"path": "/metrics", "verb": "get"}
                })
            );
            request.respond(
                StatusCode::CREATED,
                &json!({
                    "apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": {},
                    "status": {"allowed": true}
                }),
            );
            server.expect_no_more_requests().await;
        });

        let decision = review(&client, "scraper-token".into(), "/metrics", "get").await;
        drop(client);

        assert_eq!(decision.expect("review succeeds"), Decision::Allowed);
        scenario.verify().await;
    }

    #[tokio::test]
    async fn unauthenticated_token_skips_the_access_review() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            server
                .expect(Method::POST, "/apis/authentication.k8s.io/v1/tokenreviews")
                .await
                .respond(
                    StatusCode::CREATED,
                    &json!({
                        "apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {},
                        "status": {"authenticated": false, "error": "invalid bearer token"}
                    }),
                );
            server.expect_no_more_requests().await;
        });

        let decision = review(&client, "bad-token".into(), "/metrics", "get").await;
        drop(client);

        assert_eq!(
            decision.expect("review succeeds"),
            Decision::Unauthenticated
        );
        scenario.verify().await;
    }
}
