#!/usr/bin/env bash
# log: messages for people, always on stderr (stdout is for data).
#   log::info MSG...   progress and facts
#   log::warn MSG...   something is off but the run goes on
#   log::error MSG...  something failed
#   log::die MSG...    log::error, then exit 1 (entry scripts only)
# Colour only when stderr is a terminal and NO_COLOR is unset.

if [[ -t 2 && -z "${NO_COLOR:-}" ]]; then
  LOG_DIM=$'\e[2m' LOG_YELLOW=$'\e[33m' LOG_RED=$'\e[31m' LOG_RESET=$'\e[0m'
else
  LOG_DIM='' LOG_YELLOW='' LOG_RED='' LOG_RESET=''
fi

log::info()  { printf '%s==>%s %s\n' "$LOG_DIM" "$LOG_RESET" "$*" >&2; }
log::warn()  { printf '%swarning:%s %s\n' "$LOG_YELLOW" "$LOG_RESET" "$*" >&2; }
log::error() { printf '%serror:%s %s\n' "$LOG_RED" "$LOG_RESET" "$*" >&2; }
log::die()   { log::error "$@"; exit 1; }
