//! `diff`: the project's CRDs at two points, compared by `compat`. Each side is CRD YAML
//! (files or directories), a git revision of the project (`<rev>` reads `config/crd/bases`
//! there, `<rev>:<path>` another path), a live cluster (`cluster:`, through kubectl and the
//! user's kubeconfig), or what `opgen manifests` would write now (staged, never written).

use crate::compat::{self, Report};
use crate::diag::{Diagnostic, Diagnostics, Error, Result};
use crate::load_crd::{self, CrdDocument};
use crate::ops::manifests::{CRD_DIR, ManifestOptions, manifests};
use crate::writer::Workspace;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where one side's CRDs come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// CRD YAML files and directories.
    Paths(Vec<PathBuf>),
    /// A git revision, and the path (file or directory) of the CRDs in it.
    Git { rev: String, path: PathBuf },
    /// The CRDs of the cluster kubectl's current context points at.
    Cluster,
    /// What `opgen manifests` writes now.
    Manifests,
}

pub const CLUSTER: &str = "cluster:";

impl Source {
    /// Reads a command-line argument: `cluster:`, an existing path, else a git revision of the
    /// repository around `dir` (`<rev>` or `<rev>:<path>`).
    pub fn parse(arg: &str, dir: &Path) -> Result<Source> {
        if arg == CLUSTER {
            return Ok(Source::Cluster);
        }
        if dir.join(arg).exists() {
            return Ok(Source::Paths(vec![PathBuf::from(arg)]));
        }
        let (rev, path) = match arg.split_once(':') {
            Some((rev, path)) => (rev, PathBuf::from(path)),
            None => (arg, PathBuf::from(CRD_DIR)),
        };
        let known = git(
            dir,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("{rev}^{{commit}}"),
            ],
        )
        .is_ok_and(|out| !out.trim().is_empty());
        if !known {
            return Err(Error::with_help(
                format!(
                    "`{arg}` is neither a file, a directory nor a git revision of the repository here"
                ),
                "give CRD YAML files or directories, a revision (`v1.2.0`, `HEAD~1`, `main:config/crd/bases`), or `cluster:` for the CRDs of the current kubeconfig context",
            ));
        }
        Ok(Source::Git {
            rev: rev.to_owned(),
            path,
        })
    }

    fn describe(&self) -> String {
        match self {
            Source::Paths(p) => p
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            Source::Git { rev, path } => format!("{rev}:{}", path.display()),
            Source::Cluster => "the cluster".to_owned(),
            Source::Manifests => "opgen manifests".to_owned(),
        }
    }
}

/// How `diff` reaches outside: the directory it runs in and the kubectl it runs.
#[derive(Debug, Clone)]
pub struct DiffContext {
    pub dir: PathBuf,
    pub kubectl: PathBuf,
}

/// The comparison of `old` with `new`. A cluster side holds other projects' CRDs too, so there
/// only the CRDs both sides have are compared.
pub fn diff(old: &Source, new: &Source, ctx: &DiffContext) -> Result<Report> {
    let cluster = [old, new].contains(&&Source::Cluster);
    let (old_crds, new_crds) = match (old, new) {
        (Source::Cluster, other) => {
            let new_crds = load(other, ctx, &[])?;
            (load(old, ctx, &names(&new_crds))?, new_crds)
        }
        (other, Source::Cluster) => {
            let old_crds = load(other, ctx, &[])?;
            let new_crds = load(new, ctx, &names(&old_crds))?;
            (old_crds, new_crds)
        }
        _ => (load(old, ctx, &[])?, load(new, ctx, &[])?),
    };
    Ok(compat::compare(&old_crds, &new_crds, cluster))
}

fn names(crds: &[Value]) -> Vec<String> {
    crds.iter()
        .filter_map(|c| c["metadata"]["name"].as_str().map(str::to_owned))
        .collect()
}

/// One side's CRDs, checked. `wanted`: for a cluster, the CRDs to fetch (none: all).
fn load(source: &Source, ctx: &DiffContext, wanted: &[String]) -> Result<Vec<Value>> {
    let docs = match source {
        Source::Paths(paths) => {
            let paths: Vec<PathBuf> = paths.iter().map(|p| ctx.dir.join(p)).collect();
            // Files are named as given, relative to the directory diff runs in.
            let relative = |p: &mut PathBuf| {
                if let Ok(rest) = p.strip_prefix(&ctx.dir) {
                    *p = rest.to_path_buf();
                }
            };
            let mut docs = load_crd::read(&paths).map_err(|mut e| {
                for d in &mut e.diagnostics {
                    if let Some(at) = d.location.as_mut() {
                        relative(&mut at.file);
                    }
                }
                e
            })?;
            docs.iter_mut().for_each(|d| relative(&mut d.source));
            docs
        }
        Source::Git { rev, path } => from_git(&ctx.dir, rev, path)?,
        Source::Cluster => return from_cluster(&ctx.kubectl, wanted),
        Source::Manifests => from_manifests(&ctx.dir)?,
    };
    if docs.is_empty() {
        return Err(Error::with_help(
            format!("no CustomResourceDefinition in {}", source.describe()),
            "name the CRD files or directory (e.g. config/crd/bases)",
        ));
    }
    check(&docs)?;
    Ok(docs.into_iter().map(|d| d.object).collect())
}

/// What the API server would refuse to compare: not a v1 CRD, no name, no versions, a
/// version without a name or schema object, a CRD twice.
fn check(docs: &[CrdDocument]) -> Result<()> {
    let mut diags = Diagnostics::default();
    let mut seen: Vec<&str> = Vec::new();
    for doc in docs {
        let o = &doc.object;
        let mut problem = |what: String| {
            diags.push(Diagnostic::error(format!("invalid CRD: {what}")).at(doc.location()));
        };
        if o["apiVersion"] != "apiextensions.k8s.io/v1" {
            problem(format!(
                "apiVersion {} is not supported; convert it to apiextensions.k8s.io/v1 (the only version Kubernetes 1.22+ serves)",
                o["apiVersion"]
            ));
            continue;
        }
        let Some(name) = o["metadata"]["name"].as_str() else {
            problem("metadata.name is missing".to_owned());
            continue;
        };
        if seen.contains(&name) {
            problem(format!("{name} is defined twice"));
        }
        seen.push(name);
        if !matches!(o["spec"]["scope"].as_str(), Some("Namespaced" | "Cluster")) {
            problem(format!("{name}: spec.scope must be Namespaced or Cluster"));
        }
        let versions = o["spec"]["versions"].as_array().filter(|v| !v.is_empty());
        let Some(versions) = versions else {
            problem(format!("{name}: spec.versions is missing or empty"));
            continue;
        };
        for (i, v) in versions.iter().enumerate() {
            if v["name"].as_str().is_none() {
                problem(format!("{name}: spec.versions[{i}].name is missing"));
            }
            let schema = &v["schema"]["openAPIV3Schema"];
            if !schema.is_null() && !schema.is_object() {
                problem(format!(
                    "{name}: spec.versions[{i}].schema.openAPIV3Schema is not an object"
                ));
            }
        }
    }
    diags.finish().map(|_| ())
}

/// The CRD YAML under `path` at `rev`, each named `<rev>:<file>` in diagnostics.
fn from_git(dir: &Path, rev: &str, path: &Path) -> Result<Vec<CrdDocument>> {
    let listing = git(
        dir,
        &[
            "ls-tree",
            "-r",
            "--name-only",
            rev,
            "--",
            &path.to_string_lossy(),
        ],
    )?;
    let files: Vec<&str> = listing
        .lines()
        .filter(|f| f.ends_with(".yaml") || f.ends_with(".yml"))
        .collect();
    if files.is_empty() {
        return Err(Error::with_help(
            format!("no YAML file under {} at revision {rev}", path.display()),
            format!("name the CRDs' path in that revision: `{rev}:<path>`"),
        ));
    }
    let mut docs = Vec::new();
    for file in files {
        let text = git(dir, &["show", &format!("{rev}:./{file}")])?;
        docs.extend(load_crd::parse(Path::new(&format!("{rev}:{file}")), &text)?);
    }
    Ok(docs)
}

/// `git <args>` in `dir`: its stdout, or its stderr as the error.
fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| Error::msg(format!("cannot run git: {e}")))?;
    if !output.status.success() {
        return Err(Error::msg(format!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The cluster's CRDs named `wanted` (all when empty), through kubectl: opgen has no
/// Kubernetes client of its own, and kubectl honours every kubeconfig setting users have.
fn from_cluster(kubectl: &Path, wanted: &[String]) -> Result<Vec<Value>> {
    let mut command = Command::new(kubectl);
    command.args([
        "get",
        "customresourcedefinitions",
        "--request-timeout=30s",
        "-o",
        "json",
    ]);
    if !wanted.is_empty() {
        command.arg("--ignore-not-found").args(wanted);
    }
    let output = command.output().map_err(|e| {
        Error::with_help(
            format!("cannot run {}: {e}", kubectl.display()),
            "install kubectl, or set KUBECTL to its path",
        )
    })?;
    if !output.status.success() {
        // kubectl logs each retry; its last line says what failed.
        let stderr = String::from_utf8_lossy(&output.stderr);
        let why = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(Error::with_help(
            format!(
                "cannot read the cluster's CRDs with {}: {why}",
                kubectl.display()
            ),
            "check the current context (`kubectl config current-context`, KUBECONFIG) and that the cluster is reachable",
        ));
    }
    if output.stdout.iter().all(u8::is_ascii_whitespace) {
        return Ok(Vec::new());
    }
    let list: Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| Error::msg(format!("kubectl returned no JSON: {e}")))?;
    Ok(match list["kind"].as_str() {
        Some("CustomResourceDefinition") => vec![list],
        _ => list["items"].as_array().cloned().unwrap_or_default(),
    })
}

/// The CRDs `opgen manifests` generates from the project around `dir`, staged, not written.
fn from_manifests(dir: &Path) -> Result<Vec<CrdDocument>> {
    let root = crate::project::find_root(dir)?;
    let mut ws = Workspace::new(root);
    let report = manifests(&mut ws, &ManifestOptions::default())?;
    let mut docs = Vec::new();
    for path in report.files.iter().filter(|p| p.starts_with(CRD_DIR)) {
        if let Some(text) = ws.read(path)? {
            docs.extend(load_crd::parse(path, &text)?);
        }
    }
    Ok(docs)
}
