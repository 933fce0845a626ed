//! The API server as referee of `opgen diff` (`compat`). For each pair of CRDs the old one is
//! installed and objects valid under it are stored (a case's own, and one per served version
//! with every field set when the old CRD accepts it), the new CRD replaces it, and each object
//! is read back, updated without change and created again under a new name; a CRD with a
//! status subresource also has its /status read. A *breaking* verdict (at wire strictness)
//! must show a refusal or lost data there, a *compatible* one none; a *possibly breaking* one
//! may do either, and what it did is printed.
//!
//! The pairs: tests/fixtures/diff/pairs/ (one change each), and the CRDs of consecutive
//! releases of gateway-api, source-controller, cert-manager, cluster-api and kueue (`support::RELEASE_PAIRS`), each
//! moved to a group of its own so that all run at once on one API server.
//!
//! Without the control plane the tests print one line and pass; under CI it must be there.

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Client;
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, PostParams};
use opgen::compat::{self, Severity, Strictness};
use serde_json::{Value, json};

fn documents(path: &Path) -> Vec<Value> {
    opgen_envtest::parse_documents(path).unwrap()
}

/// What the API server did with the stored objects once the new CRD was applied.
enum Outcome {
    Clean { objects: usize },
    Refused(String),
    Lost(String),
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Clean { objects } => write!(f, "clean ({objects} objects)"),
            Outcome::Refused(what) => write!(f, "refused: {what}"),
            Outcome::Lost(what) => write!(f, "lost: {what}"),
        }
    }
}

/// One pair to referee: the CRDs, objects valid under the old one, where it comes from.
struct Pair {
    what: String,
    old: Value,
    new: Value,
    objects: Vec<Value>,
    /// Objects kept only where the old CRD accepts them (a project's samples).
    samples: Vec<Value>,
}

/// Whether `e` is the API server busy or briefly behind (throttled, a 5xx, a dropped
/// connection) rather than its answer to the request: a loaded 2-core machine sees these.
fn transient(e: &kube::Error) -> bool {
    match e {
        kube::Error::Api(status) => matches!(status.code, 429 | 500 | 503 | 504),
        kube::Error::HyperError(_) | kube::Error::Service(_) => true,
        _ => false,
    }
}

/// `request`'s answer, asked again while the API server answers with a transient error (for
/// up to a minute), so that only its answers to the request decide a verdict.
async fn answer<T, F: Future<Output = kube::Result<T>>>(
    mut request: impl FnMut() -> F,
) -> kube::Result<T> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        match request().await {
            Err(e) if transient(&e) && tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            answered => return answered,
        }
    }
}

/// The API of `object`'s kind version under `crd`.
fn api_for(client: &Client, crd: &Value, object: &Value) -> Api<DynamicObject> {
    let api_version = object["apiVersion"].as_str().unwrap();
    let (group, version) = api_version.split_once('/').unwrap();
    let gvk = GroupVersionKind::gvk(group, version, object["kind"].as_str().unwrap());
    let resource =
        ApiResource::from_gvk_with_plural(&gvk, crd["spec"]["names"]["plural"].as_str().unwrap());
    if crd["spec"]["scope"] == "Cluster" {
        Api::all_with(client.clone(), &resource)
    } else {
        Api::namespaced_with(client.clone(), "default", &resource)
    }
}

/// The first value of `original` that `got` lacks or holds differently (null and absent are
/// the same; fields `got` adds, such as defaults, are no loss, but a null that reads back as
/// a value is).
fn lost(original: &Value, got: &Value, path: &str) -> Option<String> {
    match original {
        Value::Object(fields) => fields.iter().find_map(|(k, v)| {
            if path.is_empty() && matches!(k.as_str(), "apiVersion" | "kind" | "metadata") {
                return None;
            }
            lost(v, &got[k], &format!("{path}.{k}"))
        }),
        Value::Null if got.is_null() => None,
        Value::Number(n) if got.as_f64() == n.as_f64() => None,
        _ if original == got => None,
        _ => Some(format!("{path}: {original} read back as {got}")),
    }
}

/// Objects with every field set, one per served version of `crd`, named `every-field-<v>`.
fn every_field_objects(crd: &Value, scratch: &Path) -> Vec<Value> {
    let file = scratch.join(format!(
        "{}.json",
        crd["metadata"]["name"].as_str().unwrap()
    ));
    std::fs::write(&file, crd.to_string()).unwrap();
    let versions = crd["spec"]["versions"].as_array().unwrap();
    versions
        .iter()
        .filter(|v| v["served"] == true)
        .map(|v| {
            let name = v["name"].as_str().unwrap();
            let mut o = opgen_envtest::object_with_every_field(&file, name).unwrap();
            o["metadata"] = json!({"name": format!("every-field-{name}")});
            o
        })
        .collect()
}

async fn referee(client: &Client, pair: &Pair, scratch: &Path) -> Outcome {
    let (old, new) = (&pair.old, &pair.new);
    let name = old["metadata"]["name"].as_str().unwrap();
    let file = scratch.join(format!("{name}.old.json"));
    std::fs::write(&file, old.to_string()).unwrap();
    opgen_envtest::install_crds(client, &file).await.unwrap();
    let params = PostParams::default();
    let create = async |object: &Value| {
        let o: DynamicObject = serde_json::from_value(object.clone()).unwrap();
        let api = api_for(client, old, object);
        answer(|| api.create(&params, &o)).await
    };
    // Each object as the old CRD stored it (pruned, defaulted): what must survive the change.
    let mut objects = Vec::new();
    for object in &pair.objects {
        let stored = create(object)
            .await
            .unwrap_or_else(|e| panic!("{}: the old CRD refuses {object}: {e}", pair.what));
        objects.push(serde_json::to_value(stored).unwrap());
    }
    // Samples, and generated values (which need not pass patterns, bounds or rules), are
    // kept only where valid, and only where the old CRD itself takes what it stored back: a
    // version stored as another under conversion None can lose a field it requires (kueue's
    // v1beta1 objects stored as v1beta2), which no change of the CRD is to blame for.
    let kept = async |object: &Value| {
        let stored = serde_json::to_value(create(object).await.ok()?).unwrap();
        let mut again = stored.clone();
        again["metadata"] =
            json!({"name": format!("{}-baseline", stored["metadata"]["name"].as_str()?)});
        create(&again).await.ok()?;
        Some(stored)
    };
    let optional = pair
        .samples
        .iter()
        .cloned()
        .chain(every_field_objects(old, scratch));
    for object in optional.collect::<Vec<_>>() {
        objects.extend(kept(&object).await);
    }
    // Witnesses: stored objects changed where a breaking finding says the new CRD refuses.
    for witness in witnesses(old, new, &objects) {
        objects.extend(kept(&witness).await);
    }

    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let mut replacement: CustomResourceDefinition =
        serde_json::from_value(with_canary(new)).unwrap();
    // The API server's own controllers update the CRD's status (conditions, stored versions)
    // at times of their own: a conflict is theirs, not a refusal of the change.
    loop {
        let current = answer(|| crds.get(name)).await.unwrap();
        replacement.metadata.resource_version = current.metadata.resource_version;
        match answer(|| crds.replace(name, &params, &replacement)).await {
            Ok(_) => break,
            Err(kube::Error::Api(status)) if status.is_conflict() => continue,
            Err(e) => return Outcome::Refused(format!("the CRD update: {e}")),
        }
    }
    wait_for_canary(client, new).await;

    for object in &objects {
        if let Some(outcome) = after_update(client, old, new, object).await {
            return outcome;
        }
    }
    Outcome::Clean {
        objects: objects.len(),
    }
}

/// For each breaking finding at a field outside lists and maps that one change of a value
/// shows (a field now required removed, a new minimum length, item or property count broken,
/// a new pattern or enum missed), each stored object of that version with that change.
fn witnesses(old: &Value, new: &Value, stored: &[Value]) -> Vec<Value> {
    let report = compat::compare(std::slice::from_ref(old), std::slice::from_ref(new), false);
    let mut made = Vec::new();
    for finding in &report.findings {
        let Some(path) = &finding.path else { continue };
        if finding.severity_at(Strictness::Wire) != Severity::Breaking || path.contains(['[', '*'])
        {
            continue;
        }
        let value = match (finding.rule, finding.keyword) {
            (compat::Rule::RequiredAdded, _) => None,
            (compat::Rule::BoundTightened, Some("minLength")) => Some(json!("")),
            (compat::Rule::BoundTightened, Some("minItems")) => Some(json!([])),
            (compat::Rule::BoundTightened, Some("minProperties")) => Some(json!({})),
            (compat::Rule::PatternAdded | compat::Rule::EnumAdded, _) => {
                Some(json!("opgen witness!"))
            }
            _ => continue,
        };
        let keys: Vec<&str> = path.split('.').filter(|k| !k.is_empty()).collect();
        let Some((last, parents)) = keys.split_last() else {
            continue;
        };
        for object in stored {
            let version = object["apiVersion"]
                .as_str()
                .unwrap_or_default()
                .rsplit('/')
                .next();
            if version != finding.version.as_deref() {
                continue;
            }
            let mut witness = object.clone();
            let parent = parents.iter().try_fold(&mut witness, |v, k| v.get_mut(*k));
            let Some(Value::Object(parent)) = parent else {
                continue;
            };
            match &value {
                None => parent.remove(*last),
                Some(v) => parent.insert((*last).to_owned(), v.clone()),
            };
            let name = format!(
                "{}-witness-{}",
                object["metadata"]["name"].as_str().unwrap(),
                made.len()
            );
            witness["metadata"] = json!({"name": name});
            made.push(witness);
        }
    }
    made
}

const CANARY: &str = "OpgenCanary";

/// `crd` with a printer column more in each version: the API server shows it in Tables once it
/// serves the updated CRD (columns are a client-level change: no wire verdict depends on them).
fn with_canary(crd: &Value) -> Value {
    let mut crd = crd.clone();
    for version in crd["spec"]["versions"].as_array_mut().unwrap() {
        let column = json!({"name": CANARY, "type": "string", "jsonPath": ".metadata.name"});
        match version["additionalPrinterColumns"].as_array_mut() {
            Some(columns) => columns.push(column),
            None => version["additionalPrinterColumns"] = json!([column]),
        }
    }
    crd
}

/// Waits until every served version of `crd` lists its objects with the canary column: the
/// API server's CRD handler has seen the update, and serves the new schema.
async fn wait_for_canary(client: &Client, crd: &Value) {
    let spec = &crd["spec"];
    let (group, plural) = (
        spec["group"].as_str().unwrap(),
        spec["names"]["plural"].as_str().unwrap(),
    );
    let namespace = if spec["scope"] == "Cluster" {
        ""
    } else {
        "namespaces/default/"
    };
    for version in spec["versions"].as_array().unwrap() {
        if version["served"] != true {
            continue;
        }
        let path = format!(
            "/apis/{group}/{}/{namespace}{plural}",
            version["name"].as_str().unwrap()
        );
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        loop {
            let request = http::Request::get(&path)
                .header("Accept", "application/json;as=Table;g=meta.k8s.io;v=v1")
                .body(Vec::new())
                .unwrap();
            let table = client.request_text(request).await.unwrap_or_default();
            if table.contains(CANARY) {
                break;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{path} never served the updated CRD: {table}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// One stored object under the new CRD: read, updated unchanged, created again.
async fn after_update(
    client: &Client,
    old: &Value,
    new: &Value,
    object: &Value,
) -> Option<Outcome> {
    let object_name = object["metadata"]["name"].as_str().unwrap();
    let api = api_for(client, new, object);
    let params = PostParams::default();
    let got = match answer(|| api.get(object_name)).await {
        Ok(got) => got,
        Err(e) => return Some(Outcome::Refused(format!("reading {object_name}: {e}"))),
    };
    if let Some(what) = lost(object, &serde_json::to_value(&got).unwrap(), "") {
        return Some(Outcome::Lost(format!("{object_name} read back: {what}")));
    }
    match answer(|| api.replace(object_name, &params, &got)).await {
        Ok(updated) => {
            if let Some(what) = lost(object, &serde_json::to_value(&updated).unwrap(), "") {
                return Some(Outcome::Lost(format!("{object_name} updated: {what}")));
            }
        }
        Err(e) => {
            return Some(Outcome::Refused(format!(
                "updating {object_name} unchanged: {e}"
            )));
        }
    }
    let mut copy = object.clone();
    copy["metadata"] = json!({"name": format!("{object_name}-again")});
    let copy_object: DynamicObject = serde_json::from_value(copy.clone()).unwrap();
    match answer(|| api.create(&params, &copy_object)).await {
        Ok(created) => {
            if let Some(what) = lost(&copy, &serde_json::to_value(&created).unwrap(), "") {
                return Some(Outcome::Lost(format!(
                    "{object_name} created again: {what}"
                )));
            }
        }
        Err(e) => {
            return Some(Outcome::Refused(format!(
                "creating {object_name} again: {e}"
            )));
        }
    }
    let version = object["apiVersion"].as_str().unwrap().rsplit('/').next();
    let had_status = old["spec"]["versions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|v| v["name"].as_str() == version && v["subresources"]["status"].is_object());
    if had_status && let Err(e) = answer(|| api.get_status(object_name)).await {
        return Some(Outcome::Refused(format!(
            "reading {object_name}/status: {e}"
        )));
    }
    None
}

/// Whether a breaking verdict needs its refusal or loss shown. Objects written for one change
/// show it; the generated objects of a real release pair may not touch what changed (a
/// breaking verdict says some object is refused, and a clean run with other objects cannot
/// refute that), while a compatible verdict is refuted by any object refused or changed.
#[derive(Clone, Copy, PartialEq)]
enum Witnesses {
    Written,
    Generated,
}

/// How many pairs [`judge`] referees at a time.
const PAIRS_AT_ONCE: usize = 8;

/// Referees the pairs, [`PAIRS_AT_ONCE`] at a time, and checks opgen's
/// verdicts against the outcomes.
async fn judge(pairs: Vec<Pair>, witnesses: Witnesses) {
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let client = control_plane.client().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let scratch_path = scratch.path().to_path_buf();
    // Every CRD installed at once makes the API server rebuild its OpenAPI for each while the
    // others wait to be Established: a few pairs at a time keep each install well within its
    // timeout on a loaded 2-core machine.
    let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(PAIRS_AT_ONCE));
    let handles: Vec<_> = pairs
        .into_iter()
        .map(|pair| {
            let (client, scratch, slots) = (client.clone(), scratch_path.clone(), slots.clone());
            tokio::spawn(async move {
                let _slot = slots.acquire_owned().await.unwrap();
                let outcome = referee(&client, &pair, &scratch).await;
                (pair, outcome)
            })
        })
        .collect();
    let (mut agreed, mut unshown, mut disagreements, mut table) = (0, 0, Vec::new(), String::new());
    let total = handles.len();
    for handle in handles {
        let (pair, outcome) = handle.await.unwrap();
        let verdict = compat::compare(
            std::slice::from_ref(&pair.old),
            std::slice::from_ref(&pair.new),
            false,
        )
        .verdict(Strictness::Wire);
        table.push_str(&format!(
            "{:<44} {:<18} {outcome}\n",
            pair.what,
            verdict.as_str()
        ));
        match (verdict, &outcome) {
            (Severity::Breaking, Outcome::Clean { .. }) if witnesses == Witnesses::Generated => {
                unshown += 1;
            }
            (Severity::Breaking, Outcome::Clean { .. })
            | (Severity::Compatible, Outcome::Refused(_) | Outcome::Lost(_)) => {
                disagreements.push(format!(
                    "{}: opgen says {}, the API server: {outcome}",
                    pair.what,
                    verdict.as_str()
                ));
            }
            _ => agreed += 1,
        }
    }
    // The disagreements first: a long table's end is what a truncated CI log drops.
    let contradicted = disagreements.join("\n");
    eprintln!(
        "opgen's verdicts the API server contradicts: {}\n{table}agreement with the API server: {agreed}/{total} pairs, {unshown} breaking verdicts no generated object touched",
        if contradicted.is_empty() {
            "none"
        } else {
            &contradicted
        }
    );
    assert!(
        disagreements.is_empty(),
        "opgen's verdicts the API server contradicts:\n{contradicted}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn single_changes_breaking_exactly_where_the_api_server_refuses_or_loses() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diff/pairs");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    let pairs = cases
        .iter()
        .map(|case| Pair {
            what: case.file_name().unwrap().to_string_lossy().into_owned(),
            old: documents(&case.join("old.yaml")).remove(0),
            new: documents(&case.join("new.yaml")).remove(0),
            objects: documents(&case.join("objects.yaml")),
            samples: Vec::new(),
        })
        .collect();
    judge(pairs, Witnesses::Written).await;
}

/// The samples of `crd`'s kind, moved to its group under `tag` (see [`regroup`]), in the
/// default namespace, each with a name of its own.
fn samples_of(crd: &Value, samples: &[Value], tag: &str) -> Vec<Value> {
    let group = crd["spec"]["group"].as_str().unwrap();
    samples
        .iter()
        .filter(|s| s["kind"] == crd["spec"]["names"]["kind"])
        .filter_map(|s| {
            let (g, version) = s["apiVersion"].as_str()?.split_once('/')?;
            (g == group).then_some((s, version))
        })
        .enumerate()
        .map(|(i, (s, version))| {
            let mut s = s.clone();
            s["apiVersion"] = format!("{tag}.{group}/{version}").into();
            s["metadata"] = json!({"name": format!("sample-{i}")});
            s
        })
        .collect()
}

/// `crd` moved to the group `<tag>.<group>` (names follow), so that each release pair has its
/// own copy on the API server.
fn regroup(crd: &Value, tag: &str) -> Value {
    let mut crd = crd.clone();
    // No conversion webhook runs here: versions convert as with strategy None, old and new
    // alike (what was stored under the old CRD is the baseline, so that is no loss).
    if crd["spec"]["conversion"]["strategy"] == "Webhook" {
        crd["spec"]["conversion"] = json!({"strategy": "None"});
    }
    let group = format!("{tag}.{}", crd["spec"]["group"].as_str().unwrap());
    // The annotations stay: a group under k8s.io needs api-approved.kubernetes.io.
    crd["metadata"] = json!({
        "name": format!("{}.{group}", crd["spec"]["names"]["plural"].as_str().unwrap()),
        "annotations": crd["metadata"]["annotations"].clone(),
    });
    crd["spec"]["group"] = group.into();
    crd
}

#[tokio::test(flavor = "multi_thread")]
async fn real_releases_on_the_api_server() {
    let mut pairs = Vec::new();
    for release in support::RELEASE_PAIRS {
        let Some((old_dir, new_dir)) = release.crd_dirs() else {
            return;
        };
        let tag = format!("{}-{}", release.project, release.span()).replace('.', "-");
        let samples = release.samples();
        let new_crds = support::ReleasePair::crds(&new_dir);
        for (stem, old) in support::ReleasePair::crds(&old_dir) {
            let Some((_, new)) = new_crds.iter().find(|(s, _)| *s == stem) else {
                continue;
            };
            pairs.push(Pair {
                what: format!("{} {} {stem}", release.project, release.span()),
                old: regroup(&old, &tag),
                new: regroup(new, &tag),
                objects: Vec::new(),
                samples: samples_of(&old, &samples, &tag),
            });
        }
    }
    judge(pairs, Witnesses::Generated).await;
}

/// `opgen diff cluster: <new>`: the cluster's CRDs (through kubectl and the kubeconfig) as the
/// old side; CRDs the cluster has and the new side does not are left out.
#[tokio::test(flavor = "multi_thread")]
async fn a_live_cluster_is_the_old_side() {
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let client = control_plane.client().unwrap();
    let case =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diff/pairs/field-removed");
    // A copy in a group of its own: the referee test installs and replaces the original.
    let scratch = tempfile::tempdir().unwrap();
    let old = regroup(&documents(&case.join("old.yaml"))[0], "cluster");
    let new = regroup(&documents(&case.join("new.yaml"))[0], "cluster");
    let (old_file, new_file) = (
        scratch.path().join("old.json"),
        scratch.path().join("new.json"),
    );
    std::fs::write(&old_file, old.to_string()).unwrap();
    std::fs::write(&new_file, new.to_string()).unwrap();
    opgen_envtest::install_crds(&client, &old_file)
        .await
        .unwrap();
    let run = |new: &Path| {
        std::process::Command::new(support::opgen_bin())
            .args(["diff", "cluster:"])
            .arg(new)
            .env("KUBECONFIG", control_plane.kubeconfig_path())
            .env("KUBECTL", control_plane.assets().kubectl())
            .output()
            .unwrap()
    };
    let out = run(&new_file);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.starts_with("breaking          widgets.cluster.field-removed.diff.opgen.dev v1 .spec.a: field removed"),
        "{text}"
    );
    // The cluster's CRD against itself: nothing changed.
    let out = run(&old_file);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
