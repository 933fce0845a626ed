//! Formatting generated Rust with rustfmt, as kubebuilder runs gofmt on what it writes.
//!
//! Templates are written for a typical kind name; a longer or shorter one moves line
//! breaks, and only rustfmt knows where they go. rustfmt ships with every rustup
//! toolchain; without it the code is written unformatted and the caller warns.
//!
//! A command that writes many files formats them with [`format_all`]: one rustfmt process per
//! core for all of them, as starting rustfmt costs far more than formatting one file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Formatted {
    Done(String),
    /// rustfmt is not installed; the source is returned as it was.
    Unavailable(String),
}

const ARGS: [&str; 3] = ["--edition", "2024", "--quiet"];

fn program() -> String {
    std::env::var("RUSTFMT").unwrap_or_else(|_| "rustfmt".to_owned())
}

/// Formats `source` as edition 2024 code. An error means the source does not parse,
/// which for a template is a bug in opgen.
pub fn format(source: &str) -> Result<Formatted, String> {
    let program = program();
    let child = Command::new(&program)
        .args(ARGS)
        .args(["--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Formatted::Unavailable(source.to_owned()));
        }
        Err(e) => return Err(format!("cannot run {program}: {e}")),
    };
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let input = source.to_owned();
    // Write from another thread: rustfmt may fill stdout before it has read all of stdin.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    let _ = writer.join();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    String::from_utf8(out.stdout)
        .map(Formatted::Done)
        .map_err(|e| format!("{program} wrote invalid UTF-8: {e}"))
}

/// Each of `sources` as [`format`] formats it, in one rustfmt run: each source is written to a
/// scratch crate root of its own, with an empty file for every `mod name;` it declares (rustfmt
/// refuses a file whose modules it cannot find, and formats what it finds: nothing). A source
/// with a `#[path]` goes through [`format`] alone, and so does every source when the run fails
/// (a syntax error, a module not found), so the results and errors are exactly [`format`]'s.
pub fn format_all(sources: &[&str]) -> Vec<Result<Formatted, String>> {
    // A source given twice (a file rendered for two layouts that differ elsewhere) is
    // formatted once.
    let mut unique: Vec<&str> = Vec::with_capacity(sources.len());
    let mut first: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let at: Vec<usize> = sources
        .iter()
        .map(|&s| {
            *first.entry(s).or_insert_with(|| {
                unique.push(s);
                unique.len() - 1
            })
        })
        .collect();
    let formatted = format_unique(&unique);
    at.into_iter().map(|i| formatted[i].clone()).collect()
}

fn format_unique(sources: &[&str]) -> Vec<Result<Formatted, String>> {
    match sources {
        [] => return Vec::new(),
        [one] => return vec![format(one)],
        _ => {}
    }
    let batched = match format_batch(sources) {
        Ok(batched) => batched,
        Err(Unavailable) => {
            return sources
                .iter()
                .map(|s| Ok(Formatted::Unavailable((*s).to_owned())))
                .collect();
        }
    };
    batched
        .into_iter()
        .zip(sources)
        .map(|(done, source)| match done {
            Some(text) => Ok(Formatted::Done(text)),
            None => format(source),
        })
        .collect()
}

struct Unavailable;

/// What rustfmt made of each source, None where it could not say: one run per core, each over
/// a share of the sources of about equal size (rustfmt formats its files one after another).
fn format_batch(sources: &[&str]) -> Result<Vec<Option<String>>, Unavailable> {
    let Some(scratch) = scratch_dir() else {
        return Ok(vec![None; sources.len()]);
    };
    let mut roots: Vec<Option<PathBuf>> = Vec::with_capacity(sources.len());
    for (i, source) in sources.iter().enumerate() {
        roots.push(write_crate_root(scratch.path(), i, source).ok().flatten());
    }
    let present: Vec<usize> = (0..sources.len()).filter(|&i| roots[i].is_some()).collect();
    if present.is_empty() {
        return Ok(vec![None; sources.len()]);
    }
    let config = config_file();
    let runs: Vec<(&[usize], std::io::Result<std::process::Child>)> =
        shares(&present, sources, crate::parallel::threads())
            .into_iter()
            .map(|share| {
                let mut command = Command::new(program());
                command.args(ARGS).args(["--emit", "files"]);
                if let Some(config) = &config {
                    command.arg("--config-path").arg(config);
                }
                let child = command
                    .args(share.iter().filter_map(|&i| roots[i].as_ref()))
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn();
                (share, child)
            })
            .collect();
    let mut out = vec![None; sources.len()];
    for (share, child) in runs {
        match child.and_then(|mut c| c.wait()) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Unavailable),
            // An error in one source fails its run: each of the run's goes through `format`
            // alone.
            Ok(status) if status.success() => {
                for &i in share {
                    out[i] = roots[i]
                        .as_ref()
                        .and_then(|root| std::fs::read_to_string(root).ok());
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// A directory for the scratch crate roots, in memory where the system has such a place
/// (`$XDG_RUNTIME_DIR`, `/dev/shm`): rustfmt rewrites every file it formats, and creating a
/// file costs about a millisecond on some disk file systems (ext4 here: `edit --multigroup`
/// creates ~480), next to nothing in memory. Else the temporary directory.
fn scratch_dir() -> Option<tempfile::TempDir> {
    let in_memory = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .into_iter()
        .chain(cfg!(target_os = "linux").then(|| PathBuf::from("/dev/shm")));
    let mut builder = tempfile::Builder::new();
    builder.prefix("opgen-rustfmt");
    in_memory
        .filter(|dir| dir.is_absolute())
        .find_map(|dir| builder.tempdir_in(dir).ok())
        .or_else(|| builder.tempdir().ok())
}

/// `present` split into at most `parts` runs of consecutive sources of about equal total size;
/// fewer when the sources are few (a rustfmt start costs about what formatting a few files does).
fn shares<'a>(present: &'a [usize], sources: &[&str], parts: usize) -> Vec<&'a [usize]> {
    const FILES_PER_RUN: usize = 8;
    let parts = parts.min(present.len().div_ceil(FILES_PER_RUN)).max(1);
    let total: usize = present.iter().map(|&i| sources[i].len()).sum();
    let mut out = Vec::with_capacity(parts);
    let (mut start, mut size) = (0, 0);
    for (at, &i) in present.iter().enumerate() {
        size += sources[i].len();
        // Cut when this run has its share of the total (the last run takes the rest).
        if out.len() + 1 < parts && size * parts >= total * (out.len() + 1) {
            out.push(&present[start..=at]);
            start = at + 1;
        }
    }
    if start < present.len() {
        out.push(&present[start..]);
    }
    out
}

/// The configuration rustfmt reads when it formats stdin: the first `rustfmt.toml` or
/// `.rustfmt.toml` in the working directory or above it. The scratch files are elsewhere, so
/// it is named to rustfmt (which, without one, falls back to the user's global file in both
/// modes).
fn config_file() -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    cwd.ancestors()
        .flat_map(|dir| ["rustfmt.toml", ".rustfmt.toml"].map(|name| dir.join(name)))
        .find(|file| file.is_file())
}

/// Writes the `i`th source into `scratch`: as `<i>.rs`, or, when it declares modules, as
/// `<i>/lib.rs` beside an empty file for each (a directory per source only where needed: a
/// directory costs a millisecond on some file systems, and most sources declare none). None
/// when it declares a module at a `#[path]` (rustfmt would look elsewhere).
fn write_crate_root(scratch: &Path, i: usize, source: &str) -> std::io::Result<Option<PathBuf>> {
    if source.contains("#[path") {
        return Ok(None);
    }
    let modules: Vec<&str> = declared_modules(source).collect();
    let root = if modules.is_empty() {
        scratch.join(format!("{i}.rs"))
    } else {
        let dir = scratch.join(i.to_string());
        std::fs::create_dir_all(&dir)?;
        for module in modules {
            std::fs::write(dir.join(format!("{module}.rs")), "")?;
        }
        dir.join("lib.rs")
    };
    std::fs::write(&root, source)?;
    Ok(Some(root))
}

/// The names of the `mod name;` lines of `source` (after any attributes and visibility). A
/// declaration this misses, e.g. inside an inline module, fails the batch, and each source is
/// then formatted alone; one it finds in a comment only adds an unused empty file.
fn declared_modules(source: &str) -> impl Iterator<Item = &str> {
    source.lines().filter_map(|line| {
        let words: Vec<&str> = line.trim().strip_suffix(';')?.split_whitespace().collect();
        match words.as_slice() {
            [.., "mod", name] => {
                let name = name.strip_prefix("r#").unwrap_or(name);
                name.chars()
                    .all(|c| c.is_alphanumeric() || c == '_')
                    .then_some(name)
            }
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_or_reports_rustfmt_missing() {
        match format("fn  main( ){let x=1;}").unwrap() {
            Formatted::Done(s) => assert_eq!(s, "fn main() {\n    let x = 1;\n}\n"),
            Formatted::Unavailable(s) => assert_eq!(s, "fn  main( ){let x=1;}"),
        }
        assert!(format("fn main( {").is_err());
    }

    #[test]
    fn one_run_formats_as_each_alone() {
        let sources = [
            "mod  b;\n#[cfg(test)] pub(crate) mod r#a;\npub mod inline { fn f( ){} }\nfn  main( ){}",
            "use std::io; use std::fmt;\nfn x( )->u8{1}",
            "#[path = \"elsewhere.rs\"]\nmod moved;\nfn  y(){}",
            "",
        ];
        let alone: Vec<_> = sources.iter().map(|s| format(s)).collect();
        assert_eq!(format_all(&sources), alone);
        if let (Ok(Formatted::Done(first)), Ok(Formatted::Done(second))) = (&alone[0], &alone[1]) {
            assert!(
                first.starts_with("#[cfg(test)]\npub(crate) mod r#a;\nmod b;\n"),
                "{first}"
            );
            // Both in the one run, not through the fallback.
            let batch = format_batch(&sources[..2]).ok().expect("rustfmt runs");
            assert_eq!(batch, [Some(first.clone()), Some(second.clone())]);
        }
        // A source that does not parse fails the run; each is then formatted alone.
        let with_error = ["fn broken( {", sources[1]];
        let batch = format_all(&with_error);
        assert!(batch[0].is_err());
        assert_eq!(batch[1], alone[1]);
    }

    #[test]
    fn shares_cover_every_source_in_order_and_about_evenly() {
        let sources: Vec<String> = (0..40).map(|i| "x".repeat(10 + i % 7 * 30)).collect();
        let sources: Vec<&str> = sources.iter().map(String::as_str).collect();
        let present: Vec<usize> = (0..40).filter(|i| i % 5 != 3).collect();
        for parts in [1, 2, 3, 4] {
            let shares = shares(&present, &sources, parts);
            assert_eq!(shares.len(), parts);
            assert_eq!(shares.concat(), present, "{parts} parts");
            let sizes: Vec<usize> = shares
                .iter()
                .map(|s| s.iter().map(|&i| sources[i].len()).sum())
                .collect();
            let (min, max) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
            assert!(max - min <= 2 * 190, "{parts} parts: {sizes:?}");
        }
        // Few sources: one run; never an empty run.
        assert_eq!(shares(&present[..8], &sources, 4).len(), 1);
        assert_eq!(shares(&present[..9], &sources, 4).len(), 2);
        assert_eq!(shares(&[], &sources, 4), Vec::<&[usize]>::new());
    }

    #[test]
    fn a_source_that_does_not_parse_fails_only_its_own_run() {
        let mut sources: Vec<String> = (0..24).map(|i| format!("fn  f{i}( ){{}}")).collect();
        sources[0] = "fn broken( {".to_owned();
        let sources: Vec<&str> = sources.iter().map(String::as_str).collect();
        let Ok(batch) = format_batch(&sources) else {
            return; // no rustfmt
        };
        assert_eq!(batch[0], None);
        let last = "fn f23() {}\n".to_owned();
        if crate::parallel::threads() > 1 {
            assert_eq!(batch[23].as_deref(), Some(last.as_str()));
        }
        let all = format_all(&sources);
        assert!(all[0].is_err());
        assert_eq!(all[23], Ok(Formatted::Done(last)));
    }

    #[test]
    fn a_source_given_twice_gets_its_answer_twice() {
        let sources = [
            "fn  a( ){}",
            "fn  b( ){}",
            "fn  a( ){}",
            "fn broken( {",
            "fn broken( {",
        ];
        let all = format_all(&sources);
        let alone: Vec<_> = sources.iter().map(|s| format(s)).collect();
        assert_eq!(all, alone);
    }
}
