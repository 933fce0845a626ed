#!/usr/bin/env python3
"""Sums a log of bench/compile-cpu/rustc-wrapper.sh: the CPU time (user + system) of every
crate compiled, by target directory and profile, by crate, and the crates compiled again with
the same `-C metadata` into the same directory (a rebuild, not another configuration).

    bench/compile-cpu/report.py LOG [N]     # N rows a table (default 15)
"""
import collections
import re
import sys

log, top = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 15
rows = []
for line in open(log, encoding="utf-8"):
    f = line.rstrip("\n").split("\t")
    if len(f) != 12:
        continue
    _, name, _, out, opt, emit, meta, _, user, system, _, _ = f
    # .../target/<dir>/deps, .../target/<dir>/build/<crate>-<hash>: "<dir>"
    m = re.search(r"/target/(.+?)/(deps|build)(/|$)", out)
    mode = "build" if "link" in emit.split(",") else "check"
    rows.append(dict(name=name, where=m.group(1) if m else out, opt=opt, mode=mode, meta=meta,
                     out=out, cpu=float(user) + float(system)))


def table(title, rows, key):
    cpu, count = collections.Counter(), collections.Counter()
    for r in rows:
        cpu[key(r)] += r["cpu"]
        count[key(r)] += 1
    print(f"| {title} | compiles | CPU-minutes |\n| --- | ---: | ---: |")
    for k, v in cpu.most_common(top):
        print(f"| {k} | {count[k]} | {v / 60:.2f} |")
    print()


total = sum(r["cpu"] for r in rows) / 60
print(f"{len(rows)} crates compiled, {total:.1f} CPU-minutes (user + system)\n")
table("target directory, check or build", rows, lambda r: f"{r['where']} {r['mode']}")
table("crate", rows, lambda r: r["name"])
table("crate, opt-level, check or build", rows, lambda r: f"{r['name']} opt {r['opt']} {r['mode']}")

# A rebuild: the same crate, `-C metadata` and mode into the same directory as before.
seen, again = set(), []
for r in rows:
    key = (r["out"], r["name"], r["meta"], r["mode"])
    if r["meta"] != "-" and key in seen:
        again.append(r)
    seen.add(key)
print(f"Compiled again: {sum(r['cpu'] for r in again) / 60:.2f} CPU-minutes\n")
table("compiled again (directory, crate)", again, lambda r: f"{r['where']} {r['name']}")
