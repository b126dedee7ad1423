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
# Depends on lib/log.sh (and sources lib/deps.sh).

HISTORY_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/deps.sh
source "$HISTORY_LIB_DIR/deps.sh"
HISTORY_OTAVA_VENV=${BARRAGE_OTAVA_VENV:-$(dirname "$HISTORY_LIB_DIR")/.cache/otava-venv}
HISTORY_OTAVA_VERSION=0.8.0

history::python() { printf '%s\n' "$HISTORY_OTAVA_VENV/bin/python"; }

history::ensure_otava() {
  deps::ensure_venv "$HISTORY_OTAVA_VENV" apache-otava "$HISTORY_OTAVA_VERSION" "change-point detection for history.sh"
}
