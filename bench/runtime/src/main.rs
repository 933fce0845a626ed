//! `runtime-bench --count N --opgen-runtime BIN --controller-runtime BIN`: runs both operators
//! (bench/runtime.sh builds them) and prints BENCHMARKS.md's "Runtime" table.

use std::{process::ExitCode, time::Duration};

use runtime_bench::{Operator, Report};

const USAGE: &str =
    "usage: runtime-bench [--count N] --opgen-runtime BINARY --controller-runtime BINARY";

#[tokio::main]
async fn main() -> ExitCode {
    let (count, operators) = match parse_args(std::env::args().skip(1)) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("runtime-bench: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    println!("load average before: {}", load_average());
    let mut reports = Vec::new();
    for operator in &operators {
        eprintln!("== {} with {count} Memcached objects", operator.name);
        match runtime_bench::run(operator, count).await {
            Ok(report) => reports.push(report),
            Err(e) => {
                eprintln!("runtime-bench: {}: {e}", operator.name);
                return ExitCode::FAILURE;
            }
        }
    }
    println!("load average after: {}\n", load_average());
    print!("{}", table(&reports[0], &reports[1]));
    ExitCode::SUCCESS
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<(usize, Vec<Operator>), String> {
    let (mut count, mut opgen, mut go) = (1000, None, None);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--count" => count = value()?.parse().map_err(|e| format!("--count: {e}"))?,
            "--opgen-runtime" => opgen = Some(Operator::opgen_runtime(value()?)),
            "--controller-runtime" => go = Some(Operator::controller_runtime(value()?)),
            _ => return Err(format!("unknown argument {flag:?}")),
        }
    }
    let opgen = opgen.ok_or("--opgen-runtime is required")?;
    let go = go.ok_or("--controller-runtime is required")?;
    Ok((count, vec![opgen, go]))
}

/// The Markdown table of BENCHMARKS.md: both sides and opgen-runtime ÷ controller-runtime.
fn table(opgen: &Report, go: &Report) -> String {
    let secs = |d: Duration| d.as_secs_f64();
    let mib = |kib: u64| kib as f64 / 1024.0;
    let rows: [(String, f64, f64, usize); 12] = [
        (
            format!("all {} Available (s)", opgen.count),
            secs(opgen.all_available),
            secs(go.all_available),
            1,
        ),
        (
            "throughput (objects/s)".into(),
            opgen.throughput(),
            go.throughput(),
            1,
        ),
        (
            "latency p50 (s)".into(),
            secs(opgen.latency_p50),
            secs(go.latency_p50),
            2,
        ),
        (
            "latency p99 (s)".into(),
            secs(opgen.latency_p99),
            secs(go.latency_p99),
            2,
        ),
        (
            "start-up to first reconcile (s)".into(),
            secs(opgen.startup),
            secs(go.startup),
            2,
        ),
        (
            "peak RSS (MiB)".into(),
            mib(opgen.usage.peak_rss_kib),
            mib(go.usage.peak_rss_kib),
            1,
        ),
        (
            "RSS after start-up (MiB)".into(),
            mib(opgen.idle_rss_kib),
            mib(go.idle_rss_kib),
            1,
        ),
        (
            "RSS at the end: anonymous (MiB)".into(),
            mib(opgen.usage.rss_anon_kib),
            mib(go.usage.rss_anon_kib),
            1,
        ),
        (
            "RSS at the end: file pages (MiB)".into(),
            mib(opgen.usage.rss_file_kib),
            mib(go.usage.rss_file_kib),
            1,
        ),
        (
            "CPU (s)".into(),
            secs(opgen.usage.cpu),
            secs(go.usage.cpu),
            2,
        ),
        (
            "kube-apiserver + etcd CPU (s)".into(),
            secs(opgen.control_plane_cpu),
            secs(go.control_plane_cpu),
            1,
        ),
        (
            "binary size (MiB)".into(),
            opgen.binary_bytes as f64 / 1048576.0,
            go.binary_bytes as f64 / 1048576.0,
            1,
        ),
    ];
    let mut out = format!(
        "| | {} | {} | ratio |\n| --- | ---: | ---: | ---: |\n",
        opgen.operator, go.operator
    );
    for (what, ours, theirs, decimals) in rows {
        out += &format!(
            "| {what} | {ours:.decimals$} | {theirs:.decimals$} | {:.2} |\n",
            ours / theirs
        );
    }
    out
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}
