# shellcheck shell=bash
# completion: bash completion for the suite's run-benchmarks.sh (issue 52). Source it from an
# interactive shell (`source lib/completion.bash`, or a line in ~/.bashrc); it registers
# completion::run_benchmarks for run-benchmarks.sh and ./run-benchmarks.sh.
#
#   completion::run_benchmarks CMD CUR PREV
#     Fills COMPREPLY as `complete -F` wants: the options of `run-benchmarks.sh --help`; after
#     --servers, --scenarios, --tool, --protocol or --variants the names of a known set, read
#     from the tree the command lives in at completion time (servers/*/server.properties,
#     scenarios/scenarios.tsv and its groups, lib/tools/*.sh, the --help text's protocol
#     list, servers/*/variants.tsv), after the comma of a comma list too; file names after an
#     option that takes a file or folder. Returns 0.
#   completion::suite_root CMD
#     The folder of the suite CMD (as typed: ./run-benchmarks.sh, a path, or a name on PATH)
#     runs from, printed; 1 when there is none.
# The set readers run the suite's own modules (lib/servers.sh, lib/scenarios.sh,
# lib/variants.sh) in a subshell: nothing of theirs stays in the interactive shell.

completion::suite_root() {
  local cmd=$1
  [[ $cmd == */* ]] || cmd=$(command -v -- "$cmd") || return 1
  [[ -f $cmd ]] || return 1
  (cd "$(dirname -- "$cmd")" && pwd)
}

# completion::_set SUITE OPTION: the names OPTION takes, one a line (nothing for another option).
completion::_set() {
  local suite=$1 option=$2
  (
    cd "$suite" || exit 1
    export SERVERS_DIR=${BARRAGE_SERVERS_DIR:-$suite/servers}
    # shellcheck source=lib/log.sh
    source lib/log.sh
    # shellcheck source=lib/servers.sh
    source lib/servers.sh
    # shellcheck source=lib/scenarios.sh
    source lib/scenarios.sh
    # shellcheck source=lib/variants.sh
    source lib/variants.sh
    case $option in
      --servers) servers::list ;;
      --scenarios) echo all; scenarios::list; scenarios::groups ;;
      --tool) echo all; for f in lib/tools/*.sh; do basename "$f" .sh; done ;;
      --protocol) ./run-benchmarks.sh --help | sed -nE 's/^ +--protocol [^ ]+ +([a-z0-9|]+).*/\1/p' | tr '|' '\n' ;;
      --variants)
        local server variant
        for server in $(servers::list); do
          printf '%s\n' "$server" "$server:*"
          for variant in $(variants::names "$server"); do printf '%s\n' "$server:$variant" "*:$variant"; done
        done | awk '!seen[$0]++'
        ;;
    esac
  ) 2>/dev/null
}

completion::run_benchmarks() {
  local cur=${2-} prev=${3-} suite done_part
  COMPREPLY=()
  suite=$(completion::suite_root "$1") || return 0
  case $prev in
    --servers | --scenarios | --tool | --protocol | --variants)
      # a comma list: complete its last item, keep what comes before it
      done_part=''
      [[ $cur == *,* ]] && done_part=${cur%,*},
      mapfile -t COMPREPLY < <(compgen -P "$done_part" -W "$(completion::_set "$suite" "$prev")" -- "${cur##*,}")
      return 0
      ;;
    --lab | --slo | --output) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return 0 ;;
  esac
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$("$suite/run-benchmarks.sh" --help 2>/dev/null \
      | sed -nE 's/^  (-h, )?(--[a-z0-9-]+).*/\2/p')" -- "$cur")
  fi
  return 0
}

complete -F completion::run_benchmarks run-benchmarks.sh ./run-benchmarks.sh
