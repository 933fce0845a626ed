//! `opgen lint` from the command line: diagnostics at the field, the exit code, `--strict`, the
//! configuration in Cargo.toml (and its errors at their line), and `--fix` through the writer.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn opgen(dir: &Path, args: &[&str]) -> Output {
    Command::new(support::opgen_bin())
        .args(args)
        .current_dir(dir)
        .output()
        .expect("opgen runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const TYPES: &str = r#"use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// spec of a Widget.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "shop.example.com", version = "v1", kind = "Widget", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpec {
    /// ratio of the widget.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
    /// size of the widget.
    /// +required
    pub size: i32,
    /// colour of the widget.
    /// +optional
    #[serde(default)]
    pub colour: Option<String>,
}
"#;

/// A fresh project whose only API type is [`TYPES`], with `lint` as its lint configuration.
fn project(name: &str, lint: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("lint-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = opgen(
        &dir,
        &[
            "init",
            "--domain",
            "example.com",
            "--project-name",
            "widgets",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::create_dir_all(dir.join("src/api/v1")).unwrap();
    std::fs::write(dir.join("src/api/mod.rs"), "pub mod v1;\n").unwrap();
    std::fs::write(dir.join("src/api/v1/mod.rs"), "pub mod widget_types;\n").unwrap();
    std::fs::write(dir.join("src/api/v1/widget_types.rs"), TYPES).unwrap();
    let cargo = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&cargo).unwrap();
    std::fs::write(&cargo, format!("{text}{lint}")).unwrap();
    dir
}

#[test]
fn findings_are_warnings_at_the_field_and_strict_makes_them_fail() {
    let dir = project("strict", "");
    let out = opgen(&dir, &["lint"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    // f64 ratio: nofloats at the field's name; colour: an Option serialized as null.
    assert!(
        err.contains(
            "warning[nofloats]: field WidgetSpec.ratio pointer should not use a float value"
        ),
        "{err}"
    );
    assert!(
        err.contains("  --> src/api/v1/widget_types.rs:13:9\n"),
        "{err}"
    );
    assert!(
        err.contains("warning[optionnull]: field WidgetSpec.colour is an Option written as null"),
        "{err}"
    );
    assert!(
        err.contains("  --> src/api/v1/widget_types.rs:20:9\n"),
        "{err}"
    );
    // size: a required i32 whose zero value passes validation (KAL's requiredfields) is an
    // Option, left out when None; colour: also optionalfields' omitempty.
    assert!(
        err.contains("warning[requiredfields]: field WidgetSpec.size has a valid zero value (0), but the validation is not complete"),
        "{err}"
    );
    assert!(
        err.contains("warning[optionalfields]: field WidgetSpec.colour should have the omitempty tag (Rust: skip_serializing_if)."),
        "{err}"
    );
    assert!(err.contains("lint: 5 warning(s)"), "{err}");
    let strict = opgen(&dir, &["lint", "--strict"]);
    assert!(!strict.status.success());
    let err = stderr(&strict);
    assert!(err.contains("error[nofloats]"), "{err}");
    assert!(err.contains("lint: 5 error(s), 0 warning(s)"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rules_off_by_default_are_enabled_and_exceptions_need_a_reason() {
    let config = r#"
[package.metadata.opgen.lint]
enable = ["nobools"]
disable = ["optionnull", "optionalfields", "requiredfields"]

[[package.metadata.opgen.lint.exceptions]]
rule = "nofloats"
field = "WidgetSpec.ratio"
reason = "the ratio mirrors an upstream API"
"#;
    let dir = project("config", config);
    let out = opgen(&dir, &["lint", "--strict"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("lint: 0 warning(s)"),
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// An exception that accepts no finding (the field was renamed, or fixed) is a warning at its
/// table: left alone it would hide the next finding of that name.
#[test]
fn an_exception_that_accepts_nothing_is_a_warning_at_its_table() {
    let config = r#"
[package.metadata.opgen.lint]

[[package.metadata.opgen.lint.exceptions]]
rule = "nofloats"
field = "WidgetSpec.ratio"
reason = "the ratio mirrors an upstream API"

[[package.metadata.opgen.lint.exceptions]]
rule = "nofloats"
field = "WidgetSpec.old_ratio"
reason = "renamed since"
"#;
    let dir = project("stale-exception", config);
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let table = manifest
        .lines()
        .position(|l| l == "field = \"WidgetSpec.old_ratio\"")
        .expect("the stale exception")
        - 1;
    let out = opgen(&dir, &["lint"]);
    let err = stderr(&out);
    assert!(
        err.contains(
            "warning: the exception to nofloats at WidgetSpec.old_ratio accepts no finding"
        ),
        "{err}"
    );
    assert!(err.contains(&format!("Cargo.toml:{table}:1")), "{err}");
    assert!(
        !err.contains("at WidgetSpec.ratio accepts no finding"),
        "the exception in use is not reported: {err}"
    );
    // An exception to a rule that is off says nothing.
    let only = opgen(&dir, &["lint", "--only", "nobools"]);
    assert!(
        !stderr(&only).contains("accepts no finding"),
        "{}",
        stderr(&only)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_configuration_is_an_error_at_its_line() {
    let config = "\n[package.metadata.opgen.lint]\ndisable = [\"nofloat\"]\n\n[[package.metadata.opgen.lint.exceptions]]\nrule = \"nofloats\"\nfield = \"WidgetSpec.ratio\"\n";
    let dir = project("bad-config", config);
    let before = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let out = opgen(&dir, &["lint"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    let lines = before.lines().count();
    // `disable` names no rule, at the value; the exception gives no reason, at its table.
    assert!(
        err.contains("error: `disable` names no rule: \"nofloat\""),
        "{err}"
    );
    assert!(
        err.contains(&format!("Cargo.toml:{}:12", lines - 4)),
        "{err}"
    );
    assert!(
        err.contains("help: the rules are arrayofstruct, commentstart, "),
        "{err}"
    );
    assert!(
        err.contains("error: the exception to nofloats at WidgetSpec.ratio gives no `reason`"),
        "{err}"
    );
    assert!(
        err.contains(&format!("Cargo.toml:{}:1", lines - 2)),
        "{err}"
    );
    let unknown = opgen(&dir, &["lint", "--only", "nope"]);
    assert!(!unknown.status.success());
    assert!(stderr(&unknown).contains("--only names no rule: nope"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fix_adds_skip_serializing_if_and_dry_run_writes_nothing() {
    let dir = project("fix", "");
    let file = dir.join("src/api/v1/widget_types.rs");
    let dry = opgen(&dir, &["--dry-run", "lint", "--fix"]);
    assert!(dry.status.success(), "{}", stderr(&dry));
    assert!(
        String::from_utf8_lossy(&dry.stdout).contains("would update src/api/v1/widget_types.rs")
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), TYPES);
    let fixed = opgen(&dir, &["lint", "--fix"]);
    assert!(fixed.status.success(), "{}", stderr(&fixed));
    let text = std::fs::read_to_string(&file).unwrap();
    // optionnull and optionalfields insert the same line above colour: once. requiredfields
    // makes size an Option, left out when None.
    assert_eq!(
        text,
        TYPES
            .replace(
                "    #[serde(default)]\n    pub colour",
                "    #[serde(default)]\n    #[serde(skip_serializing_if = \"Option::is_none\")]\n    pub colour",
            )
            .replace(
                "    pub size: i32,",
                "    #[serde(skip_serializing_if = \"Option::is_none\")]\n    pub size: Option<i32>,",
            )
    );
    // What remains is what no fix covers.
    let again = opgen(&dir, &["lint"]);
    let err = stderr(&again);
    assert!(!err.contains("optionnull"), "{err}");
    assert!(!err.contains("requiredfields"), "{err}");
    assert!(err.contains("warning[nofloats]"), "{err}");
    assert!(err.contains("lint: 1 warning(s)"), "{err}");
    // The fixed types still make their CRD, size (now a required Option) required in it.
    let manifests = opgen(&dir, &["manifests"]);
    assert!(manifests.status.success(), "{}", stderr(&manifests));
    let crd = std::fs::read_to_string(dir.join("config/crd/bases/shop.example.com_widgets.yaml"))
        .unwrap();
    let crd: serde_yaml::Value = serde_yaml::from_str(&crd).unwrap();
    let spec = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
    assert_eq!(
        spec["required"],
        serde_yaml::from_str::<serde_yaml::Value>("[size]").unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn serde_forms_the_schema_cannot_say_are_reported() {
    let dir = project("serde", "");
    let extra = r#"
/// choice of a Widget.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[serde(untagged)]
pub enum Choice {
    Number { number: i32 },
    Text { text: String },
}

/// strict part of a Widget.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Strict {
    /// name of the part.
    /// +required
    pub name: String,
}
"#;
    let file = dir.join("src/api/v1/widget_types.rs");
    std::fs::write(&file, format!("{TYPES}{extra}")).unwrap();
    let out = opgen(&dir, &["lint"]);
    let err = stderr(&out);
    // An untagged enum is an error (the schema cannot tell its variants apart), so the run fails.
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("error[untaggedenum]: enum Choice is #[serde(untagged)]"),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "  --> src/api/v1/widget_types.rs:{}:10\n",
            TYPES.lines().count() + 5
        )),
        "{err}"
    );
    assert!(
        err.contains("warning[denyunknownfields]: Strict has #[serde(deny_unknown_fields)]"),
        "{err}"
    );
    // And requiredfields on Strict.name (an Option, left out when None) and on TYPES.
    assert!(err.contains("lint: 1 error(s), 8 warning(s)"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_vec_of_bytes_is_an_error_at_its_field() {
    let dir = project("bytes", "");
    let extra = r#"
/// certificate part of a Widget.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Certificate {
    /// pem of the certificate.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pem: Option<Vec<u8>>,
    /// der of the certificate, base64 through a module of its own.
    /// +optional
    #[serde(default, with = "base64_bytes")]
    pub der: Vec<u8>,
    /// chain of the certificate.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain: Option<k8s_openapi::ByteString>,
}
"#;
    let file = dir.join("src/api/v1/widget_types.rs");
    std::fs::write(&file, format!("{TYPES}{extra}")).unwrap();
    let out = opgen(&dir, &["lint", "--only", "bytestring"]);
    let err = stderr(&out);
    // What serde sends of it the API server refuses, whatever the value: an error.
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains(
            "error[bytestring]: field Certificate.pem holds a Vec<u8>, which serde sends as a list of numbers"
        ),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "  --> src/api/v1/widget_types.rs:{}:9\n",
            TYPES.lines().count() + 9
        )),
        "{err}"
    );
    assert!(err.contains("use k8s_openapi::ByteString"), "{err}");
    // Neither the field serialized with a module of its own nor the ByteString.
    assert!(err.contains("lint: 1 error(s), 0 warning(s)"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rule_settings_configure_a_rule_and_are_read_strictly() {
    // forbiddenmarkers checks nothing until its settings name a marker; --fix removes its line.
    let config = "\n[package.metadata.opgen.lint.rules.forbiddenmarkers]\nmarkers = [{ identifier = \"optional\" }]\n";
    let dir = project("settings", config);
    let out = opgen(&dir, &["lint", "--only", "forbiddenmarkers"]);
    let err = stderr(&out);
    assert!(
        err.contains(
            "warning[forbiddenmarkers]: field WidgetSpec.ratio has forbidden marker \"optional\""
        ),
        "{err}"
    );
    assert_eq!(err.matches("warning[forbiddenmarkers]").count(), 2, "{err}");
    let fixed = opgen(&dir, &["lint", "--only", "forbiddenmarkers", "--fix"]);
    assert!(fixed.status.success(), "{}", stderr(&fixed));
    let types = std::fs::read_to_string(dir.join("src/api/v1/widget_types.rs")).unwrap();
    assert!(!types.contains("+optional"), "{types}");
    assert!(
        types.contains("    /// +required\n    pub size: i32,"),
        "{types}"
    );

    // A key the rule does not have is an error at its line, and nothing is linted.
    let cargo = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&cargo).unwrap();
    let bad = text.replace("markers = [{ identifier", "marker = [{ identifier");
    std::fs::write(&cargo, &bad).unwrap();
    let line = bad
        .lines()
        .position(|l| l.starts_with("marker = "))
        .unwrap()
        + 1;
    let out = opgen(&dir, &["lint"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("unknown field `marker`, expected `markers`"),
        "{err}"
    );
    assert!(err.contains(&format!("Cargo.toml:{line}:1")), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn serialization_policies_and_naming_conventions_are_settings() {
    // requiredfields' pointer policy Warn: reported, never rewritten by --fix.
    let config = r#"
[package.metadata.opgen.lint]
enable = ["namingconventions"]

[package.metadata.opgen.lint.rules.requiredfields]
pointers = { policy = "Warn" }

[[package.metadata.opgen.lint.rules.namingconventions.conventions]]
name = "nocolour"
violationMatcher = "(?i)colou?r"
operation = "Replacement"
replacement = "Shade"
message = "say shade"
"#;
    let dir = project("serialization", config);
    let fixed = opgen(
        &dir,
        &[
            "lint",
            "--only",
            "requiredfields,namingconventions",
            "--fix",
        ],
    );
    let err = stderr(&fixed);
    assert!(fixed.status.success(), "{err}");
    assert!(
        err.contains("warning[requiredfields]: field WidgetSpec.size has a valid zero value (0)"),
        "{err}"
    );
    assert!(
        err.contains("warning[namingconventions]: naming convention \"nocolour\": field WidgetSpec.colour: say shade"),
        "{err}"
    );
    assert!(err.contains("help: rename it to \"shade\""), "{err}");
    assert!(err.contains("lint: 3 warning(s)"), "{err}");
    let types = std::fs::read_to_string(dir.join("src/api/v1/widget_types.rs")).unwrap();
    assert_eq!(types, TYPES);

    // A matcher that is no regular expression is an error at its line.
    let cargo = dir.join("Cargo.toml");
    let bad = std::fs::read_to_string(&cargo)
        .unwrap()
        .replace("(?i)colou?r", "colou(r");
    std::fs::write(&cargo, &bad).unwrap();
    let line = bad
        .lines()
        .position(|l| l.starts_with("violationMatcher"))
        .unwrap()
        + 1;
    let out = opgen(&dir, &["lint"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("unclosed group"), "{err}");
    assert!(err.contains(&format!("Cargo.toml:{line}:")), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
