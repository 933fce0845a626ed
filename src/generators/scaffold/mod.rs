//! Scaffold plans: the files a command creates and the fragments it inserts, decided
//! up front and applied to a [`Workspace`] in one go.
//!
//! Each file has an explicit ownership policy (kubebuilder's are implicit and differ per
//! template). Insertions go above `+opgen:scaffold:<name>` marker comments; a missing
//! marker is an error that prints the fragment to add by hand (kubebuilder skips it
//! silently and leaves the project half wired).

pub mod api;
pub mod init;
pub mod manifest;
pub mod webhook;

use crate::diag::{Diagnostic, Error, Location, Result};
use crate::generators::rustfmt::{self, Formatted};
use crate::writer::Workspace;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Written once; the user edits it. Exists → error, unless `--force` replaces it.
    UserOwned,
    /// Written only when missing; never replaced, not even with `--force`.
    IfMissing,
    /// opgen's own output, regenerated every time.
    ToolOwned,
    /// opgen's output that the user may edit: the first line holds a digest of the rest
    /// (see [`stamp`]). Unedited → regenerated; edited → refused unless `--force`; without
    /// the digest line the file is the user's → left alone (a warning), `--force` replaces it.
    Generated,
}

/// How a [`Policy::Generated`] file's first line is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommentStyle {
    /// `# ...` (YAML)
    Hash,
    /// `{{- /* ... */}}` (Go templates, e.g. Helm's): nothing of it reaches the rendered output.
    GoTemplate,
}

const DIGEST_TAG: &str = "opgen-digest: ";

/// What the first line of a [`Policy::Generated`] file says after its digest, by default.
pub const REFUSES_EDITED: &str = "Edit freely: opgen then refuses to replace it without --force; delete this line to make it yours for good.";

/// `body` with a first line recording its digest, for [`Policy::Generated`]: `what`, the
/// digest, then `then` (what opgen does once the file is edited).
pub fn stamp(body: &str, style: CommentStyle, what: &str, then: &str) -> String {
    let note = format!("{what} ({DIGEST_TAG}{}). {then}", digest(body));
    match style {
        CommentStyle::Hash => format!("# {note}\n{body}"),
        CommentStyle::GoTemplate => format!("{{{{- /* {note} */}}}}\n{body}"),
    }
}

/// What became of a [`Policy::Generated`] file since opgen wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provenance {
    Unedited,
    Edited,
    /// No digest line: the user took the file over.
    Adopted,
}

pub fn provenance(text: &str) -> Provenance {
    let (first, body) = text.split_once('\n').unwrap_or((text, ""));
    let Some(at) = first.find(DIGEST_TAG) else {
        return Provenance::Adopted;
    };
    let recorded: String = first[at + DIGEST_TAG.len()..]
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    if recorded == digest(body) {
        Provenance::Unedited
    } else {
        Provenance::Edited
    }
}

/// FNV-1a, 64 bits (the writer's journal uses the same).
fn digest(text: &str) -> String {
    format!("{:016x}", crate::writer::fnv1a64(text.as_bytes()))
}

#[derive(Debug, Clone)]
pub enum Action {
    Write {
        path: PathBuf,
        content: String,
        policy: Policy,
    },
    /// Insert `fragment` (one or more lines) above the line holding `marker`.
    Insert {
        path: PathBuf,
        marker: String,
        fragment: String,
    },
}

impl Action {
    /// The path of a write under `policy`.
    pub fn written_with(&self, policy: Policy) -> Option<&PathBuf> {
        match self {
            Action::Write {
                path, policy: p, ..
            } if *p == policy => Some(path),
            _ => None,
        }
    }
}

#[derive(Debug, Default)]
pub struct ScaffoldPlan {
    actions: Vec<Action>,
    /// The writes of Rust (indices into `actions`) that rustfmt has not formatted yet:
    /// [`format_rust`] formats those of every plan a command builds in one rustfmt run.
    unformatted: Vec<usize>,
    pub warnings: Vec<Diagnostic>,
}

impl ScaffoldPlan {
    pub fn from_actions(actions: Vec<Action>) -> Self {
        ScaffoldPlan {
            actions,
            ..ScaffoldPlan::default()
        }
    }

    pub fn write(&mut self, path: impl Into<PathBuf>, content: String, policy: Policy) {
        self.actions.push(Action::Write {
            path: path.into(),
            content,
            policy,
        });
    }

    /// Whether the plan already writes `path`.
    pub fn writes(&self, path: &Path) -> bool {
        self.actions
            .iter()
            .any(|action| matches!(action, Action::Write { path: p, .. } if p == path))
    }

    /// Adds a Rust file, formatted with rustfmt before the plan's actions are read.
    pub fn write_rust(&mut self, path: impl Into<PathBuf>, content: String, policy: Policy) {
        self.unformatted.push(self.actions.len());
        self.write(path, content, policy);
    }

    /// The plan's actions as rendered: its Rust not formatted yet.
    pub fn rendered(&self) -> &[Action] {
        &self.actions
    }

    /// Leaves out of the formatting the Rust writes `keep_as_rendered` picks: whoever reads
    /// the plan needs them only as rendered (formatting costs a rustfmt pass per file).
    pub fn leave_unformatted(&mut self, keep_as_rendered: impl Fn(&Action) -> bool) {
        let actions = &self.actions;
        self.unformatted.retain(|&a| !keep_as_rendered(&actions[a]));
    }

    /// Adds `other`'s actions after this plan's.
    pub fn extend(&mut self, other: ScaffoldPlan) {
        let offset = self.actions.len();
        self.unformatted
            .extend(other.unformatted.iter().map(|i| i + offset));
        self.actions.extend(other.actions);
        self.warnings.extend(other.warnings);
    }

    /// The plan's actions, its Rust formatted.
    pub fn into_actions(mut self) -> Result<Vec<Action>> {
        format_rust(&mut [&mut self])?;
        Ok(self.actions)
    }

    /// The plan's actions to change in place, its Rust formatted.
    pub fn actions_mut(&mut self) -> Result<&mut Vec<Action>> {
        format_rust(&mut [&mut *self])?;
        Ok(&mut self.actions)
    }

    pub fn insert(&mut self, path: impl Into<PathBuf>, marker: &str, fragment: impl Into<String>) {
        self.actions.push(Action::Insert {
            path: path.into(),
            marker: format!("+opgen:scaffold:{marker}"),
            fragment: fragment.into(),
        });
    }

    /// Stages every action; on any conflict nothing is staged and every conflict is reported.
    /// Returns the plan's warnings.
    pub fn apply(mut self, ws: &mut Workspace, force: bool) -> Result<Vec<Diagnostic>> {
        if ws.defers_formatting() {
            for &a in &self.unformatted {
                if let Action::Write { path, .. } = &self.actions[a] {
                    ws.note_unformatted(path);
                }
            }
            self.unformatted.clear();
        } else {
            format_rust(&mut [&mut self])?;
        }
        let mut problems = Vec::new();
        let mut staged: Vec<(PathBuf, String, Option<String>)> = Vec::new();
        // Inserts read files that earlier writes of this plan create, so resolve in order
        // against a scratch view of the workspace.
        let read = |path: &PathBuf, staged: &[(PathBuf, String, Option<String>)]| match staged
            .iter()
            .rev()
            .find(|(p, _, _)| p == path)
        {
            Some((_, content, _)) => Ok(Some(content.clone())),
            None => ws.read(path),
        };
        for action in std::mem::take(&mut self.actions) {
            match action {
                Action::Write {
                    path,
                    content,
                    policy,
                } => {
                    let exists = ws.exists(&path);
                    match (policy, exists) {
                        (Policy::UserOwned, true) if !force => problems.push(Diagnostic::error(
                            format!("{} already exists", path.display()),
                        )),
                        (Policy::UserOwned, true) => {
                            let note = ws
                                .exists_on_disk(&path)
                                .then(|| "replaced (--force)".to_owned());
                            staged.push((path, content, note));
                        }
                        (Policy::IfMissing, true) => {}
                        (Policy::Generated, true) => {
                            let now = read(&path, &staged)?.unwrap_or_default();
                            match provenance(&now) {
                                _ if now == content => {}
                                Provenance::Unedited => staged.push((path, content, None)),
                                _ if force => {
                                    staged.push((path, content, Some("replaced (--force)".into())))
                                }
                                Provenance::Edited => problems.push(Diagnostic::error(format!(
                                    "{} was edited since opgen generated it",
                                    path.display()
                                ))),
                                Provenance::Adopted => self.warnings.push(
                                    Diagnostic::warning(format!(
                                        "{} has no opgen-digest line, so it is yours: not regenerated",
                                        path.display()
                                    ))
                                    .help("pass --force to replace it with what opgen generates"),
                                ),
                            }
                        }
                        _ => staged.push((path, content, None)),
                    }
                }
                Action::Insert {
                    path,
                    marker,
                    fragment,
                } => match read(&path, &staged)? {
                    None => problems.push(missing_marker(&path, &marker, &fragment, false)),
                    Some(text) => match insert_above_marker(&text, &marker, &fragment) {
                        Some(new_text) => staged.push((path, new_text, None)),
                        None => problems.push(missing_marker(&path, &marker, &fragment, true)),
                    },
                },
            }
        }
        if !problems.is_empty() {
            if let Some(last) = problems
                .iter()
                .rposition(|d| d.message.ends_with("already exists"))
            {
                problems[last].help = Some(
                    "nothing was written; pass --force to replace user-owned files (your edits in them are lost)"
                        .to_owned(),
                );
            }
            if let Some(last) = problems
                .iter()
                .rposition(|d| d.message.ends_with("was edited since opgen generated it"))
            {
                problems[last].help = Some(
                    "nothing was written; pass --force to replace the edited files (your edits are lost), or delete the first line (the opgen-digest comment) of each to keep it as yours"
                        .to_owned(),
                );
            }
            return Err(Error::many(problems));
        }
        for (path, content, note) in staged {
            ws.stage_with_note(path, content, note);
        }
        Ok(self.warnings)
    }
}

impl ScaffoldPlan {
    /// The inverse of [`ScaffoldPlan::apply`], for `opgen delete`: removes the user-owned files
    /// the plan writes and the fragments it inserts. Files written once per project
    /// (`IfMissing`, `ToolOwned`) stay: other kinds use them. A file that differs from what
    /// the plan writes today, or a fragment not found as written, was edited by the user:
    /// refused without `force` (nothing staged), removed or skipped with a warning with it.
    pub fn revert(mut self, ws: &mut Workspace, force: bool) -> Result<Vec<Diagnostic>> {
        format_rust(&mut [&mut self])?;
        let mut problems = Vec::new();
        let mut warnings = Vec::new();
        let mut staged: Vec<(PathBuf, Option<String>)> = Vec::new();
        let mut forced = std::collections::BTreeSet::new();
        let read = |path: &PathBuf, staged: &[(PathBuf, Option<String>)]| match staged
            .iter()
            .rev()
            .find(|(p, _)| p == path)
        {
            Some((_, content)) => Ok(content.clone()),
            None => ws.read(path),
        };
        for action in self.actions {
            match action {
                Action::Write {
                    path,
                    content,
                    policy: Policy::UserOwned,
                } => match ws.read(&path)? {
                    None => {}
                    Some(now) if now == content => staged.push((path, None)),
                    // Its content is gone: named in the report like a file replaced with --force.
                    Some(_) if force => {
                        forced.insert(path.clone());
                        staged.push((path, None));
                    }
                    Some(now) => {
                        let (line, what) = first_difference(&now, &content);
                        problems.push(
                            Diagnostic::error(format!(
                                "{} was edited since opgen created it ({what})",
                                path.display()
                            ))
                            .at(Location::new(&path, line, 1).with_source(&now, 1)),
                        )
                    }
                },
                Action::Write { .. } => {}
                Action::Insert {
                    path,
                    marker: _,
                    fragment,
                } => {
                    let removed =
                        read(&path, &staged)?.and_then(|text| remove_fragment(&text, &fragment));
                    match removed {
                        Some(text) => staged.push((path, Some(text))),
                        None => {
                            let mut d = Diagnostic::error(format!(
                                "{} no longer holds the lines opgen inserted:\n{}",
                                path.display(),
                                indent_block(&fragment, "        ")
                            ));
                            // Located in the file as the user has it, before this revert.
                            if let Some(text) = ws.read(&path)?
                                && let Some((line, column, width)) = edited_copy(&text, &fragment)
                            {
                                d.message.push_str("\n    it looks edited here:");
                                d = d
                                    .at(Location::new(&path, line, column)
                                        .with_source(&text, width));
                            }
                            if force {
                                warnings.push(Diagnostic::warning(format!(
                                    "{}; remove them by hand",
                                    d.message
                                )));
                            } else {
                                problems.push(d);
                            }
                        }
                    }
                }
            }
        }
        if !problems.is_empty() {
            let last = problems.len() - 1;
            problems[last].help = Some(
                "nothing was changed; pass --force to remove edited files and skip edited lines"
                    .to_owned(),
            );
            return Err(Error::many(problems));
        }
        for (path, content) in staged {
            match content {
                Some(text) => ws.stage(path, text),
                None => {
                    let note = forced
                        .contains(&path)
                        .then(|| "removed (--force)".to_owned());
                    ws.stage_removal(path, note)
                }
            }
        }
        warnings.extend(self.warnings);
        Ok(warnings)
    }
}

/// Where `now` first differs from `then`: a 1-based line of `now` (one that exists, to show
/// it) and what changed there. `str::lines` drops `\r`, so line endings are compared apart.
fn first_difference(now: &str, then: &str) -> (usize, String) {
    let lf = |text: &str| text.replace("\r\n", "\n");
    let (now_lf, then_lf) = (lf(now), lf(then));
    if now_lf == then_lf {
        let line = now
            .split_inclusive('\n')
            .zip(then.split_inclusive('\n'))
            .position(|(a, b)| a != b)
            .unwrap_or(0)
            + 1;
        let ending = |text: &str| if text.contains("\r\n") { "CRLF" } else { "LF" };
        return (
            line,
            format!(
                "only its line endings: {} where opgen wrote {}, first at line {line}",
                ending(now),
                ending(then)
            ),
        );
    }
    let (a, b): (Vec<&str>, Vec<&str>) = (
        now_lf.split_inclusive('\n').collect(),
        then_lf.split_inclusive('\n').collect(),
    );
    match a.iter().zip(&b).position(|(x, y)| x != y) {
        Some(i) => (i + 1, format!("first change at line {}", i + 1)),
        None if a.len() > b.len() => (b.len() + 1, format!("first change at line {}", b.len() + 1)),
        None if a.is_empty() => (1, "it is empty".to_owned()),
        // Only lines at the end are gone: the last line left is shown.
        None => (
            a.len(),
            format!("the lines after line {} are gone", a.len()),
        ),
    }
}

/// Where an edited copy of an inserted fragment seems to be: the first line holding the
/// fragment's first line (trimmed) as part of a longer one (line, column, width).
fn edited_copy(text: &str, fragment: &str) -> Option<(usize, usize, usize)> {
    let first = fragment.lines().map(str::trim).find(|l| !l.is_empty())?;
    text.lines().enumerate().find_map(|(i, line)| {
        let at = line.find(first)?;
        (line.trim() != first).then(|| {
            (
                i + 1,
                line[..at].chars().count() + 1,
                line.trim_end().chars().count() - line[..at].chars().count(),
            )
        })
    })
}

/// Formats the Rust every plan of `plans` writes, in one rustfmt run (starting rustfmt costs
/// far more than formatting a file). Without rustfmt the files stay as rendered and each plan
/// warns once.
pub fn format_rust(plans: &mut [&mut ScaffoldPlan]) -> Result<()> {
    format_rust_with(plans, &[]).map(drop)
}

/// [`format_rust`], with `others` formatted in the same run: rustfmt's answer for each.
pub fn format_rust_with(
    plans: &mut [&mut ScaffoldPlan],
    others: &[&str],
) -> Result<Vec<std::result::Result<Formatted, String>>> {
    let pending: Vec<(usize, usize)> = plans
        .iter()
        .enumerate()
        .flat_map(|(p, plan)| plan.unformatted.iter().map(move |&a| (p, a)))
        .collect();
    let sources: Vec<&str> = pending
        .iter()
        .map(|&(p, a)| match &plans[p].actions[a] {
            Action::Write { content, .. } => content.as_str(),
            Action::Insert { .. } => unreachable!("only writes are formatted"),
        })
        .chain(others.iter().copied())
        .collect();
    let mut formatted = rustfmt::format_all(&sources);
    let others_formatted = formatted.split_off(pending.len());
    for (&(p, a), result) in pending.iter().zip(formatted) {
        let plan = &mut *plans[p];
        let Action::Write { path, content, .. } = &mut plan.actions[a] else {
            unreachable!("only writes are formatted")
        };
        match result {
            Ok(Formatted::Done(text)) => *content = text,
            Ok(Formatted::Unavailable(_)) => {
                if plan.warnings.is_empty() {
                    plan.warnings.push(
                        Diagnostic::warning(
                            "rustfmt was not found, so the generated Rust files are not formatted",
                        )
                        .help(
                            "install it with `rustup component add rustfmt`, then run `cargo fmt`",
                        ),
                    );
                }
            }
            Err(e) => return Err(does_not_parse(path, &e)),
        }
    }
    for plan in plans.iter_mut() {
        plan.unformatted.clear();
    }
    Ok(others_formatted)
}

/// Formats, in one rustfmt run, the Rust files that plans applied to `ws` left unformatted
/// under [`Workspace::defer_formatting`], as they stand now (with what later plans inserted).
/// Without rustfmt they stay as they are.
pub fn format_deferred(ws: &mut Workspace) -> Result<()> {
    let mut files = Vec::new();
    for path in ws.take_unformatted() {
        if let Some(text) = ws.read(&path)? {
            files.push((path, text));
        }
    }
    let sources: Vec<&str> = files.iter().map(|(_, text)| text.as_str()).collect();
    let formatted = rustfmt::format_all(&sources);
    for ((path, text), result) in files.iter().zip(formatted) {
        match result {
            Ok(Formatted::Done(done)) if &done != text => ws.stage(path.clone(), done),
            Ok(_) => {}
            Err(e) => return Err(does_not_parse(path, &e)),
        }
    }
    Ok(())
}

/// rustfmt refused Rust a template rendered: opgen's bug, not the user's.
fn does_not_parse(path: &Path, error: &str) -> Error {
    Error::msg(format!(
        "internal error: the generated {} does not parse: {error}",
        path.display()
    ))
}

/// Removes the first run of lines equal (trimmed) to `fragment`'s; `None` when absent.
pub fn remove_fragment(text: &str, fragment: &str) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let wanted: Vec<&str> = fragment.lines().map(str::trim).collect();
    if wanted.is_empty() {
        return Some(text.to_owned());
    }
    let at = lines
        .windows(wanted.len())
        .position(|w| w.iter().map(|l| l.trim()).eq(wanted.iter().copied()))?;
    let mut out = String::with_capacity(text.len());
    for (i, line) in lines.iter().enumerate() {
        if i < at || i >= at + wanted.len() {
            out.push_str(line);
        }
    }
    Some(out)
}

fn missing_marker(
    path: &std::path::Path,
    marker: &str,
    fragment: &str,
    file_exists: bool,
) -> Diagnostic {
    let what = if file_exists {
        format!("{} has no `// {marker}` marker", path.display())
    } else {
        format!(
            "{} is missing, so `// {marker}` cannot be found",
            path.display()
        )
    };
    Diagnostic::error(format!("{what}; nothing was written")).help(format!(
        "add these lines by hand where they belong, or restore the marker comment and run the command again:\n{}",
        indent_block(fragment, "        ")
    ))
}

fn indent_block(text: &str, indent: &str) -> String {
    text.lines()
        .map(|l| format!("{indent}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Inserts `fragment` above the first line containing `marker`, indented like that line.
/// Returns the text unchanged when the fragment is already there (trimmed lines compared,
/// as kubebuilder does), and `None` when the marker is missing.
pub fn insert_above_marker(text: &str, marker: &str, fragment: &str) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let at = lines.iter().position(|l| {
        let t = l.trim();
        // `// +marker` in Rust, `# +marker` in YAML; the marker must end the comment.
        t.ends_with(marker) && (t.starts_with("//") || t.starts_with('#'))
    })?;
    let wanted: Vec<&str> = fragment.lines().map(str::trim).collect();
    let present: Vec<&str> = lines.iter().map(|l| l.trim()).collect();
    if present
        .windows(wanted.len())
        .any(|w| w == wanted.as_slice())
    {
        return Some(text.to_owned());
    }
    let indent: String = lines[at]
        .chars()
        .take_while(|c| c.is_whitespace())
        .collect();
    // rustfmt sorts a run of `mod` declarations: keep the run above the marker sorted.
    let fragment_trimmed = fragment.trim();
    let mod_prefix = ["pub mod ", "mod "]
        .into_iter()
        .find(|p| fragment_trimmed.starts_with(p));
    let at = match (fragment_trimmed, mod_prefix) {
        (f, Some(prefix)) if !f.contains('\n') => {
            let run_start = lines[..at]
                .iter()
                .rposition(|l| !l.trim().starts_with(prefix))
                .map_or(0, |i| i + 1);
            run_start
                + lines[run_start..at]
                    .iter()
                    .take_while(|l| l.trim() < f)
                    .count()
        }
        _ => at,
    };
    let mut out = String::with_capacity(text.len() + fragment.len() + 16);
    for line in &lines[..at] {
        out.push_str(line);
    }
    for line in fragment.lines() {
        if line.is_empty() {
            out.push('\n');
        } else {
            out.push_str(&indent);
            out.push_str(line);
            out.push('\n');
        }
    }
    for line in &lines[at..] {
        out.push_str(line);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Issue 24: a change of line endings only was reported at the line after the last.
    #[test]
    fn first_difference_names_a_real_line_and_line_endings() {
        let then = "a\nb\nc\n";
        assert_eq!(
            first_difference("a\r\nb\r\nc\r\n", then),
            (
                1,
                "only its line endings: CRLF where opgen wrote LF, first at line 1".to_owned()
            )
        );
        assert_eq!(
            first_difference("a\r\nB\r\nc\r\n", then),
            (2, "first change at line 2".to_owned())
        );
        assert_eq!(first_difference("a\nb\nc", then).0, 3);
        assert_eq!(
            first_difference("a\nb\nc\nd\n", then),
            (4, "first change at line 4".to_owned())
        );
        assert_eq!(
            first_difference("a\nb\n", then),
            (2, "the lines after line 2 are gone".to_owned())
        );
        assert_eq!(first_difference("", then), (1, "it is empty".to_owned()));
    }

    #[test]
    fn remove_fragment_removes_exactly_the_inserted_lines() {
        let text = "pub mod a;\npub mod b;\n    b::X,\n    // +opgen:scaffold:m\n";
        assert_eq!(
            remove_fragment(text, "b::X,").as_deref(),
            Some("pub mod a;\npub mod b;\n    // +opgen:scaffold:m\n")
        );
        // Two-line fragments go together; a partial or edited match is not removed.
        assert_eq!(
            remove_fragment(
                "x\npub mod a;\npub use a::*;\n",
                "pub mod a;\npub use a::*;"
            )
            .as_deref(),
            Some("x\n")
        );
        assert_eq!(remove_fragment("pub mod a; // mine\n", "pub mod a;"), None);
    }

    #[test]
    fn inserts_with_marker_indentation_and_is_idempotent() {
        let text = "pub const ALL: &[X] = &[\n    a::X,\n    // +opgen:scaffold:controllers\n];\n";
        let once = insert_above_marker(text, "+opgen:scaffold:controllers", "b::X,").unwrap();
        assert_eq!(
            once,
            "pub const ALL: &[X] = &[\n    a::X,\n    b::X,\n    // +opgen:scaffold:controllers\n];\n"
        );
        let twice = insert_above_marker(&once, "+opgen:scaffold:controllers", "b::X,").unwrap();
        assert_eq!(twice, once);
    }

    #[test]
    fn mod_declarations_stay_sorted_as_rustfmt_wants() {
        let text = "pub mod alpha;\npub mod memcached;\n// +opgen:scaffold:mods\n";
        assert_eq!(
            insert_above_marker(text, "+opgen:scaffold:mods", "pub mod cache_cluster;").unwrap(),
            "pub mod alpha;\npub mod cache_cluster;\npub mod memcached;\n// +opgen:scaffold:mods\n"
        );
        assert_eq!(
            insert_above_marker(text, "+opgen:scaffold:mods", "pub mod zeta;").unwrap(),
            "pub mod alpha;\npub mod memcached;\npub mod zeta;\n// +opgen:scaffold:mods\n"
        );
        // The private modules of tests/envtest/main.rs too.
        let text = "//! Doc.\n\nmod memcached_controller;\n// +opgen:scaffold:mods\n";
        assert_eq!(
            insert_above_marker(text, "+opgen:scaffold:mods", "mod cluster_webhooks;").unwrap(),
            "//! Doc.\n\nmod cluster_webhooks;\nmod memcached_controller;\n// +opgen:scaffold:mods\n"
        );
    }

    #[test]
    fn yaml_markers_work_and_missing_marker_is_none() {
        let text = "resources:\n- a.yaml\n# +opgen:scaffold:samples\n";
        assert_eq!(
            insert_above_marker(text, "+opgen:scaffold:samples", "- b.yaml").unwrap(),
            "resources:\n- a.yaml\n- b.yaml\n# +opgen:scaffold:samples\n"
        );
        assert!(insert_above_marker("x\n", "+opgen:scaffold:samples", "- b.yaml").is_none());
    }

    #[test]
    fn conflicts_are_all_reported_and_nothing_is_staged() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rs"), "old").unwrap();
        std::fs::write(dir.path().join("b.rs"), "old").unwrap();
        let mut ws = Workspace::new(dir.path());
        let mut plan = ScaffoldPlan::default();
        plan.write("new.rs", "n".into(), Policy::UserOwned);
        plan.write("a.rs", "a".into(), Policy::UserOwned);
        plan.write("b.rs", "b".into(), Policy::UserOwned);
        plan.insert("lib.rs", "mods", "pub mod x;");
        let err = plan.apply(&mut ws, false).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("a.rs already exists"), "{text}");
        assert!(text.contains("b.rs already exists"), "{text}");
        assert!(text.contains("lib.rs is missing"), "{text}");
        assert!(text.contains("pub mod x;"), "{text}");
        assert!(ws.changes().unwrap().is_empty());
    }

    #[test]
    fn force_replaces_user_owned_files_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rs"), "old").unwrap();
        std::fs::write(dir.path().join("keep.rs"), "mine").unwrap();
        let mut ws = Workspace::new(dir.path());
        let mut plan = ScaffoldPlan::default();
        plan.write("a.rs", "new".into(), Policy::UserOwned);
        plan.write("keep.rs", "theirs".into(), Policy::IfMissing);
        plan.apply(&mut ws, true).unwrap();
        let changes = ws.changes().unwrap();
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].note.as_deref(), Some("replaced (--force)"));
        assert_eq!(ws.read(Path::new("keep.rs")).unwrap().unwrap(), "mine");
    }

    #[test]
    fn generated_files_are_replaced_until_edited_and_adopted_ones_are_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let old = stamp("a: 1\n", CommentStyle::Hash, "Generated", REFUSES_EDITED);
        assert_eq!(provenance(&old), Provenance::Unedited);
        assert!(old.starts_with("# Generated (opgen-digest: "), "{old}");
        let tpl = stamp("x\n", CommentStyle::GoTemplate, "G", "T");
        assert!(tpl.starts_with("{{- /* G (opgen-digest: ") && tpl.ends_with(". T */}}\nx\n"));
        std::fs::write(dir.path().join("same.yaml"), &old).unwrap();
        std::fs::write(dir.path().join("edited.yaml"), old.replace("1", "2")).unwrap();
        std::fs::write(dir.path().join("mine.yaml"), "a: 3\n").unwrap();
        assert_eq!(provenance(&old.replace("1", "2")), Provenance::Edited);
        let plan = |ws: &mut Workspace, force| {
            let mut plan = ScaffoldPlan::default();
            for file in ["same.yaml", "edited.yaml", "mine.yaml", "new.yaml"] {
                let body = stamp("a: 9\n", CommentStyle::Hash, "Generated", REFUSES_EDITED);
                plan.write(file, body, Policy::Generated);
            }
            plan.apply(ws, force)
        };
        let mut ws = Workspace::new(dir.path());
        let err = plan(&mut ws, false).unwrap_err().to_string();
        assert!(
            err.contains("edited.yaml was edited since opgen generated it"),
            "{err}"
        );
        assert!(
            !err.contains("same.yaml") && !err.contains("mine.yaml"),
            "{err}"
        );
        assert!(ws.changes().unwrap().is_empty(), "nothing staged");

        std::fs::write(dir.path().join("edited.yaml"), &old).unwrap();
        let mut ws = Workspace::new(dir.path());
        let warnings = plan(&mut ws, false).unwrap();
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0]
                .message
                .starts_with("mine.yaml has no opgen-digest line")
        );
        let changed: Vec<_> = ws.changes().unwrap().into_iter().map(|c| c.path).collect();
        assert_eq!(
            changed,
            ["edited.yaml", "new.yaml", "same.yaml"].map(PathBuf::from)
        );

        let mut ws = Workspace::new(dir.path());
        plan(&mut ws, true).unwrap();
        assert!(
            ws.read(Path::new("mine.yaml"))
                .unwrap()
                .unwrap()
                .ends_with("a: 9\n")
        );
    }
}
