//! `WebhookGenerator`: Mutating- and ValidatingWebhookConfigurations from
//! `+kubebuilder:webhook` markers (controller-gen spec §9).

use crate::diag::{Diagnostic, Diagnostics};
use crate::markers::typed::{self, Typed, WebhookMarker};
use crate::model::{ItemMarker, Model};
use serde_json::{Map, Value, json};

const DEFAULT_MUTATING: &str = "mutating-webhook-configuration";
const DEFAULT_VALIDATING: &str = "validating-webhook-configuration";

struct Webhook {
    mutating: bool,
    name: String,
    object: Value,
}

/// The configuration objects (mutating first), or none when no marker asks for a webhook.
pub fn generate(model: &Model<'_>, diags: &mut Diagnostics) -> Vec<Value> {
    let mut webhooks = Vec::new();
    let mut names = [None::<(String, &ItemMarker)>, None];
    for im in &model.item_markers {
        let Typed::Webhook(marker) = &im.marker.typed else {
            continue;
        };
        match marker {
            WebhookMarker::Webhook(marker) => match webhook(marker) {
                Ok(w) => webhooks.push(w),
                Err(msg) => diags
                    .push(Diagnostic::error(msg).at(model.marker_location(im.file, &im.marker))),
            },
            WebhookMarker::WebhookConfiguration(config) => {
                let mutating = config.mutating;
                let slot = &mut names[usize::from(!mutating)];
                if let Some((_, first)) = slot {
                    let at = model.marker_location(first.file, &first.marker);
                    diags.push(
                        Diagnostic::error(format!(
                            "a second {} webhook configuration name; the first is at {}:{}",
                            if mutating { "mutating" } else { "validating" },
                            at.file.display(),
                            at.line
                        ))
                        .at(model.marker_location(im.file, &im.marker)),
                    );
                } else if let Some(name) = &config.name {
                    *slot = Some((name.clone(), im));
                }
            }
        }
    }
    // Stable sort: equal names keep source order, as controller-gen does.
    webhooks.sort_by(|a, b| a.name.cmp(&b.name));
    let mut out = Vec::new();
    for (mutating, kind, default) in [
        (true, "MutatingWebhookConfiguration", DEFAULT_MUTATING),
        (false, "ValidatingWebhookConfiguration", DEFAULT_VALIDATING),
    ] {
        let entries: Vec<Value> = webhooks
            .iter()
            .filter(|w| w.mutating == mutating)
            .map(|w| w.object.clone())
            .collect();
        if entries.is_empty() {
            continue;
        }
        let name = names[usize::from(!mutating)]
            .as_ref()
            .map_or(default, |(n, _)| n.as_str());
        out.push(json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": kind,
            "metadata": {"name": name},
            "webhooks": entries,
        }));
    }
    out
}

fn one_of<'v>(value: &str, options: &[&'v str]) -> Option<&'v str> {
    options
        .iter()
        .find(|o| o.eq_ignore_ascii_case(value))
        .copied()
}

fn webhook(a: &typed::Webhook) -> Result<Webhook, String> {
    let mutating = a.mutating;
    let config = if mutating {
        "MutatingWebhookConfiguration"
    } else {
        "ValidatingWebhookConfiguration"
    };
    for v in a.webhook_versions.iter().flatten() {
        if v != "v1" {
            return Err(format!("unsupported webhook version: {v}"));
        }
    }
    let side_effects = match a.side_effects.as_deref().unwrap_or("") {
        s if s.eq_ignore_ascii_case("some") || s.eq_ignore_ascii_case("unknown") => {
            return Err(format!("SideEffects should not be set to `Some` or `Unknown` for v1 {config}"));
        }
        s => one_of(s, &["None", "NoneOnDryRun"])
            .ok_or_else(|| format!("SideEffects is required for a v1 {config}: use sideEffects=None or sideEffects=NoneOnDryRun"))?,
    };
    let mut w = Map::new();
    w.insert(
        "admissionReviewVersions".into(),
        json!(a.admission_review_versions),
    );
    let client = match (&a.path, &a.url) {
        (Some(path), None) => {
            let mut service = Map::new();
            service.insert(
                "name".into(),
                json!(a.service_name.as_deref().unwrap_or("webhook-service")),
            );
            service.insert(
                "namespace".into(),
                json!(a.service_namespace.as_deref().unwrap_or("system")),
            );
            service.insert("path".into(), json!(path));
            if let Some(port) = a.service_port {
                service.insert("port".into(), json!(port));
            }
            json!({"service": service})
        }
        (None, Some(url)) => json!({"url": url}),
        (Some(_), Some(_)) => return Err("a webhook takes either path or url, not both".into()),
        (None, None) => {
            return Err(
                "a webhook needs path (served by the manager's webhook Service) or url".into(),
            );
        }
    };
    w.insert("clientConfig".into(), client);
    let failure = a.failure_policy.as_str();
    w.insert(
        "failurePolicy".into(),
        json!(one_of(failure, &["Ignore", "Fail"]).unwrap_or(failure)),
    );
    if let Some(policy) = a.match_policy.as_deref().filter(|p| !p.is_empty()) {
        let p = one_of(policy, &["Exact", "Equivalent"])
            .ok_or_else(|| format!("matchPolicy {policy:?} must be Exact or Equivalent"))?;
        w.insert("matchPolicy".into(), json!(p));
    }
    let name = a.name.clone();
    w.insert("name".into(), json!(name));
    if mutating && let Some(policy) = a.reinvocation_policy.as_deref() {
        let p = one_of(policy, &["Never", "IfNeeded"])
            .ok_or_else(|| format!("reinvocationPolicy {policy:?} must be Never or IfNeeded"))?;
        w.insert("reinvocationPolicy".into(), json!(p));
    }
    let groups: Vec<&str> = a
        .groups
        .iter()
        .map(|g| if g == "core" { "" } else { g.as_str() })
        .collect();
    let operations: Vec<String> = a
        .verbs
        .iter()
        .map(|v| {
            one_of(v, &["create", "update", "delete", "connect", "*"])
                .map_or(v.clone(), str::to_uppercase)
        })
        .collect();
    w.insert(
        "rules".into(),
        json!([{
            "apiGroups": groups,
            "apiVersions": a.versions,
            "operations": operations,
            "resources": a.resources,
        }]),
    );
    w.insert("sideEffects".into(), json!(side_effects));
    match a.timeout_seconds {
        None | Some(0) => {}
        Some(t @ 1..=30) => {
            w.insert("timeoutSeconds".into(), json!(t));
        }
        Some(_) => return Err("TimeoutSeconds must be between 1 and 30 seconds".into()),
    }
    let mut object = Value::Object(w);
    if let Some(patch) = &a.patch {
        let patch: Value =
            serde_json::from_str(patch).map_err(|e| format!("patch is not valid JSON: {e}"))?;
        merge_patch(&mut object, &patch);
    }
    Ok(Webhook {
        mutating,
        name,
        object,
    })
}

/// RFC 7386 merge patch: what the selectors and matchConditions of a `patch=` need.
fn merge_patch(target: &mut Value, patch: &Value) {
    match (target, patch) {
        (Value::Object(t), Value::Object(p)) => {
            for (k, v) in p {
                if v.is_null() {
                    t.remove(k);
                } else {
                    merge_patch(t.entry(k.clone()).or_insert(Value::Null), v);
                }
            }
        }
        (t, p) => *t = p.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_patch_adds_replaces_and_removes() {
        let mut v = json!({"a": {"b": 1, "c": 2}, "d": [1]});
        merge_patch(&mut v, &json!({"a": {"b": null, "e": 3}, "d": [2]}));
        assert_eq!(v, json!({"a": {"c": 2, "e": 3}, "d": [2]}));
    }
}
