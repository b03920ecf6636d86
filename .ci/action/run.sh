#!/bin/sh
# The steps of the shiro GitHub Action (action.yml) and of the GitLab CI template, as one POSIX sh
# script a test runs locally (docs/ci.md):
#
#   1. install the pinned release with install.sh (the archive's checksum is verified there),
#   2. run one headless turn: shiro -p "$INPUT_PROMPT" --output-format json $INPUT_ARGS,
#   3. write the answer to $GITHUB_STEP_SUMMARY (when set) and to $OUT/answer.md,
#   4. export the session's transcript to $OUT/transcript.md and $OUT/transcript.html
#      (action.yml uploads $OUT as an artifact; GitLab keeps it as the job's artifacts),
#   5. write outputs to $GITHUB_OUTPUT (when set), and exit with shiro's exit code.
#
# Inputs (environment):
#   INPUT_PROMPT             the prompt (required)
#   INPUT_VERSION            the release to install, e.g. 0.1.0 (required unless INPUT_RELEASE_BASE)
#   INPUT_RELEASE_BASE       where the release lives: a URL or folder (default: the GitHub release of INPUT_VERSION)
#   INPUT_ARGS               more flags for shiro, split on spaces (e.g. --max-cost 0.50 --allowed-tools Read)
#   INPUT_WORKING_DIRECTORY  the folder shiro works in (default: the current one)
#   SHIRO_CI_OUT             where the files go (default: $RUNNER_TEMP/shiro, else ./shiro-out)
# Files left in $OUT: answer.md, result.json (the --output-format json object), transcript.md,
# transcript.html, shiro.log (shiro's stderr), bin/shiro.
set -eu

die() {
  printf 'shiro action: %s\n' "$*" >&2
  exit 1
}

[ -n "${INPUT_PROMPT:-}" ] || die "the prompt input is empty"
version="${INPUT_VERSION:-}"
base="${INPUT_RELEASE_BASE:-}"
if [ -z "$base" ]; then
  [ -n "$version" ] || die "set the version input (a release such as 0.1.0) or release-base"
  base="https://github.com/shiro-neko/shiro/releases/download/v${version#v}"
fi
out="${SHIRO_CI_OUT:-${RUNNER_TEMP:+$RUNNER_TEMP/shiro}}"
out="${out:-shiro-out}"
mkdir -p "$out/bin"
out="$(cd "$out" && pwd)"

here="$(cd "$(dirname "$0")" && pwd)"
installer="$here/../release/install.sh"
if [ ! -f "$installer" ]; then
  installer="$out/install.sh"
  case "$base" in
    http://*|https://*) curl -fsSL --retry 2 -o "$installer" "$base/install.sh" || die "cannot download $base/install.sh" ;;
    *) cp "$base/install.sh" "$installer" || die "no install.sh in $base" ;;
  esac
fi
sh "$installer" --base "$base" --dir "$out/bin" >"$out/install.log" 2>&1 || die "install failed: $(tail -n 1 "$out/install.log")"
shiro="$out/bin/shiro"
echo "shiro action: $("$shiro" --version)"

[ -z "${INPUT_WORKING_DIRECTORY:-}" ] || cd "$INPUT_WORKING_DIRECTORY"
code=0
# shellcheck disable=SC2086 # INPUT_ARGS is a list of flags, split on purpose
"$shiro" -p "$INPUT_PROMPT" --output-format json --output-last-message "$out/answer.md" ${INPUT_ARGS:-} >"$out/result.json" 2>"$out/shiro.log" || code=$?
cat "$out/shiro.log" >&2

field() {
  sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p" "$out/result.json" | head -n 1
}
session="$(field session_id)"
stop="$(field stop)"
[ -f "$out/answer.md" ] || : >"$out/answer.md"
if [ -n "$session" ]; then
  "$shiro" export "$session" -o "$out/transcript.md" >/dev/null 2>>"$out/shiro.log" || true
  "$shiro" export "$session" -o "$out/transcript.html" >/dev/null 2>>"$out/shiro.log" || true
fi

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  {
    printf '## shiro\n\n'
    cat "$out/answer.md"
    printf '\n\n<sub>stop: %s · exit %s · session %s</sub>\n' "${stop:-none}" "$code" "${session:-none}"
  } >>"$GITHUB_STEP_SUMMARY"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "exit-code=$code"
    echo "session-id=$session"
    echo "stop=$stop"
    echo "answer-file=$out/answer.md"
    echo "result-file=$out/result.json"
    echo "out-dir=$out"
  } >>"$GITHUB_OUTPUT"
fi
exit "$code"
