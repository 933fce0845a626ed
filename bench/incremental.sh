#!/usr/bin/env bash
# The edit loop on 100 kinds × 50 fields: one field's doc edited in one file, then the CRDs
# regenerated, by opgen with its cache (`opgen manifests`), by opgen without it (`--no-cache`,
# a cold run) and by controller-gen on the same types in Go (which has no cache). Each round
# edits another kind's file, and the three take turns; medians of wall and CPU time (user +
# system, from getrusage of the child).
#
#   bench/incremental.sh
#   RUNS=50 bench/incremental.sh
#   OPGEN=path/to/opgen bench/incremental.sh
#
# controller-gen comes from tools/controller-gen/setup.sh (or $CONTROLLER_GEN).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
runs="${RUNS:-20}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# shellcheck source=bench/lib.sh
source "$repo/bench/lib.sh"

python3 "$repo/bench/gen_project.py" "$work/rs" 100 50
printf 'domain: example.com\nlayout:\n- rust.opgen.dev/v1\nprojectName: bench\nversion: "3"\n' >"$work/rs/PROJECT"
cp -r "$work/rs" "$work/rs-cold"
python3 "$repo/bench/gen_project.py" --go "$work/go" 100 50
cat >"$work/go/go.mod" <<GOMOD
module bench.example.com/project

go 1.26.0

require k8s.io/apimachinery v0.36.1
GOMOD
(cd "$work/go" && GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1)

python3 - "$work" "$opgen" "$cg" "$runs" <<'PY'
import os, pathlib, re, resource, statistics, subprocess, sys, time
work, opgen, cg, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
env = dict(os.environ, GOFLAGS="-mod=mod")

def run(cmd, cwd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall * 1000, cpu * 1000

def edit(path, round_):
    p = pathlib.Path(path)
    # The doc of field 3: `/// field 3 of kind N...` (Rust) or `// field 3 of kind N...` (Go).
    text = re.sub(r"(field 3 of kind \d+)[^\n]*", rf"\1, edited in round {round_}.", p.read_text(), count=1)
    p.write_text(text)

tools = {
    "opgen (cache)": (lambda n: f"{work}/rs/src/api/v1/kind{n}_types.rs",
                      [opgen, "manifests", "-q"], f"{work}/rs"),
    "opgen --no-cache": (lambda n: f"{work}/rs-cold/src/api/v1/kind{n}_types.rs",
                         [opgen, "manifests", "-q", "--no-cache"], f"{work}/rs-cold"),
    "controller-gen": (lambda n: f"{work}/go/api/v1/kind{n}_types.go",
                       [cg, "crd:allowDangerousTypes=true", "paths=./...", f"output:crd:dir={work}/cgout"],
                       f"{work}/go"),
}
# Warm up: the cache filled, Go's build cache and the page cache warm.
for _, cmd, cwd in tools.values():
    run(cmd, cwd)
    run(cmd, cwd)
times = {name: [] for name in tools}
order = list(tools)
for r in range(runs):
    n = (r * 37) % 100
    for name in order[r % 3:] + order[:r % 3]:
        path, cmd, cwd = tools[name]
        edit(path(n), r)
        times[name].append(run(cmd, cwd))
print(f"load average after: {open('/proc/loadavg').read().split()[:3]}")
print(f"| edit one kind's file, then regenerate ({runs} rounds) | wall min | wall median | CPU median |")
print("| --- | ---: | ---: | ---: |")
for name, t in times.items():
    walls, cpus = [w for w, _ in t], [c for _, c in t]
    print(f"| {name} | {min(walls):.1f} ms | {statistics.median(walls):.1f} ms | {statistics.median(cpus):.1f} ms |")
cgw = statistics.median(w for w, _ in times["controller-gen"])
cgc = statistics.median(c for _, c in times["controller-gen"])
ow = statistics.median(w for w, _ in times["opgen (cache)"])
oc = statistics.median(c for _, c in times["opgen (cache)"])
print(f"opgen with its cache against controller-gen: {cgw / ow:.0f}x (wall), {cgc / oc:.0f}x (CPU)")
PY
