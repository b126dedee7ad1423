#!/usr/bin/env bash
# settings: the run's settings, one record. run-benchmarks.sh's parse_options fills SETTINGS
# (and the four selection arrays below) from the command line, once, and makes them read-only;
# the libraries read ${SETTINGS[key]} and never write it (what a library works out, it returns).
# Every key has a value from the start (the defaults below), so that `set -u` code can read any.
#
# SETTINGS (an associative array; "" means none / not given):
#   key                 option                  value
#   command_line        (the command line)      the command as typed, shell-quoted (the results' command)
#   servers, scenarios, tools, protocols
#                       --servers --scenarios --tool --protocol
#                                               the selection as given (a comma list or all); the
#                                               names picked are in SERVERS, SCENARIOS, TOOLS, PROTOCOLS
#   duration_s          --duration              measured seconds per run (30; --quick 3)
#   warmup_s            --warmup                discarded warm-up seconds before each run (10; --quick 1)
#   server_warmup_mode  --server-warmup         auto (until steady state, at most server_warmup_s) or fixed
#   server_warmup_s     --server-warmup         the cap (auto: 60, --quick 15) or the fixed length; 0: none
#   runs                --runs                  rounds (1); a budgeted run: 1 (its first round; the others
#                                               are added as it goes, lib/rounds.sh)
#   runs_given          --runs                  1 when --runs was given, else 0
#   budget_s            --budget                a budgeted run's time limit, seconds (3600 by default); "":
#                                               none, a fixed plan of --runs rounds (--budget none, --runs,
#                                               --quick or --aa without --budget)
#   budget              --budget                the budget as given ("" for the default)
#   tie_margin          --tie-margin            the fraction within which two contestants are equal (0.03)
#   cross_check         (the default plan)      the scenarios the other tools measure in a budgeted run
#                                               whose tools were not picked (space-separated); "": every tool
#                                               measures every scenario
#   main_tool           (the default plan)      the tool that measures every row of that plan (the warm-up
#                                               tool, steady::tool); "" otherwise
#   left_out            (the default plan)      what fitting the plan to the budget left out, in words; ""
#   warmup_sized        (a budgeted run)        1: later rounds size each server's warm-up cap from its
#                                               time to steady state (lib/rounds.sh; --server-warmup and
#                                               --quick not given, warm-ups until steady state); else 0
#   seed                --seed                  the server order's seed (drawn when not given)
#   aa                  --aa                    1: an A/A run (the one server as labels A and B); else 0
#   variants            --variants              the variants picked, as given (jetty:vt,*:pretouch); "": none
#   jdks, gcs, heaps, server_cpu_counts
#                       --jdk --gc --heap --server-cpus
#                                               the matrix crossed with the variants, comma lists
#                                               as given ("": that axis not in the run); any of
#                                               these five makes a variant run (lib/variants.sh)
#   connections         --connections           every scenario's connection count; "": the scenario table's
#   threads_option      --threads               load-tool threads as given; "": from the CPUs
#   threads             (--threads or CPUs)     load-tool threads: --threads, else the CPUs of
#                                               client_cpus, else this machine's cores (at most barrage's 1024)
#   cpus                --cpus                  SERVER:CLIENT as given, none, or "" (the place's default)
#   server_cpus, client_cpus
#                       --cpus (or the default) the CPU lists the server and the load tool are pinned to; "": none
#   port                --port                  the server's port ($BARRAGE_PORT or 8080)
#   quick               --quick                 1 or 0
#   profile             --profile               the async-profiler event, "" for none
#   gc_log              --no-gc-log             1 (the servers' GC log) or 0
#   metrics             --metrics               1 (a Prometheus watching the run: lib/prom.sh) or 0
#   rates               --rates                 the fixed rates' text (500,1000); "": the scenario table's
#   stages              --rate-stages           the ramp's text; "": the scenario table's
#   capacity            --capacity              the conditions' JSON (lib/slo.jq); "": no capacity search
#   capacity_precision  --capacity-precision    the bisection's relative bracket (0.02)
#   capacity_start      --capacity-start        the search's first rate (100)
#   slo                 --slo                   the gates' JSON (lib/slo.jq); "": none
#   server_host, load_hosts, lab_file, lab_dir, strict
#                       --server-host --load-hosts --lab --lab-dir --strict
#                                               a lab's set-up as given (lib/lab.sh keeps the lab itself)
#   label, description  --label --description   recorded in the results
#   output_dir          --output                where the results go (results/)
#   list, dry_run       --list --dry-run        1 or 0
#
# SERVERS, SCENARIOS, TOOLS, PROTOCOLS (indexed arrays): the servers, scenarios, tools and
# protocols picked, in the order given (all: every one there is; PROTOCOLS: what the place
# measures).

# shellcheck disable=SC2034 # read by run-benchmarks.sh and the libraries it sources
declare -gA SETTINGS=(
  [command_line]='' [servers]=all [scenarios]=all [tools]=all [protocols]=all
  [duration_s]='' [warmup_s]='' [server_warmup_mode]=auto [server_warmup_s]='' [runs]=1 [runs_given]=0 [seed]='' [aa]=0
  [variants]='' [jdks]='' [gcs]='' [heaps]='' [server_cpu_counts]=''
  [connections]='' [threads_option]='' [threads]='' [cpus]='' [server_cpus]='' [client_cpus]=''
  [port]=${BARRAGE_PORT:-8080} [quick]=0 [profile]='' [gc_log]=1 [metrics]=0
  [rates]='' [stages]='' [capacity]='' [capacity_precision]=0.02 [capacity_start]=100 [slo]=''
  [server_host]='' [load_hosts]='' [lab_file]='' [lab_dir]='' [strict]=0
  [budget_s]='' [budget]='' [tie_margin]=0.03 [cross_check]='' [main_tool]='' [left_out]='' [warmup_sized]=0
  [label]='' [description]='' [output_dir]='' [list]=0 [dry_run]=0
)
# shellcheck disable=SC2034 # the same
SERVERS=() SCENARIOS=() TOOLS=() PROTOCOLS=()
