//! Independent work spread over the machine's cores, with results in input order.
//!
//! std's scoped threads, not rayon: opgen has two such places (the CRDs of different kinds, and
//! their YAML), each a plain map over a slice, and a thread per core for a few milliseconds is
//! all they need. syn's trees cannot take part: with span locations, proc-macro2 keeps the
//! source map in a thread-local, so a tree stays on the thread that parsed it (a whole
//! `manifests` run splits its files between two threads that each parse their own:
//! `ops::manifests_split`).

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The stack of every opgen thread: syn and the schema generator recurse once per nesting
/// level. Inputs are limited far below what it holds (`load::MAX_NESTING`,
/// `model::MAX_TYPE_DEPTH`); untouched pages cost no memory.
pub const STACK_SIZE: usize = 256 * 1024 * 1024;

/// How many threads opgen uses at most: `OPGEN_THREADS` when set to a number, else one per core
/// the process may run on.
pub fn threads() -> usize {
    if let Some(n) = std::env::var("OPGEN_THREADS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
    {
        return n.max(1);
    }
    std::thread::available_parallelism().map_or(1, NonZeroUsize::get)
}

/// `f` applied to each item, on up to [`threads`] threads (the caller's among them), taking
/// the next item as each finishes one. The results are in the order of `items`, whichever
/// thread made them, so the output does not depend on scheduling. A panic in `f` is resumed
/// on the caller's thread.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    map_if(true, items, f)
}

/// [`map`] when `spread`, else `f` on each item on the calling thread: for work too small to
/// pay for a thread (starting one, and the new thread's first pages, cost more CPU than a few
/// milliseconds of work saves).
pub fn map_if<T: Sync, R: Send>(spread: bool, items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    // Asking for the core count reads the cgroup's files: not for a single item.
    let threads = if !spread || items.len() < 2 {
        1
    } else {
        threads().min(items.len())
    };
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|s| {
        let indexed = || {
            let mut out = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break out };
                out.push((i, f(item)));
            }
        };
        let helpers: Vec<_> = (1..threads)
            .map(|_| {
                std::thread::Builder::new()
                    .name("opgen-worker".into())
                    .stack_size(STACK_SIZE)
                    .spawn_scoped(s, indexed)
                    .expect("start a worker thread")
            })
            .collect();
        let mut done = indexed();
        for h in helpers {
            done.extend(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        }
        done
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_order_of_the_items() {
        let items: Vec<u64> = (0..1000).collect();
        // Uneven work, so that threads finish items out of order.
        let out = map(&items, |&i| {
            let spin = if i % 7 == 0 { 20_000 } else { 10 };
            std::hint::black_box((0..spin).fold(i, |acc, x| acc.wrapping_mul(31) ^ x));
            i * 2
        });
        assert_eq!(out, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        assert!(map(&[] as &[u8], |_| 0).is_empty());
    }
}
