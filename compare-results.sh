#!/usr/bin/env bash
# compare-results.sh: compare two results files row by row and say whether NEW regressed.
# See --help. Exit 0: no regression; 1: at least one; 2: usage or input error.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/log.sh
source "$ROOT/lib/log.sh"
# shellcheck source=lib/deps.sh
source "$ROOT/lib/deps.sh"
# shellcheck source=lib/schema.sh
source "$ROOT/lib/schema.sh"
# shellcheck source=lib/resultfile.sh
source "$ROOT/lib/resultfile.sh"
# shellcheck source=lib/compare.sh
source "$ROOT/lib/compare.sh"
# shellcheck source=lib/openloop.sh
source "$ROOT/lib/openloop.sh"
# shellcheck source=lib/procs.sh
source "$ROOT/lib/procs.sh"
# shellcheck source=lib/profile.sh
source "$ROOT/lib/profile.sh"

usage() {
  cat <<'USAGE'
Usage: ./compare-results.sh [OPTIONS] BASE NEW
       ./compare-results.sh --variants FILE [--noise-floor AA.json] [--format F]

Joins the rows of two results files (results/*.json) on server, scenario, protocol and tool
and prints, per row, base and new successful requests/s, p99 latency and error rate, the
change and a verdict. Rows present on one side only are "added" or "removed".

Failed requests are not throughput: requests/s is judged as successful requests/s ("ok/s":
a final response with status 100-399; for a record without successful_rps, succeeded /
duration), so a server that starts answering 503 fast is not faster. The error rate is
failed / requests (4xx and 5xx responses, timeouts, resets, closed connections), pooled over
the runs; p99 is the time to a final response, whatever its status (docs/metrics.md).

Verdicts of ok/s (lower is worse) and p99 (higher is worse):
  1 or 2 runs on a side  a change beyond the threshold is a regression or an improvement,
                         anything within it is "unchanged".
  1 run on a side        one run cannot separate noise from change: the report says so
                         for every such row, and only the threshold (and the noise floor)
                         decide.
  3+ runs on both sides  Welch's t-test on the logarithms of the runs' values (noise in
                         benchmarks is multiplicative, so the log makes it a test of the
                         ratio), and the 95% confidence interval of the change (Welch's
                         t-interval on log values: "95% CI -12.1% to +0.4%"). p >= alpha
                         prints "~": the runs overlap too much to tell a change from noise,
                         whatever the medians say. A significant change within the
                         threshold is "unchanged" (real, too small to matter); beyond it, a
                         regression or an improvement. A rank test such as Mann-Whitney U
                         cannot be used here: with 3 runs per side its smallest possible
                         two-sided p is 0.1, so it could never flag.
Noise floor (--noise-floor AA.json, a run-benchmarks.sh --aa results file: one server
measured as two labels on the same machine): a change of ok/s or p99 no larger than the
floor that A/A run measured for the same scenario, protocol and tool (else its largest) is
"~", never a regression or an improvement, whatever the test says: this machine produces
changes that large from nothing. The floors used are printed under the table.
Error rate: any failed request where the base had none is a regression, however few (a
server that starts failing has changed). Otherwise a rise by more than --error-threshold
percentage points is a regression (a smaller rise, such as 1 timeout more in 10^6 requests,
is noise: "unchanged"); with 3+ runs on both sides the rise must also be significant
(Welch's t-test on the runs' error rates; errors come in bursts, so their run-to-run
spread decides), else "~". A fall beyond the threshold is an improvement.
Row verdicts: regression (a metric of --fail-on regressed; a row whose error rate regressed
is also listed with its base and new error rate), improvement, unchanged, ~,
added, removed, failed (ok in BASE, no successful run in NEW: counts as a regression),
skipped, still failed, recovered. Values are "median ±spread" (largest distance of a run from
the median) when there are several runs.

A second, machine-independent table divides each server's successful requests/s by the
median successful requests/s of the reference server in the same file (same scenario,
protocol and tool) and compares those ratios between the files, so results from two
machines can be compared.

Capacity searches (run-benchmarks.sh --capacity) in both files, with the same conditions, are
compared in a table of their own: the capacity found is judged like successful requests/s,
but a change counts only beyond the larger of --threshold and the search's precision (a
search finds the edge only to within it). A search that met no rate in NEW where BASE met
one is a regression. Judged in the absolute view only (capacity is the machine's own).

Variants (--variants FILE: one results file of a variant run, run-benchmarks.sh --variants,
--jdk, --gc, --heap or --server-cpus): every contestant of a server is compared with the
server's first (the file's settings.variants order) per scenario, protocol and tool, the
way an A/A run compares A and B: the change of the medians and its 95% interval (Welch's
t-interval on log values), "jetty:vt against jetty:platform (...): ok/s +12.0% [+8.0%,
+16.0%]: faster". faster / slower when the interval excludes 0 (and the change is beyond
--noise-floor's floor when given), ~ when it holds 0; with fewer than 2 runs a side the
change is shown, not judged. With the file's server warm-ups, each line adds the start-up
against the first: "first response 0.6 s against 1.5 s, steady after 3 s against 13 s (not
reached in 1 more)" (medians over the starts; steady state over the starts that reached it);
an aot contestant whose ok/s is faster or slower adds "a finding" (Leyden does not aim to
change steady throughput). Exit 0 (2 for a file that is not a variant run).

Options:
  --variants FILE      compare the variants within FILE (above) instead of two files
  --threshold PCT      successful requests/s change that matters (default 5)
  --p99-threshold PCT  p99 change that matters (default 20: tail latency is much noisier
                       than throughput from one run to the next)
  --error-threshold PTS
                       rise of the error rate that matters, in percentage points of the
                       requests (default 0.1: one request in 1,000); errors where the base
                       had none regress whatever this says
  --alpha A            significance level of the test with 3+ runs (default 0.05)
  --fail-on LIST       metrics whose regression exits 1, a comma list of rps (successful
                       requests/s), p99, errors (error rate) and capacity (a capacity
                       search's rate) (default rps,p99,errors,capacity)
  --reference SERVER   reference server of the relative view (default java-http); one named
                       here must be in BASE or NEW
  --noise-floor FILE   the results file of an A/A run (run-benchmarks.sh --aa) whose noise
                       floor no regression may fall within (see above)
  --gate absolute|relative
                       which view decides the exit status (default absolute; use relative
                       for files from two different machines)
  --any-machine        gate the absolute view on files from two machines anyway (below)
  --slo GATES          service-level objectives as run-benchmarks.sh --slo takes them
                       ('hello:p99<5ms,errors<0.1%;post-load:p99<20ms', or a file): a row of
                       NEW that breaks one that the same row of BASE met (every run) is a
                       regression, whatever the statistics say; listed after the report.
                       Rows at a fixed rate (--rates) are compared only by these conditions,
                       not in the tables above; capacity searches have their own table.
                       A scenario named here must be in BASE or NEW
  --details            text: the wide table (each side's ok/s, p99 and error rate, the p-values
                       and 95% intervals); without it the narrow one (the changes and verdicts)
  --format text|markdown|json|junit
                       output format (default text): markdown for a job summary or a
                       pull-request comment; json, whose "regressions" is the list of what
                       fails the gate, one {series, view, metric, change} per row and regressed
                       metric (as history.sh's), empty when the exit is 0; junit, JUnit XML for
                       a CI test report (a test case per compared row, a failure per regression
                       the exit counts, its figures in the message); the exit status is the same
  --tool T, --scenario S, --server S, --protocol P
                       only these rows; each may be repeated or given as a comma list;
                       each name must be in BASE or NEW
  -h, --help           this text

Files from two machines (another CPU, core count, memory, architecture or lab hosts: the
files' system facts, as history.sh decides) are refused with --gate absolute (exit 2): a change
of machine is not a change of the code. --gate relative compares them (by ratios to the
reference server, with a note); --any-machine gates the absolute view anyway, with a warning.

Files measured with a profiler attached (run-benchmarks.sh --profile) are compared only with
files profiled alike (the same event): a profiler slows what it measures (exit 2 otherwise).

A name in neither file (--reference, --slo's scenarios, the filters) is a usage error: a typo
would gate nothing. A file with no rows is an input error, not a pass.

Exit status: 0 no regression, 1 at least one regression, 2 usage or input error. A reader
that stops early (| head -1) does not change it.
USAGE
}

die_usage() { log::error "$*"; log::error "see ./compare-results.sh --help"; exit 2; }

# emit TEXT: TEXT and a newline on stdout. A reader that stopped early (| head -1: SIGPIPE) does
# not change the exit status, which stays the verdict; any other write error is an error (exit 2).
emit() {
  local rc=0
  (printf '%s\n' "$1") || rc=$?
  ((rc == 0 || rc == 128 + 13)) || { log::error "could not write the comparison (exit $rc)"; exit 2; }
}

# safe: stdin's lines with their control characters made visible (lib/format.jq's safe): a
# string of a results file never reaches the terminal raw.
safe() { jq -Rr -L "$ROOT/lib" 'import "format" as fmt; fmt::safe'; }

# is_number VALUE: a non-negative decimal number.
is_number() { [[ $1 =~ ^[0-9]+([.][0-9]+)?$ ]]; }

# known FIELD BASE NEW: the values of FIELD (server: also an A/A run's labels, jetty@A) in the
# rows of both files, one a line, sorted (but a name with a NUL: no one can type it).
known() {
  jq -rn -L "$ROOT/lib" --arg field "$1" --slurpfile base "$2" --slurpfile new "$3" '
    import "noise" as noise;
    [$base[0], $new[0] | .results[] | (.[$field] // empty), (if $field == "server" then noise::row_name else empty end)
     | tostring | select(test("\u0000") | not)] | unique[]'
}

# check_names OPTION KNOWN NAME...: a usage error (exit 2, naming the known ones) unless every
# NAME (each may be a comma list) is one of KNOWN (one a line): a typo must not pass a gate.
check_names() {
  local option=$1 known_names=$2 name names=()
  shift 2
  IFS=, read -r -a names <<<"$(IFS=,; echo "$*")"
  for name in "${names[@]}"; do
    [[ -n $name ]] || continue
    grep -qxF -- "$name" <<<"$known_names" \
      || die_usage "$(safe <<<"$option: '$name' is in neither file (known: $(paste -sd, <<<"$known_names" | sed 's/,/, /g'))")"
  done
}

# same_machine BASE NEW GATE ANY_MACHINE: returns 0 when both files come from one machine
# (lib/compare.jq's machine: as history.sh tells machines apart). From two: an error (returns
# 1) when GATE is absolute and ANY_MACHINE is empty; else a note (relative) or a warning.
same_machine() {
  local base new
  base=$(jq -r -L "$ROOT/lib" 'import "compare" as c; c::machine' "$1")
  new=$(jq -r -L "$ROOT/lib" 'import "compare" as c; c::machine' "$2")
  [[ $base != "$new" ]] || return 0
  local which
  which=$(safe <<<"BASE and NEW come from two machines (BASE: $base; NEW: $new)")
  if [[ $3 == relative ]]; then
    log::info "$which: the relative view decides (--gate relative)"
  elif [[ -n $4 ]]; then
    log::warn "$which: gated on the absolute view anyway (--any-machine): a change of machine is not a change of the code"
  else
    log::error "$which. A change of machine is not a change of the code: --gate relative compares them by their ratios to the reference server; --any-machine gates the absolute view anyway"
    return 1
  fi
}

# compare_variants FILE NOISE_FLOOR_FILE FORMAT: --variants: each server's contestants in FILE
# against its first (lib/noise.jq: noise::variants), as text lines, markdown items or JSON.
compare_variants() {
  local file=$1 floor=null format=$3
  [[ $format == text || $format == markdown || $format == json ]] \
    || die_usage "--format takes text, markdown or json, got '$format'"
  deps::ensure jq:jq || exit 2
  resultfile::check "$file" --need-rows || exit 2
  if [[ -n $2 ]]; then floor=$(resultfile::noise_floor "$2") || exit 2; fi
  if ! jq -e '[.results[] | select(.variant != null)] | length > 0' "$file" >/dev/null; then
    log::error "$(safe <<<"$file: not a variant run (no row has a variant: run-benchmarks.sh --variants, --jdk, --gc, --heap, --server-cpus)")"
    exit 2
  fi
  local comparison
  comparison=$(jq -c -L "$ROOT/lib" --argjson floor "$floor" 'import "noise" as noise; noise::variants(0.95; $floor)' "$file") \
    || { log::error "could not compare the variants of $file"; exit 2; }
  case $format in
    json) emit "$comparison" ;;
    text|markdown)
      [[ $(jq length <<<"$comparison") -gt 0 ]] \
        || log::warn "$(safe <<<"no two contestants of one server measured with the same scenario, protocol and tool in $file")"
      local lines
      lines=$(jq -r -L "$ROOT/lib" --arg prefix "$([[ $format == markdown ]] && echo '- ')" \
        'import "noise" as noise; import "format" as fmt; noise::variant_lines | $prefix + fmt::safe' <<<"$comparison") \
        || { log::error "could not render the comparison of the variants"; exit 2; }
      [[ -z $lines ]] || emit "$lines" ;;
  esac
}

main() {
  local threshold=5 p99_threshold=20 error_threshold=0.1 alpha=0.05 fail_on=rps,p99,errors,capacity
  local reference=java-http reference_given='' gate=absolute noise_floor_file='' slo=''
  local format=text files=() tools=() scenarios=() servers=() protocols=() variants_file='' any_machine='' details=0
  while (($#)); do
    case $1 in
      -h|--help) usage; exit 0 ;;
      --any-machine) any_machine=1; shift ;;
      --details) details=1; shift ;;
      --threshold|--p99-threshold|--error-threshold|--alpha|--fail-on|--reference|--gate|--format|--tool|--scenario|--server|--protocol|--noise-floor|--slo|--variants)
        (($# >= 2)) || die_usage "$1 needs a value"
        case $1 in
          --threshold) threshold=$2 ;;
          --p99-threshold) p99_threshold=$2 ;;
          --error-threshold) error_threshold=$2 ;;
          --alpha) alpha=$2 ;;
          --fail-on) fail_on=$2 ;;
          --reference) reference=$2 reference_given=1 ;;
          --gate) gate=$2 ;;
          --noise-floor) noise_floor_file=$2 ;;
          --variants) variants_file=$2 ;;
          --slo) slo=$(openloop::gates "$2" 2>&1) || die_usage "--slo: ${slo#jq: error*: }" ;;
          --format) format=$2 ;;
          --tool) tools+=("$2") ;;
          --scenario) scenarios+=("$2") ;;
          --server) servers+=("$2") ;;
          --protocol) protocols+=("$2") ;;
        esac
        shift 2 ;;
      --) shift; files+=("$@"); break ;;
      -*) die_usage "unknown option $1" ;;
      *) files+=("$1"); shift ;;
    esac
  done
  if [[ -n $variants_file ]]; then
    ((${#files[@]} == 0)) || die_usage "--variants compares the variants within one file: no BASE and NEW with it"
    compare_variants "$variants_file" "$noise_floor_file" "$format"
    return 0
  fi
  ((${#files[@]} == 2)) || die_usage "expected two results files, BASE and NEW (got ${#files[@]})"
  is_number "$threshold" || die_usage "--threshold must be a number of percent, got '$threshold'"
  is_number "$p99_threshold" || die_usage "--p99-threshold must be a number of percent, got '$p99_threshold'"
  is_number "$error_threshold" \
    || die_usage "--error-threshold must be a number of percentage points, got '$error_threshold'"
  if ! is_number "$alpha" || ! awk -v a="$alpha" 'BEGIN { exit !(a > 0 && a < 1) }'; then
    die_usage "--alpha must be between 0 and 1, got '$alpha'"
  fi
  [[ $fail_on =~ ^(rps|p99|errors|capacity)(,(rps|p99|errors|capacity))*$ ]] \
    || die_usage "--fail-on takes a comma list of rps, p99, errors and capacity, got '$fail_on'"
  [[ $gate == absolute || $gate == relative ]] || die_usage "--gate takes absolute or relative, got '$gate'"
  [[ $format == text || $format == markdown || $format == json || $format == junit ]] \
    || die_usage "--format takes text, markdown, json or junit, got '$format'"

  deps::ensure jq:jq || exit 2
  local file
  for file in "${files[@]}"; do
    resultfile::check "$file" --need-rows || exit 2
  done
  local servers_known scenarios_known
  servers_known=$(known server "${files[@]}")
  scenarios_known=$(known scenario "${files[@]}")
  [[ -z $reference_given ]] || check_names --reference "$servers_known" "$reference"
  ((${#servers[@]} == 0)) || check_names --server "$servers_known" "${servers[@]}"
  ((${#scenarios[@]} == 0)) || check_names --scenario "$scenarios_known" "${scenarios[@]}"
  ((${#tools[@]} == 0)) || check_names --tool "$(known tool "${files[@]}")" "${tools[@]}"
  ((${#protocols[@]} == 0)) || check_names --protocol "$(known protocol "${files[@]}")" "${protocols[@]}"
  if [[ -n $slo ]]; then
    local slo_scenarios
    slo_scenarios=$(jq -r '[.[].scenario // empty] | join(",")' <<<"$slo")
    [[ -z $slo_scenarios ]] || check_names --slo "$scenarios_known" "$slo_scenarios"
  fi
  profile::comparable "${files[0]}" "${files[1]}" || exit 2
  same_machine "${files[0]}" "${files[1]}" "$gate" "$any_machine" || exit 2
  local noise_floor=null
  if [[ -n $noise_floor_file ]]; then noise_floor=$(resultfile::noise_floor "$noise_floor_file") || exit 2; fi

  local opts
  opts=$(jq -n --argjson threshold "$threshold" --argjson p99_threshold "$p99_threshold" \
    --argjson error_threshold "$error_threshold" \
    --argjson alpha "$alpha" --arg fail_on "$fail_on" --arg reference "$reference" --arg gate "$gate" \
    --arg tools "$(IFS=,; echo "${tools[*]}")" --arg scenarios "$(IFS=,; echo "${scenarios[*]}")" \
    --arg servers "$(IFS=,; echo "${servers[*]}")" --arg protocols "$(IFS=,; echo "${protocols[*]}")" \
    --arg base_file "${files[0]}" --arg new_file "${files[1]}" --argjson noise_floor "$noise_floor" '
      def list: split(",") | map(select(length > 0));
      {threshold: ($threshold / 100), p99_threshold: ($p99_threshold / 100),
       error_threshold: ($error_threshold / 100), alpha: $alpha,
       fail_on: ($fail_on | list | unique), reference: $reference, gate: $gate,
       filters: {tool: ($tools | list), scenario: ($scenarios | list),
                 server: ($servers | list), protocol: ($protocols | list)},
       base_file: $base_file, new_file: $new_file, noise_floor: $noise_floor}')

  local document regressions broken=''
  document=$(compare::document "${files[0]}" "${files[1]}" "$opts") \
    || { log::error "could not compare ${files[0]} and ${files[1]}"; exit 2; }
  if [[ -n $slo ]]; then
    broken=$(openloop::slo_regressions "${files[0]}" "${files[1]}" "$slo") || { log::error "could not check the SLO"; exit 2; }
    # each one is a regression: the report's exit status says so too
    [[ -z $broken ]] || document=$(jq --arg broken "$broken" \
      '($broken | split("\n") | map(ltrimstr("  "))) as $b
       | .regressions += ($b | map(capture("^(?<series>.*?): (?<condition>.*)$") // {series: ., condition: null}
                                   | {series, view: "slo", metric: "slo", condition}))
       | .slo_regressions = $b' <<<"$document")
  fi
  if [[ $(jq '.rows | length' <<<"$document") -eq 0 ]]; then
    log::warn "no rows to compare (check the filters)"
  fi
  local report
  report=$(compare::render "$format" "$details" <<<"$document") || { log::error "could not render the comparison"; exit 2; }
  [[ -z $broken || $format == json || $format == junit ]] \
    || report+=$(printf '\n\nSLO regressions (met in BASE, broken in NEW; each fails the comparison):\n%s' "$(safe <<<"$broken")")
  emit "$report"
  regressions=$(compare::regressions <<<"$document")
  if ((regressions > 0)); then exit 1; fi
}

main "$@"
