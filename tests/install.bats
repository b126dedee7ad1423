#!/usr/bin/env bats
# barrage installed alone (issue 52): the man page (mandoc's lint, and the same options as
# `barrage --help`, both ways), make install / uninstall under DESTDIR and PREFIX, and the
# bash completions (bash's own complete and the completion function, as bash calls it).
# No server, no timing.

load test_helper

setup() {
  common_setup "install test"
  BARRAGE=$ROOT/client/build/barrage
  MAN=$ROOT/client/man/barrage.1
  [[ -x $BARRAGE ]] || fail_setup "build barrage first (make -C client)"
}

teardown() { common_teardown; }

fail_setup() { echo "$*" >&2; return 1; }

# help_options: every option `barrage --help` lists, one a line, sorted: the option column (the
# text before the first two spaces) of the lines that start with a dash, indented less than
# the descriptions. "--cert FILE --key FILE" and "--jwt-kid, --jwt-iss ..." give each name.
help_options() {
  "$BARRAGE" --help | awk 'match($0, /^ +-/) && RLENGTH < 11 { sub(/^ +/, ""); split($0, p, /  +/); print p[1] }' \
    | grep -oE -- '(^|[ ,])--?[A-Za-z0-9][A-Za-z0-9-]*' | tr -d ' ,' | LC_ALL=C sort -u
}

# man_options FILE: every option an .It line of the page's OPTIONS section names (each "Fl x"
# there is -x; "Fl \-name" is --name), one a line, sorted.
man_options() {
  awk '/^\.Sh / { in_options = ($2 == "OPTIONS") } in_options && /^\.It Fl / {
         for (i = 2; i <= NF; i++) if ($(i - 1) == "Fl") { o = $i; sub(/^\\/, "", o); print "-" o } }' "$1" \
    | LC_ALL=C sort -u
}

@test "install: barrage(1) and barrage-suite(7) are mandoc -T lint clean" {
  command -v mandoc || skip "mandoc is missing (run-tests.sh deps installs it)"
  # STYLE included; only a cross-reference to a page this machine lacks (wrk(1)) is let through
  run bash -c 'mandoc -T lint "$@" 2>&1 | grep -v -e "referenced manual not found" -e "mandoc.db"' _ \
    "$MAN" "$ROOT/docs/barrage-suite.7"
  echo "$output"
  [ -z "$output" ]
  [ "$(help_options | wc -l)" -gt 60 ]
}

@test "install: the man page names every option of --help, and --help every option of the page" {
  local only_help only_man
  only_help=$(LC_ALL=C comm -23 <(help_options) <(man_options "$MAN"))
  only_man=$(LC_ALL=C comm -13 <(help_options) <(man_options "$MAN"))
  [[ -z $only_help ]] || echo "in barrage --help, missing from client/man/barrage.1: $only_help"
  [[ -z $only_man ]] || echo "in client/man/barrage.1, not in barrage --help: $only_man"
  [ -z "$only_help" ]
  [ -z "$only_man" ]
  # the extraction itself: both sides see the options at the ends of the help text
  help_options | grep -qx -- --connections
  man_options "$MAN" | grep -qx -- --jwt-exp
}

@test "install: make install puts binary, page, completion and docs under DESTDIR/PREFIX; uninstall removes them" {
  local dest="$TMP/dest dir" prefix=/opt/barrage
  run make -s -C "$ROOT/client" install DESTDIR="$dest" PREFIX="$prefix"
  echo "$output"
  [ "$status" -eq 0 ]
  [ -x "$dest$prefix/bin/barrage" ]
  "$dest$prefix/bin/barrage" --version | grep -q '^barrage '
  cmp "$MAN" "$dest$prefix/share/man/man1/barrage.1"
  [ -f "$dest$prefix/share/bash-completion/completions/barrage" ]
  local doc
  for doc in README.md FLOWS.md SCRIPTING.md; do cmp "$ROOT/client/$doc" "$dest$prefix/share/doc/barrage/$doc"; done
  # man finds the page where it was put
  run man -w -M "$dest$prefix/share/man" barrage
  [ "$status" -eq 0 ]
  [ "$output" = "$dest$prefix/share/man/man1/barrage.1" ]
  run make -s -C "$ROOT/client" uninstall DESTDIR="$dest" PREFIX="$prefix"
  [ "$status" -eq 0 ]
  run find "$dest" -type f
  echo "left: $output"
  [ -z "$output" ]
}

@test "install: the completion files are shellcheck clean bash" {
  cd "$ROOT"
  run shellcheck -x -s bash client/completion/barrage lib/completion.bash
  echo "$output"
  [ "$status" -eq 0 ]
}

# complete_words WORD...: what bash offers for the command line WORD... (the last word the one
# being completed), by the function `complete -p` names for the command, called as bash calls
# it; one a line, sorted.
complete_words() {
  local spec fn
  # bash looks the command up as typed, then by its base name
  spec=$(complete -p "$1" 2>/dev/null || complete -p "$(basename "$1")") || return 1
  fn=$(sed -nE 's/.* -F ([^ ]+) .*/\1/p' <<<"$spec")
  COMP_WORDS=("$@")
  COMP_CWORD=$(($# - 1))
  COMP_LINE="$*"
  COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  "$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
  printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort
}

@test "install: barrage's completion offers --help's options and their value sets" {
  # shellcheck source=client/completion/barrage
  source "$ROOT/client/completion/barrage"
  complete -p barrage | grep -q -- '-F _barrage'
  # every option --help lists, none other
  diff <(help_options) <(complete_words "$BARRAGE" -)
  [ "$(complete_words "$BARRAGE" --arr)" = --arrival ]
  [ "$(complete_words "$BARRAGE" --arrival '' | tr '\n' ' ')" = "even poisson " ]
  [ "$(complete_words "$BARRAGE" --hdr-log-unit u)" = us ]
  [ "$(complete_words "$BARRAGE" --jwt-alg '' | tr '\n' ' ')" = "ES256 HS256 RS256 " ]
  # a file for --flow (the test's folder, whose name has a space), nothing for a number
  : >"$TMP/checkout.flow"
  [ "$(complete_words "$BARRAGE" --flow "$TMP/check")" = "$TMP/checkout.flow" ]
  [ -z "$(complete_words "$BARRAGE" -c '')" ]
}

# shellcheck disable=SC2031 # bats' own lines array, not one the sourced completion sets
@test "install: run-benchmarks.sh's completion offers its options and the tree's servers, scenarios, tools, protocols, variants" {
  # shellcheck source=lib/completion.bash
  source "$ROOT/lib/completion.bash"
  complete -p ./run-benchmarks.sh | grep -q -- '-F completion::run_benchmarks'
  cd "$ROOT"
  diff <(./run-benchmarks.sh --help | sed -nE 's/^  (-h, )?(--[a-z0-9-]+).*/\2/p' | LC_ALL=C sort) \
    <(complete_words ./run-benchmarks.sh -)
  complete_words ./run-benchmarks.sh --tool '' | grep -qx barrage
  complete_words ./run-benchmarks.sh --tool '' | grep -qx all
  [ "$(complete_words ./run-benchmarks.sh --protocol h2 | tr '\n' ' ')" = "h2 h2c " ]
  complete_words ./run-benchmarks.sh --scenarios size- | grep -qx size-sweep
  complete_words ./run-benchmarks.sh --scenarios size- | grep -qx size-1k
  # the sets are the tree's at completion time: a server added now is offered, with its variants
  local tree="$TMP/servers"
  mkdir -p "$tree/zeta" "$tree/alpha"
  : >"$tree/zeta/server.properties"
  : >"$tree/alpha/server.properties"
  printf 'name\tjvm_options\tenv\tproperties\tdescription\nquick\t-\t-\t-\tq\nslow\t-\t-\t-\ts\n' >"$tree/zeta/variants.tsv"
  export BARRAGE_SERVERS_DIR=$tree
  [ "$(complete_words ./run-benchmarks.sh --servers '' | tr '\n' ' ')" = "alpha zeta " ]
  [ "$(complete_words ./run-benchmarks.sh --servers alpha,z)" = "alpha,zeta" ]
  [ "$(complete_words ./run-benchmarks.sh --variants zeta: | tr '\n' ' ')" = "zeta:* zeta:quick zeta:slow " ]
  [ "$(complete_words ./run-benchmarks.sh --variants '*:s')" = "*:slow" ]
}
