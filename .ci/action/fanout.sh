#!/bin/sh
# One pod of the Kubernetes fan-out (docs/ci.md, .ci/kubernetes/shiro-fanout.yaml): an Indexed Job
# runs this once per repository, and Kubernetes does the scheduling. It takes line
# JOB_COMPLETION_INDEX + 1 of SHIRO_REPOS_FILE (one git URL per line), clones it, and runs one
# headless turn in it through run.sh (beside this script), with the files under $SHIRO_CI_OUT/<index>.
#
# Inputs (environment): JOB_COMPLETION_INDEX, SHIRO_REPOS_FILE, INPUT_PROMPT, INPUT_VERSION or
# INPUT_RELEASE_BASE, INPUT_ARGS, SHIRO_CI_OUT (default /results). Exit code: run.sh's.
set -eu

die() {
  printf 'shiro fanout: %s\n' "$*" >&2
  exit 1
}

index="${JOB_COMPLETION_INDEX:?set JOB_COMPLETION_INDEX (an Indexed Job sets it)}"
repos="${SHIRO_REPOS_FILE:?set SHIRO_REPOS_FILE to a file of git URLs, one a line}"
repo="$(grep -v '^[[:space:]]*\(#\|$\)' "$repos" | sed -n "$((index + 1))p")"
[ -n "$repo" ] || die "no repository on line $((index + 1)) of $repos"
results="${SHIRO_CI_OUT:-/results}/$index"
mkdir -p "$results"
work="$(mktemp -d "${TMPDIR:-/tmp}/shiro-fanout.XXXXXX")"
git clone --quiet --depth 1 "$repo" "$work/repo" || die "cannot clone $repo"
printf '%s\n' "$repo" >"$results/repository.txt"
here="$(cd "$(dirname "$0")" && pwd)"
SHIRO_CI_OUT="$results" INPUT_WORKING_DIRECTORY="$work/repo" exec sh "$here/run.sh"
