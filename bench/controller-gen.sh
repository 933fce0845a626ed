#!/usr/bin/env bash
# controller-gen (Go types) against opgen (their Rust translations), side by side, same work:
#
#   1. one kind × 50 fields      bench/gen_project.py 1 50   (Rust) / --go 1 50   (Go)
#   2. controller-tools' cronjob testdata: Go `pkg/crd/testdata` (cronjob, deprecated,
#      unserved, job, immutable: upstream's `//go:generate` run) / its Rust port,
#      tests/fixtures/controller-gen/testdata (4 CRDs); needs OPGEN_CONTROLLER_TOOLS_SRC, a
#      controller-tools checkout (the module proxy's zip leaves the testdata module out)
#   3. 100 kinds × 50 fields     bench/gen_project.py 100 50 (Rust) / --go 100 50 (Go)
#
#   bench/controller-gen.sh
#   RUNS=20 bench/controller-gen.sh
#   OPGEN=path/to/opgen bench/controller-gen.sh   # that build instead of this checkout's
#
# controller-gen comes from tools/controller-gen/setup.sh (or $CONTROLLER_GEN); both tools write
# into a fresh directory each run; hyperfine reports min and median (falls back to a loop).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
runs="${RUNS:-20}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== versions"
# shellcheck source=bench/lib.sh
source "$repo/bench/lib.sh"

# Cold runs: the manifests cache is left out (bench/incremental.sh measures it); a build from
# before the cache has no such flag and no cache.
cold="-q"
"$opgen" manifests --help | grep -q -- --no-cache && cold="-q --no-cache"

export GOFLAGS="${GOFLAGS:-} -mod=mod"
go_module() { # dir: a Go module for the generated package, dependencies resolved once
  cat >"$1/go.mod" <<GOMOD
module bench.example.com/project

go 1.26.0

require k8s.io/apimachinery v0.36.1
GOMOD
  (cd "$1" && go mod tidy >/dev/null 2>&1)
}
rust_project() { # dir: PROJECT file so that `opgen manifests` runs there
  printf 'domain: example.com\nlayout:\n- rust.opgen.dev/v1\nprojectName: bench\nversion: "3"\n' >"$1/PROJECT"
}

json="$work/json"; mkdir -p "$json"
timed() { # command...: run, its CPU (user, system) into $work/time when GNU time is there
  if [ -x /usr/bin/time ]; then /usr/bin/time -f '%U %S' -o "$work/time" "$@"; else "$@"; fi
}
pair() { # label, go dir, controller-gen args, rust dir
  local label="$1" godir="$2" args="$3" rsdir="$4"
  # Warm both (Go's build cache for the type-checked packages; the page cache for opgen).
  (cd "$godir" && rm -rf "$work/cgout" && "$cg" $args output:crd:dir="$work/cgout" >/dev/null)
  (cd "$rsdir" && "$opgen" manifests $cold)
  local qargs; qargs="$(printf '%q ' $args)" # `;` in paths= must reach controller-gen
  if command -v hyperfine >/dev/null; then
    hyperfine --warmup 3 --runs "$runs" --style basic --export-json "$json/$label.json" \
      -n "controller-gen, $label" "cd $godir && rm -rf $work/cgout && $cg $qargs output:crd:dir=$work/cgout" \
      -n "opgen, $label" "cd $rsdir && rm -rf config/crd && $opgen manifests $cold"
  else
    for who in cg opgen; do
      : >"$json/$label.$who"; : >"$json/$label.$who.cpu"
      for _ in $(seq "$runs"); do
        if [ $who = cg ]; then (cd "$godir" && rm -rf "$work/cgout")
        else (cd "$rsdir" && rm -rf config/crd); fi
        s=$(date +%s%N)
        # CPU (user + system, its children included) from GNU time where it is installed.
        if [ $who = cg ]; then (cd "$godir" && timed "$cg" $args output:crd:dir="$work/cgout" >/dev/null)
        else (cd "$rsdir" && timed "$opgen" manifests $cold); fi
        echo $(( $(date +%s%N) - s )) >>"$json/$label.$who"
        [ -s "$work/time" ] && awk '{print $1 + $2}' "$work/time" >>"$json/$label.$who.cpu"
      done
    done
  fi
}

# 1 and 3: the synthetic project in both languages.
for n in 1 100; do
  python3 "$repo/bench/gen_project.py" "$work/rs$n" "$n" 50
  rust_project "$work/rs$n"
  python3 "$repo/bench/gen_project.py" --go "$work/go$n" "$n" 50
  go_module "$work/go$n"
  pair "$n kinds x 50 fields" "$work/go$n" "crd:allowDangerousTypes=true paths=./..." "$work/rs$n"
done

# 2: controller-tools' cronjob testdata.
src="${OPGEN_CONTROLLER_TOOLS_SRC:-}"
if [ -n "$src" ] && [ -f "$src/pkg/crd/testdata/go.mod" ]; then
  cp -r "$src/pkg/crd/testdata" "$work/cronjob-go"; chmod -R u+w "$work/cronjob-go"
  cp -r "$repo/tests/fixtures/controller-gen/testdata" "$work/cronjob-rs"
  rust_project "$work/cronjob-rs"
  pair "cronjob testdata" "$work/cronjob-go" \
    "crd:ignoreUnexportedFields=true,allowDangerousTypes=true paths=./;./deprecated;./unserved;./job/...;./immutable" \
    "$work/cronjob-rs"
else
  echo "(cronjob testdata skipped: set OPGEN_CONTROLLER_TOOLS_SRC to a controller-tools checkout)"
fi

echo "== summary (ms; wall min and median, and CPU, user + system, mean with hyperfine, else median: the figure to compare on a busy machine)"
python3 - "$json" <<'PY'
import json, os, statistics, sys
d = sys.argv[1]
print("| work | controller-gen min | median | CPU | opgen min | median | CPU | ratio (median) | ratio (CPU) |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
labels = sorted({f.split(".")[0] for f in os.listdir(d)}, key=lambda l: (l != "1 kinds x 50 fields", l))
for label in labels:
    p = os.path.join(d, label + ".json")
    if os.path.exists(p):
        res = json.load(open(p))["results"]
        cg, og = [r["times"] for r in res]
        cg_cpu, og_cpu = [r["user"] + r["system"] for r in res]
    else:
        cg, og = ([int(x) / 1e9 for x in open(os.path.join(d, f"{label}.{w}"))] for w in ("cg", "opgen"))
        cpu = [[float(x) for x in open(os.path.join(d, f"{label}.{w}.cpu"))] for w in ("cg", "opgen")]
        cg_cpu, og_cpu = (statistics.median(c) if c else None for c in cpu)
    ms = lambda t: f"{t * 1000:.1f}" if t is not None else "n/a"
    cpu_ratio = f"{cg_cpu / og_cpu:.0f}x" if og_cpu else "n/a"
    print(f"| {label} | {ms(min(cg))} | {ms(statistics.median(cg))} | {ms(cg_cpu)} | "
          f"{ms(min(og))} | {ms(statistics.median(og))} | {ms(og_cpu)} | "
          f"{statistics.median(cg) / statistics.median(og):.0f}x | {cpu_ratio} |")
PY
