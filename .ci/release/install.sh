#!/bin/sh
# Installs the shiro binary for this machine (docs/release.md):
#
#   curl -fsSL https://github.com/shiro-neko/shiro/releases/latest/download/install.sh | sh
#   curl -fsSL …/install.sh | sh -s -- --dir ~/bin
#
# Detects the OS, the CPU (x64 or arm64; AVX2 or baseline) and the C library (glibc or musl),
# downloads that archive and SHA256SUMS from the release base, verifies the checksum, and only then
# writes `shiro` into the install folder (default ~/.local/bin), atomically. Any failure stops
# with one line on stderr and leaves nothing behind. POSIX sh: runs under dash, bash, busybox ash.
#
# Options:  --dir DIR        install folder (or SHIRO_INSTALL_DIR)
#           --base URL|PATH  release location (or SHIRO_INSTALL_BASE): a URL, file:// URL or folder
#           --target NAME    skip detection (or SHIRO_INSTALL_TARGET), e.g. linux-x64-baseline
set -eu

DEFAULT_BASE="https://github.com/shiro-neko/shiro/releases/latest/download"
TARGETS="linux-x64 linux-x64-baseline linux-x64-musl linux-arm64 darwin-x64 darwin-arm64"

base="${SHIRO_INSTALL_BASE:-$DEFAULT_BASE}"
dir="${SHIRO_INSTALL_DIR:-${HOME:-}/.local/bin}"
target="${SHIRO_INSTALL_TARGET:-}"
tmp=""

die() {
  printf 'shiro install: %s\n' "$*" >&2
  exit 1
}

usage() {
  cat <<EOF
usage: install.sh [--dir DIR] [--base URL|PATH] [--target NAME]
  --dir DIR      install folder (default ~/.local/bin; env SHIRO_INSTALL_DIR)
  --base URL     release location (default $DEFAULT_BASE; env SHIRO_INSTALL_BASE)
  --target NAME  one of: $TARGETS (default: detected; env SHIRO_INSTALL_TARGET)
EOF
}

while [ $# -gt 0 ]; do
  case "$1" in
    --dir) [ $# -ge 2 ] || die "--dir needs a folder"; dir="$2"; shift 2 ;;
    --dir=*) dir="${1#--dir=}"; shift ;;
    --base) [ $# -ge 2 ] || die "--base needs a URL or folder"; base="$2"; shift 2 ;;
    --base=*) base="${1#--base=}"; shift ;;
    --target) [ $# -ge 2 ] || die "--target needs a name"; target="$2"; shift 2 ;;
    --target=*) target="${1#--target=}"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) printf 'shiro install: unknown option %s (see --help)\n' "$1" >&2; exit 2 ;;
  esac
done
[ -n "$dir" ] || die "no install folder: HOME is not set; pass --dir DIR"
base="${base%/}"

is_musl() {
  if command -v ldd >/dev/null 2>&1; then
    ldd --version 2>&1 | grep -qi musl
  else
    ls /lib/ld-musl-* >/dev/null 2>&1
  fi
}

has_avx2() {
  grep -qw avx2 /proc/cpuinfo 2>/dev/null
}

detect_target() {
  os_name="$(uname -s 2>/dev/null || echo unknown)"
  machine="$(uname -m 2>/dev/null || echo unknown)"
  case "$os_name" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    MINGW*|MSYS*|CYGWIN*|Windows_NT) die "on Windows, run in PowerShell: irm $base/install.ps1 | iex" ;;
    *) die "no shiro build for $os_name $machine (builds: $TARGETS windows-x64); build from source: docs/release.md" ;;
  esac
  case "$machine" in
    x86_64|amd64) arch=x64 ;;
    aarch64|arm64) arch=arm64 ;;
    *) die "no shiro build for $os_name $machine (builds: $TARGETS windows-x64); build from source: docs/release.md" ;;
  esac
  # A 64-bit kernel may run a 32-bit userland (Raspberry Pi OS), where no arm64 binary runs.
  if [ "$arch" = arm64 ] && [ "$(getconf LONG_BIT 2>/dev/null || echo 64)" = 32 ]; then
    die "no shiro build for a 32-bit userland on $machine (builds: $TARGETS); build from source: docs/release.md"
  fi
  # A shell under Rosetta on an Apple Silicon Mac reports x86_64; the arm64 build is the right one.
  if [ "$os" = darwin ] && [ "$arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || echo 0)" = 1 ]; then
    arch=arm64
  fi
  variant=""
  if [ "$os" = linux ]; then
    if is_musl; then
      [ "$arch" = x64 ] || die "no shiro build for musl libc on $machine (builds: $TARGETS); build from source: docs/release.md"
      variant="-musl"
    elif [ "$arch" = x64 ] && ! has_avx2; then
      variant="-baseline"
    fi
  fi
  printf '%s-%s%s\n' "$os" "$arch" "$variant"
}

# fetch SOURCE DEST: SOURCE is a URL or a path under a local release folder.
fetch() {
  case "$1" in
    http://*|https://*)
      if command -v curl >/dev/null 2>&1; then
        curl -fsSL --retry 2 -o "$2" "$1" 2>/dev/null
      elif command -v wget >/dev/null 2>&1; then
        wget -q -O "$2" "$1" 2>/dev/null
      else
        die "neither curl nor wget is installed; install one and run this again"
      fi ;;
    file://*) cp "${1#file://}" "$2" 2>/dev/null ;;
    *) cp "$1" "$2" 2>/dev/null ;;
  esac
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  elif command -v openssl >/dev/null 2>&1; then
    openssl dgst -sha256 -r "$1" | cut -d ' ' -f 1
  else
    die "no sha256sum, shasum or openssl to verify the download; install one and run this again"
  fi
}

if [ -z "$target" ]; then
  target="$(detect_target)" || exit 1
fi
case " $TARGETS " in
  *" $target "*) ;;
  *) die "unknown target \"$target\" (builds: $TARGETS; windows-x64 installs with install.ps1)" ;;
esac
archive="shiro-$target.tar.gz"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/shiro-install.XXXXXX")" || die "cannot create a temp folder; set TMPDIR to a writable folder"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

fetch "$base/SHA256SUMS" "$tmp/SHA256SUMS" || die "cannot download $base/SHA256SUMS; check the network or SHIRO_INSTALL_BASE"
fetch "$base/$archive" "$tmp/$archive" || die "cannot download $base/$archive (no build for $target in this release?)"
expected="$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1; exit }' "$tmp/SHA256SUMS")"
[ -n "$expected" ] || die "SHA256SUMS at $base lists no $archive; nothing was installed"
actual="$(sha256_of "$tmp/$archive")"
[ "$actual" = "$expected" ] || die "checksum mismatch for $archive (expected $expected, got $actual); nothing was installed"

mkdir "$tmp/x"
tar -xzf "$tmp/$archive" -C "$tmp/x" shiro 2>/dev/null || die "$archive does not hold a shiro binary; nothing was installed"
[ -f "$tmp/x/shiro" ] || die "$archive does not hold a shiro binary; nothing was installed"

mkdir -p "$dir" 2>/dev/null || die "cannot create $dir; pass --dir with a folder you can write"
staged="$dir/.shiro-install.$$"
if ! cp "$tmp/x/shiro" "$staged" 2>/dev/null || ! chmod 755 "$staged" || ! mv -f "$staged" "$dir/shiro"; then
  rm -f "$staged"
  die "cannot write $dir/shiro; pass --dir with a folder you can write"
fi

if version="$("$dir/shiro" --version 2>/dev/null)"; then
  echo "installed $version"
  echo "  to $dir/shiro"
elif [ "$target" = linux-x64-musl ]; then
  echo "installed $dir/shiro ($target); it needs the C++ runtime: apk add libstdc++ libgcc"
else
  echo "installed $dir/shiro ($target), but it did not start; see docs/release.md"
fi

case ":${PATH:-}:" in
  *":$dir:"*) ;;
  *)
    case "${SHELL:-}" in
      */zsh) rc="~/.zshrc" ;;
      */bash) rc="~/.bashrc" ;;
      */fish) rc="" ;;
      *) rc="~/.profile" ;;
    esac
    if [ -z "$rc" ]; then
      echo "$dir is not on PATH; add it: fish_add_path $dir"
    else
      echo "$dir is not on PATH; add it: echo 'export PATH=\"$dir:\$PATH\"' >> $rc  (then open a new shell)"
    fi ;;
esac
