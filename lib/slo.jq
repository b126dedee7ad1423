# slo: latency and error conditions ("p99<10ms,errors<0.1%"), shared by the SLO gates
# (run-benchmarks.sh --slo, compare-results.sh --slo) and the capacity search (--capacity),
# as a jq module (jq -L lib 'import "slo" as slo; ...').
#
#   conditions          text "p99<10ms,errors<0.1%" -> [{text, metric, op, limit}]: metric is a
#                       latency_us key (p50 p75 p90 p99 p999 p9999 max mean) with limit in µs,
#                       or "errors" with limit a percentage; errors (jq error) on a bad one
#   gates               text "hello:p99<5ms;post-load:p99<20ms;errors<1%" (';' or new lines
#                       between groups, '#' comments) -> [{scenario (null: every scenario),
#                       conditions}]
#   for_scenario($gates; $scenario)  the conditions that apply to a scenario ([] for none)
#   check($conditions)  metrics record -> {met, conditions: [{condition, value, met}]}: value in
#                       the condition's unit (µs, %), met null when the record does not give it
#                       (wrk has no failed count, say); the record meets the conditions when
#                       none fails (met false) and, in an open-loop run, the rate was delivered:
#                       a rate the server could not take is a failed condition ("delivered"),
#                       never a latency that passes

def _metric_key:
  {"p50": "p50", "p75": "p75", "p90": "p90", "p99": "p99", "p99.9": "p999", "p999": "p999",
   "p99.99": "p9999", "p9999": "p9999", "max": "max", "mean": "mean", "errors": "errors"}[.];

def _unit_us: {"us": 1, "µs": 1, "ms": 1000, "s": 1000000}[.];

def _condition:
  gsub("^\\s+|\\s+$"; "") as $text
  | ($text | capture("^(?<m>[a-z0-9.]+)\\s*(?<op><=|<)\\s*(?<n>[0-9]+(\\.[0-9]+)?)\\s*(?<u>us|µs|ms|s|%)?$")
     // error("not a condition: '\($text)' (want e.g. p99<10ms, p99.9<=50ms, max<1s, errors<0.1%)")) as $c
  | ($c.m | _metric_key) as $metric
  | if $metric == null then error("unknown measure '\($c.m)' in '\($text)' (p50 p75 p90 p99 p99.9 p99.99 max mean errors)")
    elif $metric == "errors" and $c.u != "%" then error("'\($text)': errors want a percentage, e.g. errors<0.1%")
    elif $metric != "errors" and ($c.u == null or $c.u == "%") then error("'\($text)': a latency wants a unit: us, ms or s")
    else {text: $text, metric: $metric, op: $c.op,
          limit: (($c.n | tonumber) * (if $metric == "errors" then 1 else ($c.u | _unit_us) end))}
    end;

def conditions:
  [split(",")[] | select(test("\\S"))] as $parts
  | if ($parts | length) == 0 then error("no condition given") else $parts | map(_condition) end;

def gates:
  [split("\n")[] | sub("#.*$"; "") | split(";")[] | select(test("\\S"))]
  | if length == 0 then error("no condition given") else . end
  | map(capture("^\\s*((?<s>[A-Za-z0-9_.-]+)\\s*:)?(?<c>.*)$")
        | {scenario: .s, conditions: (.c | conditions)});

def for_scenario($gates; $scenario):
  [$gates[] | select(.scenario == null or .scenario == $scenario) | .conditions[]];

def _value($metric):
  if $metric == "errors" then
    (if .failed == null or (.requests // 0) == 0 then null else .failed / .requests * 100 end)
  else .latency_us[$metric]? end;

def check($conditions):
  . as $record
  | [$conditions[] | . as $c | ($record | _value($c.metric)) as $v
     | {condition: $c.text, value: $v,
        met: (if $v == null then null elif $c.op == "<" then $v < $c.limit else $v <= $c.limit end)}]
  | (if $record.rate != null and $record.rate.delivered == false then
       [{condition: "delivered", value: $record.rate.achieved, met: false}] else [] end) as $delivery
  | (. + $delivery) as $all
  | {met: ([$all[] | .met == false] | any | not), conditions: $all};

# regressions($base; $new; $gates): rows of results file $new that break a condition of
# $gates (text of slo::gates) while the same row of $base (server, scenario, protocol, tool and
# load) met every one: [{row: "server scenario protocol tool[ @rate]", broken: [condition]}].
# A row counts as meeting the conditions when every ok run of it does; a row the base did not
# have or broke already is not a regression.
def regressions($base; $new; $gates):
  def key: [.server, .scenario, .protocol, .tool, (.load.mode // "closed"), (.load.target_rps // null)];
  def row_label: "\(.server) \(.scenario) \(.protocol) \(.tool)"
    + (if .load.mode == "rate" then " @\(.load.target_rps)/s" elif .load.mode == "stages" then " ramped" else "" end);
  # a capacity search's record is the run at the edge of its own conditions: not gated
  def checked: [.results[] | select(.status == "ok" and .metrics != null and .load.mode != "capacity")
                | for_scenario($gates; .scenario) as $c | select(($c | length) > 0)
                | {key: (key | tojson), label: row_label, check: (.metrics | check($c))}]
               | group_by(.key) | map({key: .[0].key, value: {label: .[0].label, met: all(.[]; .check.met),
                   broken: ([.[].check.conditions[] | select(.met == false) | .condition] | unique)}}) | from_entries;
  ($base | checked) as $b
  | [($new | checked) | to_entries[] | select(.value.met | not) | select($b[.key].met == true)
     | {row: .value.label, broken: .value.broken}];
