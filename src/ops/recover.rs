//! `opgen recover`: what to do with a commit an earlier opgen run was killed in the middle of,
//! when files it was writing changed since and finishing it on its own would lose that work.

use crate::diag::{Error, Result};
use crate::writer::Workspace;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Write every file as the interrupted run meant to, over later changes.
    Finish,
    /// Drop the interrupted run's journal and contents; the files stay as they are.
    Abandon,
}

/// Applies `choice` and says what it did.
pub fn recover(ws: &Workspace, choice: Choice) -> Result<String> {
    if !ws.has_interrupted_commit() {
        return Err(Error::msg(
            "no interrupted opgen run to recover: nothing was changed",
        ));
    }
    Ok(match choice {
        Choice::Finish => {
            let files = ws.finish_interrupted_commit_anyway()?.unwrap_or(0);
            format!("finished the interrupted opgen run: {files} files written or removed")
        }
        Choice::Abandon => {
            ws.abandon_interrupted_commit()?;
            "abandoned the interrupted opgen run: files left as they are (see `git status`)"
                .to_owned()
        }
    })
}
