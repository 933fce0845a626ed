//! Staged, all-or-nothing writes.
//!
//! Commands never write directly: they stage file contents in a [`Workspace`], which also
//! serves reads (staged content first, then disk) so that later steps of one command see
//! earlier steps' output. Only when the whole command succeeded is the stage committed:
//! every file is first written next to its target, then renamed over it; if anything
//! fails, files already replaced are restored and new ones removed, so a failed command
//! leaves the tree byte-identical. A file can also be staged for removal (a CRD whose kind
//! is gone): it is removed in the same all-or-nothing commit.
//!
//! A commit that is killed half-way (kill -9, power loss) is finished by the next opgen
//! command ([`Workspace::finish_interrupted_commit`]): new contents go to `.opgen/commit/`
//! first, and a journal renamed into place there marks the point after which the commit
//! is complete in intent. Without the journal nothing was changed and the directory is
//! dropped. One changed file needs no journal: it is renamed over its target from the cache
//! directory when there is one. Temporary files never lie beside the user's files.

use crate::diag::{Error, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    Create,
    Update,
    Delete,
    Unchanged,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Relative to the workspace root.
    pub path: PathBuf,
    pub kind: ChangeKind,
    /// Why this file changes when that is worth saying, e.g. "replaced (--force)".
    pub note: Option<String>,
}

#[derive(Debug)]
struct Staged {
    /// `None`: the file is to be removed. Bytes: a data file moves as it is, text or not.
    content: Option<Vec<u8>>,
    note: Option<String>,
}

#[derive(Debug)]
pub struct Workspace {
    root: PathBuf,
    staged: BTreeMap<PathBuf, Staged>,
    /// `Some`: the files staged unformatted, formatted together later by whoever asked for it
    /// ([`Workspace::defer_formatting`]).
    unformatted: Option<BTreeSet<PathBuf>>,
}

impl Workspace {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Workspace {
            root: root.into(),
            staged: BTreeMap::new(),
            unformatted: None,
        }
    }

    /// From now on, what stages a file that needs formatting (Rust a scaffold plan writes)
    /// leaves it unformatted and notes its path, so that a caller applying many plans one
    /// after another formats every file once, at the end ([`Workspace::take_unformatted`]).
    pub fn defer_formatting(&mut self) {
        self.unformatted.get_or_insert_with(BTreeSet::new);
    }

    pub fn defers_formatting(&self) -> bool {
        self.unformatted.is_some()
    }

    /// Notes `path` as staged unformatted, when formatting is deferred.
    pub fn note_unformatted(&mut self, path: &Path) {
        if let Some(paths) = &mut self.unformatted {
            paths.insert(path.to_owned());
        }
    }

    /// The paths noted as staged unformatted since the last call.
    pub fn take_unformatted(&mut self) -> BTreeSet<PathBuf> {
        self.unformatted
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The staged content of `rel`, else its content on disk, else `None`.
    pub fn read(&self, rel: &Path) -> Result<Option<String>> {
        match self.read_bytes(rel)? {
            Some(bytes) => decode(&self.root.join(rel), bytes).map(Some),
            None => Ok(None),
        }
    }

    /// What tells a file on disk from its next version without reading it (its size, times
    /// and inode: a write or a rename over it changes the change time), or `None` when it is
    /// staged or cannot be read.
    pub fn stamp(&self, rel: &Path) -> Option<Stamp> {
        if self.staged.contains_key(rel) {
            return None;
        }
        let m = fs::metadata(self.root.join(rel)).ok()?;
        #[cfg(unix)]
        let (changed, inode) = {
            use std::os::unix::fs::MetadataExt;
            (
                m.ctime() as i128 * 1_000_000_000 + m.ctime_nsec() as i128,
                m.ino(),
            )
        };
        #[cfg(not(unix))]
        let (changed, inode) = (0, 0);
        let modified = m
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_nanos();
        Some(Stamp {
            len: m.len(),
            modified,
            changed,
            inode,
        })
    }

    /// As [`Workspace::read`], for a file that need not be text.
    pub fn read_bytes(&self, rel: &Path) -> Result<Option<Vec<u8>>> {
        if let Some(s) = self.staged.get(rel) {
            return Ok(s.content.clone());
        }
        read_disk_bytes(&self.root.join(rel))
    }

    pub fn exists(&self, rel: &Path) -> bool {
        match self.staged.get(rel) {
            Some(s) => s.content.is_some(),
            None => self.root.join(rel).exists(),
        }
    }

    /// Whether `rel` exists on disk, ignoring anything staged.
    pub fn exists_on_disk(&self, rel: &Path) -> bool {
        self.root.join(rel).exists()
    }

    pub fn stage(&mut self, rel: impl Into<PathBuf>, content: impl Into<String>) {
        self.stage_with_note(rel, content, None);
    }

    pub fn stage_with_note(
        &mut self,
        rel: impl Into<PathBuf>,
        content: impl Into<String>,
        note: Option<String>,
    ) {
        self.stage_content(rel.into(), Some(content.into()), note);
    }

    /// Stages `bytes` as they are (no line-ending conversion): a data file that moves.
    pub fn stage_bytes(&mut self, rel: impl Into<PathBuf>, bytes: Vec<u8>) {
        let rel = rel.into();
        let note = self.staged.get(&rel).and_then(|s| s.note.clone());
        self.staged.insert(
            rel,
            Staged {
                content: Some(bytes),
                note,
            },
        );
    }

    /// Stages the removal of `rel`; committing removes it if it exists on disk.
    pub fn stage_removal(&mut self, rel: impl Into<PathBuf>, note: Option<String>) {
        self.stage_content(rel.into(), None, note);
    }

    fn stage_content(&mut self, rel: PathBuf, content: Option<String>, note: Option<String>) {
        debug_assert!(rel.is_relative(), "{}", rel.display());
        // Generators write LF; a file the user keeps in CRLF stays CRLF, inserted lines too.
        let content = content.map(|text| {
            if text.contains('\n')
                && fs::read(self.root.join(&rel)).is_ok_and(|old| uses_crlf(&old))
            {
                text.replace("\r\n", "\n").replace('\n', "\r\n")
            } else {
                text
            }
        });
        let note = note.or_else(|| self.staged.get(&rel).and_then(|s| s.note.clone()));
        let content = content.map(String::into_bytes);
        self.staged.insert(rel, Staged { content, note });
    }

    /// The paths staged so far, sorted, each with whether it is to exist after the commit
    /// (`false`: staged for removal).
    pub fn staged(&self) -> impl Iterator<Item = (&Path, bool)> {
        self.staged
            .iter()
            .map(|(path, s)| (path.as_path(), s.content.is_some()))
    }

    /// Relative paths of the files under `rel_dir` (recursively) whose name ends with
    /// `suffix` (any file when it is empty), on disk or staged, sorted.
    pub fn list_files(&self, rel_dir: &Path, suffix: &str) -> Result<Vec<PathBuf>> {
        // Walked without following symbolic links (no `stat` of every entry) unless one is met.
        let mut found = match self.walk_files(rel_dir, suffix, false)? {
            Some(found) => found,
            None => self.walk_files(rel_dir, suffix, true)?.unwrap_or_default(),
        };
        let mut removed = BTreeSet::new();
        for (path, staged) in &self.staged {
            if path.starts_with(rel_dir) && path.to_string_lossy().ends_with(suffix) {
                if staged.content.is_some() {
                    found.push(path.clone());
                } else {
                    removed.insert(path);
                }
            }
        }
        // Sorted but for the staged paths: a few comparisons.
        found.sort_by(|a, b| path_order(a, b));
        found.dedup_by(|a, b| a.as_os_str() == b.as_os_str());
        found.retain(|p| !removed.contains(p));
        Ok(found)
    }

    /// The files on disk of [`Workspace::list_files`], in path order (depth first, siblings
    /// by name); `None` when `follow` is false and a symbolic link is met.
    fn walk_files(
        &self,
        rel_dir: &Path,
        suffix: &str,
        follow: bool,
    ) -> Result<Option<Vec<PathBuf>>> {
        let mut found = Vec::new();
        let dir = self.root.join(rel_dir);
        if dir.is_dir() {
            // Symbolic links are followed (walkdir reports loops); anything with the suffix
            // that cannot be read as a file is an error, never a file to skip: a skipped
            // source would make `manifests` delete the CRDs it defines.
            let unreadable = |path: &Path, what: String| {
                Error::with_help(
                    format!("{}: {what}", path.display()),
                    format!(
                        "opgen reads every `*{suffix}` file under {}: make it a readable file, or remove it",
                        rel_dir.display()
                    ),
                )
            };
            // Siblings by name, as `sort_by_file_name` sorts them (their paths differ only
            // there), without taking each path apart to find its name.
            let walk = walkdir::WalkDir::new(&dir)
                .follow_links(follow)
                .sort_by(|a, b| a.path().as_os_str().cmp(b.path().as_os_str()));
            for entry in walk {
                let entry = entry.map_err(|e| {
                    let path = e.path().unwrap_or(&dir).to_owned();
                    let what = match (e.loop_ancestor(), e.io_error()) {
                        (Some(ancestor), _) => format!(
                            "a symbolic link loop (it leads back to {})",
                            ancestor.display()
                        ),
                        (None, Some(io)) if io.kind() == std::io::ErrorKind::NotFound => {
                            "a symbolic link to nothing (dangling)".to_owned()
                        }
                        (None, Some(io)) => io.to_string(),
                        (None, None) => e.to_string(),
                    };
                    unreadable(&path, what)
                })?;
                if !follow && entry.path_is_symlink() {
                    return Ok(None);
                }
                if !entry.file_name().to_string_lossy().ends_with(suffix) {
                    continue;
                }
                let file_type = entry.file_type();
                // With no suffix, every file is wanted and directories are only walked.
                if file_type.is_dir() && suffix.is_empty() {
                    continue;
                }
                if file_type.is_dir() {
                    return Err(unreadable(
                        entry.path(),
                        format!("a directory, not a `*{suffix}` file"),
                    ));
                }
                if !file_type.is_file() {
                    return Err(unreadable(
                        entry.path(),
                        "not a regular file (a FIFO, socket or device)".to_owned(),
                    ));
                }
                let rel = entry
                    .path()
                    .strip_prefix(&self.root)
                    .expect("walked path is under the root");
                found.push(rel.to_path_buf());
            }
        }
        Ok(Some(found))
    }

    /// Copies the files under `rel_dir` as this workspace sees them (staged content over the
    /// disk) into `dest`, a scratch directory outside the project: external tools such as
    /// kustomize then read what the command is about to commit.
    pub fn export_dir(&self, rel_dir: &Path, dest: &Path) -> Result<()> {
        let mut files = BTreeSet::new();
        let dir = self.root.join(rel_dir);
        if dir.is_dir() {
            for entry in walkdir::WalkDir::new(&dir).follow_links(true) {
                let entry = entry.map_err(|e| {
                    Error::msg(format!("{}: {e}", e.path().unwrap_or(&dir).display()))
                })?;
                if entry.file_type().is_file() {
                    let rel = entry
                        .path()
                        .strip_prefix(&self.root)
                        .expect("under the root");
                    files.insert(rel.to_path_buf());
                }
            }
        }
        files.extend(
            self.staged
                .keys()
                .filter(|p| p.starts_with(rel_dir))
                .cloned(),
        );
        for rel in files {
            let Some(content) = self.read_bytes(&rel)? else {
                continue;
            };
            let target = dest.join(&rel);
            if let Some(parent) = target.parent() {
                fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
            }
            fs::write(&target, content).map_err(|e| Error::io(&target, e))?;
        }
        Ok(())
    }

    /// What committing would do, file by file, in path order.
    pub fn changes(&self) -> Result<Vec<Change>> {
        self.staged
            .iter()
            .map(|(path, staged)| {
                let kind = match (read_disk_bytes(&self.root.join(path))?, &staged.content) {
                    (None, None) => ChangeKind::Unchanged,
                    (Some(_), None) => ChangeKind::Delete,
                    (None, Some(_)) => ChangeKind::Create,
                    (Some(old), Some(new)) if old == *new => ChangeKind::Unchanged,
                    (Some(_), Some(_)) => ChangeKind::Update,
                };
                Ok(Change {
                    path: path.clone(),
                    kind,
                    note: staged.note.clone(),
                })
            })
            .collect()
    }

    /// Writes every staged file that differs from disk; all or nothing.
    pub fn commit(&self) -> Result<Vec<Change>> {
        self.finish_interrupted_commit()?;
        let changes = self.changes()?;
        let pending: Vec<&Change> = changes
            .iter()
            .filter(|c| c.kind != ChangeKind::Unchanged)
            .collect();
        if pending.is_empty() {
            return Ok(changes);
        }
        // Every target is resolved before the first byte is written.
        let targets = pending
            .iter()
            .map(|c| self.resolve_target(&c.path, c.kind == ChangeKind::Delete))
            .collect::<Result<Vec<_>>>()?;
        if let ([change], [target]) = (&pending[..], &targets[..])
            && change.kind != ChangeKind::Delete
            && let Some(done) = self.replace_one(&change.path, target)
        {
            return done.map(|()| changes);
        }
        let mut tx = Transaction::default();
        if let Err(err) = self.write_all(&pending, &targets, &mut tx) {
            let _ = self.remove_commit_dir();
            tx.roll_back();
            return Err(err);
        }
        self.remove_commit_dir()?;
        self.remove_emptied_dirs(
            pending
                .iter()
                .filter(|c| c.kind == ChangeKind::Delete)
                .map(|c| c.path.as_path()),
        );
        Ok(changes)
    }

    /// Writes the one file a commit changes by renaming a scratch file in the cache directory
    /// over it: a rename is all or nothing, so there is no journal to write and no
    /// `.opgen/commit/` to make and remove (together about a tenth of an edit's `opgen manifests`). A
    /// kill before the rename leaves only the scratch file, in a directory of files opgen may
    /// always recompute. `None` when there is no cache directory, or it is on another file
    /// system: the journaled commit then.
    fn replace_one(&self, path: &Path, rel: &Path) -> Option<Result<()>> {
        let dir = self.root.join(CACHE_DIR);
        if !dir.is_dir() {
            return None;
        }
        let content = self.staged[path].content.as_ref()?;
        let target = self.root.join(rel);
        // Named by the process: two opgen runs in one project never share it.
        let scratch = dir.join(format!(".commit-{}", std::process::id()));
        if fs::write(&scratch, content).is_err() {
            let _ = fs::remove_file(&scratch);
            return None;
        }
        let mut tx = Transaction::default();
        let renamed = carry_mode(&target, &scratch)
            .map_err(|e| Error::io(&target, e))
            .and_then(|()| tx.create_dirs(target.parent().expect("a file path has a parent")))
            .map(|()| fs::rename(&scratch, &target));
        let failed = match renamed {
            Ok(Ok(())) => return Some(Ok(())),
            Ok(Err(e)) if e.kind() == std::io::ErrorKind::CrossesDevices => None,
            Ok(Err(e)) => Some(Error::io(&target, e)),
            Err(err) => Some(err),
        };
        let _ = fs::remove_file(&scratch);
        tx.roll_back();
        failed.map(Err)
    }

    /// Checks every path a commit would write or remove (see [`Workspace::resolve_target`])
    /// without writing: what `--dry-run` reports as an error the real run would hit.
    pub fn check_targets(&self) -> Result<()> {
        for change in self.changes()? {
            if change.kind != ChangeKind::Unchanged {
                self.resolve_target(&change.path, change.kind == ChangeKind::Delete)?;
            }
        }
        Ok(())
    }

    /// The path, relative to the root, that writing (or removing) `rel` really touches. A
    /// symbolic link to a directory on the way is refused: writing through it would write or
    /// remove files outside the project, or elsewhere than the user sees. A linked file is
    /// written through to its target (the link stays a link) when that target is inside the
    /// project; removing one removes the link. A read-only file is refused, not replaced.
    fn resolve_target(&self, rel: &Path, removal: bool) -> Result<PathBuf> {
        let mut prefix = PathBuf::new();
        let parent = rel.parent().unwrap_or(Path::new(""));
        for component in parent.components() {
            prefix.push(component);
            match fs::symlink_metadata(self.root.join(&prefix)) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    let to = fs::read_link(self.root.join(&prefix))
                        .map(|t| t.display().to_string())
                        .unwrap_or_default();
                    return Err(Error::with_help(
                        format!(
                            "{}: a symbolic link to a directory ({to}), on the way to {}: opgen does not write or remove files through a linked directory",
                            prefix.display(),
                            rel.display()
                        ),
                        "replace the link with the directory itself (e.g. `cp -r` its target over it), then run again; nothing was written",
                    ));
                }
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
                Err(e) => return Err(Error::io(&self.root.join(&prefix), e)),
            }
        }
        let full = self.root.join(rel);
        let meta = match fs::symlink_metadata(&full) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(rel.to_path_buf()),
            Err(e) => return Err(Error::io(&full, e)),
        };
        let mut resolved = rel.to_path_buf();
        if meta.file_type().is_symlink() && !removal {
            let outside = || {
                Error::with_help(
                    format!(
                        "{}: a symbolic link to a file outside the project, or to nothing: opgen does not write through it",
                        rel.display()
                    ),
                    "replace the link with a copy of its target, then run again; nothing was written",
                )
            };
            let root = fs::canonicalize(&self.root).map_err(|e| Error::io(&self.root, e))?;
            let real = fs::canonicalize(&full).map_err(|_| outside())?;
            resolved = real
                .strip_prefix(&root)
                .map_err(|_| outside())?
                .to_path_buf();
        }
        let meta = if meta.file_type().is_symlink() && removal {
            meta
        } else {
            fs::metadata(self.root.join(&resolved)).map_err(|e| Error::io(&full, e))?
        };
        if meta.permissions().readonly() {
            return Err(Error::with_help(
                format!(
                    "{}: read-only: opgen does not {} a file its owner protected",
                    rel.display(),
                    if removal { "remove" } else { "replace" }
                ),
                "make it writable (`chmod u+w`) to let opgen change it, then run again; nothing was written",
            ));
        }
        Ok(resolved)
    }

    /// Directories that removals left empty go too (a moved module leaves none behind).
    /// Best effort, after the commit: an empty directory is harmless.
    fn remove_emptied_dirs<'a>(&self, removed: impl Iterator<Item = &'a Path>) {
        for path in removed {
            for dir in path.ancestors().skip(1) {
                if dir.as_os_str().is_empty() || fs::remove_dir(self.root.join(dir)).is_err() {
                    break;
                }
            }
        }
    }

    /// `.opgen/commit/`: new contents and the journal of a commit in progress.
    fn commit_dir(&self) -> PathBuf {
        self.root.join(COMMIT_DIR)
    }

    fn remove_commit_dir(&self) -> Result<()> {
        let dir = self.commit_dir();
        match fs::remove_dir_all(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&dir, e)),
        }
        // `.opgen/` itself only if nothing else lives there (dev-webhooks keeps files in it).
        let _ = fs::remove_dir(dir.parent().expect("commit dir has a parent"));
        Ok(())
    }

    /// Completes a commit that an earlier opgen run started but did not finish (it was
    /// killed): returns how many files it wrote or removed, `None` if there was nothing to do.
    /// Each journal line holds the digest of the file before and after the commit: a file
    /// that is neither (edited, checked out, removed since) stops the replay before it
    /// writes anything, naming the files and the choices (`opgen recover`).
    pub fn finish_interrupted_commit(&self) -> Result<Option<usize>> {
        self.replay(false)
    }

    /// `opgen recover --finish`: as [`Workspace::finish_interrupted_commit`], but files that
    /// changed since are overwritten (or removed) as the interrupted command meant to.
    pub fn finish_interrupted_commit_anyway(&self) -> Result<Option<usize>> {
        self.replay(true)
    }

    /// `opgen recover --abandon`: drops the interrupted commit and leaves every file as it
    /// is now. Returns whether there was one.
    pub fn abandon_interrupted_commit(&self) -> Result<bool> {
        let dir = self.commit_dir();
        if !dir.exists() {
            return Ok(false);
        }
        self.remove_commit_dir()?;
        Ok(true)
    }

    /// Whether an interrupted commit waits to be finished.
    pub fn has_interrupted_commit(&self) -> bool {
        self.commit_dir().join(JOURNAL).exists()
    }

    fn replay(&self, overwrite: bool) -> Result<Option<usize>> {
        let dir = self.commit_dir();
        let journal = dir.join(JOURNAL);
        let text = match fs::read_to_string(&journal) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // Killed before the journal (nothing was changed yet), or after the commit
                // while it cleaned up (an empty `.opgen/` left): either way only the trace goes.
                self.remove_commit_dir()?;
                return Ok(None);
            }
            Err(e) => return Err(Error::io(&journal, e)),
        };
        let mut todo = Vec::new();
        let mut moved_on = Vec::new();
        let mut removals = Vec::new();
        for line in text.lines() {
            let fields: Vec<&str> = line.splitn(4, '\t').collect();
            // An older opgen's journal holds no digests: nothing to check against.
            let (entry, digests, rel) = match fields[..] {
                [entry, before, after, rel] => (entry, Some((before, after)), rel),
                [entry, rel] => (entry, None, rel),
                _ => {
                    return Err(Error::with_help(
                        format!("{}: a malformed line {line:?}", journal.display()),
                        RECOVER_HELP,
                    ));
                }
            };
            let target = self.root.join(rel);
            // A link swapped for another (or for a file) since is a change too.
            let now = fingerprint(&target)?;
            let expect = |h: &str| (h != "-").then(|| h.to_owned());
            let content = (entry != "-").then(|| dir.join(entry));
            if entry == "-" {
                // Done or not, the directories it empties go as after a whole commit.
                removals.push(PathBuf::from(rel));
            }
            let content_there = content.as_ref().is_none_or(|c| c.exists());
            match digests {
                Some((_, after)) if now == expect(after) => continue, // done before the kill
                Some((before, _)) if now == expect(before) && content_there => {}
                _ if overwrite => {}
                Some(_) => moved_on.push(format!("  {rel}")),
                None => moved_on.push(format!(
                    "  {rel} (recorded by an older opgen, which kept no digest to check it against)"
                )),
            }
            if content_there {
                todo.push((target, content));
            }
        }
        if !moved_on.is_empty() {
            return Err(Error::with_help(
                format!(
                    "an earlier opgen run was interrupted while writing, and {} of the files it was writing changed since (edited, checked out or removed): finishing it would lose that work, so nothing was written:\n{}",
                    moved_on.len(),
                    moved_on.join("\n")
                ),
                RECOVER_HELP,
            ));
        }
        let mut done = 0;
        for (target, content) in todo {
            match content {
                None => match fs::remove_file(&target) {
                    Ok(()) => done += 1,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(Error::io(&target, e)),
                },
                Some(content) => {
                    if let Some(parent) = target.parent() {
                        fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
                    }
                    fs::rename(&content, &target).map_err(|e| Error::io(&target, e))?;
                    done += 1;
                }
            }
        }
        self.remove_commit_dir()?;
        self.remove_emptied_dirs(removals.iter().map(PathBuf::as_path));
        Ok(Some(done))
    }

    fn write_all(
        &self,
        pending: &[&Change],
        targets: &[PathBuf],
        tx: &mut Transaction,
    ) -> Result<()> {
        let dir = self.commit_dir();
        tx.create_dirs(&dir)?;
        // Phase 1: every new content lands in .opgen/commit/, and the journal says where each
        // goes and what the file holds before and after. Renaming the journal into place is
        // the commit point.
        let mut journal = String::new();
        for (index, (change, rel)) in pending.iter().zip(targets).enumerate() {
            let target = self.root.join(rel);
            let rel = rel.to_str().ok_or_else(|| {
                Error::msg(format!(
                    "{}: opgen writes UTF-8 paths only",
                    change.path.display()
                ))
            })?;
            let before = fingerprint(&target)?.unwrap_or_else(|| "-".to_owned());
            match &self.staged[&change.path].content {
                Some(content) => {
                    let file = dir.join(index.to_string());
                    fs::write(&file, content).map_err(|e| Error::io(&file, e))?;
                    carry_mode(&target, &file).map_err(|e| Error::io(&file, e))?;
                    let after = hash_hex(content);
                    journal.push_str(&format!("{index}\t{before}\t{after}\t{rel}\n"));
                }
                None => journal.push_str(&format!("-\t{before}\t-\t{rel}\n")),
            }
        }
        let journal_tmp = dir.join(format!("{JOURNAL}.tmp"));
        fs::write(&journal_tmp, journal).map_err(|e| Error::io(&journal_tmp, e))?;
        fs::rename(&journal_tmp, dir.join(JOURNAL)).map_err(|e| Error::io(&dir, e))?;
        // Tests simulate a kill after the journal and this many renames.
        let kill_after = std::env::var(TEST_KILL_AFTER)
            .ok()
            .and_then(|n| n.parse::<usize>().ok());
        // Phase 2: rename over the targets (or remove them), remembering what to restore.
        for (index, (change, rel)) in pending.iter().zip(targets).enumerate() {
            if kill_after == Some(index) {
                std::process::exit(137);
            }
            let target = self.root.join(rel);
            let original = Original::of(&target)?;
            if change.kind == ChangeKind::Delete {
                fs::remove_file(&target).map_err(|e| Error::io(&target, e))?;
            } else {
                // Created only now: a kill before the journal leaves no empty directory.
                tx.create_dirs(target.parent().expect("a file path has a parent"))?;
                fs::rename(dir.join(index.to_string()), &target)
                    .map_err(|e| Error::io(&target, e))?;
            }
            tx.replaced.push((target, original));
        }
        Ok(())
    }
}

/// The choices when an interrupted commit cannot be finished safely.
const RECOVER_HELP: &str = "run `opgen recover --finish` to write every file as the interrupted run meant to (overwriting the changes listed), or `opgen recover --abandon` to drop it and keep the files as they are now (then `git status` shows what the interrupted run changed)";

/// Hidden: the number of renames after which a commit exits as if killed (tests only).
pub const TEST_KILL_AFTER: &str = "OPGEN_TEST_KILL_AFTER_RENAMES";

/// Where opgen keeps what it may always recompute (`target/opgen/` of the project: cargo's
/// output directory, which every Rust project's .gitignore already leaves out).
pub const CACHE_DIR: &str = "target/opgen";

/// The cache file `name` under the project at `root`, if there is one.
pub fn read_cache(root: &Path, name: &str) -> Option<Vec<u8>> {
    fs::read(root.join(CACHE_DIR).join(name)).ok()
}

/// Replaces the cache file `name` whole with what `write` writes (into a scratch file renamed
/// over it), so that a reader never sees half of one. A cache is no user's file: it is written
/// outside the staged commit, and a failure to write it only costs the next run its speed.
pub fn write_cache(
    root: &Path,
    name: &str,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = root.join(CACHE_DIR);
    fs::create_dir_all(&dir)?;
    let scratch = tempfile::NamedTempFile::new_in(&dir)?;
    let mut out = std::io::BufWriter::new(scratch);
    write(&mut out)?;
    let scratch = out
        .into_inner()
        .map_err(std::io::IntoInnerError::into_error)?;
    // The old file goes first: ext4 starts writing a file out to disk when it is renamed over
    // another (so that a crash cannot leave the replaced file empty), which triples the rename's
    // time; a reader that comes between the two steps finds no cache and makes a whole run.
    let path = dir.join(name);
    if let Err(e) = fs::remove_file(&path)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        return Err(e);
    }
    scratch.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Gives `new` the mode of the file at `target` it is to replace (600, 755...), if there is one.
fn carry_mode(target: &Path, new: &Path) -> std::io::Result<()> {
    match fs::metadata(target) {
        Ok(meta) => fs::set_permissions(new, meta.permissions()),
        Err(_) => Ok(()),
    }
}

/// FNV-1a, 64 bits: detects edits (not an adversary), and is stable across Rust releases.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn hash_hex(bytes: &[u8]) -> String {
    format!("{:016x}", fnv1a64(bytes))
}

/// What the journal records of a path: the digest of a file's bytes, or `l` and the digest of
/// a symbolic link's target path (so that a link replaced by another is told apart); `None`
/// when nothing is there.
fn fingerprint(path: &Path) -> Result<Option<String>> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            let to = fs::read_link(path).map_err(|e| Error::io(path, e))?;
            Ok(Some(format!(
                "l{}",
                hash_hex(to.to_string_lossy().as_bytes())
            )))
        }
        Ok(_) => Ok(read_disk_bytes(path)?.map(|bytes| hash_hex(&bytes))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Where a commit stages its files, relative to the workspace root (git-ignored in projects).
pub const COMMIT_DIR: &str = ".opgen/commit";
const JOURNAL: &str = "journal";

/// Whether every line of `text` ends in CRLF (and there is at least one).
fn uses_crlf(text: &[u8]) -> bool {
    // Stops at the first bare LF: the first line, in a file that uses LF.
    let mut newlines = memchr::memchr_iter(b'\n', text).peekable();
    newlines.peek().is_some() && newlines.all(|i| i > 0 && text[i - 1] == b'\r')
}

/// `Path`'s order (component by component) of paths without `.`, `..` or doubled separators:
/// their bytes, a separator before any other byte. `Path::cmp` parses both paths' components.
fn path_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let key = |c: &u8| if *c == b'/' { 0 } else { u16::from(*c) + 1 };
        a.as_os_str()
            .as_bytes()
            .iter()
            .map(key)
            .cmp(b.as_os_str().as_bytes().iter().map(key))
    }
    #[cfg(not(unix))]
    a.cmp(b)
}

/// A file's size, modification and change times (nanoseconds) and inode: see
/// [`Workspace::stamp`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stamp {
    len: u64,
    modified: u128,
    changed: i128,
    inode: u64,
}

impl Stamp {
    /// Whether the file's content and metadata last changed before `time`.
    pub fn changed_before(&self, time: std::time::SystemTime) -> bool {
        let Ok(since_epoch) = time.duration_since(std::time::UNIX_EPOCH) else {
            return false;
        };
        let time = since_epoch.as_nanos();
        self.modified < time && u128::try_from(self.changed).is_ok_and(|changed| changed < time)
    }
}

fn read_disk_bytes(path: &Path) -> Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// `bytes` of the file at `path` as text; not UTF-8 is an error at the first bad byte.
fn decode(path: &Path, bytes: Vec<u8>) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = valid.iter().filter(|b| **b == b'\n').count() + 1;
        let line_start = valid.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&valid[line_start..])
            .chars()
            .count()
            + 1;
        Error::with_help(
            format!(
                "{}:{line}:{column}: not UTF-8 text (invalid byte at offset {})",
                path.display(),
                valid.len()
            ),
            "opgen reads text files only: save the file as UTF-8",
        )
    })
}

/// What a commit did so far, so that a failure can undo it.
#[derive(Default)]
struct Transaction {
    created_dirs: Vec<PathBuf>,
    replaced: Vec<(PathBuf, Original)>,
}

/// What was at a path before the commit replaced or removed it.
enum Original {
    Missing,
    File(Vec<u8>),
    /// A symbolic link (removed): restored as a link to the same target, not as a copy.
    Link(PathBuf),
}

impl Original {
    fn of(path: &Path) -> Result<Self> {
        match fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => fs::read_link(path)
                .map(Original::Link)
                .map_err(|e| Error::io(path, e)),
            Ok(_) => Ok(read_disk_bytes(path)?.map_or(Original::Missing, Original::File)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Original::Missing),
            Err(e) => Err(Error::io(path, e)),
        }
    }

    fn restore(&self, path: &Path) -> std::io::Result<()> {
        match self {
            Original::Missing => fs::remove_file(path),
            Original::File(bytes) => fs::write(path, bytes),
            Original::Link(to) => {
                if let Err(e) = fs::remove_file(path)
                    && e.kind() != std::io::ErrorKind::NotFound
                {
                    return Err(e);
                }
                symlink(to, path)
            }
        }
    }
}

#[cfg(unix)]
fn symlink(to: &Path, path: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(to, path)
}

#[cfg(windows)]
fn symlink(to: &Path, path: &Path) -> std::io::Result<()> {
    std::os::windows::fs::symlink_file(to, path)
}

impl Transaction {
    fn create_dirs(&mut self, dir: &Path) -> Result<()> {
        let missing: Vec<&Path> = dir
            .ancestors()
            .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
            .collect();
        for d in missing.into_iter().rev() {
            fs::create_dir(d).map_err(|e| Error::io(d, e))?;
            self.created_dirs.push(d.to_path_buf());
        }
        Ok(())
    }

    /// Best effort: an error while undoing cannot be reported better than the original one.
    fn roll_back(self) {
        for (path, original) in self.replaced.iter().rev() {
            let _ = original.restore(path);
        }
        for dir in self.created_dirs.iter().rev() {
            let _ = fs::remove_dir(dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_order_is_the_order_of_paths() {
        let paths = [
            "src/a.rs",
            "src/a/b.rs",
            "src/a-b.rs",
            "src/a_b/c.rs",
            "src/ab.rs",
            "src/a.rs.bak",
            "src/A.rs",
            "src/a/b/c/d.rs",
            "src/é.rs",
            "src",
            "config/crd/bases/x.yaml",
        ];
        for a in paths {
            for b in paths {
                let (a, b) = (Path::new(a), Path::new(b));
                assert_eq!(path_order(a, b), a.cmp(b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn reads_see_staged_content_before_disk() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.txt"), "disk").unwrap();
        let mut ws = Workspace::new(dir.path());
        assert_eq!(
            ws.read(Path::new("a.txt")).unwrap().as_deref(),
            Some("disk")
        );
        ws.stage("a.txt", "staged");
        assert_eq!(
            ws.read(Path::new("a.txt")).unwrap().as_deref(),
            Some("staged")
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("a.txt")).unwrap(),
            "disk"
        );
    }

    #[test]
    fn a_staged_removal_is_part_of_the_commit() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("gone.yaml"), "old").unwrap();
        let mut ws = Workspace::new(dir.path());
        ws.stage_removal("gone.yaml", None);
        ws.stage_removal("never.yaml", None);
        assert!(!ws.exists(Path::new("gone.yaml")));
        assert_eq!(ws.read(Path::new("gone.yaml")).unwrap(), None);
        assert!(ws.list_files(Path::new(""), ".yaml").unwrap().is_empty());
        let kinds: Vec<ChangeKind> = ws.changes().unwrap().iter().map(|c| c.kind).collect();
        assert_eq!(kinds, [ChangeKind::Delete, ChangeKind::Unchanged]);

        // A failing write later in the commit brings the removed file back.
        fs::create_dir(dir.path().join("z-blocked")).unwrap();
        // Changes commit in path order: `z-blocked` fails after `gone.yaml` was removed.
        ws.stage("z-blocked", "a directory cannot be replaced by a file");
        assert!(ws.commit().is_err());
        assert_eq!(
            fs::read_to_string(dir.path().join("gone.yaml")).unwrap(),
            "old"
        );

        let mut ws = Workspace::new(dir.path());
        ws.stage_removal("gone.yaml", None);
        ws.commit().unwrap();
        assert!(!dir.path().join("gone.yaml").exists());

        // Directories the removals emptied go; one still holding a file stays.
        fs::create_dir_all(dir.path().join("a/b")).unwrap();
        fs::write(dir.path().join("a/b/x.rs"), "x").unwrap();
        fs::write(dir.path().join("a/keep.rs"), "k").unwrap();
        let mut ws = Workspace::new(dir.path());
        ws.stage_removal("a/b/x.rs", None);
        ws.commit().unwrap();
        assert!(!dir.path().join("a/b").exists());
        assert!(dir.path().join("a/keep.rs").exists());
    }

    #[test]
    fn commit_reports_and_writes_only_changes() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("same.txt"), "x").unwrap();
        fs::write(dir.path().join("old.txt"), "1").unwrap();
        let mut ws = Workspace::new(dir.path());
        ws.stage("same.txt", "x");
        ws.stage("old.txt", "2");
        ws.stage("deep/new.txt", "n");
        let kinds: Vec<_> = ws
            .commit()
            .unwrap()
            .into_iter()
            .map(|c| (c.path, c.kind))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (PathBuf::from("deep/new.txt"), ChangeKind::Create),
                (PathBuf::from("old.txt"), ChangeKind::Update),
                (PathBuf::from("same.txt"), ChangeKind::Unchanged),
            ]
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("deep/new.txt")).unwrap(),
            "n"
        );
        assert_eq!(fs::read_to_string(dir.path().join("old.txt")).unwrap(), "2");
    }

    #[test]
    fn failed_commit_leaves_tree_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.txt"), "before").unwrap();
        // A regular file where a directory is needed makes the second write fail.
        fs::write(dir.path().join("blocker"), "").unwrap();
        let mut ws = Workspace::new(dir.path());
        ws.stage("a.txt", "after");
        ws.stage("new/dir/b.txt", "b");
        ws.stage("blocker/c.txt", "c");
        assert!(ws.commit().is_err());
        assert_eq!(
            fs::read_to_string(dir.path().join("a.txt")).unwrap(),
            "before"
        );
        let mut names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["a.txt", "blocker"]);
    }

    #[test]
    fn lists_disk_and_staged_files() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("src/api")).unwrap();
        fs::write(dir.path().join("src/api/mod.rs"), "").unwrap();
        fs::write(dir.path().join("src/api/notes.txt"), "").unwrap();
        let mut ws = Workspace::new(dir.path());
        ws.stage("src/api/v1/mod.rs", "");
        ws.stage("other/x.rs", "");
        assert_eq!(
            ws.list_files(Path::new("src"), ".rs").unwrap(),
            vec![
                PathBuf::from("src/api/mod.rs"),
                PathBuf::from("src/api/v1/mod.rs")
            ]
        );
    }

    #[test]
    fn an_interrupted_commit_is_finished_from_its_journal() {
        let dir = tempfile::tempdir().unwrap();
        let commit = dir.path().join(COMMIT_DIR);
        fs::create_dir_all(&commit).unwrap();
        fs::write(dir.path().join("old.yaml"), "old").unwrap();
        fs::write(dir.path().join("kept.yaml"), "before").unwrap();
        // Killed after the journal and the first rename: `0` is already in place.
        fs::write(dir.path().join("new.yaml"), "new").unwrap();
        fs::write(commit.join("1"), "after").unwrap();
        let h = |s: &str| hash_hex(s.as_bytes());
        // An older opgen's journal (no digests) is not replayed without `recover --finish`.
        fs::write(commit.join(JOURNAL), "1\tsub/kept.yaml\n").unwrap();
        fs::write(commit.join("1"), "after").unwrap();
        let ws = Workspace::new(dir.path());
        let err = ws.finish_interrupted_commit().unwrap_err().to_string();
        assert!(
            err.contains("sub/kept.yaml (recorded by an older opgen"),
            "{err}"
        );
        fs::write(
            commit.join(JOURNAL),
            format!(
                "0\t-\t{}\tnew.yaml\n1\t-\t{}\tsub/kept.yaml\n-\t{}\t-\told.yaml\n",
                h("new"),
                h("after"),
                h("old")
            ),
        )
        .unwrap();
        let ws = Workspace::new(dir.path());
        assert_eq!(ws.finish_interrupted_commit().unwrap(), Some(2));
        assert_eq!(
            fs::read_to_string(dir.path().join("new.yaml")).unwrap(),
            "new"
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("sub/kept.yaml")).unwrap(),
            "after"
        );
        assert!(!dir.path().join("old.yaml").exists());
        assert!(!dir.path().join(".opgen").exists());
        assert_eq!(ws.finish_interrupted_commit().unwrap(), None);
    }

    #[test]
    fn a_commit_killed_before_its_journal_changed_nothing_and_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let commit = dir.path().join(COMMIT_DIR);
        fs::create_dir_all(&commit).unwrap();
        fs::write(commit.join("0"), "half").unwrap();
        fs::write(commit.join("journal.tmp"), "0\ta.yaml\n").unwrap();
        fs::write(dir.path().join("a.yaml"), "before").unwrap();
        let ws = Workspace::new(dir.path());
        assert_eq!(ws.finish_interrupted_commit().unwrap(), None);
        assert_eq!(
            fs::read_to_string(dir.path().join("a.yaml")).unwrap(),
            "before"
        );
        assert!(!dir.path().join(".opgen").exists());
    }

    #[test]
    fn a_commit_killed_while_it_cleaned_up_leaves_no_trace_after_the_next_run() {
        let dir = tempfile::tempdir().unwrap();
        // Killed between removing `.opgen/commit/` and `.opgen/`: the files are all written.
        fs::create_dir(dir.path().join(".opgen")).unwrap();
        fs::write(dir.path().join("a.yaml"), "a").unwrap();
        let mut ws = Workspace::new(dir.path());
        ws.stage("a.yaml", "a");
        let changes = ws.commit().unwrap();
        assert!(changes.iter().all(|c| c.kind == ChangeKind::Unchanged));
        assert!(!dir.path().join(".opgen").exists());
        // What another command keeps there stays.
        fs::create_dir_all(dir.path().join(".opgen/webhook-dev")).unwrap();
        ws.commit().unwrap();
        assert!(dir.path().join(".opgen/webhook-dev").exists());
    }

    #[test]
    fn a_commit_leaves_no_trace_but_its_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut ws = Workspace::new(dir.path());
        ws.stage("config/a.yaml", "a");
        ws.commit().unwrap();
        assert_eq!(entries(dir.path()), ["", "config", "config/a.yaml"]);
    }

    /// Every path under `dir`, relative to it (`dir` itself as ""), sorted.
    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = walkdir::WalkDir::new(dir)
            .into_iter()
            .map(|e| {
                let e = e.unwrap();
                e.path().strip_prefix(dir).unwrap().display().to_string()
            })
            .collect();
        names.sort();
        names
    }

    /// With a cache directory, one changed file is renamed over its target from a scratch file
    /// there: no `.opgen/`, no scratch file left, the mode and a link kept, and a failure
    /// changes nothing.
    #[cfg(unix)]
    #[test]
    fn one_file_is_written_through_the_cache_directory() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let cache = root.join(CACHE_DIR);
        fs::create_dir_all(&cache).unwrap();
        fs::create_dir(root.join("hack")).unwrap();
        fs::write(root.join("hack/script.sh"), "old").unwrap();
        let executable = fs::Permissions::from_mode(0o755);
        fs::set_permissions(root.join("hack/script.sh"), executable).unwrap();
        fs::create_dir(root.join("real")).unwrap();
        fs::write(root.join("real/mod.rs"), "old").unwrap();
        std::os::unix::fs::symlink("real/mod.rs", root.join("mod.rs")).unwrap();

        // The root's entries are not touched (no `.opgen/` made and removed): its time stays.
        let long_ago = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1 << 30);
        fs::File::open(root)
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
        let mut ws = Workspace::new(root);
        ws.stage("hack/script.sh", "new");
        assert_eq!(ws.commit().unwrap()[0].kind, ChangeKind::Update);
        assert_eq!(fs::metadata(root).unwrap().modified().unwrap(), long_ago);
        assert_eq!(
            fs::read_to_string(root.join("hack/script.sh")).unwrap(),
            "new"
        );
        let mode = fs::metadata(root.join("hack/script.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);

        let mut ws = Workspace::new(root);
        ws.stage("mod.rs", "new");
        ws.commit().unwrap();
        let link = fs::symlink_metadata(root.join("mod.rs")).unwrap();
        assert!(link.file_type().is_symlink());
        assert_eq!(fs::read_to_string(root.join("real/mod.rs")).unwrap(), "new");

        let mut ws = Workspace::new(root);
        ws.stage("config/crd/a.yaml", "a");
        assert_eq!(ws.commit().unwrap()[0].kind, ChangeKind::Create);
        assert_eq!(
            fs::read_to_string(root.join("config/crd/a.yaml")).unwrap(),
            "a"
        );

        // A file cannot replace a directory: an error, the directories it made gone again.
        fs::create_dir_all(root.join("full/x")).unwrap();
        let before = entries(root);
        let mut ws = Workspace::new(root);
        ws.stage("full", "fails");
        assert!(ws.commit().is_err());
        let mut ws = Workspace::new(root);
        ws.stage("hack/script.sh/below", "fails");
        assert!(ws.commit().is_err());
        assert_eq!(entries(root), before);
        assert_eq!(entries(&cache), [""], "nothing left in the cache directory");
        assert!(!root.join(".opgen").exists());
    }

    /// An interrupted commit, as a kill after the journal and the first rename leaves it:
    /// `a/x.rs` moved to `b/x.rs`, `c.rs` not yet rewritten.
    fn interrupted(dir: &Path) {
        fs::create_dir_all(dir.join("a")).unwrap();
        fs::write(dir.join("a/x.rs"), "x").unwrap();
        fs::write(dir.join("c.rs"), "c").unwrap();
        let mut ws = Workspace::new(dir);
        ws.stage("b/x.rs", "x");
        ws.stage("c.rs", "c2");
        ws.stage_removal("a/x.rs", None);
        let changes = ws.changes().unwrap();
        let pending: Vec<&Change> = changes.iter().collect();
        let targets: Vec<PathBuf> = pending.iter().map(|c| c.path.clone()).collect();
        let mut tx = Transaction::default();
        // Paths commit in order a/x.rs, b/x.rs, c.rs: simulate the kill by undoing nothing
        // and putting back what the later renames did.
        ws.write_all(&pending, &targets, &mut tx).unwrap();
        fs::write(dir.join("c.rs"), "c").unwrap();
        fs::remove_file(dir.join("b/x.rs")).unwrap();
        fs::write(dir.join(COMMIT_DIR).join("1"), "x").unwrap();
        fs::write(dir.join(COMMIT_DIR).join("2"), "c2").unwrap();
    }

    #[test]
    fn replay_refuses_when_a_file_changed_since_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        interrupted(dir.path());
        // The user edits a file the interrupted commit was about to rewrite.
        fs::write(dir.path().join("c.rs"), "c // USER WORK").unwrap();
        let ws = Workspace::new(dir.path());
        let err = ws.finish_interrupted_commit().unwrap_err().to_string();
        assert!(
            err.contains("c.rs") && err.contains("opgen recover --finish"),
            "{err}"
        );
        assert!(!err.contains("b/x.rs"), "{err}");
        assert_eq!(
            fs::read_to_string(dir.path().join("c.rs")).unwrap(),
            "c // USER WORK"
        );
        assert!(!dir.path().join("b/x.rs").exists());
        assert!(ws.has_interrupted_commit());
        // A commit refuses the same way.
        assert!(ws.commit().is_err());

        // --abandon keeps the user's files; nothing is left to replay.
        assert!(ws.abandon_interrupted_commit().unwrap());
        assert_eq!(
            fs::read_to_string(dir.path().join("c.rs")).unwrap(),
            "c // USER WORK"
        );
        assert_eq!(ws.finish_interrupted_commit().unwrap(), None);
    }

    #[test]
    fn replay_finishes_an_untouched_interrupted_commit_and_recover_finish_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        interrupted(dir.path());
        let ws = Workspace::new(dir.path());
        assert_eq!(ws.finish_interrupted_commit().unwrap(), Some(2));
        assert_eq!(fs::read_to_string(dir.path().join("c.rs")).unwrap(), "c2");
        assert_eq!(fs::read_to_string(dir.path().join("b/x.rs")).unwrap(), "x");
        // The directory its removals emptied goes, as after a whole commit.
        assert!(!dir.path().join("a").exists());

        let dir = tempfile::tempdir().unwrap();
        interrupted(dir.path());
        fs::write(dir.path().join("c.rs"), "edited").unwrap();
        let ws = Workspace::new(dir.path());
        assert_eq!(ws.finish_interrupted_commit_anyway().unwrap(), Some(2));
        assert_eq!(fs::read_to_string(dir.path().join("c.rs")).unwrap(), "c2");
    }

    #[cfg(unix)]
    #[test]
    fn no_write_or_removal_goes_through_a_linked_directory() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("x.rs"), "outside").unwrap();
        fs::create_dir(dir.path().join("src")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("src/v1")).unwrap();
        fs::write(dir.path().join("a.rs"), "a").unwrap();
        for removal in [false, true] {
            let mut ws = Workspace::new(dir.path());
            ws.stage("a.rs", "changed");
            if removal {
                ws.stage_removal("src/v1/x.rs", None);
            } else {
                ws.stage("src/v1/new.rs", "new");
            }
            let err = ws.commit().unwrap_err().to_string();
            assert!(
                err.contains("src/v1: a symbolic link to a directory"),
                "{err}"
            );
            assert!(ws.check_targets().is_err());
            assert_eq!(fs::read_to_string(dir.path().join("a.rs")).unwrap(), "a");
            assert_eq!(
                fs::read_to_string(outside.path().join("x.rs")).unwrap(),
                "outside"
            );
            assert!(!outside.path().join("new.rs").exists());
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_linked_file_is_written_through_and_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("real")).unwrap();
        fs::write(dir.path().join("real/mod.rs"), "old").unwrap();
        std::os::unix::fs::symlink("real/mod.rs", dir.path().join("mod.rs")).unwrap();
        let mut ws = Workspace::new(dir.path());
        ws.stage("mod.rs", "new");
        ws.commit().unwrap();
        assert!(
            fs::symlink_metadata(dir.path().join("mod.rs"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("real/mod.rs")).unwrap(),
            "new"
        );

        // A failed commit leaves the link a link, its target as it was.
        fs::create_dir_all(dir.path().join("zz/full")).unwrap();
        fs::write(dir.path().join("zz/full/x"), "").unwrap();
        let mut ws = Workspace::new(dir.path());
        ws.stage("mod.rs", "newer");
        // Renamed after mod.rs, and a file cannot replace a directory.
        ws.stage("zz/full", "fails");
        assert!(ws.commit().is_err());
        let link = fs::symlink_metadata(dir.path().join("mod.rs")).unwrap();
        assert!(link.file_type().is_symlink());
        assert_eq!(
            fs::read_to_string(dir.path().join("real/mod.rs")).unwrap(),
            "new"
        );

        // A link leading out of the project is refused.
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("f.rs"), "out").unwrap();
        std::os::unix::fs::symlink(outside.path().join("f.rs"), dir.path().join("out.rs")).unwrap();
        let mut ws = Workspace::new(dir.path());
        ws.stage("out.rs", "new");
        assert!(
            ws.commit()
                .unwrap_err()
                .to_string()
                .contains("outside the project")
        );
        assert_eq!(
            fs::read_to_string(outside.path().join("f.rs")).unwrap(),
            "out"
        );
    }

    /// Issue 24: a removed symbolic link comes back as the same link when the commit fails,
    /// not as a copy of its target.
    #[cfg(unix)]
    #[test]
    fn a_failed_commit_restores_a_removed_link_as_a_link() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("real.rs"), "real").unwrap();
        std::os::unix::fs::symlink("real.rs", dir.path().join("link.rs")).unwrap();
        fs::create_dir_all(dir.path().join("zz/full")).unwrap();
        fs::write(dir.path().join("zz/full/x"), "").unwrap();
        let mut ws = Workspace::new(dir.path());
        ws.stage_removal("link.rs", None);
        // Committed after link.rs, and a file cannot replace a directory.
        ws.stage("zz/full", "fails");
        assert!(ws.commit().is_err());
        let link = dir.path().join("link.rs");
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_link(&link).unwrap(), Path::new("real.rs"));
        assert_eq!(
            fs::read_to_string(dir.path().join("real.rs")).unwrap(),
            "real"
        );
    }

    /// Issue 24: a link the interrupted commit was removing, pointed elsewhere since (even at
    /// a file with the same content), stops the replay; the same link is removed.
    #[cfg(unix)]
    #[test]
    fn replay_refuses_a_link_swapped_since() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("x.rs"), "same").unwrap();
        fs::write(dir.path().join("y.rs"), "same").unwrap();
        let link = dir.path().join("link.rs");
        std::os::unix::fs::symlink("x.rs", &link).unwrap();
        let mut ws = Workspace::new(dir.path());
        ws.stage_removal("link.rs", None);
        let changes = ws.changes().unwrap();
        let pending: Vec<&Change> = changes.iter().collect();
        let mut tx = Transaction::default();
        ws.write_all(&pending, &[PathBuf::from("link.rs")], &mut tx)
            .unwrap();
        // Killed after the journal; the user puts a link back, to another file.
        std::os::unix::fs::symlink("y.rs", &link).unwrap();
        let ws = Workspace::new(dir.path());
        let err = ws.finish_interrupted_commit().unwrap_err().to_string();
        assert!(err.contains("link.rs"), "{err}");
        assert_eq!(fs::read_link(&link).unwrap(), Path::new("y.rs"));
        // The link as it was: the replay goes on and removes it.
        fs::remove_file(&link).unwrap();
        std::os::unix::fs::symlink("x.rs", &link).unwrap();
        assert_eq!(ws.finish_interrupted_commit().unwrap(), Some(1));
        assert!(fs::symlink_metadata(&link).is_err());
        assert_eq!(fs::read_to_string(dir.path().join("x.rs")).unwrap(), "same");
    }

    /// Issue 24: bytes that are not UTF-8 are staged, committed and read back as they are.
    #[test]
    fn a_data_file_that_is_not_text_moves_as_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let blob = vec![0xff, 0xfe, 0x00, b'\n', 0xc3];
        fs::write(dir.path().join("blob.bin"), &blob).unwrap();
        let mut ws = Workspace::new(dir.path());
        let bytes = ws.read_bytes(Path::new("blob.bin")).unwrap().unwrap();
        assert!(ws.read(Path::new("blob.bin")).is_err());
        ws.stage_bytes("moved/blob.bin", bytes);
        ws.stage_removal("blob.bin", None);
        ws.commit().unwrap();
        assert_eq!(fs::read(dir.path().join("moved/blob.bin")).unwrap(), blob);
        assert!(!dir.path().join("blob.bin").exists());
    }

    #[test]
    fn a_crlf_file_stays_crlf() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("PROJECT"), "a: 1\r\nb: 2\r\n").unwrap();
        fs::write(dir.path().join("mixed"), "a\r\nb\n").unwrap();
        let mut ws = Workspace::new(dir.path());
        // Lines inserted into the CRLF text as LF become CRLF too.
        ws.stage("PROJECT", "a: 1\r\nb: 2\nc: 3\n");
        ws.stage("mixed", "a\nb\nc\n");
        ws.stage("new", "x\n");
        ws.commit().unwrap();
        let read = |name: &str| fs::read_to_string(dir.path().join(name)).unwrap();
        assert_eq!(read("PROJECT"), "a: 1\r\nb: 2\r\nc: 3\r\n");
        assert_eq!(read("mixed"), "a\nb\nc\n");
        assert_eq!(read("new"), "x\n");
    }

    #[cfg(unix)]
    #[test]
    fn a_rewrite_keeps_the_file_mode_and_refuses_a_read_only_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mode = |name: &str| {
            fs::metadata(dir.path().join(name))
                .unwrap()
                .permissions()
                .mode()
                & 0o777
        };
        for (name, m) in [("private", 0o600), ("script.sh", 0o755)] {
            fs::write(dir.path().join(name), "old").unwrap();
            fs::set_permissions(dir.path().join(name), fs::Permissions::from_mode(m)).unwrap();
        }
        let mut ws = Workspace::new(dir.path());
        ws.stage("private", "new");
        ws.stage("script.sh", "new");
        ws.commit().unwrap();
        assert_eq!((mode("private"), mode("script.sh")), (0o600, 0o755));

        fs::write(dir.path().join("locked"), "old").unwrap();
        fs::set_permissions(dir.path().join("locked"), fs::Permissions::from_mode(0o444)).unwrap();
        let mut ws = Workspace::new(dir.path());
        ws.stage("locked", "new");
        let err = ws.commit().unwrap_err().to_string();
        assert!(err.contains("locked: read-only"), "{err}");
        assert_eq!(
            fs::read_to_string(dir.path().join("locked")).unwrap(),
            "old"
        );
    }
}
