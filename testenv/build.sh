#!/usr/bin/env bash
# Builds etcd, kube-apiserver and kube-scheduler from the Go module beside this
# script, and Kueue's controller manager from the second module in kueue/ (its
# k8s.io/* versions differ from k8s.io/kubernetes's), into a cache folder outside
# the source tree and prints that folder on the last line of stdout (nothing else
# goes to stdout; progress goes to stderr). Kueue's CRDs and webhook
# configurations are copied from its module into kueue-config/ beside the binaries.
#
#   bin=$(testenv/build.sh | tail -n 1)
#   testenv/build.sh --locate    # prints the folder if it is built, else exits 1; never builds
#
# The folder is
#   ${TOPOSCHED_TESTENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toposched-testenv}/<key>/bin
# where <key> names the Kubernetes version and hashes go.mod, go.sum, the mains,
# this script and the Go version: a folder that exists is complete (it is
# renamed into place only after a whole build) and is reused as it is.
set -euo pipefail

say() { printf 'testenv: %s\n' "$*" >&2; }

key_inputs() {
    go version
    sha256sum go.mod go.sum build.sh kueue/go.mod kueue/go.sum
    find cmd kueue -name '*.go' -type f | LC_ALL=C sort | xargs sha256sum
}

# The whole script is one function, read before it runs: bash reads a script
# as it goes, so an edit during a long build would otherwise derail its end.
main() {
    case "${1:-}" in
        "" | --locate) ;;
        *) say "usage: build.sh [--locate]"; return 2 ;;
    esac
    local here
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    cd "$here"

    # go.mod's `go` line is 1.26.0: the installed Go 1.26 builds it. Should a
    # new release need a newer Go, export GOTOOLCHAIN here (e.g. go1.27.3) so
    # the go command fetches that toolchain through the module proxy.
    export GOFLAGS="${GOFLAGS:-} -mod=readonly"

    local kube_version kube_minor key cache_root target
    kube_version=$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ { print $2; exit }' go.mod)
    if [[ -z "$kube_version" ]]; then
        say "go.mod has no k8s.io/kubernetes requirement"
        return 1
    fi
    kube_minor=${kube_version#v1.}
    kube_minor=${kube_minor%%.*}
    key="kube-${kube_version}-$(key_inputs | sha256sum | cut -c1-16)"
    cache_root="${TOPOSCHED_TESTENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toposched-testenv}"
    target="$cache_root/$key/bin"

    local kueue_version
    kueue_version=$(awk '$1 == "require" && $2 == "sigs.k8s.io/kueue" { print $3; exit }' kueue/go.mod)
    if [[ -z "$kueue_version" ]]; then
        say "kueue/go.mod has no sigs.k8s.io/kueue requirement"
        return 1
    fi

    if [[ -x "$target/kube-apiserver" && -x "$target/kube-scheduler" && -x "$target/etcd" && -x "$target/kueue" ]]; then
        if [[ "${1:-}" != "--locate" ]]; then say "reusing $target"; fi
        printf '%s\n' "$target"
        return 0
    fi
    if [[ "${1:-}" == "--locate" ]]; then
        say "not built yet: run $here/build.sh"
        return 1
    fi

    mkdir -p "$cache_root/$key"
    # One build at a time per key: a second caller waits, then finds the folder.
    exec 9>"$cache_root/$key/.lock"
    flock 9
    if [[ ! -d "$target" ]]; then
        local staging
        staging=$(mktemp -d "$cache_root/$key/bin.partial.XXXXXX")
        chmod 755 "$staging"  # mktemp makes it private; the binaries are for every user
        # shellcheck disable=SC2064  # the folder is fixed now
        trap "rm -rf '$staging'" EXIT
        say "building etcd, kube-apiserver and kube-scheduler ${kube_version} and Kueue ${kueue_version} into $target (a cold build takes minutes)"
        local version_flags=(
            "-X k8s.io/component-base/version.gitVersion=${kube_version}"
            "-X k8s.io/component-base/version.gitMajor=1"
            "-X k8s.io/component-base/version.gitMinor=${kube_minor}"
            "-X k8s.io/component-base/version.gitTreeState=clean"
        )
        # nice: other work on the machine keeps its share of the cores.
        nice -n 10 go build -trimpath -ldflags="-s -w ${version_flags[*]}" \
            -o "$staging/" ./cmd/etcd ./cmd/kube-apiserver ./cmd/kube-scheduler >&2
        say "building Kueue's manager ${kueue_version}"
        local kueue_dir
        kueue_dir=$(cd kueue && go list -m -f '{{.Dir}}' sigs.k8s.io/kueue)
        (cd kueue && nice -n 10 go build -trimpath \
            -ldflags="-s -w -X sigs.k8s.io/kueue/pkg/version.GitVersion=${kueue_version}" \
            -o "$staging/kueue" sigs.k8s.io/kueue/cmd/kueue) >&2
        mkdir -p "$staging/kueue-config"
        cp "$kueue_dir"/config/components/crd/bases/*.yaml "$kueue_dir/config/components/webhook/manifests.yaml" \
            "$staging/kueue-config/"
        chmod -R u+w "$staging/kueue-config"  # the module cache is read-only
        mv "$staging" "$target"
        trap - EXIT
        say "built $target"
    fi
    printf '%s\n' "$target"
}

main "$@"
