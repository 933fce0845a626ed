//! `bundle`: the OLM bundle of the project, after regenerating its manifests.
//!
//! The bundle is made from what `make deploy` installs: config/default rendered by kustomize
//! (`kubectl kustomize`, as the scaffold's Makefile renders it), so that every patch, prefix
//! and label the user puts there reaches OLM too, as operator-sdk's `kustomize build
//! config/manifests | operator-sdk generate bundle` does. kustomize reads a scratch copy of
//! config/ with this run's regenerated CRDs and roles, so nothing is written before the commit.

use crate::diag::{Error, Result};
use crate::generators::bundle::{
    self, ANNOTATIONS_FILE, BundleInput, BundleOptions, MANIFESTS_DIR,
};
use crate::generators::package;
use crate::ops::manifests::{ManifestOptions, cargo_settings, manifests};
use crate::project::Project;
use crate::writer::Workspace;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const DEFAULT_CHANNEL: &str = "alpha";

#[derive(Debug, Clone, Default)]
pub struct BundleArgs {
    /// None: the version of the bundle already there.
    pub version: Option<String>,
    pub channels: Option<Vec<String>>,
    pub default_channel: Option<String>,
    pub image: Option<String>,
    pub manifests: ManifestOptions,
    /// kubectl to render kustomizations with.
    pub kubectl: PathBuf,
}

#[derive(Debug, Default)]
pub struct BundleReport {
    pub warnings: Vec<crate::diag::Diagnostic>,
    /// The base CSV did not exist and was staged.
    pub base_created: Option<String>,
}

/// The settings of the bundle on disk, reused when a flag is not given.
#[derive(Default)]
struct Previous {
    version: Option<String>,
    channels: Option<Vec<String>>,
    default_channel: Option<String>,
    image: Option<String>,
}

fn previous(ws: &Workspace, package: &str) -> Result<Previous> {
    let mut p = Previous::default();
    let csv_path = format!("{MANIFESTS_DIR}/{package}.clusterserviceversion.yaml");
    if let Some(text) = ws.read(Path::new(&csv_path))? {
        let csv = package::parse_documents(&text, &csv_path)?
            .into_iter()
            .next()
            .unwrap_or(Value::Null);
        p.version = csv["spec"]["version"].as_str().map(str::to_owned);
        p.image = csv["spec"]["install"]["spec"]["deployments"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|d| {
                d["spec"]["template"]["spec"]["containers"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .find(|c| c["name"] == "manager")
            .and_then(|c| c["image"].as_str().map(str::to_owned));
    }
    if let Some(text) = ws.read(Path::new(ANNOTATIONS_FILE))? {
        let doc = package::parse_documents(&text, ANNOTATIONS_FILE)?
            .into_iter()
            .next()
            .unwrap_or(Value::Null);
        let a = &doc["annotations"];
        p.channels = a["operators.operatorframework.io.bundle.channels.v1"]
            .as_str()
            .map(|c| c.split(',').map(str::to_owned).collect());
        p.default_channel = a["operators.operatorframework.io.bundle.channel.default.v1"]
            .as_str()
            .map(str::to_owned);
    }
    Ok(p)
}

/// `--version` as OLM needs it: a semantic version without a leading `v`.
pub fn check_version(version: &str) -> Result<()> {
    if let Some(rest) = version.strip_prefix('v')
        && semver::Version::parse(rest).is_ok()
    {
        return Err(Error::with_help(
            format!("invalid value {version:?} for --version: a CSV's version has no leading `v`"),
            format!("write --version {rest}"),
        ));
    }
    semver::Version::parse(version).map(|_| ()).map_err(|e| {
        Error::with_help(
            format!("invalid value {version:?} for --version: not a semantic version ({e})"),
            "write MAJOR.MINOR.PATCH, e.g. --version 0.1.0 (or 1.2.0-rc.1)",
        )
    })
}

fn check_channel(channel: &str, flag: &str) -> Result<()> {
    let ok = !channel.is_empty()
        && channel
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'));
    if ok {
        Ok(())
    } else {
        Err(Error::with_help(
            format!(
                "invalid value {channel:?} for {flag}: a channel name is letters, digits, `-`, `.` and `_`"
            ),
            "e.g. --channels alpha or --channels stable,fast",
        ))
    }
}

/// Stages the manifests and the bundle.
pub fn bundle(ws: &mut Workspace, args: &BundleArgs) -> Result<BundleReport> {
    let project = Project::load(ws)?;
    let package = project.project_name.clone();
    let before = previous(ws, &package)?;
    let version = match args.version.clone().or(before.version) {
        Some(v) => v,
        None => {
            return Err(Error::with_help(
                "opgen bundle needs --version: there is no bundle yet to take the version from",
                "e.g. opgen bundle --version 0.1.0",
            ));
        }
    };
    check_version(&version)?;
    let channels = args
        .channels
        .clone()
        .or(before.channels)
        .unwrap_or_else(|| vec![DEFAULT_CHANNEL.to_owned()]);
    for c in &channels {
        check_channel(c, "--channels")?;
    }
    let default_channel = args.default_channel.clone().or(before.default_channel);
    if let Some(d) = &default_channel {
        check_channel(d, "--default-channel")?;
        if !channels.contains(d) {
            return Err(Error::with_help(
                format!(
                    "--default-channel {d} is not one of the bundle's channels ({})",
                    channels.join(",")
                ),
                format!("add it: --channels {},{d}", channels.join(",")),
            ));
        }
    }

    let manifest_report = manifests(ws, &args.manifests)?;
    let mut report = BundleReport {
        warnings: manifest_report.warnings,
        base_created: None,
    };

    let scratch = Scratch::new()?;
    ws.export_dir(Path::new("config"), scratch.path())?;
    let rendered = kustomize(&args.kubectl, scratch.path(), "config/default")?;
    let samples = if ws.exists(Path::new("config/samples/kustomization.yaml")) {
        kustomize(&args.kubectl, scratch.path(), "config/samples")?
    } else {
        Vec::new()
    };

    let base_path = bundle::base_path(&package);
    let base_text = match ws.read(Path::new(&base_path))? {
        Some(text) => text,
        None => {
            let link = project
                .repo
                .as_deref()
                .map(|r| format!("https://{r}"))
                .unwrap_or_else(|| format!("https://{}", project.domain));
            let text = bundle::initial_base(
                &package,
                &link,
                cargo_settings(ws)?
                    .k8s_minor
                    .map(|m| format!("1.{m}.0"))
                    .as_deref(),
                project.namespaced,
            );
            ws.stage(&base_path, text.clone());
            report.base_created = Some(base_path.clone());
            text
        }
    };
    let base = parse_base(&base_text, &base_path)?;

    let out = bundle::generate(
        &BundleInput {
            rendered: &rendered,
            samples: &samples,
            base: &base,
            csv: &manifest_report.csv,
        },
        &BundleOptions {
            package,
            version,
            channels,
            default_channel,
            image: args.image.clone().or(before.image),
            layout: project.layout.first().cloned().unwrap_or_default(),
        },
    )?;
    report.warnings.extend(out.warnings);
    let written: Vec<PathBuf> = out.files.iter().map(|(p, _)| PathBuf::from(p)).collect();
    for (path, content) in out.files {
        ws.stage(path, content);
    }
    // bundle/manifests/ is opgen's: what this run did not write is stale.
    for path in ws.list_files(Path::new(MANIFESTS_DIR), ".yaml")? {
        if !written.contains(&path) {
            ws.stage_removal(&path, Some("no longer part of the bundle".into()));
        }
    }
    Ok(report)
}

fn parse_base(text: &str, path: &str) -> Result<Value> {
    let docs = package::parse_documents(text, path)?;
    let [doc] = docs.as_slice() else {
        return Err(Error::with_help(
            format!(
                "{path}: holds {} YAML documents, not one ClusterServiceVersion",
                docs.len()
            ),
            "keep exactly the base ClusterServiceVersion in it (delete the file to start from opgen's)",
        ));
    };
    if package::kind(doc) != "ClusterServiceVersion" {
        return Err(Error::with_help(
            format!(
                "{path}: is a {:?}, not a ClusterServiceVersion",
                package::kind(doc)
            ),
            "restore `kind: ClusterServiceVersion` (delete the file to start from opgen's)",
        ));
    }
    Ok(doc.clone())
}

/// `kubectl kustomize <root>/<dir>`, parsed.
fn kustomize(kubectl: &Path, root: &Path, dir: &str) -> Result<Vec<Value>> {
    let out = Command::new(kubectl)
        .arg("kustomize")
        .arg(root.join(dir))
        .output()
        .map_err(|e| {
            Error::with_help(
                format!(
                    "cannot run `{} kustomize {dir}`: {e}",
                    kubectl.display()
                ),
                "opgen bundle renders config/ with kubectl's kustomize: install kubectl, or set KUBECTL to it (hack/setup-envtest.sh builds one)",
            )
        })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let root_text = format!("{}/", root.display());
        return Err(Error::with_help(
            format!(
                "`kubectl kustomize {dir}` failed: {}",
                stderr.trim().replace(&root_text, "")
            ),
            format!("`kubectl kustomize {dir}` shows the same error; fix the kustomization there"),
        ));
    }
    package::parse_documents(
        &String::from_utf8_lossy(&out.stdout),
        &format!("kubectl kustomize {dir}"),
    )
}

/// A scratch directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Self> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let dir = std::env::temp_dir().join(format!("opgen-bundle-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        Ok(Scratch(dir))
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
