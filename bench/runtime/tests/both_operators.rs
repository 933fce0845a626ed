//! The runtime benchmark at a small size, so that it cannot rot: both operators run against
//! envtest and every Memcached gets its Deployment and becomes `Available`. No timing is
//! asserted; BENCHMARKS.md's "Runtime" table is bench/runtime.sh at 1,000 objects.

use std::{
    path::{Path, PathBuf},
    process::Command,
    time::Duration,
};

use runtime_bench::Operator;

const COUNT: usize = 20;

#[tokio::test(flavor = "multi_thread")]
async fn both_operators_make_every_memcached_available() {
    let Some(go) = go_memcached_or_skip() else {
        return;
    };
    if let Err(opgen_envtest::Error::AssetsNotFound(why)) = opgen_envtest::Assets::locate() {
        assert!(!on_ci(), "the envtest binaries are missing under CI: {why}");
        eprintln!("runtime-bench: skipped, {why}");
        return;
    }
    let operators = [
        Operator::opgen_runtime(memcached_operator()),
        Operator::controller_runtime(go),
    ];
    for operator in operators {
        let report = runtime_bench::run(&operator, COUNT)
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", operator.name));
        eprintln!("{report:?}");
        assert_eq!(report.count, COUNT);
        assert!(report.latency_p50 <= report.latency_p99, "{report:?}");
        assert!(report.latency_p99 <= report.all_available, "{report:?}");
        // /proc was read: a Go or Rust manager holds megabytes and spends CPU time.
        assert!(report.usage.peak_rss_kib > 1024, "{report:?}");
        assert!(report.usage.cpu > Duration::ZERO, "{report:?}");
    }
}

/// GO_MEMCACHED (tools/test.sh builds it with tools/go-memcached/setup.sh), or `None` with a
/// notice; under CI its absence fails.
fn go_memcached_or_skip() -> Option<PathBuf> {
    match std::env::var_os("GO_MEMCACHED").filter(|v| !v.is_empty()) {
        Some(path) => Some(path.into()),
        None if on_ci() => panic!("GO_MEMCACHED is not set under CI (tools/go-memcached/setup.sh)"),
        None => {
            eprintln!(
                "runtime-bench: skipped, GO_MEMCACHED is not set (bash tools/go-memcached/setup.sh builds it)"
            );
            None
        }
    }
}

/// examples/memcached-operator's binary beside this test's: `cargo test --workspace` builds it
/// (the example has integration tests), else it is built here.
fn memcached_operator() -> PathBuf {
    let test = std::env::current_exe().expect("the test's path");
    let profile_dir = test
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps/<test>");
    let binary = profile_dir.join("memcached-operator");
    if !binary.exists() {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .args([
                "build",
                "-p",
                "memcached-operator",
                "--bin",
                "memcached-operator",
            ])
            .status()
            .expect("cargo runs");
        assert!(status.success(), "cargo build -p memcached-operator failed");
    }
    binary
}

fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}
