use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::{
    Api, Client,
    api::{DynamicObject, GroupVersionKind, Patch, PatchParams},
    discovery::{self, Scope},
    runtime::{conditions, wait::await_condition},
};

use crate::Error;

const FIELD_MANAGER: &str = "opgen-envtest";
const ESTABLISHED_TIMEOUT: Duration = Duration::from_secs(30);

/// The objects of a YAML file (documents separated by `---`; empty documents skipped).
pub fn parse_documents(path: impl AsRef<Path>) -> Result<Vec<serde_json::Value>, Error> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse_documents_of(path, &text)
}

/// [`parse_documents`] of `text`, read from `path`.
pub(crate) fn parse_documents_of(path: &Path, text: &str) -> Result<Vec<serde_json::Value>, Error> {
    let documents: Vec<serde_json::Value> =
        serde_saphyr::from_multiple(text).map_err(|e| Error::Yaml {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
    Ok(documents.into_iter().filter(|d| !d.is_null()).collect())
}

/// Server-side applies every CustomResourceDefinition in `path` (a YAML file, or a directory
/// whose `.yaml`/`.yml` files are read in name order) and waits until each is Established
/// and its served versions are listed by discovery. The Established condition's time is set
/// long ago, so that the API server does not hold the first creates (see
/// [`ESTABLISHED_LONG_AGO`]).
pub async fn install_crds(
    client: &Client,
    path: impl AsRef<Path>,
) -> Result<Vec<CustomResourceDefinition>, Error> {
    let mut documents = Vec::new();
    for file in yaml_files(path.as_ref())? {
        for document in parse_documents(&file)? {
            if document.get("kind").and_then(|k| k.as_str()) == Some("CustomResourceDefinition") {
                documents.push((file.clone(), document));
            }
        }
    }
    if documents.is_empty() {
        return Err(Error::Yaml {
            path: path.as_ref().to_owned(),
            message: "holds no CustomResourceDefinition".into(),
        });
    }
    install_crd_documents(client, documents).await
}

/// [`install_crds`] of CustomResourceDefinition documents, each with the file it was read from.
pub(crate) async fn install_crd_documents(
    client: &Client,
    documents: Vec<(PathBuf, serde_json::Value)>,
) -> Result<Vec<CustomResourceDefinition>, Error> {
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let params = PatchParams::apply(FIELD_MANAGER).force();
    let mut installed = Vec::new();
    for (file, document) in documents {
        let crd: CustomResourceDefinition =
            serde_json::from_value(document).map_err(|e| Error::Yaml {
                path: file.clone(),
                message: format!("not a CustomResourceDefinition: {e}"),
            })?;
        let name = crd.metadata.name.clone().unwrap_or_default();
        let applied = crds
            .patch(&name, &params, &Patch::Apply(&crd))
            .await
            .map_err(|e| Error::kube(format!("applying CRD {name} from {}", file.display()), e))?;
        installed.push(applied);
    }
    for crd in &installed {
        let name = crd.metadata.name.clone().unwrap_or_default();
        let established = await_condition(crds.clone(), &name, conditions::is_crd_established());
        match tokio::time::timeout(ESTABLISHED_TIMEOUT, established).await {
            Ok(Ok(Some(now))) => backdate_established(&crds, &now).await?,
            Ok(Ok(None)) => {}
            Ok(Err(e)) => {
                return Err(Error::Config(format!("watching CRD {name}: {e}")));
            }
            Err(_) => {
                return Err(Error::Timeout {
                    what: format!("CRD {name} to be Established"),
                    seconds: ESTABLISHED_TIMEOUT.as_secs(),
                });
            }
        }
    }
    // Established does not mean discoverable yet: wait, as controller-runtime's envtest
    // does, until discovery lists each served version's resource.
    for crd in &installed {
        let plural = &crd.spec.names.plural;
        for version in crd.spec.versions.iter().filter(|v| v.served) {
            let api_version = format!("{}/{}", crd.spec.group, version.name);
            let deadline = tokio::time::Instant::now() + ESTABLISHED_TIMEOUT;
            loop {
                let listed = client.list_api_group_resources(&api_version).await;
                if listed.is_ok_and(|list| list.resources.iter().any(|r| &r.name == plural)) {
                    break;
                }
                if tokio::time::Instant::now() > deadline {
                    return Err(Error::Timeout {
                        what: format!("{plural} to be discoverable in {api_version}"),
                        seconds: ESTABLISHED_TIMEOUT.as_secs(),
                    });
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
    Ok(installed)
}

/// When the Established condition of a CRD says: long ago, on a control plane of one API
/// server. The API server holds every create of a custom resource for two seconds while that
/// condition is younger than two seconds (kubernetes/kubernetes#99199: another API server of
/// an HA control plane may not serve the resource yet), which here only slows each test
/// that creates right after installing.
const ESTABLISHED_LONG_AGO: &str = "2000-01-01T00:00:00Z";

/// Sets the Established condition's time of `crd` (as just read) to [`ESTABLISHED_LONG_AGO`];
/// the condition itself is the API server's and stays as it is.
async fn backdate_established(
    crds: &Api<CustomResourceDefinition>,
    crd: &CustomResourceDefinition,
) -> Result<(), Error> {
    let name = crd.metadata.name.clone().unwrap_or_default();
    let mut status = serde_json::to_value(&crd.status).map_err(|e| Error::Config(e.to_string()))?;
    let Some(conditions) = status["conditions"].as_array_mut() else {
        return Ok(());
    };
    let Some(established) = conditions
        .iter_mut()
        .find(|c| c["type"] == "Established" && c["lastTransitionTime"] != ESTABLISHED_LONG_AGO)
    else {
        return Ok(());
    };
    established["lastTransitionTime"] = ESTABLISHED_LONG_AGO.into();
    // A merge patch replaces the whole list: every condition, as read, goes back.
    let patch = serde_json::json!({"status": {"conditions": conditions}});
    crds.patch_status(&name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .map_err(|e| Error::kube(format!("backdating CRD {name}'s Established condition"), e))?;
    Ok(())
}

/// Server-side applies every object of a YAML file, finding each kind through discovery.
/// Namespaced objects without a namespace go to `namespace`. Returns the objects as stored.
pub async fn apply_file(
    client: &Client,
    path: impl AsRef<Path>,
    namespace: &str,
) -> Result<Vec<DynamicObject>, Error> {
    let path = path.as_ref();
    let params = PatchParams::apply(FIELD_MANAGER).force();
    apply_documents(client, parse_documents(path)?, namespace, &params, path).await
}

/// Server-side applies `documents` (Kubernetes objects as JSON) with `params` (for example
/// with `dry_run` set, to have the server validate without storing). `source` names where
/// they come from in errors.
pub async fn apply_documents(
    client: &Client,
    documents: Vec<serde_json::Value>,
    namespace: &str,
    params: &PatchParams,
    source: &Path,
) -> Result<Vec<DynamicObject>, Error> {
    let mut applied = Vec::new();
    for document in documents {
        let object: DynamicObject = serde_json::from_value(document).map_err(|e| Error::Yaml {
            path: source.to_owned(),
            message: e.to_string(),
        })?;
        let types = object.types.clone().ok_or_else(|| Error::Yaml {
            path: source.to_owned(),
            message: "an object without apiVersion and kind".into(),
        })?;
        let gvk = GroupVersionKind::try_from(&types).map_err(|e| Error::Yaml {
            path: source.to_owned(),
            message: e.to_string(),
        })?;
        let (resource, capabilities) = discovery::pinned_kind(client, &gvk).await.map_err(|e| {
            Error::kube(
                format!("discovering {} {}", types.api_version, types.kind),
                e,
            )
        })?;
        let name = object.metadata.name.clone().unwrap_or_default();
        let api: Api<DynamicObject> = match capabilities.scope {
            Scope::Namespaced => {
                let ns = object.metadata.namespace.as_deref().unwrap_or(namespace);
                Api::namespaced_with(client.clone(), ns, &resource)
            }
            Scope::Cluster => Api::all_with(client.clone(), &resource),
        };
        let stored = api
            .patch(&name, params, &Patch::Apply(&object))
            .await
            .map_err(|e| {
                Error::kube(
                    format!("applying {} {name} from {}", types.kind, source.display()),
                    e,
                )
            })?;
        applied.push(stored);
    }
    Ok(applied)
}

pub(crate) fn yaml_files(path: &Path) -> Result<Vec<PathBuf>, Error> {
    if !path.is_dir() {
        return Ok(vec![path.to_owned()]);
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).map_err(|e| Error::io(path, e))? {
        let entry = entry.map_err(|e| Error::io(path, e))?;
        let file = entry.path();
        let is_yaml = file
            .extension()
            .is_some_and(|ext| ext == "yaml" || ext == "yml");
        let is_kustomization = file.file_stem().is_some_and(|stem| stem == "kustomization");
        if is_yaml && !is_kustomization && file.is_file() {
            files.push(file);
        }
    }
    files.sort();
    Ok(files)
}
