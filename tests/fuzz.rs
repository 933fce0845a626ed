//! Bounded mutation fuzzing of the whole `manifests` pipeline (load → markers → model →
//! generators) and of the PROJECT and Cargo.toml readers: seeded mutations of real inputs
//! (the conformance fixtures, the examples' APIs, a scaffolded project), each run in process
//! and a sample through the opgen binary. It passes when no input panics, aborts or hangs, and
//! every refusal by the binary leaves the tree as it was.
//!
//! `OPGEN_FUZZ_INPUTS` (default 2,000) and `OPGEN_FUZZ_SEED` (default fixed, so CI is
//! reproducible) widen the search; each input is made from the seed and its number alone, so
//! the inputs run on every core and a failing one, written to
//! `$CARGO_TARGET_TMPDIR/fuzz-failures/` with the seed and input number, is made again alone.

mod support;

/// The allocator opgen runs with (src/main.rs): the inputs run in process as they do in the
/// binary, and glibc's malloc took a fifth of this test's time.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use opgen::ops::manifests::{ManifestOptions, manifests};
use opgen::writer::Workspace;

const DEFAULT_INPUTS: usize = 2_000;
const DEFAULT_SEED: u64 = 0x09_6e_10;
/// One input in this many also runs through the binary (exit code, tree unchanged on refusal).
const BINARY_EVERY: usize = 25;
/// Far above any real input's time (a few ms): longer is a hang.
const HANG: Duration = Duration::from_secs(20);

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A project directory to mutate: its files and the ones worth mutating.
struct Seed {
    root: PathBuf,
    files: Vec<PathBuf>,
}

fn rust_files(root: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(root.join("src"))
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| e.path().strip_prefix(root).unwrap().to_path_buf())
        .collect();
    files.sort();
    files
}

fn seeds(scratch: &Path) -> Vec<Seed> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut seeds = Vec::new();
    let fixtures = repo.join("tests/fixtures/controller-gen");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("src").is_dir())
        .collect();
    for example in ["memcached-operator", "cnat-operator", "tdset-operator"] {
        dirs.push(repo.join("examples").join(example));
    }
    dirs.sort();
    for dir in dirs {
        let root = scratch.join(dir.file_name().unwrap());
        support::copy_tree(&dir, &root);
        // The examples' API types and controllers (markers live in both), not their runtime code.
        let files = rust_files(&root)
            .into_iter()
            .filter(|f| {
                !root.join("PROJECT").exists()
                    || f.starts_with("src/api")
                    || f.starts_with("src/controllers")
            })
            .chain(
                ["PROJECT", "Cargo.toml"]
                    .into_iter()
                    .map(PathBuf::from)
                    .filter(|f| root.join(f).is_file()),
            )
            .collect();
        seeds.push(Seed { root, files });
    }
    seeds
}

/// Values that broke parsers before, or sit on a boundary.
const DICTIONARY: &[&str] = &[
    "",
    " ",
    "-1",
    "0",
    "-0",
    "+5",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "1e400",
    "1e-400",
    "0x10",
    "%x",
    "nan",
    "inf",
    "1.5",
    "true",
    "{",
    "}",
    "[1, 2",
    "{a: b}",
    "\"",
    "`",
    "'",
    "\\",
    "a;;b",
    "self.x > oldSelf.x",
    "has(self.",
    "ÿ",
    "\u{0}",
    "\u{feff}",
    "::",
    "<",
    ">",
    "#[serde(flatten)]",
    "#[serde(rename = \"\")]",
    "#[kube(plural = \"\")]",
    "// +kubebuilder:validation:Schemaless",
    "// +kubebuilder:validation:Type=string",
    "Box<Self>",
    "Option<Option<String>>",
    "std::collections::BTreeMap<String, Vec<u8>>",
    "chrono::DateTime<chrono::Utc>",
    "other_crate::Thing",
    "k8s_openapi::api::core::v1::PodSpec",
    "serde_json::Value",
    "f64",
    "u128",
    "usize",
    "()",
    "[u8; 4]",
    "(String, i32)",
];

fn deep(rng: &mut fastrand::Rng) -> String {
    let n = rng.usize(50..2_000);
    match rng.u8(0..4) {
        0 => format!("{}i32{}", "Vec<".repeat(n), ">".repeat(n)),
        1 => format!("{}1{}", "(".repeat(n), ")".repeat(n)),
        2 => "{".repeat(n),
        _ => format!("{}{}", "[".repeat(n), "]".repeat(n)),
    }
}

fn pick<'a>(rng: &mut fastrand::Rng, items: &'a [&'a str]) -> &'a str {
    items[rng.usize(..items.len())]
}

/// One to three mutations of `text`: bytes, lines, marker values and names, type tokens.
fn mutate(rng: &mut fastrand::Rng, text: &[u8], others: &[Vec<u8>], markers: &[String]) -> Vec<u8> {
    let mut out = text.to_vec();
    for _ in 0..rng.usize(1..=3) {
        if out.is_empty() {
            out.extend_from_slice(pick(rng, DICTIONARY).as_bytes());
            continue;
        }
        let at = rng.usize(..out.len());
        match rng.u8(0..12) {
            // Bytes: delete a range, duplicate one, insert punctuation or a raw byte.
            0 => {
                let end = (at + rng.usize(1..64)).min(out.len());
                out.drain(at..end);
            }
            1 => {
                let end = (at + rng.usize(1..64)).min(out.len());
                let chunk = out[at..end].to_vec();
                out.splice(at..at, chunk);
            }
            2 => {
                let b = if rng.bool() {
                    *b"{}()<>[];,:#\"'/=\n`".get(rng.usize(..17)).unwrap()
                } else {
                    rng.u8(..)
                };
                out.insert(at, b);
            }
            // Lines: delete, duplicate, or splice in a line of another input.
            3..=5 => {
                let text = String::from_utf8_lossy(&out).into_owned();
                let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
                if lines.is_empty() {
                    continue;
                }
                let i = rng.usize(..lines.len());
                match rng.u8(0..3) {
                    0 => {
                        lines.remove(i);
                    }
                    1 => lines.insert(i, lines[i].clone()),
                    _ => {
                        let other = String::from_utf8_lossy(&others[rng.usize(..others.len())])
                            .into_owned();
                        let theirs: Vec<&str> = other.lines().collect();
                        if !theirs.is_empty() {
                            lines.insert(i, theirs[rng.usize(..theirs.len())].to_owned());
                        }
                    }
                }
                out = (lines.join("\n") + "\n").into_bytes();
            }
            // Markers: another value, a near-miss or another marker's name.
            6..=8 => {
                let text = String::from_utf8_lossy(&out).into_owned();
                let lines: Vec<&str> = text.lines().collect();
                let marked: Vec<usize> = (0..lines.len())
                    .filter(|&i| {
                        lines[i].trim_start().starts_with("// +") || lines[i].contains("//! +")
                    })
                    .collect();
                if marked.is_empty() {
                    continue;
                }
                let i = marked[rng.usize(..marked.len())];
                let line = lines[i];
                let new_line = match rng.u8(0..4) {
                    0 => match line.split_once('=') {
                        Some((name, _)) => format!("{name}={}", pick(rng, DICTIONARY)),
                        None => format!("{line}={}", pick(rng, DICTIONARY)),
                    },
                    1 => match line.split_once('=') {
                        Some((name, _)) => format!("{name}={}", deep(rng)),
                        None => line.to_owned(),
                    },
                    2 => {
                        let cut = rng.usize(..line.len().max(1));
                        let mut l = line.to_owned();
                        if l.is_char_boundary(cut) && cut < l.len() {
                            l.remove(cut);
                        }
                        l
                    }
                    _ => format!(
                        "{}// +{}",
                        &line[..line.len() - line.trim_start().len()],
                        markers[rng.usize(..markers.len())]
                    ),
                };
                let mut lines: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
                lines[i] = new_line;
                out = (lines.join("\n") + "\n").into_bytes();
            }
            // Tokens: a type or attribute from the dictionary, or something deep.
            _ => {
                let text = String::from_utf8_lossy(&out).into_owned();
                let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
                let starts: Vec<usize> = text
                    .char_indices()
                    .filter(|&(i, c)| word(c) && !text[..i].ends_with(word))
                    .map(|(i, _)| i)
                    .collect();
                if starts.is_empty() {
                    continue;
                }
                let i = starts[rng.usize(..starts.len())];
                let end = text[i..]
                    .find(|c: char| !word(c))
                    .map_or(text.len(), |n| i + n);
                let with = if rng.u8(0..10) == 0 {
                    deep(rng)
                } else {
                    pick(rng, DICTIONARY).to_owned()
                };
                out = format!("{}{with}{}", &text[..i], &text[end..]).into_bytes();
            }
        }
    }
    out
}

fn marker_names() -> Vec<String> {
    let catalog = include_str!("../markers/catalog.yaml");
    catalog
        .lines()
        .filter_map(|l| l.strip_prefix("- name: "))
        .map(|n| n.trim().to_owned())
        .collect()
}

/// Every file below `root` as bytes, to compare before and after a refusal.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().strip_prefix(root).unwrap().to_path_buf(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// Runs the binary with a deadline; `None` when it had to be killed.
fn run_binary(dir: &Path) -> Option<std::process::ExitStatus> {
    let mut child = Command::new(support::opgen_bin())
        .args(["manifests", "--quiet"])
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("opgen starts");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if start.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[derive(Default, Debug)]
struct Figures {
    inputs: usize,
    accepted: usize,
    refused: usize,
    panics: usize,
    binary_runs: usize,
    binary_failures: usize,
    slowest: Duration,
}

impl Figures {
    fn add(mut self, other: Figures) -> Figures {
        self.inputs += other.inputs;
        self.accepted += other.accepted;
        self.refused += other.refused;
        self.panics += other.panics;
        self.binary_runs += other.binary_runs;
        self.binary_failures += other.binary_failures;
        self.slowest = self.slowest.max(other.slowest);
        self
    }
}

/// The generator of input `n`: each input is reproducible alone, whichever worker runs it.
fn input_rng(seed: u64, n: usize) -> fastrand::Rng {
    fastrand::Rng::with_seed(seed ^ (n as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// What one worker is running, for the watchdog: when it started (ms since `epoch`, 0 when
/// idle) and its name.
#[derive(Default)]
struct Running {
    since: AtomicU64,
    name: Mutex<String>,
}

/// What the workers share: the inputs still to run and what mutations draw on.
struct Run {
    seed: u64,
    /// The next input to run, and the end of the range.
    next: AtomicUsize,
    end: usize,
    originals: Vec<Vec<u8>>,
    markers: Vec<String>,
    failures: PathBuf,
    epoch: Instant,
}

/// Runs the inputs `run` hands out on `seeds`, a copy of the seed projects of its own.
fn fuzz_worker(run: &Run, seeds: &[Seed], running: &Running) -> Figures {
    let Run {
        seed,
        end,
        ref originals,
        ref markers,
        ref failures,
        epoch,
        ..
    } = *run;
    let mut figures = Figures::default();
    loop {
        let n = run.next.fetch_add(1, Ordering::Relaxed);
        if n >= end {
            return figures;
        }
        let mut rng = input_rng(seed, n);
        let seed_dir = &seeds[rng.usize(..seeds.len())];
        let file = &seed_dir.files[rng.usize(..seed_dir.files.len())];
        let path = seed_dir.root.join(file);
        let original = std::fs::read(&path).unwrap();
        let mutated = mutate(&mut rng, &original, originals, markers);
        std::fs::write(&path, &mutated).unwrap();
        let name = format!("seed {seed:#x} input {n}: {}", file.display());
        *running.name.lock().unwrap() = name.clone();
        let save = |why: &str| {
            std::fs::create_dir_all(failures).unwrap();
            let out = failures.join(format!(
                "{n}-{why}-{}",
                file.file_name().unwrap().to_string_lossy()
            ));
            std::fs::write(&out, &mutated).unwrap();
            eprintln!(
                "fuzz: {why} on {name}; the input is {}; again: OPGEN_FUZZ_SEED={seed} OPGEN_FUZZ_INPUT={n}",
                out.display()
            );
        };

        running
            .since
            .store(epoch.elapsed().as_millis().max(1) as u64, Ordering::Relaxed);
        let t = Instant::now();
        let outcome = std::panic::catch_unwind(|| {
            let mut ws = Workspace::new(&seed_dir.root);
            manifests(&mut ws, &ManifestOptions::default()).is_ok()
        });
        running.since.store(0, Ordering::Relaxed);
        figures.slowest = figures.slowest.max(t.elapsed());
        figures.inputs += 1;
        match outcome {
            Ok(true) => figures.accepted += 1,
            Ok(false) => figures.refused += 1,
            Err(_) => {
                figures.panics += 1;
                save("panic");
            }
        }

        if n.is_multiple_of(BINARY_EVERY) {
            let dir = scratch_copy(&seed_dir.root);
            let before = snapshot(dir.path());
            figures.binary_runs += 1;
            match run_binary(dir.path()) {
                None => {
                    figures.binary_failures += 1;
                    save("binary-hang");
                }
                Some(status) => match status.code() {
                    Some(0) => {}
                    Some(1) | Some(2) => {
                        if snapshot(dir.path()) != before {
                            figures.binary_failures += 1;
                            save("wrote-while-refusing");
                        }
                    }
                    _ => {
                        figures.binary_failures += 1;
                        save(&format!("binary-exit-{status}"));
                    }
                },
            }
        }
        std::fs::write(&path, &original).unwrap();
    }
}

#[test]
fn no_input_panics_aborts_hangs_or_writes_when_refused() {
    let inputs = env_number("OPGEN_FUZZ_INPUTS", DEFAULT_INPUTS as u64) as usize;
    let seed = env_number("OPGEN_FUZZ_SEED", DEFAULT_SEED);
    // OPGEN_FUZZ_INPUT=n runs input n alone (a failure's number).
    let (first, end) = match std::env::var("OPGEN_FUZZ_INPUT") {
        Ok(n) => {
            let n: usize = n.parse().expect("OPGEN_FUZZ_INPUT is an input number");
            (n, n + 1)
        }
        Err(_) => (0, inputs),
    };
    // Inputs are independent: one worker per core, each mutating its own copy of the seeds.
    let workers = std::thread::available_parallelism().map_or(1, usize::from);
    let scratch = tempfile::tempdir().unwrap();
    let copies: Vec<Vec<Seed>> = (0..workers)
        .map(|w| seeds(&scratch.path().join(w.to_string())))
        .collect();
    let originals: Vec<Vec<u8>> = copies[0]
        .iter()
        .flat_map(|s| {
            s.files
                .iter()
                .map(|f| std::fs::read(s.root.join(f)).unwrap())
        })
        .collect();
    assert!(
        copies[0].len() >= 10 && originals.len() >= 40,
        "too few seeds"
    );
    let run = Run {
        seed,
        next: AtomicUsize::new(first),
        end,
        originals,
        markers: marker_names(),
        failures: PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fuzz-failures"),
        epoch: Instant::now(),
    };

    // A watchdog: an input that runs longer than HANG in process is a hang. It cannot be
    // interrupted, so the watchdog names it and aborts the test process.
    let running: Arc<Vec<Running>> = Arc::new((0..workers).map(|_| Running::default()).collect());
    {
        let (running, epoch) = (running.clone(), run.epoch);
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(500));
                for worker in running.iter() {
                    let at = worker.since.load(Ordering::Relaxed);
                    let now = epoch.elapsed().as_millis() as u64;
                    if at != 0 && now - at > HANG.as_millis() as u64 {
                        eprintln!("fuzz: HANG on {}", worker.name.lock().unwrap());
                        std::process::abort();
                    }
                }
            }
        });
    }

    let run_start = Instant::now();
    let figures = std::thread::scope(|scope| {
        let handles: Vec<_> = copies
            .iter()
            .zip(running.iter())
            .map(|(seeds, running)| {
                let run = &run;
                // opgen's main thread has a 256 MiB stack (src/main.rs): so do the workers.
                std::thread::Builder::new()
                    .stack_size(256 * 1024 * 1024)
                    .spawn_scoped(scope, move || fuzz_worker(run, seeds, running))
                    .unwrap()
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a fuzz worker"))
            .fold(Figures::default(), Figures::add)
    });
    eprintln!(
        "fuzz: seed {seed:#x}: {} inputs in {:.1} s on {workers} workers ({} accepted, {} refused), {} panics; {} through the binary, {} failed; slowest input {} ms",
        figures.inputs,
        run_start.elapsed().as_secs_f64(),
        figures.accepted,
        figures.refused,
        figures.panics,
        figures.binary_runs,
        figures.binary_failures,
        figures.slowest.as_millis()
    );

    assert_eq!(figures.inputs, end - first);
    assert_eq!(figures.panics, 0, "inputs panicked: see above");
    assert_eq!(
        figures.binary_failures, 0,
        "the binary crashed, hung or wrote while refusing: see above"
    );
    // Mutations must reach the generators, not only the parser's refusals.
    assert!(
        end - first < 100 || figures.accepted * 10 >= figures.inputs,
        "under 10% of the inputs got through: the mutations are too coarse ({figures:?})"
    );
}

fn scratch_copy(root: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    support::copy_tree(root, dir.path());
    dir
}
