# format: number formatting for people, shared by compare-results.sh and update-readme.sh
# (jq -L lib 'import "format" as fmt; ...'), and strings of a results file made safe where
# they go (a terminal, a gnuplot script). A null input renders as "–" everywhere.
#
#   fixed($d)      number -> string with exactly $d decimals ("-3.10")
#   thousands      number -> rounded integer with thousands separators ("45,210")
#   signed_pct($d) ratio - 1 as a signed percentage ("+4.2%", "-20.0%")
#   share          fraction -> percentage with two significant digits, never rounded to
#                  zero unless it is zero ("0%", "42.0%", "1.2%", "0.0011%")
#   signed_points  difference of two fractions -> signed percentage points ("+1.2 pt", "0 pt")
#   latency        microseconds -> "850 µs", "1.23 ms", "2.50 s"
#   kib            KiB -> "180 MiB", "1.2 GiB"
#   pad($w), lpad($w)  pad a string to width $w, text left, numbers right
#   safe           a string from a results file made fit for a terminal: each control character
#                  shown in ASCII (C0 and DEL in caret notation as cat -v and less show them,
#                  "\u001b" -> "^[", "\r" -> "^M", "\n" -> "^J", DEL -> "^?"; C1 and the invisible
#                  ones that reorder or break lines, U+2028/9, U+200E/F, U+202A-E, U+2066-9, as
#                  "<U+202E>"); anything else as it is. A crafted name can then neither move
#                  the cursor, recolour nor hide a line, nor split a table's row or a @tsv
#                  field; ASCII, so that any font draws it (a chart's too)
#   gp_string      a string as a literal of a gnuplot command: single-quoted (inside double
#                  quotes gnuplot runs `...` as a shell command and reads escapes), safe (a
#                  newline would end the command and start one of the string's own)
#   gp_datum       a string as a quoted column of gnuplot data (a datablock's line): double-
#                  quoted, safe, its double quotes shown as single ones (gnuplot's data has no
#                  escape for them)

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

# Decimals for two significant digits of a percentage (at least 1, at most 7: a share of
# one request in 10^9 still shows).
def _share_decimals: . as $pct | 1 | until(. >= 7 or $pct * pow(10; .) >= 10; . + 1);

def share:
  if . == null then dash
  elif . == 0 then "0%"
  else (. * 100) as $pct | ($pct | fixed($pct | fabs | _share_decimals)) + "%" end;

def signed_points:
  if . == null then dash
  elif . == 0 then "0 pt"
  else (fabs * 100) as $points | (if . > 0 then "+" else "-" end) + ($points | fixed($points | _share_decimals)) + " pt" end;

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

def _hex4: [(. / 4096 | floor) % 16, (. / 256 | floor) % 16, (. / 16 | floor) % 16, . % 16]
  | map("0123456789ABCDEF"[.:. + 1]) | join("");

def safe:
  if type != "string" then .
  else explode
    | map(if . < 32 then [94, 64 + .]
          elif . == 127 then [94, 63]
          elif (. >= 128 and . < 160) or . == 8206 or . == 8207 or (. >= 8232 and . <= 8238)
               or (. >= 8294 and . <= 8297) then "<U+\(_hex4)>" | explode
          else [.] end)
    | add // [] | implode
  end;

def gp_string: "'" + (safe | gsub("'"; "''")) + "'";

def gp_datum: "\"" + (safe | gsub("\""; "'")) + "\"";
