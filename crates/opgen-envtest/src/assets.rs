use std::path::{Path, PathBuf};

use crate::Error;

/// The Kubernetes release whose binaries are looked for by default: the one opgen's
/// `setup-envtest.sh` builds by default. 1.33 is the minor the scaffold's k8s-openapi feature
/// (`v1_33`) targets, the oldest API server its clients are built for.
pub const DEFAULT_K8S_VERSION: &str = "1.33.13";

const BINARIES: [&str; 3] = ["kube-apiserver", "etcd", "kubectl"];

/// The directory holding `kube-apiserver`, `etcd` and `kubectl`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assets {
    dir: PathBuf,
}

impl Assets {
    /// Uses the binaries in `dir`, checking that all three are there.
    pub fn from_dir(dir: impl Into<PathBuf>) -> Result<Self, Error> {
        let dir = dir.into();
        let missing: Vec<&str> = BINARIES
            .into_iter()
            .filter(|name| !is_executable(&dir.join(name)))
            .collect();
        if missing.is_empty() {
            Ok(Assets { dir })
        } else {
            Err(Error::AssetsNotFound(format!(
                "{} lacks {}",
                dir.display(),
                missing.join(", ")
            )))
        }
    }

    /// Finds the binaries: in `KUBEBUILDER_ASSETS` when it is set (controller-runtime's
    /// variable, so assets made by its setup-envtest work too), else in the cache that
    /// `setup-envtest.sh` fills:
    /// `$OPGEN_CACHE_DIR/envtest/k8s-<version>` (default cache `$XDG_CACHE_HOME/opgen` or
    /// `~/.cache/opgen`, version `OPGEN_ENVTEST_K8S_VERSION` or [`DEFAULT_K8S_VERSION`]).
    pub fn locate() -> Result<Self, Error> {
        if let Some(dir) = std::env::var_os("KUBEBUILDER_ASSETS").filter(|d| !d.is_empty()) {
            return Assets::from_dir(PathBuf::from(dir)).map_err(|e| {
                Error::AssetsNotFound(format!("KUBEBUILDER_ASSETS: {e}; {}", HOW_TO_GET))
            });
        }
        let version = std::env::var("OPGEN_ENVTEST_K8S_VERSION")
            .ok()
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| DEFAULT_K8S_VERSION.to_owned());
        let version = version.trim_start_matches('v');
        let Some(cache) = cache_dir() else {
            return Err(Error::AssetsNotFound(format!(
                "no cache directory (HOME is not set); {HOW_TO_GET}"
            )));
        };
        let dir = cache.join("envtest").join(format!("k8s-{version}"));
        Assets::from_dir(&dir).map_err(|_| {
            Error::AssetsNotFound(format!(
                "no control plane binaries for Kubernetes {version} in {}; {HOW_TO_GET}",
                dir.display()
            ))
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `kube-apiserver`.
    pub fn kube_apiserver(&self) -> PathBuf {
        self.dir.join("kube-apiserver")
    }

    /// `etcd`.
    pub fn etcd(&self) -> PathBuf {
        self.dir.join("etcd")
    }

    /// `kubectl`.
    pub fn kubectl(&self) -> PathBuf {
        self.dir.join("kubectl")
    }
}

const HOW_TO_GET: &str = "run `make setup-envtest` (opgen projects) or `tools/envtest/setup.sh` (opgen), or set KUBEBUILDER_ASSETS to a directory with kube-apiserver, etcd and kubectl";

fn cache_dir() -> Option<PathBuf> {
    let from_env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = from_env("OPGEN_CACHE_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = from_env("XDG_CACHE_HOME") {
        return Some(PathBuf::from(dir).join("opgen"));
    }
    from_env("HOME").map(|home| PathBuf::from(home).join(".cache").join("opgen"))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_without_the_binaries_is_refused_naming_them() {
        let dir = std::env::temp_dir().join(format!("opgen-envtest-assets-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("etcd"), "").unwrap();
        let err = Assets::from_dir(&dir).unwrap_err().to_string();
        std::fs::remove_dir_all(&dir).unwrap();
        // etcd exists but is not executable, so it counts as missing too.
        assert!(
            err.ends_with("lacks kube-apiserver, etcd, kubectl"),
            "{err}"
        );
    }
}
