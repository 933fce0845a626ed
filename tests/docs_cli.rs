//! `opgen docs` on scaffolded projects: what the reference says of a kind and its fields,
//! `--check` and `--dry-run`, stale documents, and bad input (a clear error, exit 1, nothing
//! written). tests/docs_reference.rs compares the reference with crd-ref-docs.

mod support;

use std::path::{Path, PathBuf};
use support::{opgen, opgen_err, opgen_ok, tree};

const DOC: &str = "docs/api/cache.example.com_v1alpha1.md";

/// A project with the kind Memcached (cache/v1alpha1), whose spec is `spec` (a struct body).
fn project(spec: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("p");
    std::fs::create_dir_all(&root).unwrap();
    opgen_ok(&root, &["init", "--domain", "example.com"]);
    opgen_ok(
        &root,
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v1alpha1",
            "--kind",
            "Memcached",
            "--controller=false",
        ],
    );
    let types = root.join("src/api/v1alpha1/memcached_types.rs");
    let text = std::fs::read_to_string(&types).unwrap();
    let start = text.find("pub struct MemcachedSpec {").unwrap();
    let end = start + text[start..].find("\n}\n").unwrap() + 3;
    let text = format!(
        "{}pub struct MemcachedSpec {{\n{spec}}}\n{}",
        &text[..start],
        &text[end..]
    );
    std::fs::write(&types, text).unwrap();
    (dir, root)
}

const SPEC: &str = r#"    /// Size of the cache.
    // +kubebuilder:validation:Minimum=1
    // +kubebuilder:default=3
    #[serde(default)]
    pub size: i32,
    /// Mode, one of three.
    pub mode: Mode,
    /// Backends by name.
    // +kubebuilder:validation:XValidation:rule="self.all(k, k.size() < 10)",message="short names"
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub backends: BTreeMap<String, Backend>,
    /// Pod conditions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pods: Vec<k8s_openapi::api::core::v1::PodCondition>,
"#;

const TYPES: &str = r#"
/// How the cache evicts.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub enum Mode {
    #[default]
    Lru,
    Lfu,
    Fifo,
}

/// A backend.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct Backend {
    /// Its host.
    // +kubebuilder:validation:MaxLength=63
    pub host: String,
}
"#;

fn with_types(root: &Path) {
    let types = root.join("src/api/v1alpha1/memcached_types.rs");
    let mut text = std::fs::read_to_string(&types).unwrap();
    text = text.replacen("\nuse ", "\nuse std::collections::BTreeMap;\nuse ", 1);
    text.push_str(TYPES);
    std::fs::write(&types, text).unwrap();
}

#[test]
fn the_reference_shows_each_field_with_its_type_flag_default_and_rules() {
    let (_dir, root) = project(SPEC);
    with_types(&root);
    let out = opgen_ok(&root, &["docs"]);
    assert_eq!(out, "generated the API reference: 2 created, 0 updated\n");
    let doc = std::fs::read_to_string(root.join(DOC)).unwrap();
    for expected in [
        "# cache.example.com/v1alpha1\n",
        "- Scope: Namespaced\n- Plural: `memcacheds`\n",
        "- `spec` ([MemcachedSpec](#memcachedspec)), required\n",
        "- `size` (integer), optional\n  - Default: `3`\n  - format: `int32`\n  - minimum: `1`\n\n  Size of the cache.\n",
        "- `mode` ([Mode](#mode)), required\n  - Enum: `Lru`, `Lfu`, `Fifo`\n",
        "- `backends` (map of [Backend](#backend)), optional\n  - Rule: `self.all(k, k.size() < 10)` (short names)\n",
        "- `pods` ([PodCondition](https://kubernetes.io/docs/reference/generated/kubernetes-api/v1.33/#podcondition-v1-core) array), optional\n",
        "### Backend\n\nA backend.\n\nFields:\n\n- `host` (string), required\n  - maxLength: `63`\n",
        "### Mode\n\nHow the cache evicts.\n\nUnderlying type: string\n\n- Enum: `Lru`, `Lfu`, `Fifo`\n",
    ] {
        assert!(doc.contains(expected), "no {expected:?} in\n{doc}");
    }
    // Types in name order, each once.
    let headings: Vec<&str> = doc.lines().filter(|l| l.starts_with("### ")).collect();
    assert_eq!(
        headings,
        [
            "### Backend",
            "### MemcachedSpec",
            "### MemcachedStatus",
            "### Mode",
        ]
    );
    let index = std::fs::read_to_string(root.join("docs/api/README.md")).unwrap();
    assert!(
        index
            .contains("- [cache.example.com/v1alpha1](cache.example.com_v1alpha1.md): Memcached\n"),
        "{index}"
    );

    // Deterministic: a second run changes nothing, and --check agrees.
    assert_eq!(
        opgen_ok(&root, &["docs"]),
        "generated the API reference: 0 created, 0 updated\n"
    );
    assert_eq!(
        opgen_ok(&root, &["docs", "--check"]),
        "the API reference is up to date\n"
    );
}

/// The same reference as AsciiDoc and HTML: each format's own files and index, the links
/// pointed at them, a stale document of the format removed and one of another format kept.
#[test]
fn asciidoc_and_html_are_the_same_reference_in_their_own_files() {
    let (_dir, root) = project(SPEC);
    with_types(&root);
    opgen_ok(&root, &["docs"]);
    let stale = root.join("docs/api/old.example.com_v1.html");
    std::fs::write(
        &stale,
        "<p>Generated by <code>opgen docs</code> from the API types under <code>src/</code>; do not edit.</p>\n",
    )
    .unwrap();

    let out = opgen_ok(&root, &["docs", "--format", "html"]);
    assert_eq!(
        out,
        "removed docs/api/old.example.com_v1.html (no kind of its group version is left)\n\
         generated the API reference: 2 created, 0 updated, 1 removed\n"
    );
    assert!(!stale.exists());
    assert!(root.join(DOC).is_file(), "the Markdown reference stays");
    let html =
        std::fs::read_to_string(root.join("docs/api/cache.example.com_v1alpha1.html")).unwrap();
    for expected in [
        "<title>cache.example.com/v1alpha1</title>",
        "<h3 id=\"backend\">Backend</h3>",
        "<p><code>spec</code> (<a href=\"#memcachedspec\">MemcachedSpec</a>), required</p>",
        "<li>Default: <code>3</code></li>",
    ] {
        assert!(html.contains(expected), "no {expected:?} in\n{html}");
    }
    let index = std::fs::read_to_string(root.join("docs/api/index.html")).unwrap();
    assert!(
        index
            .contains("<a href=\"cache.example.com_v1alpha1.html\">cache.example.com/v1alpha1</a>"),
        "{index}"
    );

    opgen_ok(&root, &["docs", "--format", "asciidoc"]);
    let adoc =
        std::fs::read_to_string(root.join("docs/api/cache.example.com_v1alpha1.adoc")).unwrap();
    for expected in [
        "= cache.example.com/v1alpha1\n",
        "[[backend]]\n=== Backend\n",
        "* `+spec+` (<<memcachedspec,MemcachedSpec>>), required\n",
        "* `+size+` (integer), optional\n+\nSize of the cache.\n** Default: `+3+`\n",
    ] {
        assert!(adoc.contains(expected), "no {expected:?} in\n{adoc}");
    }
    let index = std::fs::read_to_string(root.join("docs/api/README.adoc")).unwrap();
    assert!(
        index.contains(
            "* xref:cache.example.com_v1alpha1.adoc[cache.example.com/v1alpha1]: Memcached\n"
        ),
        "{index}"
    );
    assert_eq!(
        opgen_ok(&root, &["docs", "--format", "asciidoc", "--check"]),
        "the API reference is up to date\n"
    );
}

#[test]
fn check_and_dry_run_name_the_stale_documents_and_write_nothing() {
    let (_dir, root) = project("    /// Size.\n    pub size: i32,\n");
    opgen_ok(&root, &["docs"]);
    let types = root.join("src/api/v1alpha1/memcached_types.rs");
    let text = std::fs::read_to_string(&types).unwrap();
    std::fs::write(&types, text.replace("/// Size.", "/// How many.")).unwrap();
    // A stale document opgen wrote, and one of the user's beside it.
    let stale = root.join("docs/api/old.example.com_v1.md");
    std::fs::write(&stale, "# old.example.com/v1\n\nGenerated by `opgen docs` from the API types under `src/`; do not edit.\n").unwrap();
    let own = root.join("docs/api/notes.md");
    std::fs::write(&own, "# Notes\n").unwrap();
    let before = tree(&root);

    let err = opgen_err(&root, &["docs", "--check"]);
    assert!(
        err.contains("2 API reference file(s) are out of date:\n  docs/api/cache.example.com_v1alpha1.md\n  docs/api/old.example.com_v1.md\n"),
        "{err}"
    );
    assert!(err.contains("run `opgen docs`"), "{err}");
    let dry = opgen_ok(&root, &["docs", "--dry-run"]);
    assert!(
        dry.contains("would update docs/api/cache.example.com_v1alpha1.md\n"),
        "{dry}"
    );
    assert!(
        dry.contains(
            "would remove docs/api/old.example.com_v1.md (no kind of its group version is left)\n"
        ),
        "{dry}"
    );
    assert_eq!(tree(&root), before, "--check and --dry-run write nothing");

    opgen_ok(&root, &["docs"]);
    assert!(!stale.exists());
    assert!(own.exists(), "a document opgen did not write stays");
    assert!(
        std::fs::read_to_string(root.join(DOC))
            .unwrap()
            .contains("  How many.\n")
    );
}

#[test]
fn bad_input_is_a_clear_error_and_writes_nothing() {
    let (_dir, root) = project("    pub size: i32,\n");
    let before = tree(&root);

    let err = opgen_err(&root, &["docs", "--out", "../elsewhere"]);
    assert!(
        err.contains("--out ../elsewhere: the reference is written inside the project"),
        "{err}"
    );
    assert!(err.contains("--out docs/api"), "{err}");

    let out = opgen(&root, &["docs", "--format", "pdf"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("invalid value 'pdf' for '--format <FORMAT>'")
            && err.contains("[possible values: markdown, asciidoc, html]"),
        "{err}"
    );

    // A type that does not parse: its file, line and column.
    let types = root.join("src/api/v1alpha1/memcached_types.rs");
    let text = std::fs::read_to_string(&types).unwrap();
    std::fs::write(&types, text.replace("pub size: i32,", "pub size: i32,,")).unwrap();
    let err = opgen_err(&root, &["docs"]);
    assert!(
        err.contains("src/api/v1alpha1/memcached_types.rs:"),
        "{err}"
    );
    std::fs::write(&types, &text).unwrap();

    assert_eq!(tree(&root), before);

    // A project without kinds has nothing to document.
    let empty = tempfile::tempdir().unwrap();
    opgen_ok(
        empty.path(),
        &["init", "--domain", "example.com", "--project-name", "empty"],
    );
    let err = opgen_err(empty.path(), &["docs"]);
    assert!(
        err.contains("no kinds under src/: there is no API to document"),
        "{err}"
    );
    assert!(err.contains("opgen create api"), "{err}");
    assert!(!empty.path().join("docs").exists());
}
