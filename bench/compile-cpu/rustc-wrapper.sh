#!/usr/bin/env bash
# A RUSTC_WRAPPER that appends one line per crate compiled to $COMPILE_CPU_LOG: when it ended,
# the crate, its type, the output directory, opt-level, what it emitted (metadata alone is a
# check), the `-C metadata` hash, its features, the user, system and wall seconds rustc took
# (its linker included), and rustc's exit status. Cargo's own queries (`rustc -vV`, `--print`)
# pass straight through. bench/compile-cpu/report.py sums the log.
set -u
name=- kind=- out=- opt=0 emit=- meta=- features=()
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --crate-name) name=${args[i + 1]} ;;
    --crate-type) kind=${args[i + 1]} ;;
    --out-dir) out=${args[i + 1]} ;;
    --emit=*) emit=${args[i]#--emit=} ;;
    opt-level=*) opt=${args[i]#opt-level=} ;;
    metadata=*) meta=${args[i]#metadata=} ;;
    feature=*) features+=("${args[i]#feature=}") ;;
  esac
done
if [[ $name == - || $name == ___ || -z ${COMPILE_CPU_LOG:-} ]]; then
  exec "$@"
fi
times="$(mktemp)"
/usr/bin/time -f '%U %S %e' -o "$times" "$@"
status=$?
IFS=' ' read -r user sys wall <"$times"
rm -f "$times"
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date +%s)" "$name" "$kind" "$out" \
  "$opt" "$emit" "$meta" "$(IFS=,; echo "${features[*]}")" "$user" "$sys" "$wall" "$status" \
  >>"$COMPILE_CPU_LOG"
exit $status
