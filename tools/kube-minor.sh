#!/usr/bin/env bash
# Builds the kube-apiserver of one Kubernetes release without a tools module of its
# own (make test-minors, mk/minors.mk):
#
#   tools/kube-minor.sh VERSION OUT LDFLAGS
#
# LDFLAGS are the Makefile's $(call kube_ldflags,VERSION), which set the version GET
# /version answers. In a temporary directory it writes a module such as tools/kube and
# tools/kube-oldest are: k8s.io/kubernetes at VERSION, each module that
# k8s.io/kubernetes's own go.mod replaces with ./staging/... replaced with its
# v0.MINOR.PATCH release, and a tools.go that imports the API server; then `go mod
# tidy` and `go build -ldflags LDFLAGS` into OUT. The checksum database does not serve
# k8s.io/kubernetes and k8s.io/controller-manager: GONOSUMDB names them. The directory
# is removed afterwards.
set -euo pipefail

if [ $# -ne 3 ] || [[ ! $1 =~ ^v1\.([0-9]+)\.([0-9]+)$ ]]; then
	echo "usage: $0 v1.MINOR.PATCH OUT LDFLAGS" >&2
	exit 2
fi
version=$1 out=$2 ldflags=$3
staging=v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}
case $out in /*) ;; *) out=$PWD/$out ;; esac

dir=$(mktemp -d "${TMPDIR:-/tmp}/kube-minor.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
export GONOSUMDB=k8s.io/kubernetes,k8s.io/controller-manager GOFLAGS=-mod=mod

# k8s.io/kubernetes's go.mod, from the module proxy (which refuses some versions
# with 403).
if ! info=$(go mod download -json "k8s.io/kubernetes@$version"); then
	echo "k8s.io/kubernetes@$version: $(sed -nE 's/^[[:space:]]*"Error": "(.*)",?$/\1/p' <<<"$info")" >&2
	exit 1
fi
gomod=$(sed -nE 's/^[[:space:]]*"GoMod": "(.*)",?$/\1/p' <<<"$info")
replaces=$(sed -nE "s#^[[:space:]]*(k8s\.io/[^ ]+) => \./staging/.*#\t\1 => \1 $staging#p" "$gomod")
if [ -z "$replaces" ]; then
	echo "k8s.io/kubernetes@$version: its go.mod ($gomod) replaces no module with ./staging/..." >&2
	exit 1
fi

{
	echo "module github.com/endpoints-provider/pulumi-endpoints/tools/kube-minor"
	echo
	grep -m 1 -E '^go [0-9.]+$' "$gomod"
	echo
	echo "require k8s.io/kubernetes $version"
	echo
	echo "replace ("
	echo "$replaces"
	echo ")"
} >go.mod
printf '//go:build tools\n\npackage tools\n\nimport _ "k8s.io/kubernetes/cmd/kube-apiserver"\n' >tools.go

echo "k8s.io/kubernetes $version: $(grep -c . <<<"$replaces") staging modules at $staging"
go mod tidy
mkdir -p "$(dirname "$out")"
go build -trimpath -ldflags "$ldflags" -o "$out.tmp" k8s.io/kubernetes/cmd/kube-apiserver
mv "$out.tmp" "$out"
