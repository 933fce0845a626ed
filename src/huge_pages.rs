//! Huge pages for a run that builds a large heap.
//!
//! opgen's allocator backs its heap with 4 KiB pages (mimalloc's `no_thp`): most runs take a
//! few milliseconds and touch a few MB, and a 2 MiB page would zero memory they never use. A
//! whole `opgen manifests` over tens of KB of sources touches tens of MB, one page fault for
//! every 4 KiB (a fifth of its CPU time on 100 kinds); for it the heap asks the kernel for
//! transparent huge pages, which fault 2 MiB at once.

/// Source text below which a whole run is not faster with huge pages: a one-kind project
/// (24 KB) took 0.2 ms longer with them, ten kinds (58 KB) 15 % less time (BENCHMARKS.md, stop
/// 63). `OPGEN_HUGE_PAGES_MIN_BYTES` overrides it (benchmarks compare both ways).
const MIN_SOURCE_BYTES: usize = 64 * 1024;

/// Asks for huge pages behind the heap when a run over `source_bytes` of text is about to
/// parse it, the process ends after this command (not in tests, nor in a program that uses
/// opgen as a library) and the kernel has them; otherwise does nothing.
pub fn for_sources(source_bytes: usize) {
    let min = std::env::var("OPGEN_HUGE_PAGES_MIN_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(MIN_SOURCE_BYTES);
    if source_bytes >= min && crate::teardown::ends_after_command() {
        advise_heap();
    }
}

/// `madvise(MADV_HUGEPAGE)` on the mapping that holds the heap (the allocator's arena: one
/// mapping, reserved whole at the first allocation). Best effort: without huge pages in the
/// kernel, or with them off, the heap stays as it is.
#[cfg(target_os = "linux")]
fn advise_heap() {
    let probe = Box::new(0_u64);
    let at = std::ptr::from_ref(&*probe) as usize;
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        return;
    };
    let Some((start, end)) = maps.lines().find_map(|line| {
        let (start, rest) = line.split_once('-')?;
        let end = rest.split(' ').next()?;
        let start = usize::from_str_radix(start, 16).ok()?;
        let end = usize::from_str_radix(end, 16).ok()?;
        (start <= at && at < end).then_some((start, end))
    }) else {
        return;
    };
    // SAFETY: advice on a whole mapping of this process: it changes how the kernel backs its
    // pages, never what they hold.
    unsafe {
        libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_heap() {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// The mapping that holds a fresh allocation is marked for huge pages (`hg` in smaps).
    #[test]
    fn the_heap_is_advised_to_use_huge_pages() {
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
            eprintln!("this kernel has no transparent huge pages: nothing to advise");
            return;
        }
        super::advise_heap();
        let probe = Box::new(0_u64);
        let at = std::ptr::from_ref(&*probe) as usize;
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut holds = false;
        let mut flags = None;
        for line in smaps.lines() {
            if let Some((start, rest)) = line.split_once('-')
                && let Ok(start) = usize::from_str_radix(start, 16)
                && let Some(Ok(end)) = rest.split(' ').next().map(|e| usize::from_str_radix(e, 16))
            {
                holds = start <= at && at < end;
            } else if holds && let Some(f) = line.strip_prefix("VmFlags:") {
                flags = Some(f.to_owned());
            }
        }
        let flags = flags.expect("the heap's mapping is in smaps");
        assert!(flags.split_whitespace().any(|f| f == "hg"), "{flags}");
    }
}
