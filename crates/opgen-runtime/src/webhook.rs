//! Admission and conversion webhooks: the typed hooks a kind implements
//! ([`Defaulter`], [`Validator`], [`Converter`]) and the plumbing around them.
//!
//! The [`Manager`](crate::Manager) serves every registered [`WebhookEntry`] on
//! every replica, leader or not, over HTTPS (HTTP/1.1 only) on `--webhook-port`,
//! with the certificate from `--webhook-cert-path`. With no entry, the webhook
//! server is not started. This module turns each `AdmissionReview` into hook
//! calls and the outcome back into a review, as controller-runtime's
//! `CustomDefaulter` and `CustomValidator` do:
//!
//! - [`mutate`] calls the kind's defaulting hook on CREATE and UPDATE and
//!   answers with the JSON patch from the object sent to the defaulted one;
//! - [`validate`] calls the create, update or delete hook and admits the
//!   object, with the hook's warnings, or denies it (403) with its message.
//!
//! ```
//! # use kube::CustomResource;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default)]
//! # #[kube(group = "cache.example.com", version = "v1", kind = "Memcached", namespaced, schema = "disabled")]
//! # pub struct MemcachedSpec { size: Option<i32> }
//! use opgen_runtime::webhook::{Defaulter, Route, ValidationResult, Validator, WebhookEntry};
//!
//! impl Defaulter for Memcached {
//!     fn default(&mut self) {
//!         self.spec.size.get_or_insert(1);
//!     }
//! }
//!
//! impl Validator for Memcached {
//!     fn validate_create(&self) -> ValidationResult {
//!         match self.spec.size {
//!             Some(size) if size > 5 => Err(format!("spec.size must be at most 5, not {size}")),
//!             _ => Ok(Vec::new()),
//!         }
//!     }
//! }
//!
//! pub const WEBHOOK: WebhookEntry = WebhookEntry {
//!     name: "memcached",
//!     routes: &[
//!         Route::defaulting::<Memcached>("/mutate-cache-example-com-v1-memcached"),
//!         Route::validating::<Memcached>("/validate-cache-example-com-v1-memcached"),
//!     ],
//!     conversion: None,
//! };
//! ```
//!
//! A review that cannot be read is answered with an AdmissionReview that denies
//! with code 400 (HTTP status 200, so the API server shows the message).
//!
//! A kind with several API versions can also register a [`Conversion`]: the
//! CRD's conversion webhook, served at [`CONVERSION_PATH`] for every kind.

use std::sync::Arc;

use axum::{
    Router,
    body::Bytes,
    extract::DefaultBodyLimit,
    http::{HeaderMap, header},
    response::{IntoResponse, Response},
    routing::post,
};
use json_patch::{Patch, PatchOperation};
use k8s_openapi::ByteString;
use kube::{
    Resource,
    core::{
        DynamicObject, Status,
        admission::{
            AdmissionRequest, AdmissionResponse, AdmissionReview, META_API_VERSION_V1, META_KIND,
            Operation,
        },
        conversion::{ConversionRequest, ConversionResponse, ConversionReview},
    },
};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::{Value, json};
use tracing::{debug, info, warn};

/// The webhooks of one kind: admission (defaulting, validation) and conversion.
#[derive(Clone, Copy, Debug)]
pub struct WebhookEntry {
    /// Name used in logs.
    pub name: &'static str,
    /// One route per webhook: defaulting, validation, or both.
    pub routes: &'static [Route],
    /// The conversion between the kind's API versions, if it has a conversion
    /// webhook.
    pub conversion: Option<Conversion>,
}

/// One webhook: the path the API server posts AdmissionReviews to.
#[derive(Clone, Copy, Debug)]
pub struct Route {
    /// The `path` of the `+kubebuilder:webhook` marker, e.g.
    /// `/mutate-<group with dashes>-<version>-<kind>`.
    pub path: &'static str,
    /// Answers an AdmissionReview (the request body) with an AdmissionReview;
    /// usually [`mutate`] or [`validate`] for the kind.
    pub review: fn(&[u8]) -> Value,
}

impl Route {
    /// The defaulting webhook of `K` at `path`.
    pub const fn defaulting<K: Defaulter>(path: &'static str) -> Self {
        Self {
            path,
            review: mutate::<K>,
        }
    }

    /// The validating webhook of `K` at `path`.
    pub const fn validating<K: Validator>(path: &'static str) -> Self {
        Self {
            path,
            review: validate::<K>,
        }
    }
}

/// The defaulting hook of a kind, as controller-runtime's `CustomDefaulter`.
pub trait Defaulter: Resource<DynamicType = ()> + Serialize + DeserializeOwned {
    /// Sets the defaults of an object being created or updated. The API server
    /// receives the changes as a JSON patch; it should be idempotent.
    fn default(&mut self);
}

/// The validating hooks of a kind, as controller-runtime's `CustomValidator`. Each admits
/// (with warnings for the client, usually none) or denies with a message; the defaults
/// admit.
pub trait Validator: Resource<DynamicType = ()> + Serialize + DeserializeOwned {
    /// Checks an object being created.
    fn validate_create(&self) -> ValidationResult {
        Ok(Warnings::new())
    }

    /// Checks an update from `old` to `self`.
    fn validate_update(&self, old: &Self) -> ValidationResult {
        let _ = old;
        Ok(Warnings::new())
    }

    /// Checks an object being deleted; called only when the webhook's marker lists the
    /// `delete` verb.
    fn validate_delete(&self) -> ValidationResult {
        Ok(Warnings::new())
    }
}

/// The conversion of a kind between its API versions, implemented by its hub version (a
/// hub-and-spoke scheme, as controller-runtime's `Hub` and `Convertible`): every version
/// converts to and from the hub, usually with [`to_hub`] and [`from_hub`].
pub trait Converter {
    /// The kind's API group, e.g. "cache.example.com".
    const GROUP: &'static str;
    /// The kind, e.g. "Memcached".
    const KIND: &'static str;

    /// Converts one object, of any served version, to `desired_api_version`.
    fn convert(object: Value, desired_api_version: &str) -> Result<Value, String>;
}

/// Converts the objects of one kind between its API versions.
#[derive(Clone, Copy, Debug)]
pub struct Conversion {
    /// The kind's API group, e.g. "cache.example.com".
    pub group: &'static str,
    /// The kind, e.g. "Memcached".
    pub kind: &'static str,
    /// Converts one object, of any served version, to the desired `apiVersion`;
    /// usually through the hub version with [`to_hub`] and [`from_hub`].
    pub convert: fn(Value, &str) -> Result<Value, String>,
}

impl Conversion {
    /// The conversion of `C`.
    pub const fn of<C: Converter>() -> Self {
        Self {
            group: C::GROUP,
            kind: C::KIND,
            convert: C::convert,
        }
    }
}

/// The path of the conversion webhook, shared by every kind: the CRDs'
/// `spec.conversion.webhook.clientConfig.service.path`.
pub const CONVERSION_PATH: &str = "/convert";

/// Warnings a validating hook returns to the API client (kubectl prints them).
/// Keep each under 120 characters.
pub type Warnings = Vec<String>;

/// What a validating hook decides: admit (with warnings, often none), or deny
/// with a message for the API client.
pub type ValidationResult = Result<Warnings, String>;

/// Largest AdmissionReview accepted: the API server takes requests of up to
/// 3 MiB, and a review of an UPDATE carries the object twice.
pub const MAX_REVIEW_BYTES: usize = 7 * 1024 * 1024;

/// Whether the webhook server is to run: only with at least one webhook in
/// `webhooks`, and not when `enabled` is false (ENABLE_WEBHOOKS=false).
pub fn should_serve(webhooks: &[WebhookEntry], enabled: bool) -> bool {
    if webhooks.is_empty() {
        debug!("no webhook registered: the webhook server is not started");
        return false;
    }
    if !enabled {
        info!("webhooks are disabled (ENABLE_WEBHOOKS=false): the webhook server is not started");
        return false;
    }
    true
}

/// A router serving every route of `webhooks` (POST only).
pub fn router(webhooks: &[WebhookEntry]) -> Router {
    let mut router = Router::new();
    for webhook in webhooks {
        for route in webhook.routes {
            info!(
                webhook = webhook.name,
                path = route.path,
                "registering webhook"
            );
            let review = route.review;
            router = router.route(
                route.path,
                post(move |headers: HeaderMap, body: Bytes| async move {
                    let answer = match check_content_type(&headers) {
                        Ok(()) => review(&body),
                        Err(message) => to_json(bad_request(None, message)),
                    };
                    json_response(&answer)
                }),
            );
        }
    }
    let conversions: Arc<[Conversion]> = webhooks
        .iter()
        .filter_map(|webhook| webhook.conversion)
        .collect();
    if !conversions.is_empty() {
        info!(path = CONVERSION_PATH, "registering the conversion webhook");
        router = router.route(
            CONVERSION_PATH,
            post(move |headers: HeaderMap, body: Bytes| async move {
                let answer = match check_content_type(&headers) {
                    Ok(()) => convert(&body, &conversions),
                    Err(message) => conversion_failure(ConversionResponse::invalid, message),
                };
                json_response(&answer)
            }),
        );
    }
    router.layer(DefaultBodyLimit::max(MAX_REVIEW_BYTES))
}

/// Fails unless the request body is declared as JSON.
fn check_content_type(headers: &HeaderMap) -> Result<(), String> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    let media_type = content_type.split(';').next().unwrap_or_default().trim();
    if media_type.eq_ignore_ascii_case("application/json") {
        Ok(())
    } else {
        Err(format!(
            "contentType={content_type:?}, expected application/json"
        ))
    }
}

/// A review sent back: always HTTP 200, the outcome is in the review.
fn json_response(answer: &Value) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        answer.to_string(),
    )
        .into_response()
}

/// Reviews `body` for the defaulting webhook of `K` ([`mutate_with`] its [`Defaulter`]).
pub fn mutate<K: Defaulter>(body: &[u8]) -> Value {
    mutate_with(body, K::default)
}

/// Reviews `body` for the validating webhook of `K` ([`validate_with`] its [`Validator`]).
pub fn validate<K: Validator>(body: &[u8]) -> Value {
    validate_with(
        body,
        K::validate_create,
        |old, new| new.validate_update(old),
        K::validate_delete,
    )
}

/// Reviews `body` for a defaulting webhook of kind `K`: on CREATE and UPDATE,
/// calls `default` on the object and answers with the JSON patch from the
/// object sent to the defaulted one (none when `default` changed nothing).
/// Other operations are admitted unchanged.
///
/// The patch never removes what the Rust type of `K` does not hold (fields it
/// does not know, explicit nulls): the object keeps them as sent.
pub fn mutate_with<K>(body: &[u8], default: fn(&mut K)) -> Value
where
    K: Resource<DynamicType = ()> + Serialize + DeserializeOwned,
{
    to_json(Review::<K>::decode(body).map_or_else(|error| *error, |review| review.mutate(default)))
}

/// Reviews `body` for a validating webhook of kind `K`: calls `create` with the
/// new object on CREATE, `update` with the old and the new object on UPDATE,
/// and `delete` with the object being deleted on DELETE (only when the webhook
/// is registered for deletes). CONNECT is admitted.
pub fn validate_with<K>(
    body: &[u8],
    create: fn(&K) -> ValidationResult,
    update: fn(&K, &K) -> ValidationResult,
    delete: fn(&K) -> ValidationResult,
) -> Value
where
    K: Resource<DynamicType = ()> + Serialize + DeserializeOwned,
{
    let response = Review::<K>::decode(body).map_or_else(
        |error| *error,
        |review| review.validate(create, update, delete),
    );
    to_json(response)
}

/// A decoded AdmissionRequest for kind `K`, with the objects as sent.
struct Review<K> {
    /// The response to fill in: it carries the request's uid and review version.
    response: AdmissionResponse,
    operation: Operation,
    /// `request.object`: the new object (CREATE, UPDATE).
    object: Option<Value>,
    /// `request.oldObject`: the existing object (UPDATE, DELETE).
    old_object: Option<Value>,
    kind: std::marker::PhantomData<fn() -> K>,
}

impl<K> Review<K>
where
    K: Resource<DynamicType = ()> + Serialize + DeserializeOwned,
{
    /// Reads an AdmissionReview; the error is the response to send back.
    fn decode(body: &[u8]) -> Result<Self, Box<AdmissionResponse>> {
        let malformed = |error: serde_json::Error| {
            let message = format!("cannot decode the AdmissionReview: {error}");
            Box::new(bad_request(None, message))
        };
        let mut review: Value = serde_json::from_slice(body).map_err(malformed)?;
        // The objects are decoded as `K` later; taking them out keeps them as sent.
        let mut take = |pointer: &str| {
            review
                .pointer_mut(pointer)
                .map(Value::take)
                .filter(|object| !object.is_null())
        };
        let object = take("/request/object");
        let old_object = take("/request/oldObject");
        let review: AdmissionReview<DynamicObject> =
            serde_json::from_value(review).map_err(malformed)?;
        let request: AdmissionRequest<DynamicObject> = review.try_into().map_err(|_| {
            Box::new(bad_request(
                None,
                "the AdmissionReview has no request".into(),
            ))
        })?;
        let response = AdmissionResponse::from(&request);
        debug!(
            uid = %request.uid,
            operation = ?request.operation,
            name = %request.name,
            namespace = ?request.namespace,
            "reviewing {}",
            request.kind.kind
        );

        let expected = (K::group(&()), K::version(&()), K::kind(&()));
        let kind = &request.kind;
        if (
            kind.group.as_str(),
            kind.version.as_str(),
            kind.kind.as_str(),
        ) != (&*expected.0, &*expected.1, &*expected.2)
        {
            let message = format!(
                "this webhook reviews {}/{} {}, not {}/{} {}",
                expected.0, expected.1, expected.2, kind.group, kind.version, kind.kind
            );
            return Err(Box::new(bad_request(Some(response), message)));
        }
        Ok(Self {
            response,
            operation: request.operation,
            object,
            old_object,
            kind: std::marker::PhantomData,
        })
    }

    fn mutate(self, default: fn(&mut K)) -> AdmissionResponse {
        if !matches!(self.operation, Operation::Create | Operation::Update) {
            return allowed(self.response, Warnings::new());
        }
        let Some(sent) = &self.object else {
            return bad_request(Some(self.response), "the request has no object".into());
        };
        let mut object: K = match decode_object(sent, "object") {
            Ok(object) => object,
            Err(message) => return bad_request(Some(self.response), message),
        };
        let before = serde_json::to_value(&object);
        default(&mut object);
        let after = serde_json::to_value(&object);
        let (before, after) = match (before, after) {
            (Ok(before), Ok(after)) => (before, after),
            (Err(error), _) | (_, Err(error)) => {
                let message = format!("cannot encode the defaulted object: {error}");
                return errored(self.response, 500, "InternalError", message);
            }
        };
        if before == after {
            return allowed(self.response, Warnings::new());
        }
        let patch = patch_for(sent, &before, &after);
        if patch.is_empty() {
            return allowed(self.response, Warnings::new());
        }
        let response = allowed(self.response, Warnings::new());
        match response.clone().with_patch(patch) {
            Ok(patched) => patched,
            Err(error) => errored(response, 500, "InternalError", error.to_string()),
        }
    }

    fn validate(
        self,
        create: fn(&K) -> ValidationResult,
        update: fn(&K, &K) -> ValidationResult,
        delete: fn(&K) -> ValidationResult,
    ) -> AdmissionResponse {
        let new = || typed_object::<K>(self.object.as_ref(), "object");
        let old = || typed_object::<K>(self.old_object.as_ref(), "oldObject");
        let decision = match self.operation {
            Operation::Create => new().map(|object| create(&object)),
            Operation::Update => old().and_then(|old| new().map(|new| update(&old, &new))),
            Operation::Delete => old().map(|object| delete(&object)),
            Operation::Connect => Ok(Ok(Warnings::new())),
        };
        match decision {
            Ok(Ok(warnings)) => allowed(self.response, warnings),
            Ok(Err(message)) => {
                debug!(uid = %self.response.uid, %message, "denied");
                errored(self.response, 403, "Forbidden", message)
            }
            Err(message) => bad_request(Some(self.response), message),
        }
    }
}

/// `object` as `K`, or why it cannot be (`field` names it).
fn decode_object<K: DeserializeOwned>(object: &Value, field: &str) -> Result<K, String> {
    K::deserialize(object).map_err(|error| format!("cannot decode the request {field}: {error}"))
}

/// The request's `field` as `K`, or why it is missing or cannot be decoded.
fn typed_object<K: DeserializeOwned>(object: Option<&Value>, field: &str) -> Result<K, String> {
    let object = object.ok_or_else(|| format!("the request has no {field}"))?;
    decode_object(object, field)
}

/// The JSON patch turning `sent` (the object as the API server sent it) into
/// `after` (the defaulted object), without removing what `before` (the object
/// sent, as `K` encodes it) lacks: fields the Rust type does not know, or nulls
/// it drops, are kept as sent. What the hook removed is removed.
fn patch_for(sent: &Value, before: &Value, after: &Value) -> Patch {
    let Patch(operations) = json_patch::diff(sent, after);
    Patch(
        operations
            .into_iter()
            .filter(|operation| match operation {
                PatchOperation::Remove(remove) => before.pointer(remove.path.as_str()).is_some(),
                _ => true,
            })
            .collect(),
    )
}

/// `response` admitting the object, with `warnings` for the client.
fn allowed(mut response: AdmissionResponse, warnings: Warnings) -> AdmissionResponse {
    response.allowed = true;
    response.result.code = 200;
    response.warnings = (!warnings.is_empty()).then_some(warnings);
    response
}

/// `response` (or one without uid when the request could not be read) denying
/// with code 400.
fn bad_request(response: Option<AdmissionResponse>, message: String) -> AdmissionResponse {
    warn!(
        uid = response.as_ref().map(|response| response.uid.as_str()),
        %message,
        "rejecting a malformed AdmissionReview"
    );
    let response = response.unwrap_or_else(|| AdmissionResponse::invalid(""));
    errored(response, 400, "BadRequest", message)
}

/// `response` denying the request with an HTTP-like `code`, `reason` and `message`.
fn errored(
    response: AdmissionResponse,
    code: u16,
    reason: &str,
    message: String,
) -> AdmissionResponse {
    let mut response = response.deny(message);
    response.result.code = code;
    response.result.reason = reason.to_owned();
    response
}

/// `response` as the AdmissionReview sent back.
fn to_json(mut response: AdmissionResponse) -> Value {
    // kube encodes the patch (a Vec<u8>) as an array of numbers (kube-rs#1781);
    // in the API, as every []byte in Kubernetes JSON, it is a base64 string.
    let patch = response.patch.take().map(ByteString);
    let uid = response.uid.clone();
    let mut review = serde_json::to_value(response.into_review()).unwrap_or_else(|error| {
        json!({
            "apiVersion": META_API_VERSION_V1,
            "kind": META_KIND,
            "response": {
                "uid": uid,
                "allowed": false,
                "status": {"code": 500, "message": format!("cannot encode the response: {error}")},
            },
        })
    });
    let encoded = patch.and_then(|patch| serde_json::to_value(patch).ok());
    let response = review.get_mut("response").and_then(Value::as_object_mut);
    if let (Some(encoded), Some(response)) = (encoded, response) {
        response.insert("patch".into(), encoded);
    }
    review
}

/// Answers a ConversionReview (`body`): converts every object with the
/// [`Conversion`] of its kind. One object that cannot be converted fails the
/// whole review, as the API server requires.
pub fn convert(body: &[u8], conversions: &[Conversion]) -> Value {
    let request = serde_json::from_slice::<ConversionReview>(body)
        .map_err(|error| format!("cannot decode the ConversionReview: {error}"))
        .and_then(|review| ConversionRequest::try_from(review).map_err(|error| error.to_string()));
    let request = match request {
        Ok(request) => request,
        Err(message) => return conversion_failure(ConversionResponse::invalid, message),
    };
    let desired = request.desired_api_version.clone();
    let converted: Result<Vec<Value>, String> = request
        .objects
        .iter()
        .map(|object| {
            let api_version = object["apiVersion"].as_str().unwrap_or_default();
            let group = api_version.rsplit_once('/').map_or("", |(group, _)| group);
            let kind = object["kind"].as_str().unwrap_or_default();
            let conversion = conversions
                .iter()
                .find(|conversion| (conversion.group, conversion.kind) == (group, kind))
                .ok_or_else(|| format!("no conversion for {api_version} {kind}"))?;
            (conversion.convert)(object.clone(), &desired)
        })
        .collect();
    debug!(uid = %request.uid, desired, "converting {} objects", request.objects.len());
    let response = ConversionResponse::for_request(request);
    match converted {
        Ok(objects) => encode(response.success(objects).into_review()),
        Err(message) => conversion_failure(|status| response.failure(status), message),
    }
}

/// Decodes `object`, of the version whose Rust type is `S`, and converts it to
/// the hub version `H` (`S` may be `H` itself). The conversion is `From` or a
/// fallible `TryFrom` whose error says why.
pub fn to_hub<S, H>(object: Value) -> Result<H, String>
where
    S: DeserializeOwned + TryInto<H>,
    S::Error: std::fmt::Display,
{
    let spoke =
        S::deserialize(object).map_err(|error| format!("cannot decode the object: {error}"))?;
    spoke
        .try_into()
        .map_err(|error| format!("cannot convert the object: {error}"))
}

/// Converts `hub` to the version whose Rust type is `S` and encodes it.
pub fn from_hub<H, S>(hub: H) -> Result<Value, String>
where
    S: TryFrom<H> + Serialize,
    S::Error: std::fmt::Display,
{
    let spoke = S::try_from(hub).map_err(|error| format!("cannot convert the object: {error}"))?;
    serde_json::to_value(spoke).map_err(|error| format!("cannot encode the object: {error}"))
}

/// Moves `object` to another version of its kind (`To`) through JSON, refusing to lose data:
/// every field `object` sets must come out of `To` with the same value, or the error names
/// the fields that would be dropped, so that the `TryFrom` calling this maps them by hand.
/// `apiVersion` is rewritten; an empty or null field carries nothing to lose.
pub fn move_fields<From, To>(object: From) -> Result<To, String>
where
    From: Serialize,
    To: Serialize + DeserializeOwned,
{
    let from = serde_json::to_value(object).map_err(|error| error.to_string())?;
    let to: To = serde_json::from_value(from.clone()).map_err(|error| error.to_string())?;
    let back = serde_json::to_value(&to).map_err(|error| error.to_string())?;
    let mut lost = Vec::new();
    lost_fields(&from, &back, "", &mut lost);
    match lost.as_slice() {
        [] => Ok(to),
        fields => Err(format!(
            "{} would be lost converting to {}: map {} in the conversion",
            fields.join(", "),
            back["apiVersion"].as_str().unwrap_or("the other version"),
            if fields.len() == 1 { "it" } else { "them" }
        )),
    }
}

/// The paths of the fields `from` sets that `to` lacks or holds with another value.
fn lost_fields(from: &Value, to: &Value, path: &str, lost: &mut Vec<String>) {
    let empty = |v: &Value| match v {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    };
    match (from, to) {
        (Value::Object(from), Value::Object(to)) => {
            for (key, value) in from {
                if (path.is_empty() && key == "apiVersion") || empty(value) {
                    continue;
                }
                let at = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                match to.get(key) {
                    Some(other) => lost_fields(value, other, &at, lost),
                    None => lost.push(at),
                }
            }
        }
        (Value::Array(from), Value::Array(to)) if from.len() == to.len() => {
            for (i, (a, b)) in from.iter().zip(to).enumerate() {
                lost_fields(a, b, &format!("{path}[{i}]"), lost);
            }
        }
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => {}
        (a, b) if a == b => {}
        _ => lost.push(path.to_owned()),
    }
}

/// A failed ConversionReview built by `response` from a Failure status.
fn conversion_failure(
    response: impl FnOnce(Status) -> ConversionResponse,
    message: String,
) -> Value {
    warn!(%message, "conversion failed");
    encode(response(Status::failure(&message, "")).into_review())
}

/// `review` as JSON.
fn encode(review: ConversionReview) -> Value {
    let uid = review
        .response
        .as_ref()
        .map(|response| response.uid.clone());
    serde_json::to_value(review).unwrap_or_else(|error| {
        let message = format!("cannot encode the response: {error}");
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "ConversionReview",
            "response": {"uid": uid, "result": {"status": "Failure", "message": message}},
        })
    })
}

#[cfg(test)]
mod tests {
    use std::{collections::HashSet, sync::Arc, time::Duration};

    use k8s_openapi::ByteString;
    use kube::{CustomResource, ResourceExt};
    use serde::Deserialize;
    use tokio::time::timeout;
    use tokio_rustls::rustls::sign::SingleCertAndKey;
    use tokio_util::sync::CancellationToken;

    use super::*;
    use crate::{server, testing::https_request};

    /// A kind of its own, so that these tests do not depend on the project's kinds.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
    #[kube(
        group = "test.example.com",
        version = "v1",
        kind = "Widget",
        namespaced,
        schema = "disabled"
    )]
    #[serde(rename_all = "camelCase")]
    struct WidgetSpec {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        replicas: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        image: Option<String>,
    }

    /// The same kind at a version without `image`.
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct WidgetV2 {
        api_version: String,
        kind: String,
        metadata: kube::core::ObjectMeta,
        spec: WidgetV2Spec,
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq, Default)]
    struct WidgetV2Spec {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        replicas: Option<i32>,
    }

    #[test]
    fn move_fields_moves_shared_fields_and_refuses_to_drop_others() {
        let mut widget = Widget::new("w", WidgetSpec::default());
        widget.spec.replicas = Some(3);
        let moved: WidgetV2 = move_fields(widget.clone()).expect("nothing is lost");
        assert_eq!(moved.spec.replicas, Some(3));

        widget.spec.image = Some("nginx".into());
        let error = move_fields::<_, WidgetV2>(widget).unwrap_err();
        assert_eq!(
            error,
            "spec.image would be lost converting to test.example.com/v1: map it in the conversion"
        );
    }

    const DEFAULTING_PATH: &str = "/mutate-test-example-com-v1-widget";
    const VALIDATION_PATH: &str = "/validate-test-example-com-v1-widget";

    const WIDGET: WebhookEntry = WebhookEntry {
        name: "widget",
        routes: &[
            Route {
                path: DEFAULTING_PATH,
                review: |body| mutate_with(body, set_defaults),
            },
            Route {
                path: VALIDATION_PATH,
                review: |body| validate_with(body, check_create, check_update, check_delete),
            },
        ],
        conversion: Some(Conversion {
            group: "test.example.com",
            kind: "Widget",
            // v1 is the hub, v2 a spoke.
            convert: |object, desired| {
                let hub: Widget = match object["apiVersion"].as_str() {
                    Some("test.example.com/v1") => to_hub::<Widget, _>(object)?,
                    Some("test.example.com/v2") => to_hub::<v2::Widget, _>(object)?,
                    other => return Err(format!("unknown Widget version {other:?}")),
                };
                match desired {
                    "test.example.com/v1" => from_hub::<_, Widget>(hub),
                    "test.example.com/v2" => from_hub::<_, v2::Widget>(hub),
                    other => Err(format!("cannot convert a Widget to {other}")),
                }
            },
        }),
    };

    /// A second version of Widget, to convert to and from.
    mod v2 {
        use kube::CustomResource;
        use serde::{Deserialize, Serialize};

        #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
        #[kube(
            group = "test.example.com",
            version = "v2",
            kind = "Widget",
            namespaced,
            schema = "disabled"
        )]
        pub struct WidgetSpec {
            /// Required in v2; optional (default 1) in v1.
            pub size: i32,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub image: Option<String>,
        }

        impl From<super::Widget> for Widget {
            fn from(hub: super::Widget) -> Self {
                let spec = WidgetSpec {
                    size: hub.spec.replicas.unwrap_or(1),
                    image: hub.spec.image,
                };
                Widget {
                    metadata: hub.metadata,
                    spec,
                }
            }
        }

        impl From<Widget> for super::Widget {
            fn from(spoke: Widget) -> Self {
                let spec = super::WidgetSpec {
                    replicas: Some(spoke.spec.size),
                    image: spoke.spec.image,
                };
                super::Widget {
                    metadata: spoke.metadata,
                    spec,
                }
            }
        }
    }

    fn set_defaults(widget: &mut Widget) {
        widget.spec.replicas.get_or_insert(1);
        widget
            .labels_mut()
            .entry("app".into())
            .or_insert_with(|| "widget".into());
    }

    fn drop_image(widget: &mut Widget) {
        widget.spec.image = None;
    }

    fn check_create(widget: &Widget) -> ValidationResult {
        match widget.spec.replicas {
            Some(replicas) if replicas > 3 => {
                Err(format!("spec.replicas must be at most 3, not {replicas}"))
            }
            Some(_) => Ok(Warnings::new()),
            None => Ok(vec!["spec.replicas is not set".into()]),
        }
    }

    fn check_update(old: &Widget, new: &Widget) -> ValidationResult {
        if old.spec.image == new.spec.image {
            Ok(Warnings::new())
        } else {
            Err("spec.image is immutable".into())
        }
    }

    fn check_delete(widget: &Widget) -> ValidationResult {
        Err(format!("{} is protected", widget.name_any()))
    }

    impl Defaulter for Widget {
        fn default(&mut self) {
            set_defaults(self);
        }
    }

    impl Validator for Widget {
        fn validate_create(&self) -> ValidationResult {
            check_create(self)
        }

        fn validate_update(&self, old: &Self) -> ValidationResult {
            check_update(old, self)
        }
    }

    #[test]
    fn typed_routes_call_the_kinds_hooks() {
        let defaulting = Route::defaulting::<Widget>(DEFAULTING_PATH);
        let answer = (defaulting.review)(&review("CREATE", Some(widget(json!({}))), None));
        let expected: Patch = serde_json::from_value(json!([
            {"op": "add", "path": "/metadata/labels", "value": {"app": "widget"}},
            {"op": "add", "path": "/spec/replicas", "value": 1},
        ]))
        .expect("a JSON patch");
        assert_eq!(patch_of(&answer), expected);

        let validating = Route::validating::<Widget>(VALIDATION_PATH);
        let body = review("CREATE", Some(widget(json!({"replicas": 9}))), None);
        assert_eq!(
            denial(&(validating.review)(&body), 403),
            "spec.replicas must be at most 3, not 9"
        );
        let old = widget(json!({"image": "a"}));
        let new = widget(json!({"image": "b"}));
        let body = review("UPDATE", Some(new), Some(old.clone()));
        assert_eq!(
            denial(&(validating.review)(&body), 403),
            "spec.image is immutable"
        );
        // The default delete hook admits.
        let body = review("DELETE", None, Some(old));
        let answer = (validating.review)(&body);
        assert_eq!(answer["response"]["allowed"], true, "{answer}");
    }

    const UID: &str = "0df28fbd-5f5f-4b5e-8c3c-6f4b0a6c1f1e";

    fn widget(spec: Value) -> Value {
        json!({
            "apiVersion": "test.example.com/v1",
            "kind": "Widget",
            "metadata": {"name": "sample", "namespace": "default"},
            "spec": spec,
        })
    }

    /// An `admission.k8s.io/v1` AdmissionReview of a Widget, as the API server sends it.
    fn review(operation: &str, object: Option<Value>, old_object: Option<Value>) -> Vec<u8> {
        json!({
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "request": {
                "uid": UID,
                "kind": {"group": "test.example.com", "version": "v1", "kind": "Widget"},
                "resource": {"group": "test.example.com", "version": "v1", "resource": "widgets"},
                "requestKind": {"group": "test.example.com", "version": "v1", "kind": "Widget"},
                "name": "sample",
                "namespace": "default",
                "operation": operation,
                "userInfo": {"username": "kubernetes-admin", "groups": ["system:masters"]},
                "object": object,
                "oldObject": old_object,
                "dryRun": false,
            },
        })
        .to_string()
        .into_bytes()
    }

    /// The JSON patch of a response, decoded from base64.
    fn patch_of(answer: &Value) -> Patch {
        let encoded = &answer["response"]["patch"];
        assert!(
            encoded.is_string(),
            "the patch is a base64 string: {answer}"
        );
        let ByteString(bytes) = ByteString::deserialize(encoded).expect("base64");
        serde_json::from_slice(&bytes).expect("a JSON patch")
    }

    /// Asserts a denial with `code` and returns its message.
    fn denial(answer: &Value, code: u16) -> &str {
        let response = &answer["response"];
        assert_eq!(response["allowed"], false, "{answer}");
        assert_eq!(response["status"]["code"], code, "{answer}");
        assert!(response.get("patch").is_none(), "{answer}");
        response["status"]["message"].as_str().expect("a message")
    }

    #[test]
    fn create_is_answered_with_a_base64_json_patch() {
        let sent = widget(json!({}));
        let answer = mutate_with(&review("CREATE", Some(sent.clone()), None), set_defaults);

        assert_eq!(answer["apiVersion"], "admission.k8s.io/v1");
        assert_eq!(answer["kind"], "AdmissionReview");
        let response = &answer["response"];
        assert_eq!(response["uid"], UID);
        assert_eq!(response["allowed"], true);
        assert_eq!(response["status"]["code"], 200);
        assert_eq!(response["patchType"], "JSONPatch");
        let patch = patch_of(&answer);
        let expected: Patch = serde_json::from_value(json!([
            {"op": "add", "path": "/metadata/labels", "value": {"app": "widget"}},
            {"op": "add", "path": "/spec/replicas", "value": 1},
        ]))
        .expect("a JSON patch");
        assert_eq!(patch, expected);

        let mut patched = sent;
        json_patch::patch(&mut patched, &patch).expect("the patch applies to the object sent");
        let mut defaulted = Widget::deserialize(&patched).expect("a Widget");
        assert_eq!(defaulted.spec.replicas, Some(1));
        set_defaults(&mut defaulted);
        assert_eq!(serde_json::to_value(&defaulted).expect("encodes"), patched);
    }

    #[test]
    fn an_object_already_defaulted_gets_no_patch() {
        let mut sent = widget(json!({"replicas": 2}));
        sent["metadata"]["labels"] = json!({"app": "other"});
        let answer = mutate_with(
            &review("UPDATE", Some(sent.clone()), Some(sent)),
            set_defaults,
        );
        let response = &answer["response"];
        assert_eq!(response["allowed"], true, "{answer}");
        assert!(response.get("patch").is_none(), "{answer}");
        assert!(response.get("patchType").is_none(), "{answer}");
    }

    #[test]
    fn the_patch_keeps_unknown_fields_and_carries_the_hooks_removals() {
        let mut sent = widget(json!({"image": "memcached:1.6", "futureField": "kept"}));
        sent["metadata"]["creationTimestamp"] = Value::Null;
        let answer = mutate_with(&review("CREATE", Some(sent), None), drop_image);
        let expected: Patch =
            serde_json::from_value(json!([{"op": "remove", "path": "/spec/image"}]))
                .expect("a JSON patch");
        assert_eq!(patch_of(&answer), expected);
    }

    #[test]
    fn delete_and_connect_are_admitted_without_defaulting() {
        let old = widget(json!({}));
        for operation in ["DELETE", "CONNECT"] {
            let answer = mutate_with(&review(operation, None, Some(old.clone())), set_defaults);
            assert_eq!(answer["response"]["allowed"], true, "{answer}");
            assert!(answer["response"].get("patch").is_none(), "{answer}");
        }
    }

    #[test]
    fn a_validation_denial_carries_the_hooks_message() {
        let body = review("CREATE", Some(widget(json!({"replicas": 5}))), None);
        let answer = validate_with(&body, check_create, check_update, check_delete);
        assert_eq!(answer["response"]["uid"], UID);
        assert_eq!(
            denial(&answer, 403),
            "spec.replicas must be at most 3, not 5"
        );
        assert_eq!(answer["response"]["status"]["reason"], "Forbidden");
    }

    #[test]
    fn each_operation_reaches_its_validation_hook() {
        let validate =
            |body: Vec<u8>| validate_with(&body, check_create, check_update, check_delete);

        let answer = validate(review("CREATE", Some(widget(json!({}))), None));
        assert_eq!(answer["response"]["allowed"], true, "{answer}");
        assert_eq!(
            answer["response"]["warnings"],
            json!(["spec.replicas is not set"])
        );

        let old = widget(json!({"image": "memcached:1.6"}));
        let answer = validate(review("UPDATE", Some(old.clone()), Some(old.clone())));
        assert_eq!(answer["response"]["allowed"], true, "{answer}");
        assert!(answer["response"].get("warnings").is_none(), "{answer}");
        let new = widget(json!({"image": "memcached:1.7"}));
        let answer = validate(review("UPDATE", Some(new), Some(old.clone())));
        assert_eq!(denial(&answer, 403), "spec.image is immutable");

        let answer = validate(review("DELETE", None, Some(old.clone())));
        assert_eq!(denial(&answer, 403), "sample is protected");

        let answer = validate(review("CONNECT", None, None));
        assert_eq!(answer["response"]["allowed"], true, "{answer}");
    }

    #[test]
    fn malformed_reviews_are_answered_with_code_400() {
        let both = |body: &[u8]| {
            [
                mutate_with(body, set_defaults),
                validate_with(body, check_create, check_update, check_delete),
            ]
        };

        for answer in both(b"{not json") {
            assert!(denial(&answer, 400).starts_with("cannot decode the AdmissionReview"));
            assert_eq!(answer["response"]["uid"], "");
            assert_eq!(answer["apiVersion"], "admission.k8s.io/v1");
        }

        let no_request = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"});
        for answer in both(no_request.to_string().as_bytes()) {
            assert_eq!(denial(&answer, 400), "the AdmissionReview has no request");
        }

        let mut other_kind: Value =
            serde_json::from_slice(&review("CREATE", Some(widget(json!({}))), None)).unwrap();
        other_kind["request"]["kind"] = json!({"group": "", "version": "v1", "kind": "Pod"});
        for answer in both(other_kind.to_string().as_bytes()) {
            assert_eq!(
                denial(&answer, 400),
                "this webhook reviews test.example.com/v1 Widget, not /v1 Pod"
            );
            assert_eq!(answer["response"]["uid"], UID, "the uid is kept");
        }

        let bad_spec = review("CREATE", Some(widget(json!({"replicas": "three"}))), None);
        for answer in both(&bad_spec) {
            let message = denial(&answer, 400);
            assert!(
                message.starts_with("cannot decode the request object: "),
                "{message}"
            );
            assert_eq!(answer["response"]["uid"], UID, "the uid is kept");
        }

        for answer in both(&review("CREATE", None, None)) {
            assert_eq!(denial(&answer, 400), "the request has no object");
        }
        let answer = validate_with(
            &review("UPDATE", Some(widget(json!({}))), None),
            check_create,
            check_update,
            check_delete,
        );
        assert_eq!(denial(&answer, 400), "the request has no oldObject");
    }

    #[test]
    fn registered_paths_are_unique() {
        let mut paths = HashSet::new();
        for route in WIDGET.routes {
            assert!(route.path.starts_with('/'), "{}", route.path);
            assert_ne!(route.path, CONVERSION_PATH, "the conversion webhook's path");
            assert!(
                paths.insert(route.path),
                "{} is registered twice",
                route.path
            );
        }
        // Panics on an invalid or duplicate path.
        let _ = router(&[WIDGET]);
    }

    #[test]
    fn the_server_runs_only_with_webhooks_enabled() {
        assert!(!should_serve(&[], true));
        assert!(!should_serve(&[WIDGET], false));
        assert!(should_serve(&[WIDGET], true));
    }

    /// A raw HTTP/1.1 POST of `body` to `path`.
    fn post(path: &str, content_type: &str, body: &[u8]) -> Vec<u8> {
        let mut request = format!(
            "POST {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\
             Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        request.extend_from_slice(body);
        request
    }

    /// The status line and the JSON body of a raw HTTP response.
    fn split(response: &str) -> (&str, Value) {
        let (head, body) = response.split_once("\r\n\r\n").expect("headers end");
        assert!(
            head.to_ascii_lowercase()
                .contains("content-type: application/json"),
            "{head}"
        );
        let status = head.lines().next().expect("status line");
        (status, serde_json::from_str(body).expect("JSON body"))
    }

    #[tokio::test]
    async fn webhooks_are_served_over_https() {
        let certificate = server::tls::self_signed().expect("self-signed certificate");
        let trusted = certificate.cert[0].clone();
        let acceptor = server::tls::acceptor(Arc::new(SingleCertAndKey::from(certificate)))
            .expect("TLS acceptor");
        let listener = server::bind("webhook", "127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("local address");
        let shutdown = CancellationToken::new();
        let server = server::serve(
            "webhook",
            listener,
            Some(acceptor),
            router(&[WIDGET]),
            shutdown.clone(),
        );
        let send = |request: Vec<u8>| {
            let trusted = trusted.clone();
            async move { https_request(address, trusted, &request).await }
        };

        let body = review("CREATE", Some(widget(json!({"replicas": 2}))), None);
        let (alpn, response) = send(post(DEFAULTING_PATH, "application/json", &body)).await;
        assert_eq!(alpn.as_deref(), Some(&b"http/1.1"[..]), "HTTP/2 is off");
        let (status, answer) = split(&response);
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert_eq!(answer["response"]["allowed"], true, "{answer}");
        let expected: Patch = serde_json::from_value(json!([
            {"op": "add", "path": "/metadata/labels", "value": {"app": "widget"}},
        ]))
        .expect("a JSON patch");
        assert_eq!(patch_of(&answer), expected);

        let body = review("CREATE", Some(widget(json!({"replicas": 4}))), None);
        let (_, response) = send(post(VALIDATION_PATH, "application/json", &body)).await;
        let (status, answer) = split(&response);
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert_eq!(
            denial(&answer, 403),
            "spec.replicas must be at most 3, not 4"
        );

        let (_, response) = send(post(VALIDATION_PATH, "text/plain", &body)).await;
        let (status, answer) = split(&response);
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert_eq!(
            denial(&answer, 400),
            r#"contentType="text/plain", expected application/json"#
        );

        let body = conversion_review("test.example.com/v2", vec![widget(json!({}))]);
        let (_, response) = send(post(CONVERSION_PATH, "application/json", &body)).await;
        let (status, answer) = split(&response);
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert_eq!(
            answer["response"]["result"]["status"], "Success",
            "{answer}"
        );
        assert_eq!(answer["response"]["convertedObjects"][0]["spec"]["size"], 1);

        let (_, response) = send(post("/mutate-other", "application/json", &body)).await;
        assert!(response.starts_with("HTTP/1.1 404"), "{response}");
        let get = b"GET /mutate-test-example-com-v1-widget HTTP/1.1\r\nHost: localhost\r\n\
                    Connection: close\r\n\r\n";
        let (_, response) = send(get.to_vec()).await;
        assert!(response.starts_with("HTTP/1.1 405"), "{response}");

        shutdown.cancel();
        timeout(Duration::from_secs(5), server)
            .await
            .expect("server stops on shutdown")
            .expect("server task");
    }

    fn conversion_review(desired: &str, objects: Vec<Value>) -> Vec<u8> {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "ConversionReview",
            "request": {"uid": UID, "desiredAPIVersion": desired, "objects": objects},
        })
        .to_string()
        .into_bytes()
    }

    #[test]
    fn objects_are_converted_through_the_hub() {
        let conversions = [WIDGET.conversion.expect("Widget converts")];
        let mut v1 = widget(json!({"replicas": 3, "image": "memcached:1.6"}));
        v1["metadata"]["labels"] = json!({"app": "widget"});
        let mut v2 = v1.clone();
        v2["apiVersion"] = json!("test.example.com/v2");
        v2["spec"] = json!({"size": 3, "image": "memcached:1.6"});

        let answer = convert(
            &conversion_review("test.example.com/v2", vec![v1.clone(), v2.clone()]),
            &conversions,
        );
        assert_eq!(answer["kind"], "ConversionReview");
        assert_eq!(answer["apiVersion"], "apiextensions.k8s.io/v1");
        let response = &answer["response"];
        assert_eq!(response["uid"], UID);
        assert_eq!(response["result"]["status"], "Success", "{answer}");
        assert_eq!(response["convertedObjects"], json!([v2, v2]));

        let answer = convert(
            &conversion_review("test.example.com/v1", vec![v2]),
            &conversions,
        );
        assert_eq!(answer["response"]["convertedObjects"], json!([v1]));
    }

    #[test]
    fn a_failed_conversion_fails_the_whole_review() {
        let conversions = [WIDGET.conversion.expect("Widget converts")];
        let mut pod = widget(json!({}));
        pod["apiVersion"] = json!("v1");
        pod["kind"] = json!("Pod");
        let cases = [
            (
                conversion_review("test.example.com/v3", vec![widget(json!({}))]),
                "cannot convert a Widget to test.example.com/v3",
            ),
            (
                conversion_review("test.example.com/v2", vec![widget(json!({})), pod]),
                "no conversion for v1 Pod",
            ),
        ];
        for (body, message) in cases {
            let answer = convert(&body, &conversions);
            let response = &answer["response"];
            assert_eq!(response["uid"], UID);
            assert_eq!(response["result"]["status"], "Failure", "{answer}");
            assert_eq!(response["result"]["message"], message);
            assert_eq!(response["convertedObjects"], json!([]));
        }

        let answer = convert(b"[]", &conversions);
        assert_eq!(answer["response"]["result"]["status"], "Failure");
        let message = answer["response"]["result"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("cannot decode the ConversionReview"),
            "{message}"
        );
    }
}
