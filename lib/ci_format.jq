# ci_format: compare-results.sh's and history.sh's documents as CI systems show them (issue 52):
# JUnit XML for a test report (Jenkins, GitLab, GitHub test-report actions) and, for history.sh,
# Markdown for a job summary or a pull-request comment (compare-results.sh's Markdown is
# lib/compare.jq's render_markdown). Import with: jq -L lib 'import "ci_format" as ci; ...'.
#
#   junit_compare    input: compare-results.sh's JSON document (lib/compare.jq: compare). A
#                    <testsuites> of three suites: the rows (absolute view), the relative view
#                    and the capacity searches, one <testcase> per compared row, classname
#                    SCENARIO.PROTOCOL.TOOL and name SERVER; plus one per SLO regression. A
#                    <failure> for each regression that counts towards the exit status (a row
#                    that regressed in the view --gate names, a failed row, a capacity search
#                    when gated, an SLO regression), its figures in the message; a regression the
#                    gate does not count passes, said in its <system-out>; skipped rows are
#                    <skipped>. So the report's failures are the exit status's regressions.
#   junit_history    input: history.sh's JSON document. One <testcase> per series (classname
#                    SCENARIO.PROTOCOL.TOOL, name SERVER and the series' label when it has one),
#                    a <failure> per gating regression (the document's regressions), its
#                    change point's figures in the message; a series too short for a verdict
#                    is <skipped>.
#   markdown_history input: history.sh's JSON document. The change points as a Markdown table
#                    (a gating regression in bold) and the verdict line.
# Output: text (jq -r). Depends on lib/format.jq.

import "format" as fmt;

# XML text and attribute values: control characters shown (fmt::safe: XML 1.0 allows none but
# tab and newlines), then the five entities.
def xml: tostring | fmt::safe | gsub("&"; "&amp;") | gsub("<"; "&lt;") | gsub(">"; "&gt;")
  | gsub("\""; "&quot;") | gsub("'"; "&apos;");

def _attrs($pairs): $pairs | to_entries | map(" \(.key)=\"\(.value | xml)\"") | join("");

# _testcase: {classname, name, failures: [{type, message}], skipped: message|null, out: text|null}
def _testcase:
  "    <testcase" + _attrs({classname, name, time: 0}) + ">"
  + ([.failures[] | "\n      <failure" + _attrs({type, message}) + ">" + (.message | xml) + "</failure>"] | join(""))
  + (if .skipped != null then "\n      <skipped" + _attrs({message: .skipped}) + "/>" else "" end)
  + (if .out != null then "\n      <system-out>" + (.out | xml) + "</system-out>" else "" end)
  + "\n    </testcase>";

def _suite($name; $properties):
  . as $cases
  | "  <testsuite" + _attrs({name: $name, tests: ($cases | length),
                              failures: ([$cases[].failures[]] | length), errors: 0,
                              skipped: ([$cases[] | select(.skipped != null)] | length), time: 0}) + ">\n"
  + "    <properties>\n"
  + ([$properties | to_entries[] | "      <property" + _attrs({name: .key, value: (.value // "")}) + "/>\n"] | join(""))
  + "    </properties>\n"
  + ([$cases[] | _testcase + "\n"] | join(""))
  + "  </testsuite>\n";

def _document($name; $suites):
  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
  + "<testsuites" + _attrs({name: $name, tests: ([$suites[].tests] | add // 0),
                             failures: ([$suites[].failures] | add // 0), errors: 0}) + ">\n"
  + ([$suites[].xml] | join(""))
  + "</testsuites>\n";

def _suite_entry($name; $properties): {tests: length, failures: ([.[].failures[]] | length), xml: _suite($name; $properties)};

# ---- compare-results.sh ----------------------------------------------------------------

# a p-value as the text report prints it: 0.012, or 1.9e-14 below 0.001
def _p: if . == null then fmt::dash elif . >= 0.001 then fmt::fixed(3)
  else (log10 | floor) as $e | "\(. / pow(10; $e) | fmt::fixed(1))e\($e)" end;

def _figure($name; $m; format):
  if $m == null then empty
  else "\($name) \($m.base.median | format) -> \($m.new.median | format) (\($m.change | fmt::signed_pct(1))"
       + (if $m.ci != null then ", 95% CI \($m.ci.lo | fmt::signed_pct(1)) to \($m.ci.hi | fmt::signed_pct(1))" else "" end)
       + (if $m.p != null then ", p \($m.p | _p)" else "" end) + ")"
  end;

def _row_figures:
  [_figure("ok/s"; .successful_rps; fmt::thousands), _figure("p99"; .p99; fmt::latency),
   (.error_rate | select(. != null)
    | "error rate \(.base.rate | fmt::share) -> \(.new.rate | fmt::share) (\(.change | fmt::signed_points))")]
  | join(", ");

def _compare_case($counted):
  {classname: "\(.scenario).\(.protocol).\(.tool)", name: .server} as $id
  | (if .verdict == "failed" then "ok in BASE, no successful run in NEW"
     else _row_figures end) as $figures
  | $id + {failures: [if $counted and (.verdict == "regression" or .verdict == "failed")
                      then {type: .verdict, message: "\(.verdict): \($figures)"} else empty end],
           skipped: (if .verdict == "skipped" or .verdict == "still failed" then .verdict else null end),
           out: (if (.verdict == "regression" or .verdict == "failed") and ($counted | not)
                 then "\(.verdict), not counted by the gate: \($figures)" else "\(.verdict): \($figures)" end)};

def junit_compare:
  . as $doc
  | $doc.settings.gate as $gate
  | {base: $doc.base.file, new: $doc.new.file, gate: $gate, fail_on: ($doc.settings.fail_on | join(",")),
     reference: $doc.settings.reference} as $properties
  | ([$doc.rows[] | _compare_case(.verdict == "failed" or $gate == "absolute")]
     + [($doc.slo_regressions // [])[] | {classname: "slo", name: ., failures: [{type: "slo", message: "SLO regression: \(.)"}],
                                           skipped: null, out: null}]
     | _suite_entry("compare-results.absolute"; $properties)) as $absolute
  | ([$doc.relative[] | _compare_case($gate == "relative")
      | .out = "relative to \($doc.settings.reference): " + .out]
     | _suite_entry("compare-results.relative"; $properties)) as $relative
  | ([$doc.capacity[]
      | {classname: "\(.scenario).\(.protocol).\(.tool)", name: "\(.server) capacity \(.conditions | join(","))"} as $id
      | (if .judgement != null then _figure("capacity (requests/s)"; .judgement; fmt::thousands)
         else "capacity (requests/s) \(.base | map(. // "none met") | join(" ")) -> \(.new | map(. // "none met") | join(" "))"
              + (if .why != null then ": \(.why)" else "" end) end) as $figures
      | $id + {failures: [if .verdict == "regression" and $gate == "absolute" and ($doc.settings.fail_on | index("capacity")) != null
                           then {type: "regression", message: "regression: \($figures)"} else empty end],
               skipped: null, out: "\(.verdict): \($figures)"}]
     | _suite_entry("compare-results.capacity"; $properties)) as $capacity
  | _document("compare-results"; [$absolute, $relative, $capacity]);

# ---- history.sh ------------------------------------------------------------------------

def _metric_name: {successful_rps: "ok/s", p99: "p99"}[.] // .;
def _metric_value($metric): if $metric == "p99" then fmt::latency else fmt::thousands end;

# the change point a regression of the document names, with its file
def _change_point($doc; $r):
  first($doc.series[] | select(.name == $r.series) | .metrics[$r.metric].change_points[]
        | select(.file == $r.file));

def _point_text($doc; $metric):
  . as $cp
  | "\($metric | _metric_name) \($cp.before.mean | _metric_value($metric)) -> \($cp.after.mean | _metric_value($metric))"
    + " (\($cp.change | fmt::signed_pct(1)), 95% CI \($cp.ci.lo | fmt::signed_pct(1)) to \($cp.ci.hi | fmt::signed_pct(1)),"
    + " p \($cp.p | _p)) from file #\($cp.file + 1) \($doc.files[$cp.file].name // "") commit \($cp.commit // "?")";

def junit_history:
  . as $doc
  | [$doc.series[]
     | . as $s
     | [$doc.regressions[] | select(.series == $s.name)] as $mine
     | ([.metrics[] | .status] | all(. != "analyzed")) as $unjudged
     | {classname: "\(.scenario).\(.protocol).\(.tool)", name: (.name | rtrimstr(" \($s.scenario) \($s.protocol) \($s.tool)")),
        failures: [$mine[] | . as $r | _change_point($doc; $r)
                   | {type: "regression", message: "regression: \(_point_text($doc; $r.metric))"}],
        skipped: (if $unjudged then "fewer than \($doc.settings.min_points) points: no verdict" else null end),
        out: ([.metrics | to_entries[] | .key as $m | .value.change_points[] | "\(.verdict): \(_point_text($doc; $m))"]
              | if length == 0 then "no change point" else join("; ") end)}]
  | _suite_entry("history"; {files: ($doc.files | length), first: $doc.files[0].name, last: $doc.files[-1].name,
                             fail_on: ($doc.settings.fail_on | join(","))}) as $suite
  | _document("history"; [$suite]);

def _md: tostring | fmt::safe | gsub("\\|"; "\\|");

def markdown_history:
  . as $doc
  | [$doc.series[] | . as $s | .metrics | to_entries[] | .key as $m | .value.change_points[]
     | . as $cp
     | ([$doc.regressions[] | select(.series == $s.name and .metric == $m and .file == $cp.file)] | length > 0) as $gating
     | (if $gating then "**" else "" end) as $b
     | "| \($s.name | _md) | \($m | _metric_name) | #\(.file + 1) \($doc.files[.file].name // "" | _md) | `\((.commit // "")[0:12])` "
       + "| \(.before.mean | _metric_value($m)) | \(.after.mean | _metric_value($m)) "
       + "| \(.change | fmt::signed_pct(1)) (\(.ci.lo | fmt::signed_pct(1)) to \(.ci.hi | fmt::signed_pct(1))) "
       + "| \($b)\(.verdict)\(if .newest then " (newest)" else "" end)\($b) |"] as $lines
  | "**History:** \($doc.files | length) results files, \($doc.files[0].timestamp) to \($doc.files[-1].timestamp), "
    + "\($doc.analyzed_series) series analyzed\n\n"
    + (if ($lines | length) == 0 then "No change point.\n"
       else "| series | metric | first file after the change | commit | before | after | change (95% CI) | verdict |\n"
            + "|---|---|---|---|---:|---:|---:|---|\n" + ($lines | join("\n")) + "\n" end)
    + "\n"
    + (if ($doc.regressions | length) > 0
       then "**\($doc.regressions | length) regression(s)** at the newest change point (exit 1)\n"
       else "No regression at the newest change point (exit 0)\n" end);
