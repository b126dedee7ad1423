#!/usr/bin/env bash
# log: messages for people, always on stderr (stdout is for data).
#   log::info MSG...   progress and facts
#   log::warn MSG...   something is off but the run goes on
#   log::error MSG...  something failed
#   log::die MSG...    log::error, then exit 1 (entry scripts only)
#   log::safe TEXT...  prints TEXT with its control characters made visible (below), no newline
#   log::lines         copies stdin to stderr, each line made safe (a tool's findings that quote
#                      names and values of a file)
# Colour only when stderr is a terminal and NO_COLOR is unset.
# Every message passes log::safe: a name from a file or the command line (a results file
# named with an escape sequence, a carriage return or a newline) can neither drive the terminal
# nor fake a line. One message is one line; a message of several lines is several calls.

if [[ -t 2 && -z "${NO_COLOR:-}" ]]; then
  LOG_DIM=$'\e[2m' LOG_YELLOW=$'\e[33m' LOG_RED=$'\e[31m' LOG_RESET=$'\e[0m'
else
  LOG_DIM='' LOG_YELLOW='' LOG_RED='' LOG_RESET=''
fi

# What log::safe rewrites: control characters but the tab (C0, DEL: ^X as lib/format.jq's safe; C1 in a
# UTF-8 locale: <U+XXXX>) and, in a UTF-8 locale, Unicode's line separators and bidirectional
# overrides (<U+XXXX>). Built at run time: bash's $'\u...' depends on the locale, and a pattern
# holding a raw \x01 or \x7f byte is mangled by bash's own quoting.
LOG_UNSAFE='[[:cntrl:]]'
printf -v LOG_PROBE '\u00e9'
if ((${#LOG_PROBE} == 1)); then # a UTF-8 locale: é is one character
  # each one named: a range of them is an invalid pattern in some UTF-8 locales (C.UTF-8)
  printf -v LOG_UNSAFE '[[:cntrl:]\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069]'
fi
unset LOG_PROBE
LOG_CARETS='@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_' # ^@ to ^_: control character N is ^ and LOG_CARETS[N]

log::safe() {
  local text="$*" out='' c code i
  # fast path: nothing to rewrite (every message goes through here)
  if [[ ! $text =~ $LOG_UNSAFE ]]; then printf '%s' "$text"; return 0; fi
  for ((i = 0; i < ${#text}; i++)); do
    c=${text:i:1}
    printf -v code '%d' "'$c"
    if ((code == 9)); then : # a tab moves the cursor, no more (Java's stack traces indent with it)
    elif ((code < 32)); then c="^${LOG_CARETS:code:1}"
    elif ((code == 127)); then c='^?'
    elif [[ $c =~ $LOG_UNSAFE ]]; then printf -v c '<U+%04X>' "$code"
    fi
    out+=$c
  done
  printf '%s' "$out"
}

log::info()  { printf '%s==>%s %s\n' "$LOG_DIM" "$LOG_RESET" "$(log::safe "$@")" >&2; }
log::warn()  { printf '%swarning:%s %s\n' "$LOG_YELLOW" "$LOG_RESET" "$(log::safe "$@")" >&2; }
log::error() { printf '%serror:%s %s\n' "$LOG_RED" "$LOG_RESET" "$(log::safe "$@")" >&2; }
log::die()   { log::error "$@"; exit 1; }
log::lines() {
  local line
  while IFS= read -r line || [[ -n $line ]]; do
    [[ ! $line =~ $LOG_UNSAFE ]] || line=$(log::safe "$line")
    printf '%s\n' "$line" >&2
  done
}
