//! Admission and conversion webhooks served by the test process, called by the API server,
//! as controller-runtime's `WebhookInstallOptions` does: the configurations that point at an
//! in-cluster Service are rewritten to `https://127.0.0.1:<port><path>` with a CA bundle.
//!
//! Tests that share one API server (one control plane per test binary) each scope their
//! webhooks to what they own: [`LocalWebhooks::for_namespace`] (a `namespaceSelector` on the
//! namespace's `kubernetes.io/metadata.name` label) or, for cluster-scoped kinds,
//! [`LocalWebhooks::for_label`] (an `objectSelector`). A scoped instance installs the
//! configurations under names of its own, so two tests never overwrite each other's.

use std::{
    path::{Path, PathBuf},
    sync::Mutex,
    time::{Duration, Instant},
};

use base64::{Engine, engine::general_purpose::STANDARD};
use k8s_openapi::{
    api::admissionregistration::v1::{
        MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
    },
    apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
};
use kube::{
    Api, Client,
    api::{DeleteParams, Patch, PatchParams},
};
use rcgen::{CertificateParams, DnType, ExtendedKeyUsagePurpose, KeyPair};
use serde_json::{Value, json};

use crate::{Error, apply};

const FIELD_MANAGER: &str = "opgen-envtest";
const ACTIVE_TIMEOUT: Duration = Duration::from_secs(30);

/// Webhooks of a server on a loopback port of this process, as the API server sees them.
///
/// [`new`](LocalWebhooks::new) picks the port and writes a serving certificate (`tls.crt`,
/// `tls.key` in [`cert_dir`](LocalWebhooks::cert_dir)); [`install`](LocalWebhooks::install)
/// and [`convert`](LocalWebhooks::convert) point admission webhooks and CRD conversions at
/// it; the test then serves its webhooks on [`address`](LocalWebhooks::address) with that
/// certificate.
pub struct LocalWebhooks {
    port: u16,
    dir: PathBuf,
    ca_pem: String,
    scope: Scope,
    /// (kind, name) of each configuration [`install`](LocalWebhooks::install) applied.
    installed: Mutex<Vec<(String, String)>>,
}

/// Which objects the admission webhooks of a [`LocalWebhooks`] are called for.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Scope {
    /// What the configurations select, unchanged.
    Cluster,
    /// Only objects in this namespace (and the namespace itself).
    Namespace(String),
    /// Only objects with this label.
    Label(String, String),
}

impl LocalWebhooks {
    /// A free loopback port and a certificate for it. Nothing serves the port yet. The
    /// configurations [`install`](LocalWebhooks::install) applies keep their names and
    /// selectors: they apply to the whole API server (see
    /// [`for_namespace`](LocalWebhooks::for_namespace) for tests that share one).
    pub fn new() -> Result<Self, Error> {
        Self::with_scope(Scope::Cluster)
    }

    /// Like [`new`](LocalWebhooks::new), but the admission webhooks are called only for
    /// objects in `namespace`: each webhook's `namespaceSelector` also requires the namespace's
    /// `kubernetes.io/metadata.name` label, and each configuration is named
    /// `<name>-<namespace>`. Other tests on the same API server, in other namespaces, never
    /// meet these webhooks.
    pub fn for_namespace(namespace: &str) -> Result<Self, Error> {
        Self::with_scope(Scope::Namespace(namespace.to_owned()))
    }

    /// Like [`new`](LocalWebhooks::new), but the admission webhooks are called only for
    /// objects labelled `key: value` (each webhook's `objectSelector` also requires it; give
    /// the test's objects the label with [`select`](LocalWebhooks::select)), and each
    /// configuration is named `<name>-<value>`. For cluster-scoped kinds, which a
    /// namespace cannot scope.
    pub fn for_label(key: &str, value: &str) -> Result<Self, Error> {
        Self::with_scope(Scope::Label(key.to_owned(), value.to_owned()))
    }

    fn with_scope(scope: Scope) -> Result<Self, Error> {
        let [port] = crate::ports::free_ports()?;
        static COUNT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "opgen-envtest-webhooks-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let ca_pem = write_certificate(&dir)?;
        Ok(LocalWebhooks {
            port,
            dir,
            ca_pem,
            scope,
            installed: Mutex::new(Vec::new()),
        })
    }

    /// Makes `object` one these webhooks are called for: gives it the label of a
    /// [`for_label`](LocalWebhooks::for_label) scope. (Other scopes need nothing: apply the
    /// object in the namespace.)
    pub fn select(&self, object: &mut Value) {
        if let Scope::Label(key, value) = &self.scope {
            let metadata = &mut object["metadata"];
            if !metadata["labels"].is_object() {
                metadata["labels"] = json!({});
            }
            metadata["labels"][key] = value.clone().into();
        }
    }

    /// Applies the Mutating/ValidatingWebhookConfigurations of `manifests` (such as the
    /// `config/webhook/manifests.yaml` that `opgen manifests` writes), each webhook's
    /// Service reference replaced by this address and its path, and each webhook and name
    /// scoped as this instance was made (see [`for_namespace`](LocalWebhooks::for_namespace)).
    pub async fn install(&self, client: &Client, manifests: impl AsRef<Path>) -> Result<(), Error> {
        let manifests = manifests.as_ref();
        let mut configurations = Vec::new();
        for mut document in apply::parse_documents(manifests)? {
            let kind = document["kind"].as_str().unwrap_or_default().to_owned();
            if !kind.ends_with("WebhookConfiguration") {
                continue;
            }
            if let Some(hooks) = document["webhooks"].as_array_mut() {
                for hook in hooks {
                    let path = hook["clientConfig"]["service"]["path"]
                        .as_str()
                        .unwrap_or("/")
                        .to_owned();
                    hook["clientConfig"] = self.client_config(&path);
                    self.scope_hook(hook);
                }
            }
            let name = document["metadata"]["name"].as_str().unwrap_or_default();
            let name = match &self.scope {
                Scope::Cluster => name.to_owned(),
                Scope::Namespace(suffix) | Scope::Label(_, suffix) => {
                    format!("{name}-{}", name_part(suffix))
                }
            };
            document["metadata"]["name"] = name.clone().into();
            lock(&self.installed).push((kind, name));
            configurations.push(document);
        }
        if configurations.is_empty() {
            return Err(Error::Yaml {
                path: manifests.to_owned(),
                message: "holds no webhook configuration".into(),
            });
        }
        let params = PatchParams::apply(FIELD_MANAGER).force();
        apply::apply_documents(client, configurations, "default", &params, manifests).await?;
        Ok(())
    }

    /// Deletes the configurations [`install`](LocalWebhooks::install) applied, so that the
    /// API server stops calling this address (a test that stops serving its webhooks and
    /// shares the API server with others calls this before it ends).
    pub async fn uninstall(&self, client: &Client) -> Result<(), Error> {
        let installed = std::mem::take(&mut *lock(&self.installed));
        for (kind, name) in installed {
            let deleted = if kind == "MutatingWebhookConfiguration" {
                Api::<MutatingWebhookConfiguration>::all(client.clone())
                    .delete(&name, &DeleteParams::default())
                    .await
                    .map(|_| ())
            } else {
                Api::<ValidatingWebhookConfiguration>::all(client.clone())
                    .delete(&name, &DeleteParams::default())
                    .await
                    .map(|_| ())
            };
            match deleted {
                Ok(()) => {}
                Err(kube::Error::Api(status)) if status.code == 404 => {}
                Err(e) => return Err(Error::kube(format!("deleting {kind} {name}"), e)),
            }
        }
        Ok(())
    }

    /// Adds this instance's scope to one webhook of a configuration.
    fn scope_hook(&self, hook: &mut Value) {
        let (selector, key, value) = match &self.scope {
            Scope::Cluster => return,
            Scope::Namespace(namespace) => (
                "namespaceSelector",
                "kubernetes.io/metadata.name",
                namespace,
            ),
            Scope::Label(key, value) => ("objectSelector", key.as_str(), value),
        };
        if !hook[selector].is_object() {
            hook[selector] = json!({});
        }
        if !hook[selector]["matchLabels"].is_object() {
            hook[selector]["matchLabels"] = json!({});
        }
        hook[selector]["matchLabels"][key] = value.clone().into();
    }

    /// Has the API server convert the objects of the CRD `crd` (by name) between its
    /// versions by calling `/convert` at this address.
    pub async fn convert(&self, client: &Client, crd: &str) -> Result<(), Error> {
        let patch = json!({"spec": {"conversion": {
            "strategy": "Webhook",
            "webhook": {
                "clientConfig": self.client_config("/convert"),
                "conversionReviewVersions": ["v1"],
            },
        }}});
        Api::<CustomResourceDefinition>::all(client.clone())
            .patch(crd, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .map_err(|e| {
                Error::kube(
                    format!("pointing the conversion of CRD {crd} at this process"),
                    e,
                )
            })?;
        Ok(())
    }

    fn client_config(&self, path: &str) -> Value {
        json!({
            "url": format!("https://127.0.0.1:{}{path}", self.port),
            "caBundle": STANDARD.encode(&self.ca_pem),
        })
    }

    /// Where to serve the webhooks: `127.0.0.1:<port>`.
    pub fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The directory with the serving certificate `tls.crt` and its key `tls.key`.
    pub fn cert_dir(&self) -> &Path {
        &self.dir
    }

    /// The CA that signed the serving certificate, as the configurations' `caBundle` holds it.
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// Waits until the API server sends `object` (server-side applied as a dry run) to the
    /// webhooks: until, with nothing serving yet, it refuses the object because it cannot
    /// call them. Call it before starting the server; afterwards every request goes
    /// through the webhooks. (The API server picks up new configurations asynchronously.)
    pub async fn wait_until_called(
        &self,
        client: &Client,
        object: Value,
        namespace: &str,
    ) -> Result<(), Error> {
        let mut params = PatchParams::apply(FIELD_MANAGER).force();
        params.dry_run = true;
        let deadline = Instant::now() + ACTIVE_TIMEOUT;
        loop {
            let outcome =
                apply::apply_documents(client, vec![object.clone()], namespace, &params, &self.dir)
                    .await;
            match outcome {
                Err(e) if e.to_string().contains("failed calling webhook") => return Ok(()),
                _ if Instant::now() > deadline => {
                    return Err(Error::Timeout {
                        what: format!(
                            "the API server to call the webhooks at {} (last outcome: {})",
                            self.address(),
                            match outcome {
                                Ok(_) => "admitted without calling them".to_owned(),
                                Err(e) => e.to_string(),
                            }
                        ),
                        seconds: ACTIVE_TIMEOUT.as_secs(),
                    });
                }
                _ => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    }
}

impl Drop for LocalWebhooks {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// `text` as part of an object name: lowercase alphanumerics and `-`.
fn name_part(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// Writes a serving certificate for 127.0.0.1 and localhost signed by a new CA; returns the
/// CA's PEM.
fn write_certificate(dir: &Path) -> Result<String, Error> {
    let ca = crate::certs::ca("opgen-envtest-webhook-ca")?;
    let key = KeyPair::generate()?;
    let mut params = CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])?;
    params
        .distinguished_name
        .push(DnType::CommonName, "opgen-envtest-webhook");
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let cert = params.signed_by(&key, &ca)?;
    for (name, pem) in [("tls.crt", cert.pem()), ("tls.key", key.serialize_pem())] {
        let path = dir.join(name);
        std::fs::write(&path, pem).map_err(|e| Error::io(&path, e))?;
    }
    Ok(ca.pem())
}
