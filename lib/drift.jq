# drift: does a row's per-second series still trend inside its measured window (issue 21)?
# (jq -L lib 'import "drift" as drift; ...')
#
#   series    a barrage record -> each whole second's successful requests/s in the measured
#             window (timeline entries not in the grace, at least 0.9 s long), oldest first
#   test      [numbers] -> {status, test, n, z, alpha, change, noise, reason}: a Mann-Kendall
#             test for a monotonic trend (S statistic, normal approximation with the tie
#             correction, two-sided at alpha = 0.01: |z| > 2.576) and its size beyond the
#             run's own noise: change = Sen's slope x (n - 1) / median (the change across the
#             window); noise = 1.4826 x the median absolute deviation of the detrended series
#             / median (a robust standard deviation). status "drifting" when the test is
#             significant and |change| is more than twice the noise and at least 2%; "steady"
#             otherwise; "unknown" (reason) with fewer than min_seconds (6) whole seconds.
#   row       a results row -> its drift object: the test on its record's per-second series
#             (metrics.timeline: barrage's, a tool with the capability timeline,
#             lib/tools/README.md); for a tool without one (wrk, h2load, jdk-client), and for a ramped run
#             (load.mode stages), status "unknown" with the reason; null for a row that was
#             not measured
#   min_seconds  6: below that the test cannot reach alpha = 0.01 whatever the series

def min_seconds: 6; # with fewer, even a perfect trend cannot reach alpha = 0.01 (n = 5: |z| <= 2.20)
def z_critical: 2.576;

def _median: sort | length as $n | if $n == 0 then null elif $n % 2 == 1 then .[$n / 2 | floor]
  else (.[$n / 2 - 1] + .[$n / 2]) / 2 end;
def _sign: if . > 0 then 1 elif . < 0 then -1 else 0 end;

def series:
  [(.timeline // [])[] | select((.in_grace | not) and .length_s >= 0.9) | .succeeded / .length_s];

def test:
  . as $x | length as $n |
  if $n < min_seconds then
    {status: "unknown", test: "mann-kendall", n: $n, z: null, alpha: 0.01, change: null, noise: null,
     reason: "\($n) whole seconds in the window: fewer than \(min_seconds)"}
  else
    ([range(0; $n - 1) as $i | range($i + 1; $n) as $j | ($x[$j] - $x[$i]) | _sign] | add) as $s
    # the variance of S with the correction for tied values
    | ([$x | group_by(.)[] | length | select(. > 1) | . * (. - 1) * (2 * . + 5)] | add // 0) as $ties
    | (($n * ($n - 1) * (2 * $n + 5) - $ties) / 18) as $var
    | (if $var <= 0 then 0 elif $s > 0 then ($s - 1) / ($var | sqrt) elif $s < 0 then ($s + 1) / ($var | sqrt) else 0 end) as $z
    | ([range(0; $n - 1) as $i | range($i + 1; $n) as $j | ($x[$j] - $x[$i]) / ($j - $i)] | _median) as $slope
    | ($x | _median) as $m
    | ([range(0; $n) as $i | $x[$i] - $slope * $i] | _median) as $mr
    | ([range(0; $n) as $i | ($x[$i] - $slope * $i - $mr) | fabs] | _median) as $mad
    | (if $m > 0 then $slope * ($n - 1) / $m else null end) as $change
    | (if $m > 0 then 1.4826 * $mad / $m else null end) as $noise
    | {status: (if $change != null and ($z | fabs) > z_critical and ($change | fabs) > ([2 * $noise, 0.02] | max)
                then "drifting" else "steady" end),
       test: "mann-kendall", n: $n, z: ($z * 1000 | round / 1000), alpha: 0.01,
       change: (if $change == null then null else $change * 10000 | round / 10000 end),
       noise: (if $noise == null then null else $noise * 10000 | round / 10000 end), reason: null}
  end;

def row:
  if .status != "ok" or .metrics == null then null
  elif .load.mode? == "stages" then
    {status: "unknown", test: null, n: null, z: null, alpha: null, change: null, noise: null,
     reason: "a ramped rate trends by design"}
  elif (.metrics.timeline | type) == "array" then .metrics | series | test
  else {status: "unknown", test: null, n: null, z: null, alpha: null, change: null, noise: null,
        reason: "\(.tool) gives no per-second series"} end;
