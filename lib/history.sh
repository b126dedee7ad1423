#!/usr/bin/env bash
# history: the change-point detection of history.sh runs in its own Python environment.
#
#   history::ensure_otava
#     Makes the virtual environment lib/history.py runs in ($BARRAGE_OTAVA_VENV, default
#     .cache/otava-venv, git-ignored) with Apache Otava $HISTORY_OTAVA_VERSION from PyPI, unless
#     it is there already. Its pins (numpy, scipy, cloud clients) are heavy: kept apart from the
#     schema validator's venv. Prints nothing on stdout; returns 1 (with a message) if it cannot.
#   history::python
#     Prints the path of that environment's python.
# Depends on lib/log.sh.

HISTORY_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
HISTORY_OTAVA_VENV=${BARRAGE_OTAVA_VENV:-$(dirname "$HISTORY_LIB_DIR")/.cache/otava-venv}
HISTORY_OTAVA_VERSION=0.8.0

history::python() { printf '%s\n' "$HISTORY_OTAVA_VENV/bin/python"; }

history::ensure_otava() {
  local python=$HISTORY_OTAVA_VENV/bin/python
  # the pinned version, not whatever an older venv holds
  [[ -x $python ]] && "$python" -c "import importlib.metadata as m, sys; sys.exit(m.version('apache-otava') != '$HISTORY_OTAVA_VERSION')" 2>/dev/null \
    && return 0
  log::info "installing apache-otava $HISTORY_OTAVA_VERSION into $HISTORY_OTAVA_VENV (change-point detection for history.sh; once)"
  if ! python3 -m venv "$HISTORY_OTAVA_VENV" >&2; then
    log::error "python3 -m venv failed: install python3-venv (apt-get install -y python3-venv)"
    return 1
  fi
  "$python" -m pip install -q "apache-otava==$HISTORY_OTAVA_VERSION" >&2 \
    || { log::error "pip could not install apache-otava $HISTORY_OTAVA_VERSION into $HISTORY_OTAVA_VENV"; return 1; }
}
