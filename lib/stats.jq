# stats: the statistics of compare-results.sh and update-readme.sh, as a jq module
# (jq -L lib 'import "stats" as stats; ...').
#
#   median            [numbers] -> the median, null for an empty array
#   summary           [numbers] -> {median, min, max, n}, null for an empty array
#   mean, variance    [numbers] -> arithmetic mean; unbiased sample variance (n-1)
#   welch_p(a; b)     two-sided p-value of Welch's t-test between the arrays a and b
#   welch_log_p(a; b) the same on log(values): tests the ratio of the two, not the difference
#   betai(a; b; x)    regularized incomplete beta function I_x(a, b)
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
