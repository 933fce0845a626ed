#!/usr/bin/env bash
# Cold `opgen manifests` against controller-gen on the real-world Go corpus
# (tests/fixtures/go-corpus.tsv): for each API, controller-gen on its Go packages (from the Go
# module proxy, at the pinned version) and opgen on the same API imported into a Rust project
# with `opgen import go` (what tests/import_go.rs proves to give controller-gen's CRDs). Both
# write the CRDs only, into a directory that already holds them, taking turns; medians of wall
# and CPU time (user + system, from getrusage of the child) over RUNS rounds, and the CPU ratio.
#
#   bench/realworld.sh
#   RUNS=5 ONLY=fluxcd bench/realworld.sh      # fewer rounds, the modules whose path has "fluxcd"
#   OPGEN=path/to/opgen bench/realworld.sh
#
# controller-gen comes from tools/controller-gen/setup.sh (or $CONTROLLER_GEN); opgen is built
# here (release) unless OPGEN names one.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
runs="${RUNS:-11}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# shellcheck source=bench/lib.sh
source "$repo/bench/lib.sh"

python3 - "$repo" "$work" "$opgen" "$cg" "$runs" "${ONLY:-}" <<'PY'
import json, os, pathlib, resource, shutil, statistics, subprocess, sys, time
repo, work, opgen, cg, runs, only = sys.argv[1:7]
runs, work = int(runs), pathlib.Path(work)
# A module's go.work (gateway-api has one) is not the module's build; the copies may lack go.sum lines.
env = dict(os.environ, GOFLAGS="-mod=mod", GOWORK="off")

def run(cmd, cwd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    if out.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} (in {cwd}) failed:\n{out.stderr.decode()}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall * 1000, cpu * 1000

corpus = []
for line in pathlib.Path(repo, "tests/fixtures/go-corpus.tsv").read_text().splitlines():
    if line.startswith("#"):
        continue
    module, version, package, args, multigroup = line.split("\t")
    if only and only not in module:
        continue
    corpus.append((module, version, package, args, multigroup == "multigroup"))

rows = []
for n, (module, version, package, args, multigroup) in enumerate(corpus):
    if version == "-":
        src = pathlib.Path(repo, "tests/fixtures", module)
        label = module
    else:
        info = subprocess.run(["go", "mod", "download", "-json", f"{module}@{version}"],
                              env=env, check=True, capture_output=True)
        src = pathlib.Path(json.loads(info.stdout)["Dir"])
        label = f"{module}@{version}"
    go = work / f"go{n}"
    shutil.copytree(src, go)
    for d in go.rglob("*"):
        if d.is_dir():
            d.chmod(0o755)
    # Several packages are `;`-separated, each given to both tools.
    packages = [f"./{p.removeprefix('./')}" for p in package.split(";")]
    cg_cmd = [cg, *args.split(" "), *(f"paths={p}" for p in packages), f"output:crd:dir={work}/cg{n}"]

    rs = work / f"rs{n}"
    rs.mkdir()
    run([opgen, "init", "--domain", "example.com", "--project-name", "imported"], rs)
    if multigroup:
        run([opgen, "edit", "--multigroup"], rs)
    imp = [opgen, "import", "go", str(go)]
    for p in packages:
        imp += ["--paths", p]
    if "generateEmbeddedObjectMeta=true" in args:
        imp.append("--generate-embedded-object-meta")
    run(imp, rs)
    op_cmd = [opgen, "manifests", "-q", "--no-cache"]

    # Warm up: Go's build cache and module downloads, the page cache, both outputs written.
    for _ in range(2):
        run(cg_cmd, go)
        run(op_cmd, rs)
    times = {"cg": ([], []), "opgen": ([], [])}
    for _ in range(runs):
        for name, cmd, cwd in (("cg", cg_cmd, go), ("opgen", op_cmd, rs)):
            wall, cpu = run(cmd, cwd)
            times[name][0].append(wall)
            times[name][1].append(cpu)
    crds = sorted((rs / "config/crd/bases").glob("*.yaml"))
    rust = sum(p.stat().st_size for p in (rs / "src").rglob("*.rs"))
    yaml = sum(p.stat().st_size for p in crds)
    med = {k: (statistics.median(w), statistics.median(c)) for k, (w, c) in times.items()}
    rows.append((label, package, len(crds), rust, yaml, med))
    print(f"{label} {package}: {len(crds)} CRDs, controller-gen {med['cg'][1]:.0f} ms CPU, "
          f"opgen {med['opgen'][1]:.1f} ms CPU", file=sys.stderr, flush=True)

print(f"\nload average after: {open('/proc/loadavg').read().split()[:3]}")
print(f"medians of {runs} rounds, each tool writing the CRDs only, taking turns\n")
print("| API | CRDs | Rust / YAML (KB) | controller-gen wall | CPU | opgen wall | CPU | CPU ratio |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
ratios = []
for label, package, crds, rust, yaml, med in rows:
    ratio = med["cg"][1] / max(med["opgen"][1], 0.001)
    ratios.append(ratio)
    print(f"| {label} `{package}` | {crds} | {rust / 1024:.0f} / {yaml / 1024:.0f} | "
          f"{med['cg'][0]:.0f} ms | {med['cg'][1]:.0f} ms | {med['opgen'][0]:.1f} ms | "
          f"{med['opgen'][1]:.1f} ms | {ratio:.0f}× |")
if ratios:
    print(f"\nCPU ratio: lowest {min(ratios):.0f}×, median {statistics.median(ratios):.0f}×, "
          f"highest {max(ratios):.0f}×; {sum(r >= 50 for r in ratios)} of {len(ratios)} at 50× or more")
PY
