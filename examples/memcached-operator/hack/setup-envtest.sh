#!/usr/bin/env bash
# Builds the binaries of a test control plane (kube-apiserver, kubectl, etcd) from Go modules and
# caches them; prints the directory that holds them as the last line of stdout.
#
#   tools/envtest/setup.sh [K8S_VERSION]      (default below; env: OPGEN_ENVTEST_K8S_VERSION)
#
# Release tarballs and container images cannot be downloaded where opgen is developed, but the Go
# module proxy can, so the binaries are built from source, the same way setup-envtest's are.
#
# Interface (other tools rely on it):
#   - the last line of stdout is the directory holding kube-apiserver, etcd and kubectl;
#   - a second run with the cache warm returns at once;
#   - KUBEBUILDER_ASSETS (controller-runtime envtest's variable) is honoured when it already
#     holds the three binaries.
# Environment: OPGEN_CACHE_DIR (default ${XDG_CACHE_HOME:-~/.cache}/opgen).
set -euo pipefail

# 1.33 is the Kubernetes minor the scaffold's k8s-openapi feature (`v1_33`) targets: the oldest API
# server its clients are built for, so a project that passes against it works on every newer one.
# .33.13 is the newest patch of 1.33 on the module proxy (2026-06). `tools/envtest/setup.sh 1.37.2`
# builds the newest minor k8s-openapi 0.29 knows (its `latest`), which CI also runs.
DEFAULT_K8S_VERSION=1.33.13

version="${1:-${OPGEN_ENVTEST_K8S_VERSION:-$DEFAULT_K8S_VERSION}}"
version="${version#v}"
if ! [[ "$version" =~ ^1\.([0-9]+)\.([0-9]+)$ ]]; then
  echo "setup-envtest: '$version' is not a Kubernetes release version like $DEFAULT_K8S_VERSION" >&2
  exit 2
fi
minor="${BASH_REMATCH[1]}"
staging_version="v0.${minor}.${BASH_REMATCH[2]}"

has_binaries() {
  [[ -x "$1/kube-apiserver" && -x "$1/etcd" && -x "$1/kubectl" ]]
}

if [[ -n "${KUBEBUILDER_ASSETS:-}" ]]; then
  if has_binaries "$KUBEBUILDER_ASSETS"; then
    echo "setup-envtest: using KUBEBUILDER_ASSETS" >&2
    echo "$KUBEBUILDER_ASSETS"
    exit 0
  fi
  echo "setup-envtest: KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS lacks kube-apiserver, etcd or kubectl; building them" >&2
fi

cache="${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}/envtest"
dir="$cache/k8s-$version"
if has_binaries "$dir" && [[ -f "$dir/.complete" ]]; then
  echo "$dir"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  cat >&2 <<MSG
setup-envtest: Go is needed to build kube-apiserver $version, etcd and kubectl, and 'go' is not on PATH.
  Install Go 1.24 or newer (https://go.dev/doc/install, or 'apt-get install golang-go'), or point
  KUBEBUILDER_ASSETS at a directory that already holds kube-apiserver, etcd and kubectl
  (for example one made by controller-runtime's setup-envtest).
MSG
  exit 1
fi

work="$cache/build-k8s-$version"
log="$work/build.log"
rm -rf "$work" "$dir.tmp"
mkdir -p "$work/k8s" "$work/etcd" "$dir.tmp"
: >"$log"

fail() {
  echo "setup-envtest: $1; the last lines of $log:" >&2
  tail -n 40 "$log" >&2
  exit 1
}

run() { "$@" >>"$log" 2>&1; }

echo "setup-envtest: building kube-apiserver, kubectl and etcd for Kubernetes $version (a few minutes the first time; log: $log)" >&2

# Go refuses `go install k8s.io/kubernetes/cmd/...@v1.x`: its go.mod replaces the staging modules
# (k8s.io/api, client-go, ...) with ./staging paths. A module of our own that requires it and
# replaces each of them with its published v0.X.Y (same commit) builds it.
export GOFLAGS="${GOFLAGS:-} -mod=mod"
export CGO_ENABLED=0
# Both builds without debug information or local paths: -ldflags -s -w (each build's own) drops
# the DWARF at the link, and -dwarf=false spares the compiler writing it for every package (a
# tenth of a Go build's CPU time).
no_debug_info=(-trimpath -gcflags=all=-dwarf=false)
cd "$work/k8s"
run go mod init opgen.dev/envtest-build || fail "go mod init failed"
run go mod edit -require="k8s.io/kubernetes@v$version" || fail "go mod edit failed"
run go mod download -json "k8s.io/kubernetes@v$version" || fail "downloading k8s.io/kubernetes v$version failed"
k8s_gomod="$(go mod download -json "k8s.io/kubernetes@v$version" | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')"
[[ -f "$k8s_gomod" ]] || fail "no go.mod for k8s.io/kubernetes v$version"
staging=$(sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9-]*\) => \./staging/src/.*#\1#p' "$k8s_gomod")
[[ -n "$staging" ]] || fail "k8s.io/kubernetes v$version has no staging replaces (unexpected go.mod layout)"
for module in $staging; do
  go mod edit -replace="$module=$module@$staging_version"
done
cat >tools.go <<GO
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
# The version the Kubernetes build stamps (hack/lib/version.sh); without it gitVersion stays
# v0.0.0-master and clients fail to parse the server's version.
build_date="$(go list -m -json "k8s.io/kubernetes@v$version" | sed -n 's/.*"Time": "\(.*\)",*/\1/p')"
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=v$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$build_date"
done
run go build "${no_debug_info[@]}" -ldflags "$ldflags" -o "$dir.tmp/" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kubectl \
  || fail "building kube-apiserver and kubectl failed"

# etcd: the server release the API server's own etcd client is built against (k8s.io/kubernetes'
# go.mod), so the pair is the one upstream tests. go.etcd.io/etcd/server/v3 has ../api-style
# replaces too, so it is built from a module that requires it.
etcd_version=$(sed -n 's#^[[:space:]]*go\.etcd\.io/etcd/client/v3 \(v3\.[0-9.]*\).*#\1#p' "$k8s_gomod" | head -n1)
[[ -n "$etcd_version" ]] || fail "k8s.io/kubernetes v$version names no etcd client version"
cd "$work/etcd"
run go mod init opgen.dev/etcd-build || fail "go mod init failed"
run go mod edit -require="go.etcd.io/etcd/server/v3@$etcd_version" || fail "go mod edit failed"
cat >tools.go <<GO
//go:build tools

package tools

import _ "go.etcd.io/etcd/server/v3"
GO
run go build "${no_debug_info[@]}" -ldflags "-s -w" -o "$dir.tmp/etcd" go.etcd.io/etcd/server/v3 \
  || fail "building etcd $etcd_version failed"

"$dir.tmp/kube-apiserver" --version >>"$log" 2>&1 || fail "the built kube-apiserver does not run"
"$dir.tmp/etcd" --version >>"$log" 2>&1 || fail "the built etcd does not run"
printf 'kubernetes v%s\netcd %s\n' "$version" "$etcd_version" >"$dir.tmp/.complete"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
rm -rf "$work"
echo "setup-envtest: kube-apiserver v$version, kubectl v$version, etcd $etcd_version in $dir" >&2
echo "$dir"
