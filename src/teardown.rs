//! What a command leaves behind when the process ends right after it.
//!
//! A run's syntax trees, model and CRDs are millions of small allocations; freeing them one by
//! one takes milliseconds that the process's exit does at once. `main` says when the process
//! ends after its command; until then (tests, and opgen used as a library) [`discard`] drops.

use std::sync::atomic::{AtomicBool, Ordering};

static PROCESS_ENDS_AFTER_COMMAND: AtomicBool = AtomicBool::new(false);

/// Called by `main` before it runs the one command the process is for.
pub fn process_ends_after_command() {
    PROCESS_ENDS_AFTER_COMMAND.store(true, Ordering::Relaxed);
}

/// Drops `value`, or leaves it to the end of the process when that comes right after the
/// command. Only for values that own memory and nothing else (no files, locks or threads).
pub fn discard<T>(value: T) {
    if PROCESS_ENDS_AFTER_COMMAND.load(Ordering::Relaxed) {
        std::mem::forget(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    struct Counted<'a>(&'a AtomicUsize);

    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn a_process_that_goes_on_drops_what_is_discarded() {
        // The test process never says it ends after a command.
        let drops = AtomicUsize::new(0);
        discard(vec![Counted(&drops), Counted(&drops)]);
        assert_eq!(drops.load(Ordering::Relaxed), 2);
    }
}
