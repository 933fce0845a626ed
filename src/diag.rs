//! User-facing errors and warnings.
//!
//! Every failure opgen reports is a [`Diagnostic`]: what is wrong, where (file, line,
//! column and the offending source line when there is one) and, when we know it, how
//! to fix it. Commands collect as many diagnostics as they can before giving up, so a
//! user fixes all typos in one round instead of one per run.

use std::fmt;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// A position in a source file; line and column are 1-based.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    /// The text of the line, shown under the message.
    pub source_line: Option<String>,
    /// How many characters from `column` to underline.
    pub width: usize,
}

impl Location {
    pub fn new(file: impl Into<PathBuf>, line: usize, column: usize) -> Self {
        Location {
            file: file.into(),
            line,
            column,
            source_line: None,
            width: 1,
        }
    }

    /// Attach the offending line (taken from `source`) and the width to underline.
    pub fn with_source(mut self, source: &str, width: usize) -> Self {
        self.source_line = source
            .lines()
            .nth(self.line.saturating_sub(1))
            .map(str::to_owned);
        self.width = width.max(1);
        self
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    pub location: Option<Location>,
    pub help: Option<String>,
    /// The check that found it (a lint rule), shown as rustc shows its codes: `warning[nobools]`.
    pub code: Option<&'static str>,
}

impl Diagnostic {
    pub fn error(message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            location: None,
            help: None,
            code: None,
        }
    }

    pub fn warning(message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(message)
        }
    }

    pub fn at(mut self, location: Location) -> Self {
        self.location = Some(location);
        self
    }

    pub fn code(mut self, code: &'static str) -> Self {
        self.code = Some(code);
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let label = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match self.code {
            Some(code) => writeln!(f, "{label}[{code}]: {}", self.message)?,
            None => writeln!(f, "{label}: {}", self.message)?,
        }
        if let Some(loc) = &self.location {
            writeln!(
                f,
                "  --> {}:{}:{}",
                loc.file.display(),
                loc.line,
                loc.column
            )?;
            if let Some(text) = &loc.source_line {
                let gutter = loc.line.to_string().len();
                let pad = " ".repeat(gutter);
                writeln!(f, "{pad} |")?;
                writeln!(f, "{} | {}", loc.line, text)?;
                let indent: String = text
                    .chars()
                    .take(loc.column.saturating_sub(1))
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                writeln!(f, "{pad} | {indent}{}", "^".repeat(loc.width))?;
            }
        }
        if let Some(help) = &self.help {
            writeln!(f, "  = help: {help}")?;
        }
        Ok(())
    }
}

/// The error type of every opgen operation: one or more diagnostics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub diagnostics: Vec<Diagnostic>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(diagnostic: Diagnostic) -> Self {
        Error {
            diagnostics: vec![diagnostic],
        }
    }

    pub fn msg(message: impl Into<String>) -> Self {
        Error::new(Diagnostic::error(message))
    }

    pub fn with_help(message: impl Into<String>, help: impl Into<String>) -> Self {
        Error::new(Diagnostic::error(message).help(help))
    }

    pub fn io(path: &Path, err: std::io::Error) -> Self {
        Error::msg(format!("{}: {err}", path.display()))
    }

    pub fn many(diagnostics: Vec<Diagnostic>) -> Self {
        debug_assert!(!diagnostics.is_empty());
        Error { diagnostics }
    }
}

impl From<Diagnostic> for Error {
    fn from(d: Diagnostic) -> Self {
        Error::new(d)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.diagnostics {
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Collects diagnostics while a stage keeps going after the first problem.
#[derive(Debug, Default)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }

    /// Pushes `d` unless the same diagnostic is already there (a type used twice is checked twice).
    pub fn push_once(&mut self, d: Diagnostic) {
        if !self.items.contains(&d) {
            self.items.push(d);
        }
    }

    pub fn extend(&mut self, err: Error) {
        self.items.extend(err.diagnostics);
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }

    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Warning)
    }

    /// `Err` with every diagnostic if any is an error, else the warnings.
    pub fn finish(self) -> Result<Vec<Diagnostic>> {
        if self.has_errors() {
            Err(Error::many(self.items))
        } else {
            Ok(self.items)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_location_with_caret_under_the_column() {
        let src = "struct A {\n    // +kubebuilder:validation:Maxlength=3\n}\n";
        let d = Diagnostic::error("unknown marker `kubebuilder:validation:Maxlength`")
            .at(Location::new("src/a.rs", 2, 8).with_source(src, 5))
            .help("did you mean `kubebuilder:validation:MaxLength`?");
        let text = d.to_string();
        assert_eq!(
            text,
            "error: unknown marker `kubebuilder:validation:Maxlength`\n  --> src/a.rs:2:8\n  |\n2 |     // +kubebuilder:validation:Maxlength=3\n  |        ^^^^^\n  = help: did you mean `kubebuilder:validation:MaxLength`?\n"
        );
    }

    #[test]
    fn finish_fails_only_on_errors() {
        let mut ds = Diagnostics::default();
        ds.push(Diagnostic::warning("w"));
        assert_eq!(ds.finish().unwrap().len(), 1);
        let mut ds = Diagnostics::default();
        ds.push(Diagnostic::warning("w"));
        ds.push(Diagnostic::error("e"));
        assert_eq!(ds.finish().unwrap_err().diagnostics.len(), 2);
    }
}
