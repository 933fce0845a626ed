//! `opgen manifests` as a user runs it: check mode for CI, writes only on change, helper
//! roles and kustomizations kept in step with PROJECT.

mod support;

use std::fs;
use support::{opgen, opgen_err, opgen_ok, tree};

fn project_with_memcached() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    opgen_ok(
        dir.path(),
        &["init", "--domain", "example.com", "--project-name", "demo"],
    );
    opgen_ok(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v1alpha1",
            "--kind",
            "Memcached",
        ],
    );
    dir
}

#[test]
fn check_mode_lists_stale_files_and_writes_nothing() {
    let dir = project_with_memcached();
    assert_eq!(
        opgen_ok(dir.path(), &["manifests", "--check"]),
        "manifests are up to date\n"
    );

    let types = dir.path().join("src/api/v1alpha1/memcached_types.rs");
    let text = fs::read_to_string(&types).unwrap();
    let edited = text.replace(
        "    pub foo: Option<String>,\n",
        "    pub foo: Option<String>,\n    /// size is the number of replicas.\n    // +kubebuilder:validation:Minimum=1\n    #[serde(default)]\n    pub size: i32,\n",
    );
    assert_ne!(edited, text);
    fs::write(&types, edited).unwrap();

    let before = tree(dir.path());
    let stderr = opgen_err(dir.path(), &["manifests", "--check"]);
    assert!(stderr.contains("1 manifest file(s) are out of date:\n  config/crd/bases/cache.example.com_memcacheds.yaml"), "{stderr}");
    assert!(stderr.contains("run `opgen manifests`"), "{stderr}");
    assert_eq!(tree(dir.path()), before);

    let out = opgen_ok(dir.path(), &["manifests", "-v"]);
    assert!(
        out.contains("updated config/crd/bases/cache.example.com_memcacheds.yaml"),
        "{out}"
    );
    let crd = fs::read_to_string(
        dir.path()
            .join("config/crd/bases/cache.example.com_memcacheds.yaml"),
    )
    .unwrap();
    assert!(crd.contains("size:\n                description: size is the number of replicas.\n                format: int32\n                minimum: 1\n"), "{crd}");
    // A second run changes nothing.
    assert!(opgen_ok(dir.path(), &["manifests"]).ends_with("0 created, 0 updated\n"));
}

/// A renamed plural needs the controller's RBAC markers renamed too: opgen refuses markers
/// for resources none of the project's kinds define.
fn rename_in_rbac_markers(dir: &std::path::Path, from: &str, to: &str) {
    let controller = dir.join("src/controllers/memcached.rs");
    let text = fs::read_to_string(&controller).unwrap();
    let renamed = text.replace(&format!("resources={from}"), &format!("resources={to}"));
    assert_ne!(renamed, text);
    fs::write(&controller, renamed).unwrap();
}

#[test]
fn a_marker_for_a_plural_no_kind_has_is_refused() {
    let dir = project_with_memcached();
    let types = dir.path().join("src/api/v1alpha1/memcached_types.rs");
    let text = fs::read_to_string(&types).unwrap();
    fs::write(
        &types,
        text.replace("plural = \"memcacheds\"", "plural = \"caches\""),
    )
    .unwrap();
    let before = tree(dir.path());
    let stderr = opgen_err(dir.path(), &["manifests"]);
    assert!(
        stderr.contains("error: `cache.example.com` has no resource `memcacheds`\n  --> src/controllers/memcached.rs:"),
        "{stderr}"
    );
    assert!(
        stderr.contains("no kind of this project has that plural; its resources are caches"),
        "{stderr}"
    );
    assert_eq!(tree(dir.path()), before);
}

#[test]
fn helper_roles_and_kustomization_follow_the_kind() {
    let dir = project_with_memcached();
    let types = dir.path().join("src/api/v1alpha1/memcached_types.rs");
    let text = fs::read_to_string(&types).unwrap();
    fs::write(
        &types,
        text.replace("plural = \"memcacheds\"", "plural = \"caches\""),
    )
    .unwrap();
    rename_in_rbac_markers(dir.path(), "memcacheds", "caches");
    let rbac_kustomization = dir.path().join("config/rbac/kustomization.yaml");
    let k = fs::read_to_string(&rbac_kustomization).unwrap();
    fs::write(
        &rbac_kustomization,
        k.replace("- memcached_viewer_role.yaml\n", ""),
    )
    .unwrap();

    opgen_ok(dir.path(), &["manifests"]);
    let editor =
        fs::read_to_string(dir.path().join("config/rbac/memcached_editor_role.yaml")).unwrap();
    assert!(
        editor.contains("  - caches\n") && editor.contains("  - caches/status\n"),
        "{editor}"
    );
    assert!(!editor.contains("memcacheds"), "{editor}");
    let k = fs::read_to_string(&rbac_kustomization).unwrap();
    assert!(
        k.contains("- memcached_viewer_role.yaml\n# +opgen:scaffold:rbac-helper-roles"),
        "{k}"
    );
    assert!(
        dir.path()
            .join("config/crd/bases/cache.example.com_caches.yaml")
            .is_file()
    );
    let crd_k = fs::read_to_string(dir.path().join("config/crd/kustomization.yaml")).unwrap();
    assert!(
        crd_k.contains("- bases/cache.example.com_caches.yaml"),
        "{crd_k}"
    );
}

#[test]
fn a_broken_types_file_fails_with_its_location_and_writes_nothing() {
    let dir = project_with_memcached();
    let types = dir.path().join("src/api/v1alpha1/memcached_types.rs");
    let text = fs::read_to_string(&types).unwrap();
    fs::write(
        &types,
        text.replace("// +optional", "// +kubebuilder:validation:MinLenght=1"),
    )
    .unwrap();
    let before = tree(dir.path());
    let stderr = opgen_err(dir.path(), &["manifests"]);
    assert!(
        stderr.contains("unknown marker `kubebuilder:validation:MinLenght`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("--> src/api/v1alpha1/memcached_types.rs:"),
        "{stderr}"
    );
    assert!(
        stderr.contains("did you mean `kubebuilder:validation:MinLength`"),
        "{stderr}"
    );
    assert_eq!(tree(dir.path()), before);
}

/// serde's attributes are read as serde_derive reads them, so what it would refuse to compile
/// is refused at the attribute, before anything is written.
#[test]
fn a_serde_attribute_serde_refuses_fails_at_its_location() {
    let dir = project_with_memcached();
    let types = dir.path().join("src/api/v1alpha1/memcached_types.rs");
    let text = fs::read_to_string(&types).unwrap();
    let broken = text.replacen(
        "#[serde(default, skip_serializing_if = \"Option::is_none\")]",
        "#[serde(default, skip_serializing_iff = \"Option::is_none\")]",
        1,
    );
    assert_ne!(broken, text);
    fs::write(&types, &broken).unwrap();
    let (line, column) = broken
        .lines()
        .enumerate()
        .find_map(|(i, l)| l.find("skip_serializing_iff").map(|c| (i + 1, c + 1)))
        .unwrap();
    let before = tree(dir.path());
    let stderr = opgen_err(dir.path(), &["manifests"]);
    assert!(
        stderr.contains("error: serde: unknown serde field attribute `skip_serializing_iff`"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "--> src/api/v1alpha1/memcached_types.rs:{line}:{column}"
        )),
        "{stderr}"
    );
    assert_eq!(tree(dir.path()), before);
}

#[test]
fn markers_command_explains_a_marker() {
    let dir = tempfile::tempdir().unwrap();
    let out = opgen_ok(dir.path(), &["markers", "kubebuilder:validation:MaxLength"]);
    assert!(
        out.starts_with("+kubebuilder:validation:MaxLength\n  Maximum length of a string."),
        "{out}"
    );
    assert!(out.contains("value: an integer"), "{out}");
    let all = opgen_ok(dir.path(), &["markers"]);
    assert!(all.lines().count() > 60, "{all}");
    let err = opgen_err(dir.path(), &["markers", "kubebuilder:validation:Maxlenght"]);
    assert!(err.contains("did you mean"), "{err}");
}

#[test]
fn dev_webhooks_trust_a_self_signed_certificate_for_the_url() {
    let dir = project_with_memcached();
    let err = opgen_err(
        dir.path(),
        &["dev-webhooks", "--url", "https://10.0.0.5:9443"],
    );
    assert!(err.contains("no +kubebuilder:webhook markers"), "{err}");
    opgen_ok(
        dir.path(),
        &[
            "create",
            "webhook",
            "--group",
            "cache",
            "--version",
            "v1alpha1",
            "--kind",
            "Memcached",
            "--defaulting",
        ],
    );
    let err = opgen_err(
        dir.path(),
        &["dev-webhooks", "--url", "http://10.0.0.5:9443"],
    );
    assert!(err.contains("over https"), "{err}");

    opgen_ok(
        dir.path(),
        &["dev-webhooks", "--url", "https://10.0.0.5:9443"],
    );
    let dev = dir.path().join(".opgen/webhook-dev");
    let cert = fs::read_to_string(dev.join("tls.crt")).unwrap();
    assert!(cert.starts_with("-----BEGIN CERTIFICATE-----"), "{cert}");
    assert!(
        fs::read_to_string(dev.join("tls.key"))
            .unwrap()
            .starts_with("-----BEGIN PRIVATE KEY-----")
    );
    let docs: Vec<serde_json::Value> = serde_yaml::Deserializer::from_str(
        &fs::read_to_string(dev.join("manifests.yaml")).unwrap(),
    )
    .map(|d| serde::Deserialize::deserialize(d).unwrap())
    .collect();
    assert_eq!(docs.len(), 1, "{docs:#?}");
    assert_eq!(
        docs[0]["metadata"]["name"],
        "demo-dev-mutating-webhook-configuration"
    );
    let client = &docs[0]["webhooks"][0]["clientConfig"];
    assert_eq!(
        client["url"],
        "https://10.0.0.5:9443/mutate-cache-example-com-v1alpha1-memcached"
    );
    assert!(client.get("service").is_none());
    use base64::Engine;
    let bundle = base64::engine::general_purpose::STANDARD
        .decode(client["caBundle"].as_str().unwrap())
        .unwrap();
    assert_eq!(
        String::from_utf8(bundle).unwrap(),
        cert,
        "the configuration trusts exactly the certificate served"
    );
    let gitignore = fs::read_to_string(dir.path().join(".gitignore")).unwrap();
    assert!(gitignore.contains("/.opgen/"), "{gitignore}");

    // `make run` refreshes the files on every start: the same URL keeps the certificate the
    // cluster already trusts, another URL needs a new one.
    opgen_ok(
        dir.path(),
        &["dev-webhooks", "--url", "https://10.0.0.5:9443/"],
    );
    assert_eq!(fs::read_to_string(dev.join("tls.crt")).unwrap(), cert);
    opgen_ok(
        dir.path(),
        &["dev-webhooks", "--url", "https://10.0.0.6:9443"],
    );
    assert_ne!(fs::read_to_string(dev.join("tls.crt")).unwrap(), cert);
    assert!(
        fs::read_to_string(dev.join("manifests.yaml"))
            .unwrap()
            .contains("url: https://10.0.0.6:9443/mutate-")
    );
}

/// Issue #23 item 20: with a conversion webhook, dev-webhooks also writes the kind's CRD with
/// its conversion calling this machine (what `make install` alone points at the in-cluster
/// Service), trusting the same certificate; a project with only a conversion webhook has
/// something to serve too.
#[test]
fn dev_webhooks_point_a_crds_conversion_at_this_machine() {
    let dir = project_with_memcached();
    let api = |version: &str| {
        vec![
            "create".to_owned(),
            "api".to_owned(),
            "--group".to_owned(),
            "cache".to_owned(),
            "--version".to_owned(),
            version.to_owned(),
            "--kind".to_owned(),
            "Memcached".to_owned(),
            "--controller=false".to_owned(),
        ]
    };
    let v2 = api("v2");
    opgen_ok(
        dir.path(),
        &v2.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let mut webhook = api("v1alpha1");
    webhook[1] = "webhook".to_owned();
    webhook.pop();
    webhook.extend([
        "--conversion".to_owned(),
        "--spoke".to_owned(),
        "v2".to_owned(),
    ]);
    opgen_ok(
        dir.path(),
        &webhook.iter().map(String::as_str).collect::<Vec<_>>(),
    );

    let out = opgen_ok(
        dir.path(),
        &["dev-webhooks", "--url", "https://10.0.0.5:9443"],
    );
    assert!(
        out.contains("0 webhooks and 1 CRD's conversion served at https://10.0.0.5:9443"),
        "{out}"
    );
    let dev = dir.path().join(".opgen/webhook-dev");
    assert_eq!(fs::read_to_string(dev.join("manifests.yaml")).unwrap(), "");
    let cert = fs::read_to_string(dev.join("tls.crt")).unwrap();
    let crds: Vec<serde_json::Value> =
        serde_yaml::Deserializer::from_str(&fs::read_to_string(dev.join("crds.yaml")).unwrap())
            .map(|d| serde::Deserialize::deserialize(d).unwrap())
            .collect();
    assert_eq!(crds.len(), 1, "{crds:#?}");
    let mut installed: serde_json::Value = serde_yaml::from_str(
        &fs::read_to_string(
            dir.path()
                .join("config/crd/bases/cache.example.com_memcacheds.yaml"),
        )
        .unwrap(),
    )
    .unwrap();
    let conversion = &crds[0]["spec"]["conversion"];
    assert_eq!(conversion["strategy"], "Webhook");
    assert_eq!(
        conversion["webhook"]["conversionReviewVersions"],
        serde_json::json!(["v1"])
    );
    let client = &conversion["webhook"]["clientConfig"];
    assert_eq!(client["url"], "https://10.0.0.5:9443/convert");
    use base64::Engine;
    let bundle = base64::engine::general_purpose::STANDARD
        .decode(client["caBundle"].as_str().unwrap())
        .unwrap();
    assert_eq!(String::from_utf8(bundle).unwrap(), cert);
    // Otherwise it is the CRD `opgen manifests` wrote.
    installed["spec"]["conversion"] = conversion.clone();
    assert_eq!(crds[0], installed);

    // The same URL keeps the certificate the cluster trusts.
    opgen_ok(
        dir.path(),
        &["dev-webhooks", "--url", "https://10.0.0.5:9443"],
    );
    assert_eq!(fs::read_to_string(dev.join("tls.crt")).unwrap(), cert);
    // Without the conversion webhook, the CRDs file goes.
    opgen_ok(
        dir.path(),
        &[
            "delete",
            "webhook",
            "--group",
            "cache",
            "--version",
            "v1alpha1",
            "--kind",
            "Memcached",
        ],
    );
    let err = opgen_err(
        dir.path(),
        &["dev-webhooks", "--url", "https://10.0.0.5:9443"],
    );
    assert!(err.contains("no conversion webhook"), "{err}");
}

#[test]
fn a_renamed_plural_replaces_its_crd_file_and_leaves_foreign_crds_alone() {
    let dir = project_with_memcached();
    let bases = dir.path().join("config/crd/bases");
    // A CRD another tool wrote: not opgen's to remove.
    let foreign = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.other.io\n";
    fs::write(bases.join("other.io_widgets.yaml"), foreign).unwrap();

    let types = dir.path().join("src/api/v1alpha1/memcached_types.rs");
    let text = fs::read_to_string(&types).unwrap();
    let edited = text.replace("plural = \"memcacheds\"", "plural = \"memcachedinstances\"");
    assert_ne!(edited, text);
    fs::write(&types, edited).unwrap();
    rename_in_rbac_markers(dir.path(), "memcacheds", "memcachedinstances");

    let before = tree(dir.path());
    let stderr = opgen_err(dir.path(), &["manifests", "--check"]);
    assert!(
        stderr.contains("config/crd/bases/cache.example.com_memcacheds.yaml"),
        "{stderr}"
    );
    let out = opgen_ok(dir.path(), &["manifests", "--dry-run"]);
    assert!(
        out.contains("would remove config/crd/bases/cache.example.com_memcacheds.yaml"),
        "{out}"
    );
    assert_eq!(tree(dir.path()), before);

    let out = opgen_ok(dir.path(), &["manifests"]);
    assert!(
        out.contains(
            "removed config/crd/bases/cache.example.com_memcacheds.yaml (no kind in src/ defines it any more)"
        ),
        "{out}"
    );
    assert!(out.contains(", 1 removed"), "{out}");
    assert!(!bases.join("cache.example.com_memcacheds.yaml").exists());
    assert!(
        bases
            .join("cache.example.com_memcachedinstances.yaml")
            .exists()
    );
    assert_eq!(
        fs::read_to_string(bases.join("other.io_widgets.yaml")).unwrap(),
        foreign
    );
    let kustomization =
        fs::read_to_string(dir.path().join("config/crd/kustomization.yaml")).unwrap();
    assert!(
        kustomization.contains("- bases/cache.example.com_memcachedinstances.yaml\n")
            && !kustomization.contains("- bases/cache.example.com_memcacheds.yaml"),
        "{kustomization}"
    );
    assert_eq!(
        opgen_ok(dir.path(), &["manifests", "--check"]),
        "manifests are up to date\n"
    );
}

/// A field of a type opgen cannot read exits 1 with one error at the type, naming the field,
/// the type and the markers that let it through, and leaves every file as it was; with the
/// marker (or a well-known type) it is accepted.
#[test]
fn unresolvable_foreign_type_is_refused_and_a_marker_lets_it_through() {
    let dir = project_with_memcached();
    opgen_ok(dir.path(), &["manifests"]);
    let types = dir.path().join("src/api/v1alpha1/memcached_types.rs");
    let text = fs::read_to_string(&types).unwrap();
    let anchor = "    pub foo: Option<String>,\n";
    assert!(text.contains(anchor), "{text}");
    let with = |fields: &str| text.replace(anchor, &format!("{anchor}{fields}"));

    let bad =
        with("    pub version: semver::Version,\n    pub at: chrono::DateTime<chrono::Utc>,\n");
    fs::write(&types, &bad).unwrap();
    let line = bad.lines().position(|l| l.contains("pub version")).unwrap() + 1;
    let before = tree(dir.path());
    let stderr = opgen_err(dir.path(), &["manifests"]);
    assert!(
        stderr.starts_with("error: field `version` has the type `semver::Version`, which opgen cannot resolve: describe its JSON with `+kubebuilder:validation:Type=<type>` (and markers such as `Format`), or accept any JSON with `+kubebuilder:validation:Schemaless` and `+kubebuilder:pruning:PreserveUnknownFields`\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "--> src/api/v1alpha1/memcached_types.rs:{line}:18\n"
        )),
        "{stderr}"
    );
    assert_eq!(stderr.matches("error:").count(), 1, "{stderr}");
    assert_eq!(tree(dir.path()), before, "a refused run changed files");

    fs::write(
        &types,
        with("    // +kubebuilder:validation:Type=string\n    pub version: semver::Version,\n    pub at: chrono::DateTime<chrono::Utc>,\n"),
    )
    .unwrap();
    opgen_ok(dir.path(), &["manifests"]);
    let crd = fs::read_to_string(
        dir.path()
            .join("config/crd/bases/cache.example.com_memcacheds.yaml"),
    )
    .unwrap();
    let crd: serde_json::Value = serde_yaml::from_str(&crd).unwrap();
    let spec = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
    assert_eq!(
        spec["properties"]["version"],
        serde_json::json!({"type": "string"})
    );
    assert_eq!(
        spec["properties"]["at"],
        serde_json::json!({"type": "string", "format": "date-time"})
    );
    assert_eq!(spec["required"], serde_json::json!(["at", "version"]));
}

/// CEL rules are type-checked against the schema they sit on and their cost estimated; a
/// refused rule is reported at its marker, and nothing is written.
#[test]
fn cel_rules_are_checked_at_their_markers() {
    let dir = project_with_memcached();
    let types = dir.path().join("src/api/v1alpha1/memcached_types.rs");
    let original = fs::read_to_string(&types).unwrap();
    let with_rule = |marker: &str, field: &str| {
        let text = original.replace(
            "    pub foo: Option<String>,\n}",
            &format!("    pub foo: Option<String>,\n{field}}}"),
        );
        text.replacen(
            "pub struct MemcachedSpec {",
            &format!("{marker}\npub struct MemcachedSpec {{"),
            1,
        )
    };
    let line_of =
        |text: &str, needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() + 1;
    // The column of the token at fault (issue #23 item 5), else of the marker.
    let cases = [
        (
            "// +kubebuilder:validation:XValidation:rule=\"self.fo.size() > 0\"",
            "",
            "CEL rule \"self.fo.size() > 0\" does not compile: at column 5: undefined field 'fo' (did you mean 'foo'?)",
            ".fo.size",
        ),
        (
            "// +kubebuilder:validation:XValidation:rule=\"self.items.all(a, self.items.all(b, a != b))\"",
            "    pub items: Vec<String>,\n",
            "the estimated cost of CEL rule \"self.items.all(a, self.items.all(b, a != b))\" exceeds budget by factor of more than 100x",
            "+",
        ),
        (
            "// +kubebuilder:validation:XValidation:rule=\"self.foo\",message=\"foo\"",
            "",
            "CEL rule \"self.foo\" must evaluate to a bool, but its type is string",
            "+",
        ),
        (
            "// +kubebuilder:validation:XValidation:rule=\"self.foo = 'a'\"",
            "",
            "CEL rule \"self.foo = 'a'\" does not parse: at column 10: unexpected `=`; CEL compares with `==`",
            "= 'a'",
        ),
    ];
    for (marker, field, message, token) in cases {
        let text = with_rule(marker, field);
        fs::write(&types, &text).unwrap();
        let before = tree(dir.path());
        let stderr = opgen_err(dir.path(), &["manifests"]);
        assert!(stderr.contains(message), "{stderr}");
        let at = format!(
            "--> src/api/v1alpha1/memcached_types.rs:{}:{}",
            line_of(&text, marker),
            marker.find(token).unwrap() + 1
        );
        assert!(stderr.contains(&at), "{at} in {stderr}");
        assert_eq!(tree(dir.path()), before);
    }
    // The same rules, made sound, are accepted and written without opgen's bookkeeping.
    fs::write(
        &types,
        with_rule(
            "// +kubebuilder:validation:XValidation:rule=\"self.items.all(a, a != '')\"\n// +kubebuilder:validation:XValidation:rule=\"!has(self.foo) || self.foo.size() > 0\"",
            "    // +kubebuilder:validation:MaxItems=10\n    pub items: Vec<String>,\n",
        ),
    )
    .unwrap();
    opgen_ok(dir.path(), &["manifests"]);
    let crd = fs::read_to_string(
        dir.path()
            .join("config/crd/bases/cache.example.com_memcacheds.yaml"),
    )
    .unwrap();
    assert!(crd.contains("self.items.all(a, a != '')"), "{crd}");
    assert!(!crd.contains("x-opgen-origin"), "{crd}");
}

#[test]
fn many_kinds_give_the_same_bytes_and_the_same_errors_every_run() {
    // Enough kinds that the CRDs are built and written on several threads.
    let write_project = |errors: bool| {
        let dir = tempfile::tempdir().unwrap();
        let api = dir.path().join("src/api/v1");
        fs::create_dir_all(&api).unwrap();
        fs::write(
            dir.path().join("PROJECT"),
            "domain: example.com\nlayout:\n- rust.opgen.dev/v1\nprojectName: par\nversion: \"3\"\n",
        )
        .unwrap();
        fs::write(dir.path().join("src/lib.rs"), "pub mod api;\n").unwrap();
        fs::write(dir.path().join("src/api/mod.rs"), "pub mod v1;\n").unwrap();
        let mut modules = String::new();
        for i in 0..16 {
            let kind = format!("Widget{i:02}");
            let rule = if errors && i % 5 == 2 {
                "// +kubebuilder:validation:Minimum=1\n    pub label: String,\n"
            } else {
                "pub label: String,\n"
            };
            fs::write(
                api.join(format!("widget{i:02}.rs")),
                format!(
                    "use kube::CustomResource;\nuse serde::{{Deserialize, Serialize}};\n\n/// {kind}Spec is the spec of {kind}.\n#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]\n#[kube(group = \"par.example.com\", version = \"v1\", kind = \"{kind}\", namespaced)]\npub struct {kind}Spec {{\n    /// size is field {i}.\n    // +kubebuilder:validation:Maximum={i}\n    pub size: i32,\n    {rule}}}\n"
                ),
            )
            .unwrap();
            modules.push_str(&format!("pub mod widget{i:02};\n"));
        }
        fs::write(api.join("mod.rs"), modules).unwrap();
        dir
    };
    let (first, second) = (write_project(false), write_project(false));
    opgen_ok(first.path(), &["manifests"]);
    opgen_ok(second.path(), &["manifests"]);
    let written = tree(first.path());
    let crds = written
        .keys()
        .filter(|p| p.starts_with("config/crd/bases") && p.extension().is_some_and(|e| e == "yaml"))
        .count();
    assert_eq!(crds, 16, "{:?}", written.keys());
    assert_eq!(tree(second.path()), written);
    let crd = &written[std::path::Path::new("config/crd/bases/par.example.com_widget07s.yaml")];
    assert!(crd.contains("maximum: 7\n"), "{crd}");

    let (first, second) = (write_project(true), write_project(true));
    let stderr = opgen_err(first.path(), &["manifests"]);
    assert_eq!(opgen_err(second.path(), &["manifests"]), stderr);
    let at: Vec<usize> = [2, 7, 12]
        .iter()
        .map(|i| {
            let file = format!("src/api/v1/widget{i:02}.rs:");
            stderr
                .find(&file)
                .unwrap_or_else(|| panic!("{file} in {stderr}"))
        })
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{stderr}");
    assert!(!first.path().join("config").exists());
}

/// Issue #23 item 10: a printer column the API server would refuse (a type or a JSONPath it
/// does not take) is an error at its marker, with the type meant, and nothing is written.
#[test]
fn printer_columns_the_api_server_refuses_are_errors_at_their_markers() {
    let dir = project_with_memcached();
    let types = dir.path().join("src/api/v1alpha1/memcached_types.rs");
    let text = fs::read_to_string(&types).unwrap();
    let at = text.find("#[derive(CustomResource").unwrap();
    let line = text[..at].lines().count() + 1;
    let columns = "// +kubebuilder:printcolumn:name=Ready,type=int,JSONPath=.status.readyReplicas\n\
                   // +kubebuilder:printcolumn:name=Size,type=integer,JSONPath=`spec.size[`\n";
    fs::write(&types, format!("{}{columns}{}", &text[..at], &text[at..])).unwrap();
    let before = tree(dir.path());
    let stderr = opgen_err(dir.path(), &["manifests"]);
    for want in [
        "printer column `Ready`: the API server takes no type `int`, only one of boolean, date, integer, number, string; did you mean `type=integer`?".to_owned(),
        format!("--> src/api/v1alpha1/memcached_types.rs:{line}:4"),
        "printer column `Size`: JSONPath `spec.size[` must be a simple JSON path starting with `.`".to_owned(),
        format!("--> src/api/v1alpha1/memcached_types.rs:{}:4", line + 1),
    ] {
        assert!(stderr.contains(&want), "{want} in {stderr}");
    }
    assert_eq!(tree(dir.path()), before);
}

/// Issue #23 item 2: a kind's marker above another struct (the status struct) would be lost:
/// it is an error at its line, naming where it belongs, and nothing is written.
#[test]
fn a_kind_marker_off_its_kind_is_an_error() {
    let dir = project_with_memcached();
    let types = dir.path().join("src/api/v1alpha1/memcached_types.rs");
    let text = fs::read_to_string(&types).unwrap();
    let at = text.find("pub struct MemcachedStatus").unwrap();
    let at = text[..at].rfind("#[derive").unwrap();
    let line = text[..at].lines().count() + 1;
    let marker =
        "// +kubebuilder:printcolumn:name=Ready,type=integer,JSONPath=.status.readyReplicas\n";
    fs::write(&types, format!("{}{marker}{}", &text[..at], &text[at..])).unwrap();
    let before = tree(dir.path());
    let stderr = opgen_err(dir.path(), &["manifests"]);
    for want in [
        "`+kubebuilder:printcolumn` describes a kind, but `MemcachedStatus` is not one, so it would have no effect".to_owned(),
        format!("--> src/api/v1alpha1/memcached_types.rs:{line}:4"),
        "put it on the struct that derives CustomResource".to_owned(),
    ] {
        assert!(stderr.contains(&want), "{want} in {stderr}");
    }
    assert_eq!(tree(dir.path()), before);
}

/// The README's tutorial with the sample forgotten: the spec's fields replaced, the sample
/// still sets `foo`. The API server would refuse it under server-side apply (`make test` fails
/// with `.spec.foo: field not declared in schema`); `opgen manifests` says so first.
#[test]
fn a_sample_the_spec_left_behind_is_a_located_warning_and_strict_refuses_it() {
    let dir = project_with_memcached();
    let types = dir.path().join("src/api/v1alpha1/memcached_types.rs");
    let text = fs::read_to_string(&types).unwrap();
    let foo = "    /// foo is an example field of Memcached. Edit memcached_types.rs to remove or update it.\n    // +optional\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub foo: Option<String>,\n";
    let tutorial = "    /// size is the number of memcached pods.\n    // +kubebuilder:validation:Minimum=1\n    // +kubebuilder:validation:Maximum=5\n    // +kubebuilder:default=1\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub size: Option<i32>,\n\n    /// containerPort is the port memcached listens on.\n    // +kubebuilder:validation:Minimum=1\n    // +kubebuilder:validation:Maximum=65535\n    // +kubebuilder:default=11211\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub container_port: Option<i32>,\n";
    let edited = text.replace(foo, tutorial);
    assert_ne!(edited, text);
    fs::write(&types, edited).unwrap();

    let warning = "\
.spec.foo: field not declared in schema; the API server would refuse it (server-side apply) or prune it (create)
  --> config/samples/cache_v1alpha1_memcached.yaml:10:3
   |
10 |   foo: bar
   |   ^^^
  = help: remove or rename it in the sample: the schema declares `containerPort`, `size` here
";
    let before = tree(dir.path());
    let refused = opgen_err(dir.path(), &["manifests", "--strict"]);
    assert_eq!(refused, format!("error: {warning}"));
    assert_eq!(tree(dir.path()), before, "--strict wrote something");

    let out = opgen(dir.path(), &["manifests"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("warning: {warning}")
    );
    let crd = fs::read_to_string(
        dir.path()
            .join("config/crd/bases/cache.example.com_memcacheds.yaml"),
    )
    .unwrap();
    assert!(
        crd.contains("containerPort:") && !crd.contains("foo:"),
        "{crd}"
    );

    // The sample given the tutorial's size fits; a size over the maximum does not.
    let sample = dir
        .path()
        .join("config/samples/cache_v1alpha1_memcached.yaml");
    let text = fs::read_to_string(&sample).unwrap();
    fs::write(&sample, text.replace("  foo: bar\n", "  size: 3\n")).unwrap();
    assert_eq!(
        opgen_ok(dir.path(), &["manifests", "--strict", "-v"]),
        "checked 1 sample object(s) against their CRDs\ngenerated manifests: 0 created, 0 updated\n"
    );
    fs::write(&sample, text.replace("  foo: bar\n", "  size: 6\n")).unwrap();
    let refused = opgen_err(dir.path(), &["manifests", "--strict"]);
    assert!(
        refused.starts_with("error: .spec.size: 6 must be at most 5 (maximum)\n  --> config/samples/cache_v1alpha1_memcached.yaml:10:3\n"),
        "{refused}"
    );
}
