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
    _, name, kind, out, opt, emit, meta, features, user, system, wall, status = f
    # .../target/<dir>/deps, .../target/<dir>/build/<crate>-<hash>: "<dir>"
    m = re.search(r"/target/(.+?)/(deps|build)(/|$)", out)
    where = m.group(1) if m else out
    check = "link" not in emit.split(",")
    rows.append(dict(name=name, where=where, opt=opt, check=check, meta=meta, features=features,
                     out=out, cpu=float(user) + float(system), wall=float(wall)))

total = sum(r["cpu"] for r in rows)
print(f"{len(rows)} crates compiled, {total / 60:.1f} CPU-minutes (user + system)\n")


def table(title, key):
    cpu, count = collections.Counter(), collections.Counter()
    for r in rows:
        cpu[key(r)] += r["cpu"]
        count[key(r)] += 1
    print(f"| {title} | compiles | CPU-minutes |\n| --- | ---: | ---: |")
    for k, v in cpu.most_common(top):
        print(f"| {k} | {count[k]} | {v / 60:.2f} |")
    print()


table("target directory, check or build", lambda r: f"{r['where']} {'check' if r['check'] else 'build'}")
table("crate", lambda r: r["name"])
table("crate, opt-level, check or build", lambda r: f"{r['name']} opt {r['opt']} {'check' if r['check'] else 'build'}")

seen, again = set(), collections.Counter()
again_n = collections.Counter()
for r in rows:
    key = (r["out"], r["name"], r["meta"], r["check"])
    if r["meta"] != "-" and key in seen:
        again[(r["where"], r["name"])] += r["cpu"]
        again_n[(r["where"], r["name"])] += 1
    seen.add(key)
print(f"Compiled again, same metadata and directory: {sum(again.values()) / 60:.2f} CPU-minutes\n")
print("| directory, crate | times again | CPU-minutes |\n| --- | ---: | ---: |")
for k, v in again.most_common(top):
    print(f"| {k[0]} {k[1]} | {again_n[k]} | {v / 60:.2f} |")
