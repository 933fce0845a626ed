//! An operator under test: its process, started against the control plane, and what it used.

use std::{
    fs::File,
    future::Future,
    path::{Path, PathBuf},
    process::Stdio,
    time::{Duration, Instant},
};

use tokio::process::{Child, Command};

use crate::Error;

/// The operand image both operators put in their Deployments (nothing pulls it).
const IMAGE: &str = "memcached:1.4.36-alpine";

/// How an operator is started.
#[derive(Clone, Debug)]
pub struct Operator {
    /// Its name in reports.
    pub name: String,
    pub binary: PathBuf,
    args: Vec<String>,
    env: Vec<(String, String)>,
}

impl Operator {
    /// examples/memcached-operator: no leader election (the default), no metrics or probe
    /// server, no webhook server (envtest has no route to it).
    pub fn opgen_runtime(binary: impl Into<PathBuf>) -> Self {
        let mut operator = Self::new("opgen-runtime", binary);
        operator
            .env
            .push(("ENABLE_WEBHOOKS".into(), "false".into()));
        operator
    }

    /// bench/runtime/go-memcached, with the same settings.
    pub fn controller_runtime(binary: impl Into<PathBuf>) -> Self {
        Self::new("controller-runtime", binary)
    }

    fn new(name: &str, binary: impl Into<PathBuf>) -> Self {
        Operator {
            name: name.into(),
            binary: binary.into(),
            args: vec![
                "--metrics-bind-address=0".into(),
                "--health-probe-bind-address=0".into(),
            ],
            env: vec![("MEMCACHED_IMAGE".into(), IMAGE.into())],
        }
    }

    /// Starts the operator with `kubeconfig`; its output goes to a log file in the temporary
    /// directory.
    pub fn spawn(&self, kubeconfig: &Path) -> Result<Running, Error> {
        let log = std::env::temp_dir().join(format!(
            "runtime-bench-{}-{}.log",
            self.name,
            std::process::id()
        ));
        let out = File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        let child = Command::new(&self.binary)
            .args(&self.args)
            .envs(self.env.iter().cloned())
            .env("KUBECONFIG", kubeconfig)
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("starting {}: {e}", self.binary.display()))?;
        Ok(Running {
            started: Instant::now(),
            pid: child.id().ok_or("the operator exited at once")?,
            child,
            log,
        })
    }
}

/// An operator process.
pub struct Running {
    pub started: Instant,
    pid: u32,
    child: Child,
    log: PathBuf,
}

/// What the process used.
#[derive(Clone, Copy, Debug, Default)]
pub struct Usage {
    /// Peak resident set size (VmHWM), KiB.
    pub peak_rss_kib: u64,
    /// Resident now: anonymous memory (heaps, stacks) and file pages (the binary's, mostly), KiB.
    pub rss_anon_kib: u64,
    pub rss_file_kib: u64,
    /// User and system CPU time.
    pub cpu: Duration,
}

impl Running {
    /// Awaits `what` until `deadline`, failing with the end of the log if the process exits or
    /// the deadline passes first.
    pub async fn until<T>(
        &mut self,
        deadline: Instant,
        what: &str,
        future: impl Future<Output = T>,
    ) -> Result<T, Error> {
        let failure = tokio::select! {
            value = future => return Ok(value),
            status = self.child.wait() => format!("exited ({status:?})"),
            () = tokio::time::sleep_until(deadline.into()) => "timed out".to_owned(),
        };
        Err(format!(
            "the operator {failure} waiting for {what}; the end of {}:\n{}",
            self.log.display(),
            tail(&self.log)
        )
        .into())
    }

    /// Peak RSS, what is resident now and CPU time so far, from /proc.
    pub fn usage(&self) -> Result<Usage, Error> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid))?;
        Ok(Usage {
            peak_rss_kib: status_kib(&status, "VmHWM")?,
            rss_anon_kib: status_kib(&status, "RssAnon")?,
            rss_file_kib: status_kib(&status, "RssFile")?,
            cpu: process_cpu(self.pid)?,
        })
    }

    /// The resident set size now (VmRSS), KiB.
    pub fn rss_kib(&self) -> Result<u64, Error> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid))?;
        status_kib(&status, "VmRSS")
    }

    pub async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}

/// A `Name:   123 kB` line of /proc/<pid>/status, in KiB.
fn status_kib(status: &str, name: &str) -> Result<u64, Error> {
    status
        .lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(':'))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("no {name} in /proc/<pid>/status").into())
}

/// The CPU time process `pid` has used so far.
pub fn process_cpu(pid: u32) -> Result<Duration, Error> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    Ok(cpu_time(&stat).ok_or("unexpected /proc/<pid>/stat")?)
}

/// utime + stime of a /proc/<pid>/stat line: fields 14 and 15, counted after the command name
/// (in parentheses, and free to contain spaces).
fn cpu_time(stat: &str) -> Option<Duration> {
    let (_, after_name) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // SAFETY: sysconf only reads a configuration value.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let per_second = u64::try_from(per_second).ok().filter(|&t| t > 0)?;
    Some(Duration::from_secs_f64(ticks as f64 / per_second as f64))
}

fn tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(30)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_reads_utime_and_stime_after_the_name() {
        // A name with a space and a parenthesis; utime 250, stime 50 ticks.
        let stat = "42 (go (mem)cached) S 1 42 42 0 -1 4194304 900 0 0 0 250 50 0 0 20 0 7 0 100";
        let ticks = 300.0 / unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
        assert_eq!(cpu_time(stat), Some(Duration::from_secs_f64(ticks)));
        assert_eq!(cpu_time("42 (x) S 1"), None);
    }
}
