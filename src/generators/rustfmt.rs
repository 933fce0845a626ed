//! Formatting generated Rust with rustfmt, as kubebuilder runs gofmt on what it writes.
//!
//! Templates are written for a typical kind name; a longer or shorter one moves line
//! breaks, and only rustfmt knows where they go. rustfmt ships with every rustup
//! toolchain; without it the code is written unformatted and the caller warns.

use std::io::Write;
use std::process::{Command, Stdio};

pub enum Formatted {
    Done(String),
    /// rustfmt is not installed; the source is returned as it was.
    Unavailable(String),
}

/// Formats `source` as edition 2024 code. An error means the source does not parse,
/// which for a template is a bug in opgen.
pub fn format(source: &str) -> Result<Formatted, String> {
    let program = std::env::var("RUSTFMT").unwrap_or_else(|_| "rustfmt".to_owned());
    let child = Command::new(&program)
        .args(["--edition", "2024", "--emit", "stdout", "--quiet"])
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
}
