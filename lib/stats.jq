# stats: the statistics of compare-results.sh and update-readme.sh, as a jq module
# (jq -L lib 'import "stats" as stats; ...').
#
#   median            [numbers] -> the median, null for an empty array
#   summary           [numbers] -> {median, min, max, n}, null for an empty array
#   mean, variance    [numbers] -> arithmetic mean; unbiased sample variance (n-1)
#   welch_p(a; b)     two-sided p-value of Welch's t-test between the arrays a and b
#   welch_log_p(a; b) the same on log(values): tests the ratio of the two, not the difference
#   betai(a; b; x)    regularized incomplete beta function I_x(a, b)
#   t_critical(df; p) the t with P(|T| > t) = p for Student's t with df degrees of freedom
#                     (df need not be whole: Welch's df); bisection on betai
#   log_interval($level)   [numbers > 0] -> the $level (0.95) confidence interval of their
#                     typical value, a t-interval on log(values): {center (geometric mean), lo,
#                     hi, factor: hi / center = center / lo, n}; null for fewer than 2 values
#                     or a value <= 0
#   ratio_interval(a; b; $level)  the $level confidence interval of the ratio b / a of two
#                     sets of runs (Welch's t-interval on log values): {ratio (of geometric
#                     means), lo, hi, df}; null when a side has fewer than 2 values or a value <= 0
#   successful_rps    metrics record -> successful requests/s; succeeded / duration for a
#                     record without successful_rps; null when neither is known
#   failures          metrics record -> {failed, requests}, the failed requests and the
#                     requests they are a share of; null when the tool did not count them
#   error_rate        [failures] -> all failed / all requests (the runs pooled); null for []
#
# Why Welch's t-test on logarithms: benchmark throughput is a positive quantity whose noise
# is multiplicative (a busy machine costs a few percent, not a few requests), so log(rps) is
# close to normal with an equal spread at every scale, and a difference of means of logs is
# the log of a ratio. With 3 runs per side a rank test (Mann-Whitney U) can never reach
# p < 0.1 (the exact two-sided minimum for 3 vs 3 is 2/20), so it could never flag anything
# at alpha 0.05; Welch's test uses the size of the gap relative to the spread of the runs
# and reaches significance for a clear shift while overlapping runs stay "~".
#
# Why t-intervals on logarithms rather than a bootstrap: with 3 to 5 runs a bootstrap of the
# median has a handful of distinct resamples (10 for 3 runs) and its percentile interval can
# never be wider than the runs themselves, so it claims more certainty than 3 runs hold. The
# t-interval on logs widens with Student's t for small n (4.30 for 3 runs), agrees with the
# Welch test above, and, being multiplicative, reads as "x ±4%" at any scale
# (docs/statistics.md).

def successful_rps:
  .successful_rps
  // (if .succeeded != null and (.duration_us // 0) > 0 then .succeeded / (.duration_us / 1000000) else null end);

# succeeded + failed is the record's requests when its accounting is exact; for wrk
# (approximate), whose requests leave out socket errors, it keeps the share within 0-1.
def failures:
  if .failed == null or .succeeded == null or .succeeded + .failed == 0 then null
  else {failed: .failed, requests: (.succeeded + .failed)} end;

def error_rate: if length == 0 then null else (map(.failed) | add) / (map(.requests) | add) end;

def mean: add / length;

def variance:
  (mean) as $m
  | if length < 2 then 0 else (map(. - $m | . * .) | add) / (length - 1) end;

def median:
  sort as $s | ($s | length) as $n
  | if $n == 0 then null
    elif $n % 2 == 1 then $s[($n - 1) / 2]
    else ($s[$n / 2 - 1] + $s[$n / 2]) / 2 end;

def summary: if length == 0 then null else {median: median, min: min, max: max, n: length} end;

# Continued fraction of the incomplete beta function (modified Lentz's method,
# Numerical Recipes 6.4); converges quickly for x < (a+1)/(a+b+2).
def _betacf($a; $b; $x):
  1e-300 as $tiny
  | def clamp: if (. | fabs) < $tiny then $tiny else . end;
  ($a + $b) as $qab | ($a + 1) as $qap | ($a - 1) as $qam
  | (1 - $qab * $x / $qap | clamp | 1 / .) as $d0
  | {m: 1, c: 1, d: $d0, h: $d0, done: false}
  | until(.done or .m > 300;
      .m as $m | (2 * $m) as $m2
      | ($m * ($b - $m) * $x / (($qam + $m2) * ($a + $m2))) as $even
      | .d = (1 + $even * .d | clamp | 1 / .)
      | .c = (1 + $even / .c | clamp)
      | .h *= .d * .c
      | (-($a + $m) * ($qab + $m) * $x / (($a + $m2) * ($qap + $m2))) as $odd
      | .d = (1 + $odd * .d | clamp | 1 / .)
      | .c = (1 + $odd / .c | clamp)
      | (.d * .c) as $delta
      | .h *= $delta
      | .done = ((($delta - 1) | fabs) < 1e-12)
      | .m += 1)
  | .h;

def betai($a; $b; $x):
  if $x <= 0 then 0
  elif $x >= 1 then 1
  else
    (($a + $b | lgamma) - ($a | lgamma) - ($b | lgamma) + $a * ($x | log) + $b * (1 - $x | log) | exp) as $front
    | if $x < ($a + 1) / ($a + $b + 2) then $front * _betacf($a; $b; $x) / $a
      else 1 - $front * _betacf($b; $a; 1 - $x) / $b end
  end;

def welch_p($xs; $ys):
  ($xs | length) as $n1 | ($ys | length) as $n2
  | ($xs | mean) as $m1 | ($ys | mean) as $m2
  | (($xs | variance) / $n1) as $v1 | (($ys | variance) / $n2) as $v2
  | if $v1 + $v2 == 0 then (if $m1 == $m2 then 1 else 0 end)   # no spread: equal or not
    else
      (($m1 - $m2) / (($v1 + $v2) | sqrt)) as $t
      | (($v1 + $v2) * ($v1 + $v2)
         / (($v1 * $v1) / ($n1 - 1) + ($v2 * $v2) / ($n2 - 1))) as $df   # Welch-Satterthwaite
      | betai($df / 2; 0.5; $df / ($df + $t * $t))
    end;

def welch_log_p($xs; $ys): welch_p($xs | map(log); $ys | map(log));

def t_critical($df; $p):
  def two_sided($t): betai($df / 2; 0.5; $df / ($df + $t * $t));
  {lo: 0, hi: 1e6}
  | until(.hi - .lo < 1e-9 * (1 + .hi);
      ((.lo + .hi) / 2) as $mid
      | if two_sided($mid) > $p then .lo = $mid else .hi = $mid end)
  | (.lo + .hi) / 2;

def log_interval($level):
  length as $n
  | if $n < 2 or any(.[]; . <= 0) then null
    else
      map(log) as $logs
      | ($logs | mean) as $m
      | (($logs | variance) / $n | sqrt) as $se
      | (t_critical($n - 1; 1 - $level) * $se | exp) as $factor
      | ($m | exp) as $center
      | {center: $center, lo: ($center / $factor), hi: ($center * $factor), factor: $factor, n: $n}
    end;

def ratio_interval($xs; $ys; $level):
  if ($xs | length) < 2 or ($ys | length) < 2 or any($xs[], $ys[]; . <= 0) then null
  else
    ($xs | map(log)) as $a | ($ys | map(log)) as $b
    | (($b | mean) - ($a | mean)) as $d
    | (($a | variance) / ($a | length)) as $va | (($b | variance) / ($b | length)) as $vb
    | if $va + $vb == 0 then {ratio: ($d | exp), lo: ($d | exp), hi: ($d | exp), df: null}
      else
        (($va + $vb) * ($va + $vb) / ($va * $va / (($a | length) - 1) + $vb * $vb / (($b | length) - 1))) as $df
        | (t_critical($df; 1 - $level) * (($va + $vb) | sqrt)) as $half
        | {ratio: ($d | exp), lo: ($d - $half | exp), hi: ($d + $half | exp), df: $df}
      end
  end;
