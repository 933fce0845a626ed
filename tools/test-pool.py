#!/usr/bin/env python3
"""Runs the workspace's test binaries several at a time (tools/test.sh).

`cargo test` runs one test binary after the other, each with its tests on two threads. Many
binaries spend most of their time waiting: on an API server's start and answers, on
controller-gen, on a project's build that holds cargo's lock on the shared target directory.
Run side by side, the binaries fill each other's waits; the tests are the same.

  list KUBEBUILDER_ASSETS NEWEST_ASSETS < cargo's JSON messages > jobs.tsv
      one job per test binary `cargo test --no-run` built, against the oldest Kubernetes, and
      again against the newest for the binaries that talk to an API server (API_SERVER_TESTS);
  run --jobs N --log-dir DIR --since EPOCH jobs.tsv [-- ARGS]
      runs them, longest first, N at a time (ARGS go to every binary), with the doc tests as one
      more job; prints each binary's output whole when it ends and fails if any failed.
"""

import json
import os
import re
import subprocess
import sys
import time

# The binaries that run against the newest Kubernetes too (package, test target).
API_SERVER_TESTS = {
    ("opgen-envtest", "control_plane"),
    ("opgen-runtime", "envtest"),
    ("opgen-cli", "envtest"),
    ("opgen-cli", "k8s_resources"),
    ("opgen-cli", "helm_chart"),
    ("opgen-cli", "diff_apiserver"),
}

# Started first, longest first (clean-clone runs, BENCHMARKS.md): the pool's end is then short
# binaries filling in rather than one long one running alone. Unlisted binaries follow in
# cargo's order.
LONGEST_FIRST = [
    "opgen-cli/import_crd",
    "opgen-cli/import_go",
    "opgen-cli/fuzz",
    "opgen-cli/edit_delete_project",
    "opgen-cli/scaffold_readme",
    "opgen-cli/lint_conformance",
    "opgen-cli/docs_reference",
    "opgen-cli/diff_apiserver",
    "opgen-cli/kube_derive_referee",
    "opgen-cli/realworld_agreement",
    "opgen-cli/scaffolded_project",
    "opgen-cli/init_adopt",
]


def package_of(package_id):
    # path+file:///…/opgen-runtime#0.1.0, or path+file:///…/main#opgen-cli@0.1.0
    url, _, fragment = package_id.partition("#")
    return fragment.split("@")[0] if "@" in fragment else url.rsplit("/", 1)[-1]


def list_jobs(oldest, newest):
    for line in sys.stdin:
        m = json.loads(line)
        if m.get("reason") != "compiler-artifact" or not m.get("executable"):
            continue
        if not m["profile"]["test"]:
            continue
        package = package_of(m["package_id"])
        target = m["target"]["name"]
        kind = m["target"]["kind"][0]
        label = f"{package}/{target}" if kind == "test" else f"{package}/{target} ({kind})"
        directory = os.path.dirname(m["manifest_path"])
        print(label, directory, oldest, m["executable"], sep="\t")
        if kind == "test" and (package, target) in API_SERVER_TESTS:
            print(f"{label} (Kubernetes {os.path.basename(newest)})", directory, newest,
                  m["executable"], sep="\t")


def order(job):
    label = job["label"]
    for i, name in enumerate(LONGEST_FIRST):
        if label == name:
            return i
    return len(LONGEST_FIRST)


def run(argv):
    jobs_n, log_dir, since, table, extra = 2, None, time.time(), None, []
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--jobs":
            jobs_n = int(args.pop(0))
        elif a == "--log-dir":
            log_dir = args.pop(0)
        elif a == "--since":
            since = float(args.pop(0))
        elif a == "--":
            extra = args
            break
        else:
            table = a
    os.makedirs(log_dir, exist_ok=True)
    jobs = []
    with open(table) as f:
        for row in f:
            label, directory, assets, *command = row.rstrip("\n").split("\t")
            jobs.append({"label": label, "dir": directory, "assets": assets,
                         "command": command + extra})
    # Stable: cargo's order among the unlisted.
    jobs.sort(key=order)
    total = len(jobs)

    running, failed, counts = [], [], [0, 0, 0]
    pending = list(jobs)

    def start(job):
        name = re.sub(r"[^A-Za-z0-9_.-]+", "-", job["label"]).strip("-")
        job["log"] = os.path.join(log_dir, name + ".log")
        out = open(job["log"], "w")
        env = dict(os.environ)
        if job["assets"]:
            env["KUBEBUILDER_ASSETS"] = job["assets"]
        job["started"] = time.time()
        job["process"] = subprocess.Popen(job["command"], cwd=job["dir"], env=env, stdout=out,
                                          stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        out.close()
        running.append(job)

    def finish(job, status):
        took = time.time() - job["started"]
        at = job["started"] - since
        print(f"     Running {job['label']} [at {at:.0f} s, took {took:.0f} s, "
              f"{total - len(pending) - len(running)} of {total} done]", flush=True)
        with open(job["log"], errors="replace") as f:
            text = f.read()
        sys.stdout.write(text)
        for m in re.finditer(r"test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored", text):
            for i in range(3):
                counts[i] += int(m.group(i + 1))
        if status != 0:
            failed.append(f"{job['label']} (exit status {status}, {job['log']})")
        sys.stdout.flush()

    try:
        while pending or running:
            while pending and len(running) < jobs_n:
                start(pending.pop(0))
            pid, wait_status = os.wait()
            for job in running:
                if job["process"].pid == pid:
                    running.remove(job)
                    job["process"].returncode = os.waitstatus_to_exitcode(wait_status)
                    finish(job, job["process"].returncode)
                    break
    finally:
        for job in running:
            job["process"].terminate()
        for job in running:
            job["process"].wait()

    print(f"== {total} test binaries: {counts[0]} passed, {counts[1]} failed, "
          f"{counts[2]} ignored (libtest's totals, the projects' own tests included)")
    if failed:
        print("failed:\n  " + "\n  ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "list":
        list_jobs(sys.argv[2], sys.argv[3])
    elif len(sys.argv) > 2 and sys.argv[1] == "run":
        sys.exit(run(sys.argv[2:]))
    else:
        sys.exit(__doc__)
