fn main() {
    std::process::exit(opgen::cli::main());
}
