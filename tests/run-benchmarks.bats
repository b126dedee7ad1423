#!/usr/bin/env bats
# run-benchmarks.sh: options and their errors, the plan, one server's life on fixture servers
# (tests/fixtures/fake-servers: good, wrong (fails verification), slow (verification lasts as
# long as curl's timeouts), broken (dies at start-up), unbuildable), a busy port, missing
# set-up, invalid records, SIGINT (to the script and to its process group) and SIGTERM while
# measuring, verifying and building, and --quick runs of real servers. Every results file is
# checked with a real JSON Schema validator (lib/schema.sh), and every process the run
# recorded (results/<stamp>.logs/pids) must be gone afterwards.

load test_helper
bats_require_minimum_version 1.5.0

setup_file() { run_setup_file; }

setup() { run_setup; }

teardown() { run_teardown; }

# fake ARGS...: run-benchmarks.sh on the fixture servers, short runs, no server warm-up unless
# ARGS ask for one, results under $TMP/out.
fake() {
  BARRAGE_SERVERS_DIR=$FAKES "$RUN" --port "$PORT" --output "$TMP/out" --duration 1s --warmup 0s \
    --server-warmup 0s --connections 4 "$@"
}

# sourced CODE ARGS...: CODE run by a bash that sourced run-benchmarks.sh (its functions and
# lib/plan.sh's, without main; its strict mode) on the fixture servers and parsed ARGS as its
# options. A shell of its own: in this one, bats' debug trap would slow every line down.
sourced() {
  # shellcheck disable=SC2016 # expanded by that bash
  BARRAGE_SERVERS_DIR=$FAKES bash -c 'source "$1"; parse_options --port "$2" "${@:4}"; eval "$3"' \
    _ "$RUN" "$PORT" "$@"
}

# exact_accounting FILE: every barrage / h2load row keeps the identities that can fail:
# started = requests + aborted (where the record has started), and requests = succeeded +
# failed, failed = 4xx + 5xx + errored, from the record's own fields.
exact_accounting() {
  assert_jq '[.results[] | select(.tool == "barrage" or .tool == "h2load") | .metrics
      | (.started == null or .started == .requests + .aborted)
        and .requests == .succeeded + .failed
        and .failed == .status["4xx"] + .status["5xx"] + ([.errors[] | numbers] | add // 0)]
    | length > 0 and all' "$1"
}

@test "options: --help documents every option" {
  run -0 "$RUN" --help
  local opt
  for opt in --servers --scenarios --tool --protocol --duration --warmup --runs --label --output \
    --description --connections --threads --cpus --quick --list --dry-run --port --seed \
    --server-warmup --aa --variants --jdk --gc --heap --server-cpus --metrics; do
    [[ $output == *"$opt"* ]] || { echo "missing $opt"; return 1; }
  done
}

@test "options: unknown server, scenario, tool or protocol exit 2 listing the valid names" {
  run -2 fake --servers good,nope --dry-run
  [[ $output == *"unknown server 'nope'"* && $output == *"good"* && $output == *"wrong"* ]]
  run -2 fake --scenarios hello,nope --dry-run
  [[ $output == *"unknown scenario 'nope'"* && $output == *"post-load"* && $output == *"large-file"* ]]
  run -2 fake --tool ab --dry-run
  [[ $output == *"unknown tool 'ab'"* && $output == *"h2load"* && $output == *"wrk"* ]]
  run -2 fake --protocol h4 --dry-run
  [[ $output == *"unknown protocol 'h4'"* && $output == *"h1 h2c h1s h2 h3"* ]]
}

@test "options: a server, scenario, tool, protocol or rate given twice exits 2 before anything runs" {
  # measured twice, every row under one key, the first start's log overwritten: refused
  run fake --servers good,good --scenarios hello --tool wrk
  echo "$output"
  [ "$status" -eq 2 ]
  [[ $output == *"server 'good' given twice in 'good,good'"* ]]
  [ ! -e "$TMP/out" ]
  local bad
  for bad in "--scenarios hello,mixed,hello" "--tool wrk,barrage,wrk" "--protocol h1,h1" "--rates 500,600,500"; do
    # shellcheck disable=SC2086 # an option and its value
    run fake --servers good $bad --dry-run
    [ "$status" -eq 2 ] || { echo "'$bad' gave $status: $output"; return 1; }
    [[ $output == *"given twice"* ]] || { echo "'$bad': $output"; return 1; }
  done
}

@test "options: bad values exit 2" {
  local bad
  for bad in "--duration 10x" "--warmup -1" "--runs 0" "--port 99999" "--cpus 0" "--threads x" \
    "--connections 0" "--label a/b" "--bogus 1" "--servers" "--seed -1" "--seed x" "--server-warmup 2h" \
    "--aa --servers good,wrong"; do
    # shellcheck disable=SC2086 # each case is an option and its value
    run sourced : $bad
    [ "$status" -eq 2 ] || { echo "'$bad' gave $status: $output"; return 1; }
  done
  # and so does the script itself
  run -2 fake --duration 10x --dry-run
  [[ $output == *"--duration wants a duration like 30s or 2m, got '10x'"* ]]
}

@test "options: a value beyond what barrage takes exits 2 before anything runs (ranges of lib/spec.tsv)" {
  # barrage refused auto:999999999999s at run time and every server went without a warm-up
  run fake --servers good --scenarios hello --tool wrk --server-warmup auto:999999999999s
  echo "$output"
  [ "$status" -eq 2 ]
  [[ $output == *"--server-warmup wants 0 to 1000000000 s (barrage's limit), got 'auto:999999999999s'"* ]]
  [ ! -e "$TMP/out" ]
  local bad stages
  stages=$(printf '100:1s,%.0s' {1..64})100:1s
  for bad in "--server-warmup 1000000001s" "--duration 16666667m" "--duration 99999999999999999999s" \
    "--warmup 1000000001s" "--connections 1000001" "--threads 1025" "--rate-stages $stages" \
    "--cpus 0:$(nproc)" "--cpus 1-0:0"; do
    # shellcheck disable=SC2086 # an option and its value
    run fake --servers good --scenarios hello --tool barrage $bad --dry-run
    [ "$status" -eq 2 ] || { echo "'$bad' gave $status: $output"; return 1; }
  done
  # the limits themselves are taken
  run fake --servers good --scenarios hello --tool barrage --server-warmup auto:1000000000s --duration 1000000000s \
    --warmup 1000000000s --connections 1000000 --threads 1024 --rate-stages "${stages%,100:1s}" --dry-run --budget none
  [ "$status" -eq 0 ]
}

@test "spec: the ranges lib/spec.tsv declares are barrage's own: it takes each limit and refuses one beyond" {
  make -s -C "$ROOT/client" >&2
  source "$ROOT/lib/log.sh"
  source "$ROOT/lib/spec.sh"
  local key option min max over bin=$ROOT/client/build/barrage checked=0
  # options whose value is barrage's one to one; the URL (refused last) tells a taken value
  while read -r key option; do
    read -r min max <<<"$(spec::range "$key")"
    [[ -n $max ]] || { echo "no range for $key"; return 1; }
    over=$((max + 1))
    if [[ $key == stages ]]; then
      max=$(printf '1:1s,%.0s' $(seq 2 "$max"))1:1s over=$max,1:1s
    elif [[ $option == -d || $option == --warmup* ]]; then max+=s over+=s
    fi
    run "$bin" -c 1024 "$option$max" x://nowhere
    [[ $output == *"URL must start with http"* ]] || { echo "$key: barrage refused $option$max: $output"; return 1; }
    run "$bin" -c 1024 "$option$over" x://nowhere
    [[ $status -eq 2 && $output != *"URL must"* ]] || { echo "$key: barrage took $option$over: $output"; return 1; }
    checked=$((checked + 1))
  done <<'KEYS'
connections --connections=
threads --threads=
streams --streams=
duration_s -d
warmup_s --warmup=
warmup_s --warmup=auto:
rate -R
stages --rate-stages=
KEYS
  [ "$checked" -eq 8 ]
}

@test "options: --list shows servers with protocols and the scenario table" {
  BARRAGE_SERVERS_DIR=$FAKES run "$RUN" --list
  [ "$status" -eq 0 ]
  [[ $output == *"good"*"1.0-test"*"h1"* ]]
  [[ $output == *"high-concurrency"*"1000"* ]]
  [[ $output == *"large-file"*"/file?size=1048576"* ]]
  [[ $output == *"wrk"* && $output == *"h2load"* ]]
}

@test "plan: --dry-run lists every run, skips what a tool cannot express, estimates the time" {
  run -0 fake --servers good --scenarios hello,mixed --tool wrk,h2load --duration 30s --warmup 10s --dry-run
  # the totals first (what it costs), then the runs
  [[ ${lines[0]} == "4 planned runs, 30 s each + 10 s warm-up;"* ]]
  [[ $output == *"good"*"h2load"*"h1"*"mixed"*"skipped: h2load sends one method per run"* ]]
  [[ $output == *"4 planned runs, 30 s each + 10 s warm-up"* ]]
  # 3 x (30 + 10 + 2 s around each run) + 15 s for the server's start and check: the skipped
  # run costs nothing
  [[ $output == *"about 3 min"* ]]
  # h2c only for servers that declare it: the fixture servers are h1 only.
  [[ $output != *h2c* ]]
  [ ! -e "$TMP/out" ]
}

@test "plan: a scenario group (size-sweep) is out of 'all' unless named; its name stands for its scenarios" {
  run -0 fake --servers good --tool wrk --dry-run --budget none
  [[ $output != *size-* && $output != *churn-* && $output != *idle-* ]]
  # every scenario in no group (column 9 empty or "-")
  [ "$(grep -cE '^1 +good +wrk +h1 +' <<<"$output")" -eq "$(awk -F'\t' '!/^#/ && NF && ($9 == "" || $9 == "-")' "$ROOT/scenarios/scenarios.tsv" | wc -l)" ]
  run -0 fake --servers good --tool wrk --scenarios size-sweep --dry-run
  [ "$(grep -E '^1 +good' <<<"$output" | awk '{print $5}' | paste -sd,)" = size-1k,size-16k,size-64k,size-256k,size-1m ]
  run -0 fake --servers good --tool wrk --scenarios hello,size-sweep --dry-run
  [ "$(grep -cE '^1 +good' <<<"$output")" -eq 6 ]
  # a member named beside its group would be measured twice
  run -2 fake --servers good --tool wrk --scenarios size-1k,size-sweep --dry-run
  [[ $output == *"scenario 'size-1k' given twice"* ]]
  # --list shows each scenario's group
  run -0 fake --list
  [[ $output == *"size-64k"*"/file?size=65536"*"size-sweep"* ]]
  # a row records its scenario's group (null for none)
  # shellcheck disable=SC2016 # expanded by that bash
  run -0 sourced 'rows::_config_json_test() { local -A s=([protocol]=h1 [threads]=2 [connections]=16 [streams]=1 [duration_s]=1
      [warmup_s]=0 [scenario]=$1 [request_timeout_s]=2); rows::_config_json s | jq -c "[.endpoint, .group]"; }
    rows::_config_json_test size-16k; rows::_config_json_test hello' --servers good
  [ "$output" = $'["/file?size=16384","size-sweep"]\n["/hello",null]' ]
}

@test "plan: h2c for servers that declare it, only with tools that speak it" {
  run -0 "$RUN" --servers jetty,jdk-httpserver --scenarios hello --tool wrk,h2load --dry-run
  [[ $output == *"jetty"*"h2load"*"h2c"*"hello"* ]]
  [ "$(grep -c 'h2c' <<<"$output")" -eq 1 ]
  run -0 "$RUN" --servers jdk-httpserver --protocol h2c --dry-run
  [[ $output == *"0 planned runs"* ]]
  run -2 "$RUN" --servers jdk-httpserver --protocol h2c --port "$PORT" --output "$TMP/out"
  [[ $output == *"nothing to run"* ]]
}

@test "plan: a tool that lists its matching protocol first and many after still plans the entry (no SIGPIPE under pipefail)" {
  # the old `"$tool::protocols" | grep -qx` failed its pipeline when grep left at the first match
  # and the lister wrote on into the closed pipe: the entry was dropped ("nothing to run" at random)
  # shellcheck disable=SC2016 # run by sourced's bash
  run sourced 'wrk::protocols() { echo h1; seq 100000; }; plan::build; echo "${#PLAN[@]} entries"' \
    --servers good --scenarios hello --tool wrk
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$output" = "1 entries" ]
}

@test "plan: repeated runs interleave the servers in a seeded order rotated each round" {
  # shellcheck disable=SC2016 # run by sourced's bash
  local plan='plan::build; printf "%s\n" "${PLAN[@]}"; printf "order %s\n" "${ROUND_ORDER[@]}"'
  run -0 sourced "$plan" --servers good,wrong,slow --scenarios hello --tool wrk --runs 3 --seed 42
  # round by round, never all runs of one server in a row; each server once in each place
  [ "$(awk -F'\t' 'NF > 1 {printf "%s:%s ", $1, $2}' <<<"$output")" = \
    "1:wrong 1:slow 1:good 2:slow 2:good 2:wrong 3:good 3:wrong 3:slow " ]
  [ "$(grep '^order' <<<"$output" | paste -sd' ')" = "order wrong slow good order slow good wrong order good wrong slow" ]
  # the same seed, the same plan; another seed, another base order
  local first=$output
  run sourced "$plan" --servers good,wrong,slow --scenarios hello --tool wrk --runs 3 --seed 42
  [ "$output" = "$first" ]
  run sourced "$plan" --servers good,wrong,slow --scenarios hello --tool wrk --runs 3 --seed 1
  [[ $output == *"order slow wrong good"* ]]
  # without --seed one is drawn
  # shellcheck disable=SC2016 # run by sourced's bash
  run sourced 'echo "${SETTINGS[seed]}"' --servers good,wrong --scenarios hello --tool wrk
  [[ $output =~ ^[0-9]+$ ]]
  # and printed with every round's order, so that the order can be repeated
  run -0 fake --servers good,wrong,slow --scenarios hello --tool wrk --runs 3 --seed 42 --dry-run
  [[ $output == *"round 1 order (seed 42): wrong slow good"*"round 3 order (seed 42): good wrong slow"* ]]
  run fake --servers good,wrong --scenarios hello --tool wrk --dry-run
  [[ $output =~ round\ 1\ order\ \(seed\ [0-9]+\) ]]
}

@test "plan: sourcing run-benchmarks.sh runs nothing; one entry's run spec has every key a driver reads" {
  run bash -c 'source "$1" --dry-run; echo sourced' _ "$RUN"
  [ "$status" -eq 0 ]
  [ "$output" = sourced ]
  # shellcheck disable=SC2016 # run by sourced's bash
  run sourced 'plan::build; echo "${#PLAN[@]} entries"; declare -A spec; plan::spec spec "${PLAN[1]}"; declare -p spec' \
    --servers good --scenarios hello --tool barrage --rates 300 --connections 7 --cpus 0:1 --budget none
  [ "$status" -eq 0 ]
  [[ $output == "2 entries"* ]]
  local -A spec
  eval "${lines[1]/declare -A spec=/spec=}"
  [ "${spec[server]} ${spec[tool]} ${spec[protocol]} ${spec[scenario]} ${spec[load]} ${spec[rate]}" = \
    "good barrage h1 hello rate=300 300" ]
  # a fixed plan's default duration (a budgeted one fits its own)
  [ "${spec[connections]} ${spec[threads]} ${spec[cpus]} ${spec[duration_s]}" = "7 1 1 30" ]
  local key
  for key in run slot server aa_group tool protocol scenario load rate connections streams threads \
    duration_s warmup_s cpus dir out url samples start_at barrage_bin; do
    [[ -v spec[$key] ]] || { echo "no key $key"; return 1; }
  done
}

# spec_keys_set: every key the code sets in a run spec, one a line: NAME["key"]= and
# NAME[key]= for an array whose name holds "spec", and the [key]= of plan::spec's and
# run_spec's (tests/test_helper.bash) whole-array assignments.
spec_keys_set() {
  {
    grep -rhoiE '[a-z_]*spec\["?[a-z_]+"?\]=' "$ROOT/lib" "$ROOT/run-benchmarks.sh" "$ROOT/tests/test_helper.bash" |
      sed -E 's/.*\["?([a-z_]+)"?\]=/\1/'
    awk '/^plan::spec\(\)/, /^}/' "$ROOT/lib/plan.sh" | grep -oE '\[[a-z_]+\]=' | tr -d '[]='
    awk '/^run_spec\(\)/, /^}/' "$ROOT/tests/test_helper.bash" | grep -oE '\[[a-z_]+\]=' | tr -d '[]='
  } | sort -u
}

@test "spec: every run spec key the code sets is declared in lib/spec.tsv, and plan::spec sets every declared key" {
  source "$ROOT/lib/log.sh"
  source "$ROOT/lib/spec.sh"
  local set declared missing
  set=$(spec_keys_set)
  declared=$(spec::keys | sort)
  # the scan finds what it should (else it would pass on nothing)
  [[ $(wc -l <<<"$set") -ge 20 && $set == *warmup_auto* && $set == *cacert* && $set == *barrage_bin* ]]
  missing=$(comm -23 <(echo "$set") <(echo "$declared"))
  [ -z "$missing" ] || { echo "set but not declared in lib/spec.tsv: $missing"; return 1; }
  # every declared key has its unit, range, setter, reader and meaning
  assert_jq -R 'split("\t") | length == 6 and all(.[]; length > 0)' - < <(grep -v '^#' "$ROOT/lib/spec.tsv")
  # plan::spec makes the whole spec: every declared key, none other
  # shellcheck disable=SC2016 # run by sourced's bash
  run sourced 'plan::build; declare -A spec; plan::spec spec "${PLAN[0]}"; printf "%s\n" "${!spec[@]}" | sort' \
    --servers good --scenarios hello --tool barrage
  [ "$status" -eq 0 ]
  [ "$output" = "$declared" ]
}

@test "settings: one record, every key read documented with a default, read-only once parsed; no library writes it" {
  local read_keys key
  # the keys the code reads, each documented in lib/settings.sh's table and given a default there
  read_keys=$(cat "$ROOT/run-benchmarks.sh" "$ROOT"/lib/*.sh "$ROOT"/lib/place/*.sh | grep -v '^ *#' |
    grep -oE 'SETTINGS\[[a-z_]+\]' | sed -E 's/SETTINGS\[([a-z_]+)\]/\1/' | sort -u)
  [ "$(wc -l <<<"$read_keys")" -ge 25 ]
  for key in $read_keys; do
    grep -qE "^#   ([a-z_, ]*[ ,])?$key\b" "$ROOT/lib/settings.sh" || { echo "$key not documented"; return 1; }
    grep -qE "\[$key\]=" <(sed -n '/^declare -gA SETTINGS=(/,/^)/p' "$ROOT/lib/settings.sh") || { echo "$key has no default"; return 1; }
  done
  # only parse_options (and main's command line before it) writes it
  run grep -rnE 'SETTINGS\[[a-z_]+\]\+?=|read -r .*SETTINGS' "$ROOT"/lib
  [ "$status" -eq 1 ] || { echo "a library writes the settings: $output"; return 1; }
  # shellcheck disable=SC2016 # run by sourced's bash
  run sourced 'echo "${SETTINGS[duration_s]} ${SETTINGS[threads]} ${TOOLS[*]}"; SETTINGS[duration_s]=1' \
    --servers good --scenarios hello --tool wrk --duration 7s --threads 3
  [ "$status" -ne 0 ]
  [ "${lines[0]}" = "7 3 wrk" ]
  [[ $output == *"SETTINGS: readonly variable"* ]]
}

@test "spec: a run spec crosses as words and back whole; a key not declared is refused both ways" {
  source "$ROOT/lib/log.sh"
  source "$ROOT/lib/spec.sh"
  local -A spec=([url]='http://h:1/a b' [stages]='1:1s,2:2s' [warmup_auto]=1 [dir]=$'two\nlines' [rate]='' [cacert]='x=y')
  local words=() key
  spec::serialize spec words
  [ "${#words[@]}" -eq 6 ]
  local -A back=([leftover]=1)
  spec::deserialize back "${words[@]}"
  [ "${#back[@]}" -eq 6 ]
  for key in "${!spec[@]}"; do [ "${back[$key]}" = "${spec[$key]}" ]; done
  spec[bogus]=1
  run -1 spec::serialize spec words
  [[ $output == *"not declared in lib/spec.tsv: bogus"* ]]
  run -1 spec::deserialize back url=x bogus=1
  run -1 spec::deserialize back noequals
}

@test "plan: a server's contract is checked over h1 and the protocols the plan measures it with" {
  local verified
  # shellcheck disable=SC2016 # expanded by that bash
  verified='source "$1"; parse_options --port 18080 "${@:2}" && plan::build && plan::verified_protocols jetty'
  # 'all' protocols, but no tool here speaks h3: no QUIC client needed, none waited for
  run -0 bash -c "$verified" _ "$RUN" --servers jetty --scenarios hello --tool wrk,h2load
  [ "$output" = h1,h2c,h1s,h2 ]
  # measured over h1 only: h2c's checks (and the h2load they need) buy that run nothing
  run bash -c "$verified" _ "$RUN" --servers jetty --scenarios hello --tool barrage --protocol h1
  [ "$output" = h1 ]
  run bash -c "$verified" _ "$RUN" --servers jetty --scenarios hello --tool wrk --protocol all
  [ "$output" = h1,h1s ]
  # over TLS (#39): the TLS modes only, when only they are measured
  run bash -c "$verified" _ "$RUN" --servers jetty --scenarios hello --tool barrage --protocol h2
  [ "$output" = h1,h2 ]
  # h1 always: the base every server speaks, and what the readiness probe uses
  run bash -c "$verified" _ "$RUN" --servers jetty --scenarios hello --tool barrage --protocol h3
  [ "$output" = h1,h3 ]
  run bash -c "$verified" _ "$RUN" --servers jetty --scenarios hello --tool barrage,wrk
  [ "$output" = h1,h2c,h1s,h2,h3 ]
  # nothing beyond what the server declares
  run bash -c "${verified/% jetty/ jdk-httpserver}" _ "$RUN" --servers jdk-httpserver --scenarios hello --tool barrage
  [ "$output" = h1,h1s ]
}

@test "plan: --cpus pins server and tool apart and sets the default threads" {
  run -0 fake --servers good --scenarios hello --tool wrk --cpus 0:1 --dry-run
  [[ $output == *"server on CPUs 0, load tool on CPUs 1"* ]]
  run -0 fake --servers good --scenarios hello --tool wrk --cpus none --list
  [[ $output == *"threads default to the load tool's CPUs: $(nproc)"* ]]
}

# dist_servers NAME...: fixture servers NAME... under $TMP/servers (h1, the contract server),
# each writing its name to $FAKE_DIST_CURRENT as it starts, for tests/fixtures/dist-wrk's wrk:
# its successful requests/s from FAKE_DIST_<NAME>="MEDIAN CV", repeatable draws.
dist_servers() {
  local name
  export FAKE_DIST_CURRENT=$TMP/current-server
  for name in "$@"; do
    mkdir -p "$TMP/servers/$name"
    printf 'name=%s\nversion=1.0-test\nprotocols=h1\n' "$name" >"$TMP/servers/$name/server.properties"
    # shellcheck disable=SC2016 # the fixture server's own script
    printf '#!/usr/bin/env bash\necho %s >"$FAKE_DIST_CURRENT"\nexec "${BARRAGE_TEST_PYTHON:-python3}" %q\n' \
      "$name" "$FAKES/contract_server.py" >"$TMP/servers/$name/start.sh"
    chmod +x "$TMP/servers/$name/start.sh"
  done
}

# dist_run ARGS...: a budgeted run (wrk, hello) of the dist_servers with the fake wrk.
dist_run() {
  PATH="$ROOT/tests/fixtures/dist-wrk:$PATH" BARRAGE_SERVERS_DIR=$TMP/servers "$RUN" --port "$PORT" \
    --output "$TMP/out" --duration 1s --warmup 0s --server-warmup 0s --connections 4 --tool wrk --scenarios hello \
    --seed 7 "$@"
}

@test "rounds: a pair's verdict from the README's intervals: 20% apart decided, 1% apart within the margin equal, wide noise open" {
  # rows of a results file: NAME:RPS,RPS,... per contestant, one table (hello h1 wrk)
  rows() {
    local arg
    for arg in "$@"; do
      jq -cn --arg name "${arg%%:*}" --arg values "${arg#*:}" \
        '$values | split(",")[] | tonumber | {server: $name, scenario: "hello", protocol: "h1", tool: "wrk", load: null,
          status: "ok", metrics: {successful_rps: .}}'
    done | jq -cs '{results: .}'
  }
  verdicts() { jq -r -L "$ROOT/lib" 'import "rounds" as rounds; rounds::tables(0.03; 3; [])[0].pairs | map(.verdict) | join(" ")'; }
  # 20% apart after the 3 runs an interval needs: decided (intervals apart)
  [ "$(rows fast:1200,1190,1215 mid:1000,1012,991 | verdicts)" = decided ]
  # 1% apart, runs within ±1.2%: the intervals overlap, the ratio's lies within 0.97-1.03: equal
  [ "$(rows mid:1000,1012,988,1006,994 near:990,1001,979,996,984 | verdicts)" = equal ]
  # the same pair with fewer runs: the ratio's interval is still wider than the margin: open
  [ "$(rows mid:1000,1012,988 near:990,1001,979 | verdicts)" = open ]
  # with runs so tight that the intervals are apart, 1% is a difference: decided
  [ "$(rows mid:1000,1002,998,1001 near:990,992,989,991 | verdicts)" = decided ]
  # wide noise (±40%), whatever the medians and however many runs: open
  [ "$(rows wide1:700,1400,950,1300,600,1100,800,1250 wide2:800,1350,650,1200,900,1500,700,1000 | verdicts)" = open ]
  # under 3 runs a side there is no interval: open, even 20% apart
  [ "$(rows fast:1200,1190 mid:1000,1012 | verdicts)" = open ]
  # a cross-check tool's table is not judged; what brings a contestant back names its neighbour
  [ "$(rows fast:1200 mid:1000 | jq -c -L "$ROOT/lib" 'import "rounds" as rounds; rounds::tables(0.03; 3; ["wrk"])[0] | [.cross_check, .pairs]')" = '[true,[]]' ]
  [ "$(rows fast:1200,1190 mid:1000,1012 | jq -r -L "$ROOT/lib" 'import "rounds" as rounds; rounds::wanted(0.03; 3; [])')" = \
    $'fast\twrk\th1\thello\topen against mid in hello h1 wrk\nmid\twrk\th1\thello\topen against fast in hello h1 wrk' ]
}

@test "budget: a pair 20% apart is decided in the first rounds; a pair 1% apart runs on until equal within 3%" {
  dist_servers fast mid near
  FAKE_DIST_fast='1200 0.01' FAKE_DIST_mid='1000 0.01' FAKE_DIST_near='990 0.01' run -0 dist_run --budget 5m
  echo "$output"
  local file
  file=$(results_file)
  valid "$file"
  # every pair is judged: the run ends before its budget (a broken rule fails it within 5 min)
  assert_jq '.rounds.ended == "decided" and .rounds.budget_s == 300 and .settings.budget_s == 300' "$file"
  assert_jq '.rounds.tables[0].pairs[0] | .faster == "fast" and .slower == "mid" and .verdict == "decided"' "$file"
  assert_jq '.rounds.tables[0].pairs[1] | .faster == "mid" and .slower == "near" and .verdict == "equal"
    and .ratio.lo >= 0.97 and .ratio.hi <= 1.03' "$file"
  # fast is decided after the 3 runs an interval needs; mid and near ran on: 1% apart, 3 runs
  # each cannot yet tell equal from open
  assert_jq '.rounds.tables[0].entries[] | select(.contestant == "fast") | .runs == 3 and (.why | test("decided against mid"))' "$file"
  assert_jq '.rounds.tables[0].entries[] | select(.contestant == "near") | .runs > 3 and (.why | test("equal against mid"))' "$file"
  assert_jq '[.results[] | select(.server == "fast")] | length == 3' "$file"
  # each row says why it was measured; the rounds after the third only for mid and near
  assert_jq '.results[] | select(.run == 1) | .round_reason == "first round: every row"' "$file"
  assert_jq '.results[] | select(.run > 3) | (.server == "mid" or .server == "near") and (.round_reason | test("^open against"))' "$file"
  assert_jq '.settings.runs == (.settings.order | length) and .settings.runs > 3 and (.settings.order[3] | sort) == ["mid", "near"]' "$file"
  # the progress and the end say it
  [[ $output == *"budget: "*" min left"* ]]
  [[ $output == *"ranking after "*" round(s): 2 pairs: 1 decided, 1 equal, 0 open (every pair decided or equal"* ]]
  # and the summary, per table and in all
  [[ $output == *"hello h1 wrk: 1 decided, 1 equal, 0 open; runs: fast 3, mid "*", near "* ]]
  [[ $output == *"pairs of neighbours, tie margin 3%: 2 pairs: 1 decided, 1 equal, 0 open (every pair judged before the budget ended)"* ]]
  no_process_left
}

@test "budget: a pair with wide noise is open when the budget ends; no turn starts that its estimate says would not fit" {
  dist_servers wide1 wide2
  FAKE_DIST_wide1='1000 0.4' FAKE_DIST_wide2='1000 0.4' run -0 dist_run --budget 40s
  echo "$output"
  local file
  file=$(results_file)
  valid "$file"
  assert_jq '.rounds.ended == "budget" and .rounds.tables[0].counts == {decided: 0, equal: 0, open: 1}' "$file"
  assert_jq '.rounds.tables[0].entries[] | .why | test("open against wide[12]: the budget ended")' "$file"
  # a turn starts only when its estimate fits in the time left, so the budget is exceeded by
  # less than one turn; the turn that did not fit was not started
  assert_jq '.rounds.turns[] | select(.started) | .estimate_s <= .left_s' "$file"
  assert_jq '[.rounds.turns[] | select(.started | not)] | length >= 1' "$file"
  assert_jq '.rounds | .spent_s <= .budget_s + ([.turns[] | select(.started) | .took_s] | max)' "$file"
  [[ $output == *"does not fit in the "*" s left: not started"* ]]
  no_process_left
}

@test "budget: later rounds size each server's warm-up from its time to steady state; one that needs more than the budget allows says so" {
  # the first round's warm-ups (the fitted cap, 15 s): good steady after 12 s, wrong not within
  # 10 s, slow not within 40 s in round 2 either
  jq '.server_warmups = [
      {server: "good", run: 1, duration_s: 15, shapes: [{protocol: "h1", scenario: "hello", time_to_steady: {verdict: "steady", steady_after_s: 12}}]},
      {server: "wrong", run: 1, duration_s: 10, shapes: [{protocol: "h1", scenario: "hello", time_to_steady: {verdict: "not reached", steady_after_s: null}}]},
      {server: "slow", run: 1, duration_s: 10, shapes: [{protocol: "h1", scenario: "hello", time_to_steady: {verdict: "not reached", steady_after_s: null}}]},
      {server: "slow", run: 2, duration_s: 40, shapes: [{protocol: "h1", scenario: "hello", time_to_steady: {verdict: "not reached", steady_after_s: null}}]}]' \
    "$ROOT/tests/fixtures/results/multi-base.json" >"$TMP/warmed.json"
  # sized FILE LEFT RUN [OPTION...]: each contestant's cap in round RUN with LEFT seconds of the
  # budget left
  sized() {
    # shellcheck disable=SC2016 # run by sourced's bash
    WARMED=$1 LEFT=$2 ROUND=$3 sourced 'plan::build; plan::add_round 3 <<<"$(printf "%s\twrk\th1\thello\topen\n" good wrong slow)"
      RESULTS_FILE=$WARMED; ROUNDS_DEADLINE=$(( $(rounds::_now) + LEFT ))
      for s in good wrong slow; do rounds::_size_warmup "$s" "$ROUND"; echo "$s $STEADY_TURN_CAP_S $(jq -r .verdict <<<"$ROUNDS_SIZING")"; done' \
      --servers good,wrong,slow --scenarios hello --tool wrk --budget 10m "${@:4}"
  }
  run -0 sized "$TMP/warmed.json" 600 3
  echo "$output"
  # a fast warmer keeps a cap near its time (1.5 x 12 s), a slow one gets twice the cap it
  # missed, one beyond 60 s gets 60 s and says so
  [[ $output == *"good 18 sized"*"wrong 20 sized"*"slow 60 beyond"* ]]
  [[ $output == *"budget: good's warm-up cap in round 3: 18 s (h1 hello: steady after 12 s)"* ]]
  [[ $output == *"budget: slow needs a warm-up of about 80 s (h1 hello: not steady within 40 s); the budget allows 60 s: its rows may keep ⧗"* ]]
  # with a minute left, slow's cap is what fits in it
  run -0 sized "$TMP/warmed.json" 60 3
  [[ $output =~ slow\ ([0-9]+)\ beyond ]] && ((BASH_REMATCH[1] < 60 && BASH_REMATCH[1] >= 10))
  # the first round keeps the fitted cap, and a cap given on the command line is kept
  run -0 sized "$TMP/warmed.json" 600 1
  [[ $output == *"good  null"*"slow  null"* ]]
  run -0 sized "$TMP/warmed.json" 600 3 --server-warmup auto:30s
  [[ $output == *"good  null"*"slow  null"* ]]
}

@test "budget: --runs N and --budget none are the fixed plans of before; the options' errors" {
  local plain budget_none
  # shellcheck disable=SC2016 # run by sourced's bash
  plain=$(sourced 'plan::build; printf "%s\n" "${PLAN[@]}"; echo "${SETTINGS[duration_s]} ${SETTINGS[budget_s]}"' \
    --servers good,wrong --scenarios hello,mixed --tool wrk,h2load --runs 2 --seed 4)
  # shellcheck disable=SC2016 # run by sourced's bash
  budget_none=$(sourced 'plan::build; printf "%s\n" "${PLAN[@]}"; echo "${SETTINGS[duration_s]} ${SETTINGS[budget_s]}"' \
    --servers good,wrong --scenarios hello,mixed --tool wrk,h2load --runs 2 --seed 4 --budget none)
  [ "$plain" = "$budget_none" ]
  [ "$(grep -c $'\t' <<<"$plain")" -eq 16 ]
  [ "$(tail -n 1 <<<"$plain")" = "30 " ]
  # --quick and --aa stay fixed plans too; a plain run is budgeted (60 min)
  # shellcheck disable=SC2016 # run by sourced's bash
  run -0 sourced 'echo "[${SETTINGS[budget_s]}]"' --servers good --scenarios hello --tool wrk --quick
  [ "$output" = "[]" ]
  # shellcheck disable=SC2016 # run by sourced's bash
  run -0 sourced 'echo "[${SETTINGS[budget_s]}] ${SETTINGS[tie_margin]}"' --servers good --scenarios hello --tool wrk
  [ "$output" = "[3600] 0.03" ]
  # shellcheck disable=SC2016 # run by sourced's bash
  run -0 sourced 'echo "${SETTINGS[budget_s]} ${SETTINGS[tie_margin]}"' --servers good --scenarios hello --tool wrk \
    --budget 1h30m --tie-margin 5%
  [ "$output" = "5400 0.05" ]
  local bad
  for bad in "--budget 10x" "--budget 0m" "--budget 1h --runs 3" "--budget 1m --aa" "--tie-margin 0" "--tie-margin 60%" \
    "--tie-margin 3% --runs 2"; do
    # shellcheck disable=SC2086 # the option and its value
    run -2 fake --servers good --scenarios hello --tool wrk $bad --dry-run
    [[ $output == *"--budget"* || $output == *"--tie-margin"* ]] || { echo "$bad: $output"; return 1; }
  done
  # a budget shorter than one row would measure nothing and exit 0: refused with the least that
  # measures one (15 s for the server's start + a 1 s run + 2 s around it)
  run -2 fake --servers good --scenarios hello --tool wrk --budget 17s --dry-run
  [[ $output == *"--budget 17s is too short to measure one row"*"give --budget 18s or more, or --budget none"* ]]
  run -0 fake --servers good --scenarios hello --tool wrk --budget 18s --dry-run
}

@test "help: the defaults it states for --duration and --warmup are the ones that apply: the fit's in a budgeted run, 30s/10s in a fixed plan" {
  local fit fixed
  # shellcheck disable=SC2016 # run by sourced's bash
  fit=$(sourced 'd=(); for t in "${PLAN_FIT_TIMINGS[@]}"; do d+=("${t%% *}s"); done; echo "${d[0]}, ${d[1]} or ${d[2]}"' --servers good)
  # shellcheck disable=SC2016 # run by sourced's bash
  fixed=$(sourced 'echo "${SETTINGS[duration_s]}s ${SETTINGS[warmup_s]}s"' --servers good --budget none)
  run -0 "$RUN" --help
  [[ $output == *"--duration D"*"in a budgeted run (the"*"default, --budget) the fit's, $fit"*"fixed plan (--budget none,"*"--runs, --aa) ${fixed% *}; --quick 3s"* ]]
  [[ $output == *"--warmup D"*"fixed plan ${fixed#* }; --quick 1s"* ]]
}

@test "budget: the default plan fits the hour: barrage on every row that fits, the other tools cross-check hello; --dry-run says what is left out" {
  run -0 "$RUN" --dry-run --seed 1
  [[ $output == *"budget: 60 min (the default)"* ]]
  [[ $output == *"the tools other than barrage cross-check hello in the first round"* ]]
  [[ $output == *"warm-ups sized from measurement: the first round measures each server's time to steady state (cap "*" s); in later rounds its cap is 1.5 x that time"* ]]
  [[ $output == *"left out to fit the budget: "*"--budget none brings them back (a fixed plan of every row with every tool: about "*" min)"* ]]
  # every server with barrage; wrk only on hello
  local properties server
  for properties in "$ROOT"/servers/*/server.properties; do
    server=${properties%/server.properties} server=${server##*/}
    grep -qE "^1 +$server +barrage +h1 +hello" <<<"$output" || { echo "no barrage row for $server"; return 1; }
  done
  if grep -E '^1 .* wrk +h1 +(baseline|post-load|mixed|large-file|high-concurrency) ' <<<"$output"; then return 1; fi
  # protocols before scenarios: HTTP/2 over TLS and h2c stay (h3, then h1s are left out first)
  grep -qE '^1 +netty +barrage +h2 +hello' <<<"$output"
  grep -qE '^1 +netty +barrage +h2c +hello' <<<"$output"
  # the first 3 rounds fit in 60% of the hour: the first round's estimate is under 24 min
  [[ $(grep 'planned runs,' <<<"$output") =~ about\ ([0-9]+)\ min ]]
  ((BASH_REMATCH[1] <= 24))
}

@test "run: a good, a failing-verification, a dying and an unbuildable server" {
  run fake --servers good,wrong,broken,unbuildable --scenarios hello,mixed --tool wrk,h2load --label mix
  echo "$output"
  [ "$status" -eq 1 ]
  local f
  f=$(results_file)
  [[ $f == */20*Z-mix.json ]]
  valid "$f"
  [ "$(jq .complete "$f")" = true ]
  [ "$(jq -r .label "$f")" = mix ]
  [ "$(jq '.results | length' "$f")" -eq 16 ]
  # good: measured, with server stats; mixed skipped for h2load with the reason.
  [ "$(jq '[.results[] | select(.server == "good" and .status == "ok")] | length' "$f")" -eq 3 ]
  assert_jq '.results[] | select(.server == "good" and .status == "ok") | .metrics.requests > 0 and .metrics.failed == 0' "$f"
  assert_jq '.results[] | select(.status == "ok") | .server_stats.rss_peak_kb > 0' "$f"
  assert_jq '.results[] | select(.server == "good" and .tool == "h2load" and .scenario == "mixed") | .status == "skipped" and (.reason | test("one method"))' "$f"
  # wrong: verified, failed, not measured.
  assert_jq '.results[] | select(.server == "wrong") | .status == "failed" and .metrics == null and (.reason | test("contract verification failed"))' "$f"
  # broken: failed at start.
  assert_jq '.results[] | select(.server == "broken") | .status == "failed" and (.reason | test("exited before it was ready"))' "$f"
  # unbuildable: the build error is recorded and the run went on.
  assert_jq '.results[] | select(.server == "unbuildable") | .status == "failed" and (.reason | startswith("build failed"))' "$f"
  # The summary table and the path on stdout.
  [[ $output == *"good"*"wrk"*"hello"*"ok"* ]]
  [[ $output == *"$f"* ]]
  no_process_left
}

@test "run: the results file records the system, tools, settings and the command" {
  run -0 fake --servers good --scenarios hello --tool wrk --description "test box, it's mine" --cpus 0:1 --seed 5
  local f
  f=$(results_file)
  valid "$f"
  [ "$(jq -r .system.description "$f")" = "test box, it's mine" ]
  [ "$(jq -c .system.cpuPinning "$f")" = '{"server":"0","client":"1"}' ]
  [ "$(jq -r .tools.wrk "$f")" != null ]
  # a budgeted run (the default): its budget and tie margin; one server has no pair, so one round
  [ "$(jq -c .settings "$f")" = '{"duration_s":1,"warmup_s":0,"runs":1,"server_warmup_s":0,"server_warmup_mode":"fixed","seed":5,"order":[["good"]],"aa":false,"profile":null,"gc_log":true,"budget_s":3600,"tie_margin":0.03,"cross_check":null,"left_out":null}' ]
  [[ $(jq -r .command "$f") == *run-benchmarks.sh*"--scenarios hello"* ]]
  # quoted as a person would type it, and the shell reads it back as the same words
  [[ $(jq -r .command "$f") == *"--description 'test box, it'\''s mine' --cpus 0:1"* ]]
  local words=()
  eval "words=($(jq -r .command "$f"))"
  [ "${words[-5]}" = "test box, it's mine" ]
  [[ $(jq -r .commit "$f") =~ ^[0-9a-f]{40}(-dirty)?$ ]]
  [ "$(jq -c '.results[0].config' "$f")" = '{"threads":1,"connections":4,"streams":null,"duration_s":1,"warmup_s":0,"endpoint":"/hello","method":"GET","group":null,"request_timeout_s":2}' ]
  # the machine facts that explain noise: frequency scaling (null with a note on a VM without
  # cpufreq), and per row the load averages, steal time and load not ours during the run
  [ "$(jq '.system.cpuScaling | has("governor") and (.governor != null or .note != null)' "$f")" = true ]
  [ "$(jq '.results[0].machine_stats | (.loadavg_before | length) == 3 and (.loadavg_after | length) == 3
            and (.cpu_pct | type) == "number" and (.steal_pct | type) == "number"
            and (.other_cpu_pct | type) == "number"' "$f")" = true ]
  # No side files stay next to the results: only its web page (report.sh).
  [ -s "${f%.json}.html" ]
  [ "$(find "$TMP/out" -maxdepth 1 -type f | wc -l)" -eq 2 ]
}

@test "run: each run's raw tool output and the PIDs it started stay beside the results" {
  run fake --servers good --scenarios hello --tool wrk,h2load
  echo "$output"
  [ "$status" -eq 0 ]
  local f logs dir
  f=$(results_file)
  logs=${f%.json}.logs
  dir=$logs/1-good-wrk-h1-hello
  [ -s "$dir/wrk.txt" ]
  [ -s "$dir/samples" ]
  [ -f "$dir/stderr" ]
  [ "$(jq -c . "$dir/metrics.json")" = "$(jq -c '.results[] | select(.tool == "wrk") | .metrics' "$f")" ]
  dir=$logs/1-good-h2load-h1-hello
  [ -s "$dir/h2load.txt" ]
  [ -s "$dir/samples" ]
  [ -f "$dir/stderr" ]
  # h2load's request log (a line per request) is kept compressed, whole
  [ ! -e "$dir/h2load.log" ]
  [ "$(gzip -dc "$dir/h2load.log.gz" | wc -l)" -eq "$(jq '.results[] | select(.tool == "h2load") | .metrics.requests' "$f")" ]
  [ "$(jq -c . "$dir/metrics.json")" = "$(jq -c '.results[] | select(.tool == "h2load") | .metrics' "$f")" ]
  # the request timeout each row ran with: wrk's --timeout; h2load has none
  [ "$(jq -r '[.results[] | "\(.tool):\(.config.request_timeout_s)"] | join(" ")' "$f")" = "wrk:2 h2load:null" ]
  # every process the run started is in the list, and none is left
  [ "$(cut -f3 "$logs/pids" | LC_ALL=C sort | uniq -c | awk '{$1 = $1; print}' | paste -sd,)" = \
    "1 contract verification good,2 cpu sampler,1 server good,2 tool cpu sampler,1 tool h2load,1 tool wrk" ]
  # the load tool's CPU samples too
  [ -s "$logs/1-good-wrk-h1-hello/tool-samples" ]
  [ -s "$logs/1-good-h2load-h1-hello/tool-samples" ]
  no_process_left
}

@test "run: a results file that is not valid is reported with the validator's findings, kept, and the run exits 1" {
  # a wrk that prints a record with negative counts, passed on by its driver
  PATH="$ROOT/tests/fixtures/invalid-wrk:$PATH" run fake --servers good --scenarios hello,baseline --tool wrk
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == *"is NOT valid against schemas/results.schema.json"* ]]
  [[ $output == *"results[0].metrics"* ]]
  local f first=$output
  f=$(results_file)
  [ "$(jq .complete "$f")" = true ]
  [ "$(jq '[.results[] | select(.status == "ok") | .metrics.requests] | join(",")' "$f")" = '"-1,-1"' ]
  run valid "$f"
  [ "$status" -ne 0 ]
  # validated at the end, not after every row (at most every RESULTS_VALIDATE_EVERY_S, 30 s):
  # no findings before the second run; validating every write, after the first
  [[ ${first%%run 2 of 2*} != *"is NOT valid"* ]]
  RESULTS_VALIDATE_EVERY_S=0 PATH="$ROOT/tests/fixtures/invalid-wrk:$PATH" run fake --servers good \
    --scenarios hello,baseline --tool wrk
  echo "the second run, validating every write: exit $status"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ ${output%%run 2 of 2*} == *"is NOT valid"* ]]
}

@test "set-up: verifying an h2c server needs h2load: without it, a set-up error naming the package, not a failed server" {
  # a PATH with every command but h2load (and apt-get, so that nothing is installed)
  local bin="$TMP/bin without h2load" dir cmd name dirs=()
  mkdir -p "$bin"
  IFS=: read -r -a dirs <<<"$PATH"
  for dir in "${dirs[@]}"; do
    for cmd in "$dir"/*; do
      name=${cmd##*/}
      [[ -f $cmd && -x $cmd && ! -e $bin/$name && $name != h2load && $name != apt-get ]] || continue
      ln -s "$cmd" "$bin/$name"
    done
  done
  # jetty measured by barrage over h2c: its h2c checks use h2load
  PATH=$bin run "$RUN" --quick --port "$PORT" --output "$TMP/out" --servers jetty --scenarios hello \
    --tool barrage --protocol h2c
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == *"missing packages: nghttp2-client"* ]]
  [[ $output == *"apt-get install -y nghttp2-client"* ]]
  [[ $output != *"contract verification failed"* ]]
  [ -z "$(find "$TMP/out" -name '*.json' 2>/dev/null)" ]
}

@test "run: --runs 2 measures every entry twice, round by round in the recorded order" {
  run -1 fake --servers good,wrong --scenarios hello --tool wrk --runs 2 --seed 1
  local f
  f=$(results_file)
  valid "$f"
  [ "$(jq -r '[.results[] | "\(.run):\(.server):\(.status)"] | join(" ")' "$f")" = "1:wrong:failed 1:good:ok 2:good:ok 2:wrong:failed" ]
  [ "$(jq -c '[.settings.runs, .settings.seed, .settings.order]' "$f")" = '[2,1,[["wrong","good"],["good","wrong"]]]' ]
  # the recorded order is the order the servers were started in
  [ "$(grep -oE 'starting [a-z]+' <<<"$output" | cut -d' ' -f2 | paste -sd' ')" = "wrong good good wrong" ]
}

@test "run: every freshly started server gets the same barrage warm-up before its first measured run" {
  run fake --servers good --scenarios hello,mixed --tool wrk,h2load --runs 2 --seed 1 --server-warmup 1s
  echo "$output"
  [ "$status" -eq 0 ]
  local f logs
  f=$(results_file)
  logs=${f%.json}.logs
  valid "$f"
  [ "$(jq .settings.server_warmup_s "$f")" -eq 1 ]
  # one warm-up per start, each scenario's shape (mixed too: barrage runs the scenario's script)
  [ "$(jq -r '[.server_warmups[] | "\(.run):\(.server):\(.tool):\(.duration_s)"] | join(" ")' "$f")" = \
    "1:good:barrage:1 2:good:barrage:1" ]
  [ "$(jq -r '[.server_warmups[].shapes[] | "\(.scenario):\(.status)"] | join(" ")' "$f")" = \
    "hello:ok mixed:ok hello:ok mixed:ok" ]
  assert_jq '.server_warmups[].shapes[] | select(.status == "ok") | .requests > 0' "$f"
  # before the round's first measured run (whichever tool), and its raw output kept
  # shellcheck disable=SC2016 # jq's variables
  assert_jq '.server_warmups[] as $w | .results[] | select(.run == $w.run and .status == "ok") | .started >= $w.ended' "$f"
  [ -s "$logs/1-good-warmup-h1-hello/barrage.json" ]
  [ -s "$logs/2-good-warmup-h1-hello/barrage.json" ]
  [[ $output == *"warming up good: barrage h1 hello for 1s"*"good wrk h1 hello"* ]]
  [ "$(grep -cP '\ttool barrage$' "$(pid_list)")" -eq 4 ]
  no_process_left
}

@test "run: the tools take turns on one server JVM, barrage before and after each other tool; the order is in the log and the results" {
  # barrage named last: it still opens the alternation and closes each other tool's window
  run fake --servers good --scenarios hello --tool wrk,h2load,barrage --runs 1
  echo "$output"
  [ "$status" -eq 0 ]
  local f
  f=$(results_file)
  valid "$f"
  [[ $output == *"cross-check on one JVM (good h1 hello): the tools alternate: barrage wrk barrage h2load barrage"* ]]
  # one start, and the windows measured in that order
  [ "$(grep -c 'starting good' <<<"$output")" -eq 1 ]
  [ "$(grep -oE 'good (barrage|wrk|h2load) h1 hello' <<<"$output" | cut -d' ' -f2 | paste -sd' ')" = "barrage wrk barrage h2load barrage" ]
  [ "$(jq -c '[.cross_checks[] | .order, [.windows[].role]]' "$f")" = \
    '[["barrage","wrk","barrage","h2load","barrage"],["lead","checked","bracket","checked","bracket"]]' ]
  assert_jq '.cross_checks[0].windows[] | .status == "ok" and .successful_rps > 0' "$f"
  # the extra barrage windows are no rows: one row per tool, as planned
  [ "$(jq -r '[.results[] | .tool] | sort | join(" ")' "$f")" = "barrage h2load wrk" ]
}

@test "run: the server warm-up of a plan with only mixed is not skipped: barrage runs mixed's script" {
  run fake --servers good --scenarios mixed --tool wrk --server-warmup 1s
  echo "$output"
  [ "$status" -eq 0 ]
  local f
  f=$(results_file)
  valid "$f"
  [ "$(jq -c '[.server_warmups[].shapes[] | [.scenario, .status, .requests > 0]]' "$f")" = '[["mixed","ok",true]]' ]
  [[ $output == *"warming up good: barrage h1 mixed for 1s"* ]]
  no_process_left
}

# steady ARGS...: the fixture server "good" answering every request but /hello after
# FAKE_DELAY_S (default 10 ms: with STEADY_CONNECTIONS, default 4, about 360/s, set by the sleep,
# not the CPU), times 1 + FAKE_DELAY_GROWTH x its age; baseline with barrage for 10 s after a
# steady-state server warm-up (10 seconds for the trend test: a falling series stays significant
# with up to 7 of its 45 pairs out of order, as a loaded machine's seconds can put them; with 8
# seconds, 3 of 28).
steady() {
  FAKE_DELAY_S=${FAKE_DELAY_S:-0.01} BARRAGE_SERVERS_DIR=$FAKES "$RUN" --port "$PORT" --output "$TMP/out" \
    --duration 10s --warmup 0s --connections "${STEADY_CONNECTIONS:-4}" --servers good --scenarios baseline \
    --tool barrage "$@"
}

@test "steady: a steady server reaches steady state in its warm-up, and its row is not drifting" {
  # 50 ms a request on 16 connections (about 310/s): the ~1 ms a request costs the Python server
  # and the loopback is a fiftieth of each request's time, not a tenth as at 10 ms, where a
  # machine slowing down across the window moved the rate 3% (flagged drifting, z 2.99)
  FAKE_DELAY_GROWTH=0 FAKE_DELAY_S=0.05 STEADY_CONNECTIONS=16 run steady --server-warmup auto:12s
  echo "$output"
  [ "$status" -eq 0 ]
  local f
  f=$(results_file)
  valid "$f"
  [ "$(jq -c '.settings | [.server_warmup_mode, .server_warmup_s]' "$f")" = '["auto",12]' ]
  [ "$(jq -c '[.server_warmups[].shapes[] | [.status, .steady, .warmup_s < 12]]' "$f")" = '[["ok",true,true]]' ]
  [ "$(jq -c '[.results[] | [.server_warmup.mode, .server_warmup.steady, .drift.status, .drift.test, .drift.n >= 6]]' "$f")" = \
    '[["auto",true,"steady","mann-kendall",true]]' ]
  [[ $output == *"warming up good: barrage h1 baseline until steady state (at most 12s)"* ]]
  [[ $output != *drifting* && $output != *"not in steady state"* ]]
  # time to steady state: the first response, the load's start and its steady state, as figures;
  # the row says what its start got; the first 5 s against the steady rate (a server flat from
  # its start: about the same)
  # shellcheck disable=SC2016 # jq's variables
  assert_jq --argjson w "$(jq -c '.server_warmups[0].shapes[0]' "$f")" '.server_warmups[0] | .first_response_s > 0 and .first_response_s < 30
    and (.shapes[0].time_to_steady | .verdict == "steady" and .reason == null and .load_started_s >= 0
         and .steady_after_s == $w.warmup_s and .first_5s_rps > 0 and .steady_rps > 0
         and .first_5s_share == (.first_5s_rps / .steady_rps * 1000 | round / 1000)
         and (.rps_by_second | length) >= 5 and .first_5s_rps == (.rps_by_second[:5] | add / 5 * 1000 | round / 1000)
         and .steady_rps == (.rps_by_second[-5:] | sort | .[2]))' "$f"
  # shellcheck disable=SC2016 # jq's variables
  assert_jq '.server_warmups[0] as $w | .results[0].server_warmup
    | .first_response_s == $w.first_response_s and .time_to_steady == $w.shapes[0].time_to_steady' "$f"
  [[ $output == *"time to steady state: good h1 baseline run 1: first response "*" s; steady "*" s after load began (at "*"; first 5 s "*"% of steady "* ]]
  no_process_left
}

@test "steady: a server that keeps slowing down never reaches steady state and its row is drifting" {
  # 40% more delay every second: the rate falls all through the 4 s cap and the 10 s window
  FAKE_DELAY_GROWTH=0.4 run steady --server-warmup auto:4s
  echo "$output"
  [ "$status" -eq 0 ]
  local f
  f=$(results_file)
  valid "$f"
  [ "$(jq -c '[.server_warmups[].shapes[] | [.status, .steady, .warmup_s >= 4]]' "$f")" = '[["ok",false,true]]' ]
  [ "$(jq -c '[.results[] | [.server_warmup.steady, .drift.status, .drift.change < -0.1]]' "$f")" = '[[false,"drifting",true]]' ]
  # the summary marks the row both ways
  [[ $output == *"did not reach steady state in 4s"* ]]
  # no figure as if it had: null and the reason
  [ "$(jq -c '[.server_warmups[0].shapes[0].time_to_steady, .results[0].server_warmup.time_to_steady]
    | map([.verdict, .steady_after_s, .steady_rps, .reason]) | unique' "$f")" = \
    '[["not reached",null,null,"not in steady state when the warm-up cap (4 s) ended it"]]' ]
  [[ $output == *"time to steady state: good h1 baseline run 1: first response "*" s; not in steady state when the warm-up cap (4 s) ended it; first 5 s "* ]]
  [[ $output == *"server not in steady state (warm-up cap 4s hit)"*"drifting: "*"% across the window"* ]]
  no_process_left
}

@test "steady: --server-warmup 1s is still a fixed warm-up; rows of wrk and h2load say drift is unknown" {
  run fake --servers good --scenarios hello --tool barrage,wrk,h2load --server-warmup 1s
  echo "$output"
  [ "$status" -eq 0 ]
  local f
  f=$(results_file)
  valid "$f"
  [ "$(jq -c '[.settings.server_warmup_mode, (.server_warmups[].shapes[] | .warmup_s, .steady)]' "$f")" = '["fixed",1,null]' ]
  # a fixed warm-up is not judged; 1 s of it has no first 5 s
  [ "$(jq -c '.server_warmups[].shapes[].time_to_steady | [.verdict, .steady_after_s, .first_5s_rps]' "$f")" = '["not judged",null,null]' ]
  [ "$(jq -c '[.results[] | [.tool, .server_warmup.mode, .server_warmup.steady, .drift.status]]' "$f")" = \
    '[["barrage","fixed",null,"unknown"],["wrk","fixed",null,"unknown"],["h2load","fixed",null,"unknown"]]' ]
  [ "$(jq -r '[.results[] | select(.tool != "barrage") | .drift.reason] | join(";")' "$f")" = \
    "wrk gives no per-second series;h2load gives no per-second series" ]
  no_process_left
}

@test "run: the load tool's whole process tree is sampled; a tool that keeps its core busy is client-bound" {
  # a wrk whose child burns the CPU it is pinned to for the run (its parent only waits)
  PATH="$ROOT/tests/fixtures/busy-wrk:$PATH" run fake --servers good --scenarios hello,baseline --tool wrk \
    --cpus 0:1 --duration 2s
  echo "$output"
  [ "$status" -eq 0 ]
  local f
  f=$(results_file)
  valid "$f"
  # busy: on the CPU or waiting for it, so another process on that CPU does not hide it
  assert_jq '.results[] | .client_stats.busy_pct >= 90 and .client_stats.cores == 1 and .client_bound' "$f"
  assert_jq '.results[] | .client_stats.cpu_pct > 0' "$f"
  [[ $output =~ good\ +wrk\ +h1\ +hello\ .*client-bound:\ the\ tool\ was\ busy\ [0-9.]+%\ of\ 1\ core ]]
  no_process_left
}

@test "sampling: a tool's CPU and busy time from its samples: per process, without intervals in which a thread ended" {
  source "$ROOT/lib/system.sh"
  # TIME_US PID CPU_NS BUSY_NS: 0.2 s steps, one core used, then busy waiting for it half the time
  printf '%s\n' "0 7 0 0" "200000 7 200000000 200000000" "400000 7 300000000 400000000" >"$TMP/samples"
  [ "$(system::group_stats "$TMP/samples" 2 1)" = '{"cpu_pct":75.0,"busy_pct":100.0,"cores":1}' ]
  # a thread ended (the sums fell): that interval is left out, not counted idle
  printf '%s\n' "600000 7 100000000 100000000" >>"$TMP/samples"
  [ "$(system::group_stats "$TMP/samples" 2 1)" = '{"cpu_pct":75.0,"busy_pct":100.0,"cores":1}' ]
  # a second run of the tool (another PID) is not subtracted from the first
  printf '%s\n' "800000 9 0 0" "1000000 9 100000000 200000000" >>"$TMP/samples"
  [ "$(system::group_stats "$TMP/samples" 2 2)" = '{"cpu_pct":66.7,"busy_pct":100.0,"cores":2}' ]
  # only the last SECONDS count: the measured phase, not the warm-up before it
  [ "$(system::group_stats "$TMP/samples" 0.2 2)" = '{"cpu_pct":50.0,"busy_pct":100.0,"cores":2}' ]
  # without schedstat the busy time is unknown; with one sample, nothing is known
  printf '%s\n' "0 7 0 -" "200000 7 100000000 -" >"$TMP/samples"
  [ "$(system::group_stats "$TMP/samples" 2 1)" = '{"cpu_pct":50.0,"busy_pct":null,"cores":1}' ]
  [ "$(system::group_stats "$TMP/no samples" 2 1)" = '{"cpu_pct":null,"busy_pct":null,"cores":1}' ]
}

@test "sampling: the machine's load averages, CPU, steal time and the load not ours over the measured phase" {
  source "$ROOT/lib/system.sh"
  local hz
  hz=$(getconf CLK_TCK)
  # TIME_US CPU_TICKS RSS_KB LOAD1 LOAD5 LOAD15 CPU_TOTAL CPU_IDLE CPU_STEAL, 1 s apart: per
  # second 2*hz ticks of two CPUs, of which hz/2 idle and hz/5 stolen: 1.3 cores busy, 10% steal
  printf '%s\n' "0 0 1 9.00 9.00 9.00 0 0 0" \
    "1000000 0 1 1.00 0.50 0.25 $((2 * hz)) $((hz / 2)) $((hz / 5))" \
    "2000000 0 1 1.50 0.60 0.25 $((4 * hz)) $((hz)) $((2 * hz / 5))" \
    "3000000 0 1 2.00 0.70 0.30 $((6 * hz)) $((3 * hz / 2)) $((3 * hz / 5))" >"$TMP/samples"
  # the last 2 s only; other = 130 - server 50 - tool 30.5
  [ "$(system::machine_stats "$TMP/samples" 2 '{"cpu_pct":50}' '{"cpu_pct":30.5,"busy_pct":null,"cores":1}')" = \
    '{"loadavg_before":[1,0.5,0.25],"loadavg_after":[2,0.7,0.3],"cpu_pct":130,"steal_pct":10,"other_cpu_pct":49.5}' ]
  # windows a sample apart never make it negative; an unknown tool CPU leaves it unknown
  [ "$(system::machine_stats "$TMP/samples" 2 '{"cpu_pct":100}' '{"cpu_pct":40}' | jq .other_cpu_pct)" = 0 ]
  [ "$(system::machine_stats "$TMP/samples" 2 '{"cpu_pct":100}' null | jq .other_cpu_pct)" = null ]
  # samples of an older format (no machine fields) or a single one: null, never 0
  printf '%s\n' "0 0 1" "1000000 5 1" >"$TMP/old samples"
  [ "$(system::machine_stats "$TMP/old samples" 2 null null)" = \
    '{"loadavg_before":null,"loadavg_after":null,"cpu_pct":null,"steal_pct":null,"other_cpu_pct":null}' ]
}

@test "summary: a row measured while the hypervisor took 5% or more of the CPU says so in its note" {
  local row='{"server":"s","tool":"wrk","protocol":"h1","scenario":"hello","run":1,"status":"ok",
    "metrics":{"rps":1000.4,"latency_us":{"p99":800},"failed":0},"machine_stats":{"steal_pct":STEAL}}'
  note() { jq -L "$ROOT/lib" -r 'import "summary" as summary; summary::fields | .[9]' <<<"${row/STEAL/$1}"; }
  [ "$(note 5)" = "steal 5%: the hypervisor took CPU time from this machine" ]
  [ "$(note 27.65)" = "steal 27.65%: the hypervisor took CPU time from this machine" ]
  [ "$(note 4.99)" = "" ]
  [ "$(note null)" = "" ]
  [ "$(jq -L "$ROOT/lib" -r 'import "summary" as summary; summary::fields | @tsv' <<<"${row/STEAL/1}")" = \
    "$(printf 's\twrk\th1\thello\t1\tok\t1000\t800\t0\t')" ]
}

@test "system: CPU frequency scaling from cpufreq, or nulls and the reason where the kernel has none" {
  source "$ROOT/lib/system.sh"
  local cpu="$TMP/sys fs/devices/system/cpu"
  mkdir -p "$cpu/cpu0/cpufreq" "$cpu/cpu1/cpufreq" "$cpu/cpufreq"
  echo schedutil >"$cpu/cpu0/cpufreq/scaling_governor"
  echo performance >"$cpu/cpu1/cpufreq/scaling_governor"
  echo acpi-cpufreq >"$cpu/cpu0/cpufreq/scaling_driver"
  echo 800000 >"$cpu/cpu0/cpufreq/cpuinfo_min_freq"
  echo 3500000 >"$cpu/cpu0/cpufreq/cpuinfo_max_freq"
  echo 0 >"$cpu/cpufreq/boost"
  [ "$(SYSTEM_SYSFS="$TMP/sys fs" system::cpu_scaling | jq -c 'del(.virtualized)')" = \
    '{"governor":"performance,schedutil","driver":"acpi-cpufreq","min_khz":800000,"max_khz":3500000,"boost":false,"note":null}' ]
  # intel_pstate says it the other way round
  rm "$cpu/cpufreq/boost"
  mkdir -p "$cpu/intel_pstate" && echo 0 >"$cpu/intel_pstate/no_turbo"
  [ "$(SYSTEM_SYSFS="$TMP/sys fs" system::cpu_scaling | jq .boost)" = true ]
  # no cpufreq (this VM): null, not 0, and why
  rm -r "$cpu/cpu0/cpufreq" "$cpu/cpu1/cpufreq" "$cpu/intel_pstate"
  [ "$(SYSTEM_SYSFS="$TMP/sys fs" system::cpu_scaling | jq -c '[.governor, .driver, .min_khz, .max_khz, .boost]')" = \
    '[null,null,null,null,null]' ]
  [[ $(SYSTEM_SYSFS="$TMP/sys fs" system::cpu_scaling | jq -r .note) == "no cpufreq in /sys: "* ]]
}

@test "run: --aa measures one server as two labels, interleaved, and stores the noise floor" {
  run fake --aa --servers good --scenarios hello --tool wrk --runs 2 --seed 1
  echo "$output"
  [ "$status" -eq 0 ]
  local f
  f=$(results_file)
  valid "$f"
  [ "$(jq -c '[.settings.aa, .settings.order]' "$f")" = '[true,[["good@B","good@A"],["good@A","good@B"]]]' ]
  [ "$(jq -r '[.results[] | "\(.run):\(.server):\(.aa_group)"] | join(" ")' "$f")" = "1:good:B 1:good:A 2:good:A 2:good:B" ]
  [[ $output == *"good@B "*"good@A "*"good@A "*"good@B "* ]]
  # the floor: per scenario, protocol and tool, the B/A change and its interval; the floor is
  # the farther end of the interval from 0
  [ "$(jq -c '.noise_floor | [.server, .level, (.rows | map([.scenario, .protocol, .tool, .runs.A, .runs.B]))]' "$f")" = \
    '["good",0.95,[["hello","h1","wrk",2,2]]]' ]
  assert_jq '.noise_floor.rows[0] | [.successful_rps, .p99][]
    | .lo <= .change and .change <= .hi and .floor == ([.lo, .hi] | map(fabs) | max)' "$f"
  # each label's server start is logged apart (the fake server itself writes nothing there)
  [ -f "${f%.json}.logs/good@A-run1.log" ]
  [ -f "${f%.json}.logs/good@B-run1.log" ]
  [ -f "${f%.json}.logs/good@A-run2.log" ]
  [ -f "${f%.json}.logs/good@B-run2.log" ]
  no_process_left
}

@test "run: a busy port stops the run with an error naming the holder, which is left alone" {
  background python3 -m http.server --bind 127.0.0.1 "$PORT" >/dev/null 2>&1
  local holder_pid=$BG_PID
  for _ in $(seq 50); do curl -s "http://127.0.0.1:$PORT/" >/dev/null && break; sleep 0.1; done
  run -1 fake --servers good --scenarios hello --tool wrk
  [[ $output == *"port $PORT is taken by pid $holder_pid"* ]]
  kill -0 "$holder_pid"
  valid "$(results_file)"
}

# alive PID: 0 while PID runs (a zombie counts as gone).
alive() { local state; state=$(ps -o stat= -p "$1" 2>/dev/null) && [[ -n $state && $state != Z* ]]; }

# signal_run WAY SIGNAL CODE PHASE MARK ARGS...: starts run-benchmarks.sh ARGS on the fixture
# servers as `setsid ./run-benchmarks.sh ... &` from a script does (a session and process group
# of its own; SIGINT ignored on entry, as for every background job of a script). A second after
# its stderr shows MARK, sends SIGNAL to the script alone (WAY pid) or to its whole process group
# as a terminal's Ctrl-C does (WAY group). The fixtures would go on for minutes: the run must end
# within 30 s with CODE, keep its valid, partial results file, have recorded a process labelled
# PHASE, and leave no process behind.
signal_run() {
  local way=$1 signal=$2 code=$3 phase=$4 mark=$5 rc=0 i target f
  shift 5
  background env BARRAGE_SERVERS_DIR="$FAKES" setsid "$RUN" --port "$PORT" --output "$TMP/out" --warmup 0s \
    --server-warmup 0s --connections 4 "$@" >"$TMP/stdout" 2>"$TMP/stderr"
  local run_pid=$BG_PID
  for ((i = 0; i < 600; i++)); do
    grep -qF -- "$mark" "$TMP/stderr" && break
    sleep 0.1
  done
  sleep 1
  target=$run_pid
  [[ $way == group ]] && target=-$run_pid
  kill "-$signal" -- "$target"
  for ((i = 0; i < 300; i++)); do alive "$run_pid" || break; sleep 0.1; done
  if alive "$run_pid"; then
    cat "$TMP/stderr"
    echo "still running 30 s after SIG$signal to $way $target"
    return 1
  fi
  wait "$run_pid" || rc=$?
  cat "$TMP/stderr"
  [ "$rc" -eq "$code" ]
  f=$(results_file)
  valid "$f"
  [ "$(jq .complete "$f")" = false ]
  grep -qP "\t\Q$phase\E" "$(pid_list)"
  no_process_left
  # the results file, its page (marked incomplete) and its logs folder, no side files
  grep -qF 'id="incomplete"' "${f%.json}.html"
  [ "$(find "$TMP/out" -maxdepth 1 -type f | wc -l)" -eq 2 ]
}

# signal_measuring WAY SIGNAL CODE: during the second of four measured runs (4 s each: the
# signal comes a second after the second starts, the rest would take 11 s more).
signal_measuring() {
  signal_run "$1" "$2" "$3" "tool wrk" "run 2 of 4" --duration 4s --servers good --tool wrk \
    --scenarios hello,baseline,post-load,large-file
  local f
  f=$(results_file)
  [ "$(jq '[.results[] | select(.status == "ok")] | length' "$f")" -eq 1 ]
  [ "$(jq '.results | length' "$f")" -eq 1 ]
}

# signal_verifying WAY SIGNAL CODE: while the slow server's contract is checked (each of its
# requests would wait for CONTRACT_MAX_TIME, 5 minutes).
signal_verifying() {
  CONTRACT_MAX_TIME=300 signal_run "$1" "$2" "$3" "contract verification slow" "verifying slow" \
    --duration 1s --servers slow --tool wrk --scenarios hello
  [ "$(jq '.results | length' "$(results_file)")" -eq 0 ]
}

# signal_building WAY SIGNAL CODE: during a Maven build that would take 5 minutes (a fake mvn);
# the build and its child are gone afterwards.
signal_building() {
  local pid
  FAKE_MVN_PIDS=$TMP/mvn-pids PATH="$ROOT/tests/fixtures/slow-maven:$PATH" signal_run "$1" "$2" "$3" \
    "maven build" "building servers" --duration 1s --servers unbuildable --tool wrk --scenarios hello
  [ "$(wc -l <"$TMP/mvn-pids")" -eq 2 ]
  while read -r pid; do
    ! alive "$pid" || { echo "fake mvn process $pid still runs"; return 1; }
  done <"$TMP/mvn-pids"
}

@test "signals: a sampler stopped as it starts leaves the clean-up to the run: its server keeps running" {
  # A signal that reaches a subshell just after its fork runs the trap it inherited. The
  # run's EXIT trap then ran in a tool sampler stopped at once (a tool that ended at once) and
  # stopped the server under the running measurement, now and then.
  # shellcheck disable=SC2016 # expanded by that bash
  run sourced 'install_traps
    setsid sleep 60 </dev/null >/dev/null 2>&1 &
    SERVER_PID=$!
    for ((i = 0; i < 100; i++)); do
      system::group_sample_start 999999999 /dev/null
      system::group_sample_stop
    done
    if kill -0 "$SERVER_PID" 2>/dev/null; then echo "server alive after 100 samplers"; fi' \
    --servers good --scenarios hello --tool wrk
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"server alive after 100 samplers"* ]]
  # stopped once, by the run's own exit
  [ "$(grep -c 'stopping server process group' <<<"$output")" -eq 1 ]
  [[ $output != *"wait_for"* ]]
}

@test "signals: SIGINT to the process group (Ctrl-C) while measuring: partial file, exit 130, no process left" {
  signal_measuring group INT 130
}

@test "signals: SIGINT to the script while measuring: partial file, exit 130, no process left" {
  signal_measuring pid INT 130
}

@test "signals: SIGTERM to the script while measuring: partial file, exit 143, no process left" {
  signal_measuring pid TERM 143
}

@test "signals: SIGINT to the process group (Ctrl-C) while verifying the contract: exit 130, no process left" {
  signal_verifying group INT 130
}

@test "signals: SIGINT to the script while verifying the contract: exit 130, no process left" {
  signal_verifying pid INT 130
}

@test "signals: SIGINT to the process group (Ctrl-C) while Maven builds: exit 130, no build left" {
  signal_building group INT 130
}

@test "signals: SIGINT to the script while Maven builds: exit 130, no build left" {
  signal_building pid INT 130
}

@test "leftover check: a JVM server left running is found through the pid list, not through command lines" {
  source "$ROOT/lib/servers.sh"
  servers::build jdk-httpserver
  mkdir -p "$TMP/out/run.logs"
  procs::record_to "$TMP/out/run.logs/pids"
  servers::start jdk-httpserver "$PORT" "$TMP/server.log"
  procs::record "$SERVER_PID" "server jdk-httpserver"
  servers::wait_ready "$SERVER_PID" "$PORT" 60
  # The JVM gets its port from the environment: no command line shows it.
  [ -z "$(leftovers)" ]
  [[ $(run_leftovers) == *"server jdk-httpserver: pid $SERVER_PID still runs"* ]]
  servers::stop "$SERVER_PID" 10
  SERVER_PID=''
  [ -z "$(run_leftovers)" ]
}

@test "barrage runs mixed over h1 with the scenario's script (no skip), on the fixture server" {
  run -0 fake --servers good --scenarios mixed --tool barrage --dry-run
  [[ $output != *"skipped"* ]]
  run fake --servers good --scenarios mixed --tool barrage
  echo "$output"
  [ "$status" -eq 0 ]
  local f
  f=$(results_file)
  valid "$f"
  [ "$(jq -r '.results[0] | [.tool, .scenario, .status] | join(" ")' "$f")" = "barrage mixed ok" ]
  [ "$(jq '.results[0].metrics | .succeeded > 0 and .failed == 0' "$f")" = true ]
  [ -z "$(leftovers)" ]
}

@test "e2e: barrage over h2c measures a real server with the scenario's streams" {
  source "$ROOT/lib/servers.sh"
  servers::build jetty
  # a fixed 1 s server warm-up (the steady-state one is tested below), then a 1 s run
  run "$RUN" --quick --server-warmup 1s --duration 1s --warmup 0s --port "$PORT" --output "$TMP/out" --servers jetty \
    --scenarios hello --tool barrage --protocol h2c
  echo "$output"
  [ "$status" -eq 0 ]
  local f
  f=$(results_file)
  valid "$f"
  [ "$(jq '.results | length' "$f")" -eq 1 ]
  # as readable as any file the user writes (the umask decides, not mktemp)
  [ "$(stat -c %a "$f")" = "$(printf '%o' $((0666 & ~0$(umask))))" ]
  [ "$(jq -r '.results[0] | [.tool, .protocol, .status, .config.streams] | join(" ")' "$f")" = "barrage h2c ok 10" ]
  # exact accounting: every request in one bucket (a server's slow streams may time out, counted)
  [ "$(jq '.results[0].metrics | .succeeded > 0 and .accounting == "exact" and .started != null' "$f")" = true ]
  exact_accounting "$f"
  grep -qP '\tserver jetty$' "$(pid_list)"
  no_process_left
}

@test "e2e: --protocol h3: barrage measures netty and jetty over QUIC, verified against the suite's CA; other tools are not planned" {
  source "$ROOT/lib/servers.sh"
  servers::build netty jetty
  # 10 connections (x the scenario's 10 streams): Jetty's QUIC connector, cold, answers few of
  # hello's 100 connections' requests within barrage's 2 s timeout on a loaded 2-core machine
  run "$RUN" --quick --server-warmup 1s --duration 1s --port "$PORT" --output "$TMP/out" --servers netty,jetty,jdk-httpserver \
    --scenarios hello --tool barrage,wrk --protocol h3 --connections 10
  echo "$output"
  [ "$status" -eq 0 ]
  # the servers that declare h3 are verified over h3 (the contract's QUIC client) before measuring,
  # and over h1, not over h2c, which this run does not measure
  [[ $output == *"verifying netty (h1,h3)"* && $output == *"verifying jetty (h1,h3)"* ]]
  local f
  f=$(results_file)
  valid "$f"
  # jdk-httpserver declares no h3, wrk speaks none: two rows, barrage's, over h3
  [ "$(jq -r '[.results[] | "\(.server) \(.tool) \(.protocol) \(.status) \(.config.streams)"] | sort | join(",")' "$f")" = \
    "jetty barrage h3 ok 10,netty barrage h3 ok 10" ]
  assert_jq '.results[] | .metrics | .succeeded > 0 and .accounting == "exact" and .quic != null' "$f"
  exact_accounting "$f"
  # the server warm-up ran barrage over h3 too
  assert_jq '[.server_warmups[].shapes[] | .protocol == "h3" and .status == "ok"] | length == 2 and all' "$f"
  no_process_left
}

@test "plan: --protocol all includes h1s and h2 for the servers that declare them, with the tools that speak them" {
  run -0 "$RUN" --servers jetty,jdk-httpserver --scenarios hello --tool wrk,h2load,barrage,jdk-client --dry-run
  echo "$output"
  local tool
  for tool in wrk h2load barrage jdk-client; do
    [ "$(grep -cE "^1 +jdk-httpserver +$tool +h1s +hello" <<<"$output")" -eq 1 ]
    [ "$(grep -cE "^1 +jetty +$tool +h1s +hello" <<<"$output")" -eq 1 ]
  done
  # h2 (TLS, ALPN) for jetty only, and not with wrk (HTTP/1.1 only)
  [ "$(grep -cE '^1 +jetty +(h2load|barrage|jdk-client) +h2 +hello' <<<"$output")" -eq 3 ]
  [ "$(grep -cE ' +h2 +hello' <<<"$output")" -eq 3 ]
  # a lab run plans them too
  printf 'server_host = 127.0.0.2\nload_hosts = 127.0.0.3\n' >"$TMP/lab.conf"
  run -0 "$RUN" --lab "$TMP/lab.conf" --servers jetty --tool barrage --scenarios hello --dry-run
  [ "$(grep -cE '^1 +jetty +barrage +(h1s|h2) +hello' <<<"$output")" -eq 2 ]
}

@test "e2e: --protocol h1s,h2: barrage and h2load measure jdk-httpserver and netty over TLS, contracts checked over TLS" {
  source "$ROOT/lib/servers.sh"
  servers::build jdk-httpserver netty
  run "$RUN" --quick --server-warmup 1s --duration 1s --port "$PORT" --output "$TMP/out" --servers jdk-httpserver,netty \
    --scenarios hello --tool barrage,h2load --protocol h1s,h2 --connections 10
  echo "$output"
  [ "$status" -eq 0 ]
  # each server's contract is checked over the TLS protocols it is measured with (and h1)
  [[ $output == *"verifying jdk-httpserver (h1,h1s)"* && $output == *"verifying netty (h1,h1s,h2)"* ]]
  local f
  f=$(results_file)
  valid "$f"
  [ "$(jq -r '[.results[] | "\(.server) \(.tool) \(.protocol) \(.status)"] | sort | join(",")' "$f")" = \
    "jdk-httpserver barrage h1s ok,jdk-httpserver h2load h1s ok,netty barrage h1s ok,netty barrage h2 ok,netty h2load h1s ok,netty h2load h2 ok" ]
  assert_jq '.results[] | .metrics | .succeeded > 0 and .status["2xx"] == .succeeded' "$f"
  # the h2 rows carry the scenario's streams; barrage verified the certificate (a TLS handshake failure would count)
  assert_jq '[.results[] | select(.protocol == "h2") | .config.streams] == [10, 10]' "$f"
  assert_jq '[.results[] | select(.tool == "barrage") | .metrics.connections.tls_errors] | all(. == 0)' "$f"
  exact_accounting "$f"
  # the server warm-up ran barrage over TLS too
  assert_jq '[.server_warmups[].shapes[] | "\(.protocol)-\(.status)"] | sort == ["h1s-ok", "h1s-ok", "h2-ok"]' "$f"
  no_process_left
}

@test "a lab plans h3 for the servers that declare it, as here; 'all' includes it" {
  printf 'server_host = 127.0.0.2\nload_hosts = 127.0.0.3\n' >"$TMP/lab.conf"
  run "$RUN" --lab "$TMP/lab.conf" --protocol h3 --servers netty,jdk-httpserver --tool barrage --scenarios hello --dry-run
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(grep -cE '^1 +netty +barrage +h3 +hello' <<<"$output")" -eq 1 ]
  # no plan row of jdk-httpserver over h3 (the round's order line names it before the rows)
  [ "$(grep -cE '^[0-9]+ +jdk-httpserver +[a-z-]+ +h3 ' <<<"$output")" -eq 0 ]
  run "$RUN" --lab "$TMP/lab.conf" --servers netty --tool barrage --scenarios hello --dry-run
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(grep -cE '^1 +netty +barrage +(h1|h2c|h3) +hello' <<<"$output")" -eq 3 ]
}

@test "e2e: --quick, two real servers (one with h2c) x two scenarios x wrk and h2load" {
  source "$ROOT/lib/servers.sh"
  servers::build jdk-httpserver jetty
  # the steady-state server warm-up of the defaults, with a lower cap and 1 s runs to keep the
  # test short (each run keeps --quick's 1 s warm-up: without one, h2load 1.52's -D
  # often never ends against jetty, and the run's timeout fails the row)
  run "$RUN" --quick --duration 1s --port "$PORT" --output "$TMP/out" --servers jdk-httpserver,jetty \
    --scenarios hello,post-load --tool wrk,h2load --server-warmup auto:2s --protocol h1,h2c
  echo "$output"
  [ "$status" -eq 0 ]
  local f
  f=$(results_file)
  valid "$f"
  [ "$(jq .complete "$f")" = true ]
  # jdk-httpserver: h1 x 2 tools x 2 scenarios; jetty adds h2load over h2c.
  [ "$(jq '.results | length' "$f")" -eq 10 ]
  [ "$(jq '[.results[] | select(.protocol == "h2c")] | length' "$f")" -eq 2 ]
  assert_jq '.results[] | .status == "ok" and .metrics.requests > 0 and .metrics.failed == 0' "$f"
  assert_jq '.results[] | .server_stats.cpu_pct > 0 and .server_stats.rss_peak_kb > 0' "$f"
  [ "$(jq -r '.results[] | select(.server == "jetty") | .server_version' "$f" | sort -u)" != null ]
  # each server start warmed up by barrage until steady state (at most 2 s a shape) before its
  # first measured run; each row says what its server got
  [ "$(jq -r '[.server_warmups[] | "\(.server):\(.mode):\(.duration_s):\([.shapes[] | "\(.protocol)-\(.scenario)-\(.status)"] | join(","))"]
      | sort | join(" ")' "$f")" = \
    "jdk-httpserver:auto:2:h1-hello-ok,h1-post-load-ok jetty:auto:2:h1-hello-ok,h1-post-load-ok,h2c-hello-ok,h2c-post-load-ok" ]
  assert_jq '.server_warmups[].shapes[] | (.steady | type) == "boolean" and .warmup_s > 0 and .warmup_s < 2.5' "$f"
  assert_jq '.results[] | .server_warmup.mode == "auto" and (.server_warmup.steady | type) == "boolean"' "$f"
  exact_accounting "$f"
  [ "$(grep -cP '\tserver (jetty|jdk-httpserver)$' "$(pid_list)")" -eq 2 ]
  no_process_left
}

@test "options: a CPU named twice in --cpus, a backward range, or one heap twice in --heap (1g and 1024m) is refused (exit 2)" {
  local bad
  for bad in "--cpus 0,0:1" "--cpus 0-2,1:3" "--cpus 0:1,1" "--cpus 2-1:0" "--heap 1g,1024m" "--heap 512m,512m"; do
    # shellcheck disable=SC2086 # the option and its value
    run -2 fake --servers good --scenarios hello --tool wrk $bad --dry-run
    [[ $output == *"twice"* || $output == *"same heap"* || $output == *"backwards"* ]] || { echo "$bad: $output"; return 1; }
  done
  run -2 fake --servers good --scenarios hello --tool wrk --cpus 0,0:1 --dry-run
  [[ $output == *"--cpus: CPU 0 is named twice in the server's CPUs '0,0'"* ]]
  run -2 fake --servers good --scenarios hello --tool wrk --heap 1g,1024m --dry-run
  [[ $output == *"--heap: '1024m' is the same heap as '1g' in '1g,1024m'"* ]]
  run -0 fake --servers good --scenarios hello --tool wrk --cpus 0:1 --dry-run --budget none
}
