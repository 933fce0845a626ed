//! What a referee (controller-gen, kube-api-linter) answered for inputs that do not change,
//! kept in the target directory so that the other test binaries of a run and the next run in
//! that target read the answer instead of asking again. Included by tests/support/mod.rs and by
//! tests/fixtures/controller-gen/harness.rs (which the conformance tests include without
//! `support`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where the files of one referee run on unchanging inputs are kept, in the target directory:
/// `referee-runs/<hash>/`, with a `key` file naming the binary (its path, size and modification
/// time, which a rebuild changes) and the question, compared whole before the files are used.
pub struct RefereeRuns {
    dir: PathBuf,
    key: String,
}

impl RefereeRuns {
    pub fn of(bin: &Path, question: &str) -> Self {
        use std::hash::{Hash, Hasher};
        let key = format!("{}\n{question}\n", identity(bin));
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        key.hash(&mut hasher);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join("referee-runs")
            .join(format!("{:016x}", hasher.finish()));
        RefereeRuns { dir, key }
    }

    /// Where the files are kept.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The files kept for this run, if they were kept for exactly its key.
    pub fn read(&self) -> Option<BTreeMap<String, String>> {
        if std::fs::read_to_string(self.dir.join("key")).ok()? != self.key {
            return None;
        }
        std::fs::read_dir(self.dir.join("files"))
            .ok()?
            .map(|entry| {
                let path = entry.ok()?.path();
                let name = path.file_name()?.to_string_lossy().into_owned();
                Some((name, std::fs::read_to_string(&path).ok()?))
            })
            .collect()
    }

    /// The files kept for this run, else those `run` returns, kept for the next.
    pub fn kept_or(
        &self,
        run: impl FnOnce() -> BTreeMap<String, String>,
    ) -> BTreeMap<String, String> {
        if let Some(files) = self.read() {
            return files;
        }
        let files = run();
        self.write(&files);
        files
    }

    /// Keeps `files` for this run: written beside, then renamed into place, so that a reader
    /// (another test process) sees all of them or none.
    pub fn write(&self, files: &BTreeMap<String, String>) {
        let staged = self
            .dir
            .with_extension(format!("{}.tmp", std::process::id()));
        let _ = std::fs::remove_dir_all(&staged);
        std::fs::create_dir_all(staged.join("files")).unwrap();
        for (name, text) in files {
            std::fs::write(staged.join("files").join(name), text).unwrap();
        }
        std::fs::write(staged.join("key"), &self.key).unwrap();
        let _ = std::fs::remove_dir_all(&self.dir);
        if std::fs::rename(&staged, &self.dir).is_err() {
            // Another process kept the same answer first.
            let _ = std::fs::remove_dir_all(&staged);
        }
    }
}

/// `bin` as a key names it: its path, size and modification time (which a rebuild changes).
pub fn identity(bin: &Path) -> String {
    let meta = std::fs::metadata(bin).expect("the referee's binary");
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    format!(
        "{} ({} bytes, modified {modified})",
        bin.display(),
        meta.len()
    )
}

/// The [`identity`] of the program `name` on PATH, if it is there.
pub fn identity_on_path(name: &str) -> Option<String> {
    on_path(name).map(|bin| identity(&bin))
}

/// The file `name` runs from PATH.
pub fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|file| file.is_file())
}

/// A digest of every file under `dir` (names and contents, in order), for a key that must
/// change when a referee's input does.
pub fn digest_of_tree(dir: &Path) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            entry.path().strip_prefix(dir).unwrap().hash(&mut hasher);
            std::fs::read(entry.path()).unwrap().hash(&mut hasher);
        }
    }
    format!("{:016x}", hasher.finish())
}
