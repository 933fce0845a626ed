//! Child processes that never outlive the test process.
//!
//! Each child leads its own process group, so stopping it kills everything it started. Three
//! things stop it: dropping its [`Process`], the test process exiting normally (an `atexit`
//! hook, which also covers a control plane kept in a `static`), and the test process dying
//! any other way: killed, aborted, Ctrl-C (on Linux, the parent-death signal). The parent-death
//! signal fires when the *thread* that spawned the child ends, so every child is spawned from
//! one thread that lives as long as the process.

use std::{
    fs::File,
    os::unix::process::CommandExt,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{
        Mutex, OnceLock,
        mpsc::{self, Sender},
    },
};

use crate::Error;

pub(crate) struct Process {
    name: &'static str,
    child: Child,
    log_path: PathBuf,
}

impl Process {
    /// Starts `command` with stdout and stderr going to `log_path`.
    pub fn spawn(name: &'static str, mut command: Command, log_path: &Path) -> Result<Self, Error> {
        let log = File::create(log_path).map_err(|e| Error::io(log_path, e))?;
        let log_err = log.try_clone().map_err(|e| Error::io(log_path, e))?;
        command
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log_err)
            .process_group(0);
        #[cfg(target_os = "linux")]
        {
            let parent = std::process::id() as libc::pid_t;
            // SAFETY: only async-signal-safe calls (prctl, getppid, _exit) between fork and exec.
            unsafe {
                command.pre_exec(move || {
                    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    // The parent may have died before prctl took effect.
                    if libc::getppid() != parent {
                        libc::_exit(1);
                    }
                    Ok(())
                });
            }
        }
        let program = PathBuf::from(command.get_program());
        let child = spawner().spawn(command).map_err(|source| Error::Spawn {
            binary: program,
            source,
        })?;
        register(child.id());
        Ok(Process {
            name,
            child,
            log_path: log_path.to_owned(),
        })
    }

    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// An error if the process has exited.
    pub fn check_running(&mut self) -> Result<(), Error> {
        match self.child.try_wait() {
            Ok(None) => Ok(()),
            Ok(Some(status)) => Err(self.not_ready(format!("{} exited ({status})", self.name))),
            Err(e) => Err(Error::io(&self.log_path, e)),
        }
    }

    pub fn not_ready(&self, what: String) -> Error {
        Error::NotReady {
            what,
            log_path: self.log_path.clone(),
            log: tail(&self.log_path, 25),
        }
    }

    /// Kills the process group and reaps the process.
    pub fn stop(&mut self) {
        kill_group(self.child.id());
        let _ = self.child.wait();
        unregister(self.child.id());
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The last `lines` lines of a log file, after its klog error and fatal lines (`E1125 ...`,
/// `F1125 ...`), which often say why a server exited long before its last line.
pub(crate) fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    let start = all.len().saturating_sub(lines);
    let is_error = |line: &&&str| {
        let mut chars = line.chars();
        matches!(chars.next(), Some('E' | 'F')) && chars.next().is_some_and(|c| c.is_ascii_digit())
    };
    let mut out: Vec<&str> = all[..start]
        .iter()
        .filter(is_error)
        .take(10)
        .copied()
        .collect();
    if !out.is_empty() {
        out.push("...");
    }
    out.extend(&all[start..]);
    out.join("\n")
}

fn kill_group(pid: u32) {
    // SAFETY: plain syscall; the process group is the child's own (process_group(0)).
    unsafe {
        libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
    }
}

/// The thread that spawns every child (see the module docs).
struct Spawner(Mutex<Sender<(Command, Sender<std::io::Result<Child>>)>>);

impl Spawner {
    fn spawn(&self, command: Command) -> std::io::Result<Child> {
        let (reply, answer) = mpsc::channel();
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send((command, reply))
            .map_err(|_| std::io::Error::other("the spawner thread is gone"))?;
        answer
            .recv()
            .map_err(|_| std::io::Error::other("the spawner thread is gone"))?
    }
}

fn spawner() -> &'static Spawner {
    static SPAWNER: OnceLock<Spawner> = OnceLock::new();
    SPAWNER.get_or_init(|| {
        let (requests, incoming) = mpsc::channel::<(Command, Sender<std::io::Result<Child>>)>();
        std::thread::Builder::new()
            .name("opgen-envtest-spawner".into())
            .spawn(move || {
                for (mut command, reply) in incoming {
                    let _ = reply.send(command.spawn());
                }
            })
            .expect("start the opgen-envtest spawner thread");
        // SAFETY: registers a plain extern "C" function once.
        unsafe {
            libc::atexit(kill_registered);
        }
        Spawner(Mutex::new(requests))
    })
}

/// Process groups still running, for the `atexit` hook.
static RUNNING: Mutex<Vec<u32>> = Mutex::new(Vec::new());
/// Directories to remove at exit (a shared control plane's, whose owner is never dropped).
static EXIT_CLEANUP: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn register(pid: u32) {
    RUNNING.lock().unwrap_or_else(|e| e.into_inner()).push(pid);
}

fn unregister(pid: u32) {
    RUNNING
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|p| *p != pid);
}

/// Removes what test processes that are gone left in `temp` (killed before their `atexit`
/// hook ran: a timeout's SIGKILL, an abort): every `opgen-envtest-...-<pid>[-<n>]` entry whose
/// process no longer runs. Done once per process, before its first control plane starts.
pub(crate) fn remove_left_behind(temp: &Path) {
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix("opgen-envtest-")) else {
            continue;
        };
        let Some(pid) = rest
            .split('-')
            .find_map(|part| part.parse::<libc::pid_t>().ok())
        else {
            continue;
        };
        if pid > 0 && !running(pid) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Whether a process with this id exists (one of another user's counts).
fn running(pid: libc::pid_t) -> bool {
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    let result = unsafe { libc::kill(pid, 0) };
    result == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

pub(crate) fn remove_at_exit(dir: PathBuf) {
    EXIT_CLEANUP
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(dir);
}

extern "C" fn kill_registered() {
    let pids = std::mem::take(&mut *RUNNING.lock().unwrap_or_else(|e| e.into_inner()));
    for pid in pids {
        kill_group(pid);
        // SAFETY: reaps our own child; blocks only until the SIGKILL lands.
        unsafe {
            libc::waitpid(pid as libc::pid_t, std::ptr::null_mut(), 0);
        }
    }
    for dir in std::mem::take(&mut *EXIT_CLEANUP.lock().unwrap_or_else(|e| e.into_inner())) {
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[cfg(test)]
mod tests {
    use super::remove_left_behind;

    #[test]
    fn what_a_killed_test_left_is_removed_and_a_running_ones_is_not() {
        let temp =
            std::env::temp_dir().join(format!("opgen-envtest-sweep-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&temp);
        std::fs::create_dir_all(&temp).unwrap();
        // A process that has exited (and been reaped): its id runs nothing now.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        child.wait().unwrap();
        let gone = child.id();
        let ours = std::process::id();
        let names = [
            format!("opgen-envtest-{gone}-0"),
            format!("opgen-envtest-webhooks-{gone}-3"),
            format!("opgen-envtest-{ours}-0"),
            "opgen-envtest-no-pid".to_owned(),
            format!("other-{gone}"),
        ];
        for name in &names {
            std::fs::create_dir_all(temp.join(name).join("etcd")).unwrap();
        }
        remove_left_behind(&temp);
        let mut left: Vec<String> = std::fs::read_dir(&temp)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        let _ = std::fs::remove_dir_all(&temp);
        let mut expected = vec![names[2].clone(), names[3].clone(), names[4].clone()];
        expected.sort();
        assert_eq!(left, expected);
    }
}
