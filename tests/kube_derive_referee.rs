//! kube-derive as the referee of `opgen init` on real kube-rs crates (issue #20, item 3).
//!
//! For each crate under `tests/fixtures/kube-rs/` (upstream files kept as they are, listed in
//! its `sources.json`): its API types are compiled in one harness project with kube-derive
//! and each kind's `<Kind>::crd()` printed; the crate, adopted by `opgen init`, gets its CRDs
//! from `opgen manifests`. Both CRDs go onto a real API server under groups of their own, and
//! objects made from both schemas (every field set, each field removed, of a wrong type, at
//! and beyond its bounds, off its pattern and enum) are created on each with a dry run: the
//! two must accept and refuse the same objects, but for the differences listed in
//! `DELIBERATE`, each with its reason.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use kube::Client;
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, PostParams};
use quote::ToTokens;
use serde_json::{Value, json};
use support::opgen_ok;

/// A crate of the corpus: its folder under tests/fixtures/kube-rs/, its types file there, and
/// the kinds that file declares.
struct Crate {
    dir: &'static str,
    file: &'static str,
    kinds: &'static [&'static str],
}

const CRATES: &[Crate] = &[
    Crate {
        dir: "controller-rs",
        file: "controller.rs",
        kinds: &["Document"],
    },
    Crate {
        dir: "rustfs-operator",
        file: "policy_binding.rs",
        kinds: &["PolicyBinding"],
    },
    Crate {
        dir: "dappmesh",
        file: "crd.rs",
        kinds: &["DappProduct"],
    },
    Crate {
        dir: "kube-examples",
        file: "crd_derive_schema.rs",
        kinds: &["Foo"],
    },
    Crate {
        dir: "restate-operator",
        file: "restateclusters.rs",
        kinds: &["RestateCluster"],
    },
    Crate {
        dir: "opendcs-operator",
        file: "drgs.rs",
        kinds: &["DrgsConnection"],
    },
];

/// Mutations tried per kind at most, drawn with a fixed seed from those the two schemas
/// suggest: at nodes where the schemas differ, and at the others (the k8s types some kinds
/// embed suggest thousands of both).
const AT_DIFFERENCES: usize = 150;
const ELSEWHERE: usize = 60;
const SEED: u64 = 20;

fn module_name(c: &Crate) -> String {
    c.dir.replace('-', "_")
}

/// Whether any attribute of `attrs` derives one of the schema or serde traits.
fn is_api_type(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("derive") && a.meta.to_token_stream().to_string().contains("Deserialize")
    })
}

/// The names that attributes of `tokens` give as strings (`default = "f"`, `schema_with =
/// "Type::f"`): the last path segment of each.
fn named_in_attributes(tokens: proc_macro2::TokenStream, out: &mut BTreeSet<String>) {
    for tree in tokens {
        match tree {
            proc_macro2::TokenTree::Group(g) => named_in_attributes(g.stream(), out),
            proc_macro2::TokenTree::Literal(l) => {
                let text = l.to_string();
                if let Some(s) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"'))
                    && let Some(last) = s.rsplit("::").next()
                {
                    out.insert(last.to_owned());
                }
            }
            _ => {}
        }
    }
}

/// The API types of an upstream file, as a module the harness compiles: the types that derive
/// serde's traits, the free functions and inherent methods their attributes name, schemars
/// impls (a manual schema), and the `use`s of kube, serde, schemars, k8s-openapi, std and
/// garde.
/// What else an operator's file holds (its reconciler, its errors) needs the whole crate.
fn api_excerpt(source: &str) -> String {
    let file = syn::parse_file(source).expect("an upstream file parses");
    let mut named = BTreeSet::new();
    for item in &file.items {
        match item {
            syn::Item::Struct(s) if is_api_type(&s.attrs) => {
                named_in_attributes(s.to_token_stream(), &mut named)
            }
            syn::Item::Enum(e) if is_api_type(&e.attrs) => {
                named_in_attributes(e.to_token_stream(), &mut named)
            }
            _ => {}
        }
    }
    let mut kept = Vec::new();
    for item in file.items {
        let keep = match &item {
            syn::Item::Use(u) => {
                let root = match &u.tree {
                    syn::UseTree::Path(p) => p.ident.to_string(),
                    _ => String::new(),
                };
                [
                    "kube",
                    "serde",
                    "schemars",
                    "k8s_openapi",
                    "std",
                    "serde_json",
                    "garde",
                ]
                .contains(&root.as_str())
            }
            syn::Item::Struct(s) => is_api_type(&s.attrs),
            syn::Item::Enum(e) => is_api_type(&e.attrs),
            syn::Item::Fn(f) => named.contains(&f.sig.ident.to_string()),
            syn::Item::Impl(i) => match &i.trait_ {
                Some((path, _)) => path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "JsonSchema"),
                None => {
                    let mut i = i.clone();
                    i.items.retain(|m| {
                        matches!(m, syn::ImplItem::Fn(f) if named.contains(&f.sig.ident.to_string()))
                    });
                    if !i.items.is_empty() {
                        kept.push(i.to_token_stream().to_string());
                    }
                    false
                }
            },
            _ => false,
        };
        if keep {
            kept.push(item.to_token_stream().to_string());
        }
    }
    kept.join("\n")
}

/// The harness: one binary printing `{crate: [crd, ...]}` for every crate's kinds.
fn harness(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    // kube's features are the scaffold's (the projects' target directory has it built);
    // k8s-openapi's `schemars` gives the k8s types the crates embed their schemas. garde, at the
    // version opendcs-operator pins, is for its types' `derive(Validate)`: schemars reads their
    // `#[garde(...)]` attributes, which is what the corpus checks opgen's reading of.
    std::fs::write(
        dir.join("Cargo.toml"),
        r#"[package]
name = "kube-derive-referee"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
kube = { version = "5.0.0", default-features = false, features = ["client", "rustls-tls", "ring", "runtime", "derive", "admission"] }
k8s-openapi = { version = "0.29.0", features = ["v1_33", "schemars"] }
schemars = "1"
serde = { version = "1", features = ["derive"] }
serde_json = "1"
garde = { version = "0.22.1", default-features = false, features = ["derive"] }

[workspace]
"#,
    )
    .unwrap();
    let mut main = String::from("use kube::CustomResourceExt;\n");
    let mut entries = Vec::new();
    for c in CRATES {
        let source =
            std::fs::read_to_string(support::fixture(&format!("kube-rs/{}/{}", c.dir, c.file)))
                .unwrap();
        let module = module_name(c);
        main.push_str(&format!(
            "#[allow(dead_code, unused_imports, clippy::all)]\nmod {module} {{\n{}\n}}\n",
            api_excerpt(&source)
        ));
        let crds: Vec<String> = c
            .kinds
            .iter()
            .map(|k| format!("serde_json::to_value({module}::{k}::crd()).unwrap()"))
            .collect();
        entries.push(format!("\"{}\": [{}]", c.dir, crds.join(", ")));
    }
    main.push_str(&format!(
        "fn main() {{\n    println!(\"{{}}\", serde_json::json!({{ {} }}));\n}}\n",
        entries.join(", ")
    ));
    std::fs::write(dir.join("src/main.rs"), main).unwrap();
}

/// kube-derive's CRDs of every crate, by crate.
fn kube_derive_crds() -> BTreeMap<String, Vec<Value>> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("kube-derive-referee");
    harness(&dir);
    let built = support::stable_copy(&dir, "kube_derive_referee/harness");
    let out = support::project_cargo(&built, &["run", "--quiet"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the harness failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The crate `c` adopted by `opgen init`: its types file, as it is upstream, declared in the
/// library, then `opgen manifests`; its CRDs, and what `manifests` warned.
fn opgen_crds(c: &Crate, parent: &Path) -> (Vec<Value>, String) {
    let dir = parent.join(c.dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{}\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
            c.dir
        ),
    )
    .unwrap();
    std::fs::copy(
        support::fixture(&format!("kube-rs/{}/{}", c.dir, c.file)),
        dir.join("src").join(c.file),
    )
    .unwrap();
    // The crate's library declares the module; `init` adds its own after it.
    let stem = c.file.trim_end_matches(".rs");
    std::fs::write(dir.join("src/lib.rs"), format!("pub mod {stem};\n")).unwrap();
    opgen_ok(&dir, &["init", "--domain", "example.com"]);
    let out = support::opgen(&dir, &["manifests"]);
    assert!(
        out.status.success(),
        "opgen manifests failed on {}:\n{}",
        c.dir,
        String::from_utf8_lossy(&out.stderr)
    );
    let mut crds = Vec::new();
    for entry in walkdir::WalkDir::new(dir.join("config/crd/bases")).sort_by_file_name() {
        let entry = entry.unwrap();
        if entry.path().extension().is_some_and(|e| e == "yaml") {
            crds.extend(opgen_envtest::parse_documents(entry.path()).unwrap());
        }
    }
    (crds, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// `crd` under the group `<tag>.<group>`, so that both sides install side by side.
fn regroup(crd: &Value, tag: &str) -> Value {
    let mut crd = crd.clone();
    let group = format!("{tag}.{}", crd["spec"]["group"].as_str().unwrap());
    crd["metadata"] = json!({
        "name": format!("{}.{group}", crd["spec"]["names"]["plural"].as_str().unwrap()),
    });
    crd["spec"]["group"] = group.into();
    crd
}

fn storage_schema(crd: &Value) -> (&str, &Value) {
    let v = crd["spec"]["versions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["storage"] == true)
        .expect("a storage version");
    (v["name"].as_str().unwrap(), &v["schema"]["openAPIV3Schema"])
}

/// One object to try: what it is, and the object (apiVersion and kind left to each side).
struct Probe {
    what: String,
    object: Value,
}

/// A path into an object: property names, with `[0]` for a list's first item.
type FieldPath = Vec<String>;

fn get_mut<'a>(value: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    let mut at = value;
    for step in path {
        at = if step == "[0]" {
            at.as_array_mut()?.first_mut()?
        } else {
            at.as_object_mut()?.get_mut(step)?
        };
    }
    Some(at)
}

/// What the schema node at `path` suggests trying there: (label, new value or None to remove).
fn mutations(schema: &Value, required: bool, out: &mut Vec<(String, Option<Value>)>) {
    out.push(("removed".into(), None));
    if required {
        out.push(("null".into(), Some(Value::Null)));
    }
    let ty = schema["type"].as_str().unwrap_or("");
    let wrong = match ty {
        "string" => json!(12345),
        "object" | "array" | "integer" | "number" | "boolean" => json!("a string"),
        _ => Value::Null,
    };
    if !wrong.is_null() {
        out.push((
            format!("a {} where {ty} is due", kind_of(&wrong)),
            Some(wrong),
        ));
    }
    if schema["enum"].is_array() {
        out.push(("off the enum".into(), Some(json!("NotAnEnumValue"))));
    }
    let num = |k: &str| schema[k].as_f64();
    match ty {
        "string" => {
            for s in ["", "a", "illegal", "not legal", "forbidden", "-bad-", "A_B"] {
                out.push((format!("{s:?}"), Some(json!(s))));
            }
            if let Some(max) = num("maxLength") {
                out.push(("maxLength".into(), Some(json!("a".repeat(max as usize)))));
                out.push((
                    "maxLength+1".into(),
                    Some(json!("a".repeat(max as usize + 1))),
                ));
            }
            if let Some(min) = num("minLength").filter(|m| *m >= 1.0) {
                out.push((
                    "minLength-1".into(),
                    Some(json!("a".repeat(min as usize - 1))),
                ));
            }
        }
        "integer" | "number" => {
            for v in [0, -1, 1] {
                out.push((format!("{v}"), Some(json!(v))));
            }
            for (k, d) in [("minimum", -1.0), ("maximum", 1.0)] {
                if let Some(b) = num(k) {
                    out.push((k.into(), Some(json!(b as i64))));
                    out.push((format!("{k}{d:+}"), Some(json!((b + d) as i64))));
                }
            }
            if ty == "number" {
                out.push(("1.5".into(), Some(json!(1.5))));
            }
        }
        "array" => {
            out.push(("[]".into(), Some(json!([]))));
            let item = match schema["items"]["type"].as_str() {
                Some("integer" | "number") => json!(1),
                Some("boolean") => json!(true),
                Some("object") => json!({}),
                _ => json!("x"),
            };
            if let Some(max) = num("maxItems") {
                out.push((
                    "maxItems+1".into(),
                    Some(Value::Array(vec![item.clone(); max as usize + 1])),
                ));
            }
            out.push(("two equal items".into(), Some(json!([item, item]))));
        }
        "boolean" => out.push(("false".into(), Some(json!(false)))),
        "object" => out.push(("{}".into(), Some(json!({})))),
        _ => {}
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Number(_) => "number",
        Value::String(_) => "string",
        _ => "value",
    }
}

/// What a schema node says of its own value (not of its properties' or items'), and whether
/// its parent requires it: two nodes that differ here may judge a value differently.
fn own_rules(schema: &Value, required: bool) -> Value {
    let mut own = schema.as_object().cloned().unwrap_or_default();
    for key in [
        "description",
        "title",
        "properties",
        "items",
        "additionalProperties",
    ] {
        own.remove(key);
    }
    json!([own, required])
}

/// Every (path, schema, required) below `schema`, to `depth` properties deep.
fn nodes<'a>(
    schema: &'a Value,
    path: FieldPath,
    required: bool,
    depth: usize,
    out: &mut Vec<(FieldPath, &'a Value, bool)>,
) {
    if !path.is_empty() {
        out.push((path.clone(), schema, required));
    }
    if depth == 0 {
        return;
    }
    if let Some(props) = schema["properties"].as_object() {
        let req: BTreeSet<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (name, p) in props {
            if path.is_empty() && matches!(name.as_str(), "apiVersion" | "kind" | "metadata") {
                continue;
            }
            let mut next = path.clone();
            next.push(name.clone());
            nodes(p, next, req.contains(name.as_str()), depth - 1, out);
        }
    }
    if schema["type"] == "array" && schema["items"].is_object() {
        let mut next = path.clone();
        next.push("[0]".into());
        nodes(&schema["items"], next, false, depth - 1, out);
    }
}

/// The nodes of `crd`'s schema by path, with whether their parent requires them.
fn schema_nodes(crd: &Value) -> BTreeMap<FieldPath, (&Value, bool)> {
    let mut found = Vec::new();
    nodes(storage_schema(crd).1, Vec::new(), false, 8, &mut found);
    found
        .into_iter()
        .map(|(path, schema, required)| (path, (schema, required)))
        .collect()
}

/// The objects tried on both sides for one kind: each side's every-field object, one with
/// only what is required, and mutations of kube-derive's every-field object drawn from the
/// nodes of both schemas.
fn probes(kd: &Value, og: &Value, scratch: &Path) -> Vec<Probe> {
    let every_field = |crd: &Value, tag: &str| {
        let file = scratch.join(format!(
            "{tag}-{}.json",
            crd["metadata"]["name"].as_str().unwrap()
        ));
        std::fs::write(&file, crd.to_string()).unwrap();
        let (version, _) = storage_schema(crd);
        let mut o = opgen_envtest::object_with_every_field(&file, version).unwrap();
        o["metadata"] = json!({"name": "probe"});
        o
    };
    let base = every_field(kd, "kd");
    let mut probes = vec![
        Probe {
            what: "kube-derive's every-field object".into(),
            object: base.clone(),
        },
        Probe {
            what: "opgen's every-field object".into(),
            object: every_field(og, "og"),
        },
        Probe {
            what: "an empty object".into(),
            object: json!({"metadata": {"name": "probe"}}),
        },
    ];
    for name in ["forbidden", "singleton", &"n".repeat(64), "a.b"] {
        let mut object = base.clone();
        object["metadata"]["name"] = json!(name);
        probes.push(Probe {
            what: format!(
                "named {}",
                if name.len() > 20 {
                    "with 64 characters"
                } else {
                    name
                }
            ),
            object,
        });
    }
    let (kd_nodes, og_nodes) = (schema_nodes(kd), schema_nodes(og));
    // (differs, what) → (path, value): BTreeMaps, so that the draw depends on the seed alone.
    let mut candidates = BTreeMap::new();
    for nodes in [&kd_nodes, &og_nodes] {
        for (path, &(schema, required)) in nodes {
            let rules = |n: &BTreeMap<FieldPath, (&Value, bool)>| {
                n.get(path).map(|&(s, r)| own_rules(s, r))
            };
            let differs = rules(&kd_nodes) != rules(&og_nodes);
            let mut ms = Vec::new();
            mutations(schema, required, &mut ms);
            for (label, value) in ms {
                let what = format!(".{} {label}", path.join(".").replace(".[0]", "[0]"));
                candidates
                    .entry((differs, what))
                    .or_insert((path.clone(), value));
            }
        }
    }
    let mut rng = fastrand::Rng::with_seed(SEED);
    let mut drawn = Vec::new();
    for (differs, take) in [(true, AT_DIFFERENCES), (false, ELSEWHERE)] {
        let mut group: Vec<_> = candidates
            .iter()
            .filter(|((d, _), _)| *d == differs)
            .map(|((_, what), (path, value))| (what.clone(), (path.clone(), value.clone())))
            .collect();
        rng.shuffle(&mut group);
        drawn.extend(group.into_iter().take(take));
    }
    for (what, (path, value)) in drawn {
        let mut object = base.clone();
        let (last, parent) = path.split_last().unwrap();
        let Some(at) = get_mut(&mut object, parent) else {
            continue;
        };
        match (at, value) {
            (Value::Object(map), None) => {
                map.remove(last);
            }
            (Value::Object(map), Some(v)) => {
                map.insert(last.clone(), v);
            }
            (Value::Array(items), None) => items.clear(),
            (Value::Array(items), Some(v)) => items[0] = v,
            _ => continue,
        }
        probes.push(Probe { what, object });
    }
    probes
}

fn api_for(client: &Client, crd: &Value) -> (Api<DynamicObject>, String) {
    let (version, _) = storage_schema(crd);
    let group = crd["spec"]["group"].as_str().unwrap();
    let gvk = GroupVersionKind::gvk(
        group,
        version,
        crd["spec"]["names"]["kind"].as_str().unwrap(),
    );
    let resource =
        ApiResource::from_gvk_with_plural(&gvk, crd["spec"]["names"]["plural"].as_str().unwrap());
    let api = if crd["spec"]["scope"] == "Cluster" {
        Api::all_with(client.clone(), &resource)
    } else {
        Api::namespaced_with(client.clone(), "default", &resource)
    };
    (api, format!("{group}/{version}"))
}

/// The object the API server under `crd` would store for `object` (a dry-run create: pruned
/// and defaulted), or why it refuses it.
async fn verdict(client: &Client, crd: &Value, object: &Value) -> Result<Value, String> {
    let (api, api_version) = api_for(client, crd);
    let mut object = object.clone();
    object["apiVersion"] = json!(api_version);
    object["kind"] = crd["spec"]["names"]["kind"].clone();
    let object: DynamicObject = serde_json::from_value(object).unwrap();
    let params = PostParams {
        dry_run: true,
        ..PostParams::default()
    };
    match api.create(&params, &object).await {
        Ok(stored) => Ok(stored.data),
        Err(kube::Error::Api(status)) => Err(status.message),
        Err(e) => panic!("the API server did not answer: {e}"),
    }
}

/// Every place where two stored objects differ, as `<path>: <kube-derive's>, <opgen's>`
/// (null where one has nothing).
fn stored_differences(kd: &Value, og: &Value, path: &str, out: &mut Vec<String>) {
    match (kd, og) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for k in keys {
                stored_differences(
                    a.get(k).unwrap_or(&Value::Null),
                    b.get(k).unwrap_or(&Value::Null),
                    &format!("{path}.{k}"),
                    out,
                );
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                stored_differences(x, y, &format!("{path}[{i}]"), out);
            }
        }
        _ if kd == og => {}
        _ => out.push(format!("{path}: {kd}, {og}")),
    }
}

/// Where kube-derive's and opgen's CRDs judge an object differently: a verdict (one
/// accepts, the other refuses), or what each would store (its defaults, its pruning).
#[derive(Clone, Copy, PartialEq, Debug)]
enum Class {
    Verdict,
    Stored,
}

/// A difference kube-derive's CRD and opgen's have on purpose: where (the crate, the class,
/// a piece of the difference's text) and why. The first that matches a difference explains it.
struct Deliberate {
    krate: &'static str,
    class: Class,
    piece: &'static str,
    why: &'static str,
}

const fn deliberate(
    krate: &'static str,
    class: Class,
    piece: &'static str,
    why: &'static str,
) -> Deliberate {
    Deliberate {
        krate,
        class,
        piece,
        why,
    }
}

/// Why kube-derive's CRD has defaults opgen's has not.
const SERDE_DEFAULTS: &str = "schemars writes a field's serde default into its schema (it runs `Default::default()` or the function `serde(default = ...)` names); opgen never runs the crate's code and, as controller-gen, writes a default only from `+kubebuilder:default` (it warns at a `serde(default = ...)` attribute without one)";

const DELIBERATE: &[Deliberate] = &[
    deliberate("kube-examples", Class::Stored, ", null", SERDE_DEFAULTS),
    deliberate(
        "kube-examples",
        Class::Verdict,
        ".setListable two equal items",
        "`schemars(schema_with)` makes the list a set; opgen never runs the function, and warns at the attribute (`+listType=set` says it)",
    ),
    deliberate(
        "restate-operator",
        Class::Stored,
        ".autoProvision: false, null",
        SERDE_DEFAULTS,
    ),
    deliberate(
        "opendcs-operator",
        Class::Stored,
        ".eventPort: 17011, null",
        SERDE_DEFAULTS,
    ),
    deliberate(
        "opendcs-operator",
        Class::Stored,
        ".messagePort: 17010, null",
        SERDE_DEFAULTS,
    ),
    deliberate(
        "restate-operator",
        Class::Stored,
        ".volumeClaimTemplate.metadata.",
        EMBEDDED_META,
    ),
    deliberate(
        "restate-operator",
        Class::Verdict,
        ".volumeClaimTemplate.metadata.",
        EMBEDDED_META,
    ),
    deliberate(
        "restate-operator",
        Class::Verdict,
        "Required value), opgen accepts",
        "k8s-openapi's Rust types make a reference's `name` a String, which their schemars impls require; the schema Kubernetes publishes, which opgen embeds as controller-gen does, leaves it optional with the default \"\"",
    ),
    deliberate(
        "restate-operator",
        Class::Stored,
        ": null, \"",
        "the defaults of the k8s types (`+default` in their Go sources) are in the schema Kubernetes publishes, which opgen embeds as controller-gen does; k8s-openapi's schemars impls leave them out",
    ),
    deliberate(
        "restate-operator",
        Class::Verdict,
        "named with 64 characters",
        "the crate's hand-written `JsonSchema` impl (`schema = \"manual\"`) bounds metadata.name; opgen never runs code and warns at the attribute (`+opgen:root:XValidation` can say it)",
    ),
];

/// Why an embedded template's metadata is kept by kube-derive's CRD and pruned by opgen's.
const EMBEDDED_META: &str = "an ObjectMeta inside an embedded template: controller-gen, and opgen, write `type: object` without its properties, so the API server prunes what it holds; kube-derive writes ObjectMeta's whole schema (`generate-embedded-object-meta = true` in `[package.metadata.opgen]` keeps labels, annotations, name, namespace and finalizers)";

/// The differences one object shows: (class, text).
async fn differences_of(
    client: &Client,
    kd: &Value,
    og: &Value,
    probe: &Probe,
) -> Vec<(Class, String)> {
    let (a, b) = (
        verdict(client, kd, &probe.object).await,
        verdict(client, og, &probe.object).await,
    );
    match (&a, &b) {
        (Ok(a), Ok(b)) => {
            let mut found = Vec::new();
            for part in ["spec", "status"] {
                stored_differences(&a[part], &b[part], &format!(".{part}"), &mut found);
            }
            found.into_iter().map(|d| (Class::Stored, d)).collect()
        }
        (Err(_), Err(_)) => Vec::new(),
        _ => {
            let say = |r: &Result<Value, String>| {
                r.as_ref()
                    .err()
                    .map_or("accepts".into(), |e| format!("refuses ({e})"))
            };
            vec![(
                Class::Verdict,
                format!("{}: kube-derive {}, opgen {}", probe.what, say(&a), say(&b)),
            )]
        }
    }
}

/// What the probes of one kind found.
async fn judge(client: &Client, c: &Crate, kd: &Value, og: &Value, scratch: &Path) -> Tally {
    let mut tally = Tally::default();
    for probe in probes(kd, og, scratch) {
        tally.tried += 1;
        let found = differences_of(client, kd, og, &probe).await;
        if found.is_empty() {
            tally.agreed += 1;
            continue;
        }
        let mut explained = true;
        for (class, text) in found {
            let why = DELIBERATE
                .iter()
                .position(|d| d.krate == c.dir && d.class == class && text.contains(d.piece));
            match why {
                Some(i) => {
                    tally.reasons.insert(i);
                }
                None => {
                    explained = false;
                    tally.others.insert(format!("{} {class:?} {text}", c.dir));
                }
            }
        }
        if explained {
            tally.deliberate += 1;
        }
    }
    tally
}

/// Objects tried, agreed on, differing only as `DELIBERATE` says (and which of its entries),
/// and the differences nothing explains, each once.
#[derive(Default)]
struct Tally {
    tried: usize,
    agreed: usize,
    deliberate: usize,
    reasons: BTreeSet<usize>,
    others: BTreeSet<String>,
}

/// kube-derive's and opgen's CRD of `kind`, each installed under a group of its own.
async fn install_both(
    client: &Client,
    c: &Crate,
    kind: &str,
    derived: &[Value],
    ours: &[Value],
    scratch: &Path,
) -> (Value, Value) {
    let find = |crds: &[Value], who: &str| {
        crds.iter()
            .find(|crd| crd["spec"]["names"]["kind"] == kind)
            .unwrap_or_else(|| panic!("{who} has no CRD of {kind} for {}", c.dir))
            .clone()
    };
    let kd = regroup(&find(derived, "kube-derive"), &format!("kd-{}", c.dir));
    let og = regroup(&find(ours, "opgen"), &format!("og-{}", c.dir));
    for (side, crd) in [("kd", &kd), ("og", &og)] {
        let file = scratch.join(format!("{side}-{}-{kind}.json", c.dir));
        std::fs::write(&file, crd.to_string()).unwrap();
        opgen_envtest::install_crds(client, &file)
            .await
            .unwrap_or_else(|e| panic!("{side} CRD of {kind} ({}): {e}", c.dir));
    }
    (kd, og)
}

#[tokio::test(flavor = "multi_thread")]
async fn opgen_adopting_kube_rs_crates_validates_as_kube_derive() {
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let client = control_plane.client().unwrap();
    let derived = kube_derive_crds();
    let scratch = tempfile::tempdir().unwrap();
    let mut total = Tally::default();
    let mut report = String::new();
    for c in CRATES {
        let (ours, warnings) = opgen_crds(c, scratch.path());
        let warned = warnings.matches("warning:").count();
        for kind in c.kinds {
            let (kd, og) =
                install_both(&client, c, kind, &derived[c.dir], &ours, scratch.path()).await;
            let tally = judge(&client, c, &kd, &og, scratch.path()).await;
            report.push_str(&format!(
                "{} {kind}: {} objects, {} agreed, {} deliberate, {} others; {warned} warnings\n",
                c.dir,
                tally.tried,
                tally.agreed,
                tally.deliberate,
                tally.others.len()
            ));
            total.tried += tally.tried;
            total.agreed += tally.agreed;
            total.deliberate += tally.deliberate;
            total.reasons.extend(tally.reasons);
            total.others.extend(tally.others);
        }
    }
    eprintln!(
        "{report}kube-derive referee: {} objects, {} agreed, {} differing only deliberately, {} differences unexplained",
        total.tried,
        total.agreed,
        total.deliberate,
        total.others.len()
    );
    for i in &total.reasons {
        let d = &DELIBERATE[i.to_owned()];
        eprintln!(
            "deliberate: {} {:?} `{}`: {}",
            d.krate, d.class, d.piece, d.why
        );
    }
    // Every deliberate difference is still there: one that no longer shows is dropped.
    let unused: Vec<_> = (0..DELIBERATE.len())
        .filter(|i| !total.reasons.contains(i))
        .map(|i| DELIBERATE[i].piece)
        .collect();
    assert!(
        unused.is_empty(),
        "deliberate differences not seen: {unused:?}"
    );
    assert!(
        total.others.is_empty(),
        "opgen's CRDs and kube-derive's judge these objects differently:\n{}",
        total.others.into_iter().collect::<Vec<_>>().join("\n")
    );
}
