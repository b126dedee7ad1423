# readme_sizes: the response-size sweep's part of the README (lib/readme.jq imports it): the
# closed-loop rows of the scenario group size-sweep (scenarios/scenarios.tsv; a row's
# config.group), GET /file?size=N at several N, as successful requests/s and MB/s against the
# response size, per protocol and tool.
#
#   model                  results file -> [{protocol, tool, slug, sizes, servers, cells}]: one
#                          sweep per protocol x tool with 2+ sizes measured; sizes in bytes,
#                          ascending; cells[server][size] = {rps, mbps, runs}: the median of
#                          the server's successful runs at that size (successful requests/s)
#                          and MB/s of response bodies (that median x N bytes / 10^6)
#   section($charts)       model -> Markdown: per sweep a table (a row per server, a column per
#                          size: "requests/s · MB/s") and its chart
#   chart_scripts($dir; colour)   model -> [{file, script}]: per sweep one gnuplot chart, two
#                          panels over a log size axis: successful requests/s, then MB/s
#
# MB/s counts the bodies alone (N bytes a response; headers and framing are not in it), so that
# servers compare on what they were asked to send; 1 MB is 10^6 bytes.

import "format" as fmt;
import "stats" as stats;

def _slug: gsub("[^A-Za-z0-9_.-]"; "_");

# The response size of a row: N of its endpoint /file?size=N, or null.
def _size: (.config.endpoint // "") | capture("^/file\\?size=(?<n>[0-9]+)$").n | tonumber? // null;

def _median: sort | if length == 0 then null else .[(length - 1) / 2 | floor] end;

def size_text:
  if . >= 1048576 and . % 1048576 == 0 then "\(. / 1048576) MiB"
  elif . >= 1024 and . % 1024 == 0 then "\(. / 1024) KiB"
  else "\(.) B" end;

def model:
  [.results[] | select(.status == "ok" and .load == null and .config.group? == "size-sweep" and _size != null)]
  | group_by([.protocol, .tool])
  | map(. as $rows
        | ([$rows[] | _size] | unique) as $sizes
        | select(($sizes | length) >= 2)
        | {protocol: .[0].protocol, tool: .[0].tool, slug: ("sizes-\(.[0].protocol)-\(.[0].tool)" | _slug),
           sizes: $sizes, servers: ([$rows[].server] | unique),
           cells: (group_by(.server)
                   | map({key: .[0].server,
                          value: (group_by(_size)
                                  | map((.[0] | _size) as $n
                                        | ([.[].metrics | stats::successful_rps // empty] | _median) as $rps
                                        | {key: ($n | tostring),
                                           value: {rps: $rps, mbps: (if $rps == null then null else $rps * $n / 1000000 end),
                                                   runs: length}})
                                  | from_entries)})
                   | from_entries)})
  | sort_by(.protocol, .tool);

def _cell: if . == null or .rps == null then fmt::dash else "\(.rps | fmt::thousands) · \(.mbps | fmt::fixed(1))" end;

def section($charts; protocol_name):
  if length == 0 then empty
  else
    "### Response size sweep",
    "",
    "GET /file?size=N at each size of the `size-sweep` scenario group (`--scenarios size-sweep`; not in `all`), on "
    + "the same connections: successful requests/s · MB/s of response bodies (N bytes per response, 1 MB = 10^6 bytes; "
    + "headers and framing not counted). With several runs, the median.",
    "",
    (.[] | . as $sweep
     | "#### \(.protocol | protocol_name) · \(.tool)",
       "",
       "| Server | " + ([.sizes[] | size_text] | join(" | ")) + " |",
       "|:--|" + ([.sizes[] | "--:"] | join("|")) + "|",
       (.servers[] as $server
        | "| \($server | fmt::safe) | " + ([$sweep.sizes[] | tostring | $sweep.cells[$server][.] | _cell] | join(" | ")) + " |"),
       "",
       "![Successful requests/s and MB/s against response size, \(.protocol | protocol_name), \(.tool)](\($charts)/\(.slug).png)",
       "")
  end;

def _script($dir; colour):
  . as $sweep
  | "\($dir)/\(.slug).png" as $file
  | (.servers | length) as $n
  | def data($field):
      (range(0; $n) as $i
       | "$s\($field)\($i) << EOD",
         ($sweep.sizes[] as $size | $sweep.cells[$sweep.servers[$i]][$size | tostring] // null
          | select(. != null and .[$field] != null) | "\($size) \(.[$field])"),
         "EOD");
    def plot($field):
      "plot " + ([range(0; $n) as $i
                  | "$s\($field)\($i) using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb \"\($sweep.servers[$i] | colour)\" title \($sweep.servers[$i] | fmt::gp_string)"]
                 | join(", \\\n     "));
    "set terminal pngcairo size 1000,720 noenhanced font \"Sans,11\"",
    "set output \($file | fmt::gp_string)",
    "set grid xtics ytics lc rgb \"#dddddd\"",
    "set border 3",
    "set tics nomirror",
    "set key outside right top vertical box opaque",
    "set lmargin 12",
    data("rps"), data("mbps"),
    "set logscale x 2",
    "set xrange [\(.sizes[0] / 1.5):\(.sizes[-1] * 1.5)]",
    "set xtics (" + ([.sizes[] | "\(size_text | fmt::gp_string) \(.)"] | join(", ")) + ")",
    "set multiplot layout 2,1 title \("Response size sweep: \(.protocol), \(.tool) (higher is better)" | fmt::gp_string) font \"Sans,14\"",
    "set ylabel \"successful requests/s\"",
    "set format y \"%.0s%c\"",
    "set yrange [0:*]",
    plot("rps"),
    "set ylabel \"MB/s of response bodies\"",
    "set format y \"%g\"",
    "set xlabel \"response size (log scale)\"",
    plot("mbps"),
    "unset multiplot";

def chart_scripts($dir; colour):
  .[] | {file: "\(.slug).png", script: ([_script($dir; colour)] | join("\n") + "\n")};
