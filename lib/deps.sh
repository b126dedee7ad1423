#!/usr/bin/env bash
# deps: make sure the commands the suite needs are present.
#
#   deps::ensure CMD:PACKAGE...
#     For every CMD not on PATH, collects its Debian PACKAGE. When anything is
#     missing: as root on Debian, runs apt-get update (once) and apt-get install;
#     otherwise prints the exact install command. Returns 0 when everything is
#     present afterwards, 1 otherwise.
#   deps::ensure_pkgconfig NAME:PACKAGE...
#     The same for development libraries, checked with pkg-config (or, for
#     libraries without a .pc file, a header path: NAME may be an absolute path).
#   deps::ensure_packages PACKAGE...
#     Installs Debian packages that have no command to probe (dpkg -s check).
#   deps::ensure_venv VENV PACKAGE VERSION WHY
#     A Python virtual environment at VENV with PACKAGE==VERSION from PyPI (the pinned
#     version, not whatever an older venv holds), made unless it is there already; WHY says
#     what for, in the one line logged when it installs. Prints nothing on stdout; returns 1
#     (with a message) if it cannot.
#   deps::ensure_go_tool DIR MODULE/PATH@VERSION
#     The Go program at MODULE/PATH, VERSION a pinned tag, built once by `go install` (from the
#     Go module proxy) into DIR/NAME@VERSION/, NAME the path's last part; prints the program's
#     path. Installs Go (Debian's golang-go) first when go is missing. Returns 1 (with a
#     message) if it cannot.
# Depends on lib/log.sh.

# actionlint, the GitHub Actions workflow linter tests/ci.bats runs (Go 1.18 or newer builds it)
# shellcheck disable=SC2034 # read by run-tests.sh's deps stage and tests/ci.bats
DEPS_ACTIONLINT=github.com/rhysd/actionlint/cmd/actionlint@v1.7.7

DEPS_APT_UPDATED=${DEPS_APT_UPDATED:-0}

# deps::_install PACKAGE... : install or explain; returns 0 on success.
deps::_install() {
  local pkgs=("$@")
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    log::info "installing: ${pkgs[*]}"
    if [[ $DEPS_APT_UPDATED -eq 0 ]]; then
      DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 || return 1
      DEPS_APT_UPDATED=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >&2 || return 1
    return 0
  fi
  log::error "missing packages: ${pkgs[*]}"
  log::error "install them with: sudo apt-get install -y ${pkgs[*]}"
  return 1
}

deps::ensure() {
  local spec missing=()
  for spec in "$@"; do
    command -v "${spec%%:*}" >/dev/null 2>&1 || missing+=("${spec#*:}")
  done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  local unique
  mapfile -t unique < <(printf '%s\n' "${missing[@]}" | sort -u)
  deps::_install "${unique[@]}" || return 1
  for spec in "$@"; do
    command -v "${spec%%:*}" >/dev/null 2>&1 || { log::error "still missing after install: ${spec%%:*}"; return 1; }
  done
}

deps::ensure_pkgconfig() {
  local spec name missing=()
  for spec in "$@"; do
    name=${spec%%:*}
    if [[ $name == /* ]]; then [[ -e $name ]] || missing+=("${spec#*:}")
    else pkg-config --exists "$name" 2>/dev/null || missing+=("${spec#*:}")
    fi
  done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  local unique
  mapfile -t unique < <(printf '%s\n' "${missing[@]}" | sort -u)
  deps::_install "${unique[@]}"
}

deps::ensure_packages() {
  local pkg missing=()
  for pkg in "$@"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  deps::_install "${missing[@]}"
}

deps::ensure_venv() {
  local venv=$1 package=$2 version=$3 why=$4
  local python=$venv/bin/python
  [[ -x $python ]] && "$python" - "$package" "$version" 2>/dev/null <<'PY' && return 0
import importlib.metadata as m, sys
sys.exit(m.version(sys.argv[1]) != sys.argv[2])
PY
  log::info "installing $package $version into $venv ($why; once)"
  if ! python3 -m venv "$venv" >&2; then
    log::error "python3 -m venv failed: install python3-venv (apt-get install -y python3-venv)"
    return 1
  fi
  "$python" -m pip install -q "$package==$version" >&2 \
    || { log::error "pip could not install $package $version into $venv"; return 1; }
}

deps::ensure_go_tool() {
  local dir=$1 module=$2 name
  name=${module%@*}
  name=${name##*/}
  local bin="$dir/$name@${module##*@}"
  if [[ ! -x $bin/$name ]]; then
    deps::ensure go:golang-go || return 1
    log::info "building $module into $bin (once)"
    if ! mkdir -p -- "$bin" || ! GOBIN=$bin GOFLAGS=-mod=mod go install "$module" >&2; then
      log::error "go install $module failed"
      rm -rf -- "$bin"
      return 1
    fi
  fi
  printf '%s\n' "$bin/$name"
}
