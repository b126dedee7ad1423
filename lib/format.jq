# format: number formatting for people, shared by compare-results.sh and update-readme.sh
# (jq -L lib 'import "format" as fmt; ...'). A null input renders as "–" everywhere.
#
#   fixed($d)      number -> string with exactly $d decimals ("-3.10")
#   thousands      number -> rounded integer with thousands separators ("45,210")
#   signed_pct($d) ratio - 1 as a signed percentage ("+4.2%", "-20.0%")
#   latency        microseconds -> "850 µs", "1.23 ms", "2.50 s"
#   kib            KiB -> "180 MiB", "1.2 GiB"
#   pad($w), lpad($w)  pad a string to width $w, text left, numbers right

def dash: "–";

def fixed($d):
  if . == null then dash
  elif $d == 0 then (round | tostring)
  else
    (fabs * pow(10; $d) | round) as $r
    | (if . < 0 and $r > 0 then "-" else "" end) as $sign
    | ($r | tostring) as $s
    | (if ($s | length) <= $d then ("0" * ($d - ($s | length) + 1)) + $s else $s end) as $p
    | $sign + $p[0:-$d] + "." + $p[-$d:]
  end;

def thousands:
  if . == null then dash
  else
    (if . < 0 then "-" else "" end) as $sign
    | (fabs | round | tostring | explode | reverse) as $digits
    | [range(0; $digits | length; 3) as $i | $digits[$i:$i + 3] | reverse | implode]
    | $sign + (reverse | join(","))
  end;

def signed_pct($d):
  if . == null then dash
  else (. * 100 | fixed($d)) as $s | (if ($s | startswith("-")) or ($s | tonumber) == 0 then $s else "+" + $s end) + "%"
  end;

def latency:
  if . == null then dash
  elif . < 1000 then (round | tostring) + " µs"
  elif . < 10000 then (. / 1000 | fixed(2)) + " ms"
  elif . < 100000 then (. / 1000 | fixed(1)) + " ms"
  elif . < 1000000 then (. / 1000 | fixed(0)) + " ms"
  else (. / 1000000 | fixed(2)) + " s" end;

def kib:
  if . == null then dash
  elif . < 1024 then (round | tostring) + " KiB"
  elif . < 1048576 then (. / 1024 | fixed(0)) + " MiB"
  else (. / 1048576 | fixed(1)) + " GiB" end;

def pad($w): . + (" " * ([$w - length, 0] | max) // "");
def lpad($w): (" " * ([$w - length, 0] | max) // "") + .;
