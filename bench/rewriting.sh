#!/usr/bin/env bash
# The source-rewriting commands on a 20-kind single-group project (5 kinds with defaulting
# and validating webhooks): `edit --multigroup`, `upgrade`, `delete api`,
# `create api`. Each runs on a fresh copy of the project; reported: wall and CPU time (the
# command and every process it starts) and how many rustfmt processes it started.
#
#   bench/rewriting.sh            # RUNS=5 by default
#   OPGEN=path/to/opgen bench/rewriting.sh   # another build (e.g. the one before a change)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
runs="${RUNS:-5}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ -z "${OPGEN:-}" ]; then
  cargo build --release --quiet --manifest-path "$repo/Cargo.toml" --bin opgen
  OPGEN="${CARGO_TARGET_DIR:-$repo/target}/release/opgen"
fi
echo "opgen: $("$OPGEN" --version) ($(rustfmt --version))"
echo "machine: $(nproc) cores, $(uname -sr); load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# rustfmt behind a wrapper that counts its starts.
real_rustfmt="$(command -v rustfmt)"
cat >"$work/rustfmt" <<WRAP
#!/bin/sh
echo >>"$work/rustfmt.count"
exec "$real_rustfmt" "\$@"
WRAP
chmod +x "$work/rustfmt"
export RUSTFMT="$work/rustfmt"

cd "$work"
"$OPGEN" new project --domain example.com --group g0 --version v1 --kind Kind0 -q
cd project
for i in $(seq 1 19); do
  "$OPGEN" create api --group g0 --version v1 --kind "Kind$i" -q
done
for i in 0 4 8 12 16; do
  "$OPGEN" create webhook --group g0 --version v1 --kind "Kind$i" \
    --defaulting --programmatic-validation -q
done
git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -qm project
cd "$work"

measure() { # label, command... (run in a fresh copy of the project)
  local label="$1"; shift
  local wall=() cpu=() starts=0
  for _ in $(seq "$runs"); do
    rm -rf copy && cp -r project copy && : >rustfmt.count
    # %e wall, %U+%S CPU of the command and its waited-for children (rustfmt).
    (cd copy && /usr/bin/time -f '%e %U %S' -o "$work/time" "$@" -q >/dev/null)
    read -r e u s <"$work/time"
    wall+=("$e"); cpu+=("$(echo "$u + $s" | bc)")
    starts=$(wc -l <rustfmt.count)
  done
  printf '%-28s wall median %6.3f s  CPU median %6.3f s  rustfmt starts %d\n' "$label" \
    "$(printf '%s\n' "${wall[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")" \
    "$(printf '%s\n' "${cpu[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")" "$starts"
}

measure "edit --multigroup" "$OPGEN" edit --multigroup
measure "upgrade" "$OPGEN" upgrade
measure "delete api (Kind3)" "$OPGEN" delete api --group g0 --version v1 --kind Kind3
measure "create api (Kind20)" "$OPGEN" create api --group g0 --version v1 --kind Kind20
