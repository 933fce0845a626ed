fn main() {
    pad_the_heap();
    // syn and the schema generator recurse once per nesting level. Inputs are limited to
    // depths far below what this stack holds (load::MAX_NESTING, model::MAX_TYPE_DEPTH), so
    // deep input is an error with a location, never a stack overflow.
    let code = std::thread::Builder::new()
        .name("opgen".into())
        .stack_size(opgen::parallel::STACK_SIZE)
        .spawn(opgen::cli::main)
        .expect("start opgen's main thread")
        .join()
        .unwrap_or(101);
    std::process::exit(code);
}

/// glibc grows the heap of a thread's malloc arena one `mprotect` at a time (about 200 calls in
/// a one-kind `opgen manifests`, 0.3 ms of its 5); a 32 MiB top pad makes that a handful. Only
/// address space is reserved: untouched pages cost no memory.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn pad_the_heap() {
    unsafe extern "C" {
        fn mallopt(param: i32, value: i32) -> i32;
    }
    const M_TOP_PAD: i32 = -2;
    // SAFETY: mallopt sets one glibc malloc parameter; no other thread exists yet.
    unsafe {
        mallopt(M_TOP_PAD, 32 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn pad_the_heap() {}
