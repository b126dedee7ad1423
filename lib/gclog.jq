# gclog: facts from a HotSpot unified log written with lib/jvm.sh's options
# (-Xlog:gc*,arguments:file=F:timemillis,uptimemillis,level,tags), as a jq module.
#
#   facts($from_ms; $to_ms)   the log's lines (jq -R -n: read with `inputs`) -> the row's "jvm"
#                             object (docs/metrics.md, "JVM and GC facts"): collector, version,
#                             flags, CPUs and heap from the start-up lines; pauses that ended
#                             within [$from_ms, $to_ms] (epoch milliseconds, the measured window);
#                             null when the log holds no JVM start-up line (not a HotSpot log).
#
# A pause is a line tagged gc (Serial, Parallel, G1, Shenandoah) or gc,phases (ZGC) whose
# message names a "Pause" and ends with its duration in ms; the time stamp is its end.
# Allocation rate: what the young generation filled between two pauses (heap before a pause
# minus heap after the previous one) over the time between the window's first and last pause:
# null with fewer than two pauses in the window, when the lines give no heap sizes, or when the
# sizes show nothing filled: they are whole MiB (truncated), so a heap that is full (back-to-back
# full collections, 14M->14M) shows 0 where the server still allocates less than the resolution.

def _line:
  capture("^\\[(?<t>[0-9]+)ms\\]\\[[0-9]+ms\\]\\[[a-z]+ *\\]\\[(?<tags>[a-z0-9,]+) *\\] ?(?<msg>.*)$")
  | .t |= tonumber;

# "1G", "512M", "65536K", "100B" -> MiB
def _mib:
  capture("^(?<n>[0-9]+(\\.[0-9]+)?)(?<u>[BKMG])$")
  | (.n | tonumber) * {"B": (1 / 1048576), "K": (1 / 1024), "M": 1, "G": 1024}[.u];

def _round3: . * 1000 | round / 1000;

# The value of an init line "NAME: VALUE" (first one), or null.
def _init($lines; $name):
  first($lines[] | select(.tags == "gc,init" and (.msg | startswith($name + ": "))) | .msg[($name | length) + 2:]) // null;

def _pause:
  select((.tags == "gc" or .tags == "gc,phases") and (.msg | test("Pause .* [0-9.]+ms$")))
  | {t, ms: (.msg | capture("(?<ms>[0-9.]+)ms$").ms | tonumber),
     heap: (.msg | capture("(?<before>[0-9.]+[BKMG])->(?<after>[0-9.]+[BKMG])\\([0-9.]+[BKMG]\\)") // null
            | if . == null then null else {before: (.before | _mib), after: (.after | _mib)} end)};

# Pauses (sorted by time) -> MiB/s between the first and the last, or null.
def _allocation_rate:
  if length < 2 or any(.[]; .heap == null) then null
  else (.[-1].t - .[0].t) as $span
    | [range(1; length) as $i | .[$i].heap.before - .[$i - 1].heap.after | if . < 0 then 0 else . end] | add
    | if $span > 0 and . > 0 then . / ($span / 1000) | _round3 else null end
  end;

# Nearest-rank percentile of a sorted array of numbers.
def _percentile($p): .[((length * $p) | ceil) - 1];

def facts($from_ms; $to_ms):
  [inputs | _line] as $lines
  | if any($lines[]; .tags == "gc,init") | not then null
    else
      [$lines[] | _pause] as $all
      | [$all[] | select(.t >= $from_ms and .t <= $to_ms)] as $pauses
      | ([$pauses[].ms] | sort) as $ms
      | {collector: (first($lines[] | select(.tags == "gc" and (.msg | startswith("Using "))) | .msg[6:]) // null),
         version: (_init($lines; "Version") | if . == null then null else sub(" \\(.*\\)$"; "") end),
         flags: (first($lines[] | select(.tags == "arguments" and (.msg | startswith("jvm_args: "))) | .msg[10:] | sub(" +$"; "")) // null),
         cpus_available: (_init($lines; "CPUs") | if . == null then null else capture("(?<n>[0-9]+) available").n | tonumber end),
         heap_mib: {min: (_init($lines; "Heap Min Capacity") | if . == null then null else _mib end),
                    initial: (_init($lines; "Heap Initial Capacity") | if . == null then null else _mib end),
                    max: (_init($lines; "Heap Max Capacity") | if . == null then null else _mib end)},
         gc: {pauses: ($ms | length),
              pause_total_ms: ($ms | add // 0 | _round3),
              pause_max_ms: ($ms | last),
              pause_p99_ms: (if ($ms | length) > 0 then $ms | _percentile(0.99) else null end),
              allocation_mib_per_s: ($pauses | _allocation_rate),
              window_ms: ($to_ms - $from_ms)}}
    end;
