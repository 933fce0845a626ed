# Sourced by the bench/ scripts that time opgen beside controller-gen (with $repo set to the
# checkout): sets $cg, controller-gen from tools/controller-gen/setup.sh (or $CONTROLLER_GEN),
# and $opgen, this checkout's release build (or $OPGEN: another build, e.g. the one before a
# change), and prints their versions, the machine and its load.
cg="${CONTROLLER_GEN:-}"
if [ -z "$cg" ]; then
  cg="$(bash "$repo/tools/controller-gen/setup.sh" | tail -n 1)/controller-gen"
fi
opgen="${OPGEN:-}"
if [ -z "$opgen" ]; then
  cargo build --release --locked --manifest-path "$repo/Cargo.toml" --quiet --bin opgen
  opgen="${CARGO_TARGET_DIR:-$repo/target}/release/opgen"
fi

echo "controller-gen: $("$cg" --version) ($(go version | cut -d' ' -f3-))"
echo "opgen: $("$opgen" --version) ($(rustc --version))"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
