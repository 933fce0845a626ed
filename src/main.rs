fn main() {
    // syn and the schema generator recurse once per nesting level. Inputs are limited to
    // depths far below what this stack holds (load::MAX_NESTING, model::MAX_TYPE_DEPTH), so
    // deep input is an error with a location, never a stack overflow.
    let code = std::thread::Builder::new()
        .name("opgen".into())
        .stack_size(256 * 1024 * 1024)
        .spawn(opgen::cli::main)
        .expect("start opgen's main thread")
        .join()
        .unwrap_or(101);
    std::process::exit(code);
}
