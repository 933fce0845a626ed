/// A third of `opgen manifests`' instructions went to glibc's malloc and free (syn trees, token
/// streams, schema values: millions of small, short-lived allocations); mimalloc does the same
/// work in about half as many.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // syn and the schema generator recurse once per nesting level. Inputs are limited to
    // depths far below what this stack holds (load::MAX_NESTING, model::MAX_TYPE_DEPTH), so
    // deep input is an error with a location, never a stack overflow.
    // The thread ends the process itself: what it leaves is freed by the exit, not first by
    // the allocator's thread teardown (which returns its pages to the kernel one by one).
    opgen::teardown::process_ends_after_command();
    let opgen = std::thread::Builder::new()
        .name("opgen".into())
        .stack_size(opgen::parallel::STACK_SIZE)
        .spawn(|| exit(opgen::cli::main()))
        .expect("start opgen's main thread");
    // Only a panic returns here.
    let _ = opgen.join();
    std::process::exit(101);
}

/// Ends the process once what it printed is out. On Unix without the C library's exit
/// handlers: mimalloc's would first hand every page back to the kernel (an `madvise` per
/// range, about 0.2 ms of an edit's `opgen manifests`), which the exit does anyway.
fn exit(code: i32) -> ! {
    #[cfg(unix)]
    {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        // SAFETY: `_exit` ends the process at once; every file opgen wrote is closed, and
        // nothing is buffered but what was just flushed.
        unsafe { libc::_exit(code) }
    }
    #[cfg(not(unix))]
    std::process::exit(code)
}
