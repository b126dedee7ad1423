#!/usr/bin/env bash
# tests/package-deb.sh: barrage's Debian package (client/debian/), built and checked once per
# run-tests.sh run (its package stage: about a minute, most of it the compile), not in a bats
# file. Prints TAP lines ("ok - ..." / "not ok - ..."); exit 0 when all passed.
#
#   tests/package-deb.sh [CLIENT_DIR]   (default: the suite's client/)
#
# Builds with dpkg-buildpackage -b from a copy of CLIENT_DIR without its build/ (the .deb and
# its .changes land beside the copy, in a temp folder, not in the tree), runs lintian (no error,
# no warning), checks the shlibs dependencies, installs the package into a throwaway root
# (dpkg --root, its own empty database), runs the installed barrage --version (the
# changelog's version), finds the page with man -w and the completion, then removes the
# package and checks nothing of it is left. The temp folder goes at the end.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CLIENT=${1:-$ROOT/client}
WORK=''
FAILED=0

on_exit() { [[ -z $WORK ]] || rm -rf -- "$WORK"; }

# check NAME CMD...: an ok / not ok line for CMD; its output shown when it fails.
check() {
  local name=$1 out
  shift
  if out=$("$@" 2>&1); then echo "ok - package: $name"
  else
    echo "not ok - package: $name"
    tail -n 40 <<<"$out" | sed 's/^/# /'
    FAILED=1
    return 1
  fi
}

build() {
  local src=$1
  mkdir -p -- "$src"
  tar -C "$CLIENT" --exclude=./build -cf - . | tar -C "$src" -xf -
  (cd "$src" && dpkg-buildpackage -b -us -uc)
}

depends_on_libraries() {
  local depends
  depends=$(dpkg-deb -f "$1" Depends)
  echo "Depends: $depends"
  [[ $depends == *libc6* && $depends == *libev4* && $depends == *libnghttp2-* && $depends == *libssl3* ]]
}

# a root of its own for dpkg: an empty database, nothing else
dpkg_root() {
  mkdir -p -- "$1/var/lib/dpkg/info" "$1/var/lib/dpkg/updates" "$1/var/lib/dpkg/triggers"
  : >"$1/var/lib/dpkg/status"
  : >"$1/var/lib/dpkg/available"
}

# its dependencies are this machine's, not the throwaway root's: --force-depends
install_into() { dpkg_root "$1" && dpkg --root="$1" --force-depends --force-not-root -i "$2"; }

runs_its_version() {
  local version out
  version=$(dpkg-parsechangelog -l "$CLIENT/debian/changelog" -S Version)
  out=$("$1/usr/bin/barrage" --version)
  echo "$out"
  [[ ${out%%$'\n'*} == "barrage ${version%%-*}" ]]
}

man_finds_it() {
  local found
  found=$(man -w -M "$1/usr/share/man" barrage)
  echo "$found"
  [[ $found == "$1/usr/share/man/man1/barrage.1.gz" ]]
}

removed_from() {
  dpkg --root="$1" --force-not-root -r barrage
  local left
  left=$(find "$1/usr" -type f 2>/dev/null | grep -v '/usr/share/doc/' || true) # the copyright stays until purge
  echo "left: $left"
  [[ -z $left ]]
}

main() {
  trap on_exit EXIT
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/barrage deb.XXXXXX")
  local src="$WORK/barrage" root="$WORK/root" deb
  check "dpkg-buildpackage -b builds the package" build "$src" || { echo "# the other checks need the package"; return 1; }
  deb=$(find "$WORK" -maxdepth 1 -name 'barrage_*.deb' | head -n 1)
  check "lintian finds no error and no warning" lintian --fail-on error,warning "$WORK"/barrage_*.changes || true
  check "it depends on the libraries it links (shlibs)" depends_on_libraries "$deb" || true
  if check "it installs into a throwaway root" install_into "$root" "$deb"; then
    check "the installed barrage --version prints the package's version" runs_its_version "$root" || true
    check "man -w finds barrage(1)" man_finds_it "$root" || true
    check "the bash completion is installed" test -f "$root/usr/share/bash-completion/completions/barrage" || true
    check "dpkg -r removes it" removed_from "$root" || true
  fi
  ((FAILED == 0))
}

main "$@"
