# profile: the README's "Where the time goes" part (update-readme.sh), as a jq module.
#
#   readme_lines($link; rank)   results file -> Markdown lines (an array; empty when no row was
#                               profiled): for the headline scenario (the profiled scenario that
#                               `rank`, a filter on a scenario name, puts first), the top 5 frames
#                               by self time of each server, from one row per server (h1 and
#                               barrage first, then the first run), with a link to its flame
#                               graph; $link is the results file's folder as the README links it.

def _top: 5;

def _cell_frame: "`" + gsub("\\|"; "\\|") + "`";

def _percent: . * 1000 | round / 10 | tostring + "%";

# The row that stands for its server: HTTP/1.1 and barrage when there are, then run 1.
def _pick: sort_by(.protocol != "h1", .tool != "barrage", .tool, .protocol, .run) | first;

def _mode_text:
  if .mode == "ctimer" then "ctimer (timer-based: \(.fallback_reason // "perf events unavailable"))"
  elif .mode == null then "did not run" else .mode end;

def readme_lines($link; rank):
  [.results[] | select(.status == "ok" and .profile != null and (.profile.top_frames | length) > 0)] as $rows
  | if ($rows | length) == 0 then []
    else
      ($rows | map(.scenario) | unique | sort_by(rank, .) | first) as $headline
      | ($rows | map(select(.scenario == $headline)) | group_by(.server) | map(_pick)) as $picked
      | ($picked | map(.profile | _mode_text) | unique | join(", ")) as $modes
      | ["### Where the time goes", "",
         "Every row above was measured with async-profiler attached (`--profile \($rows[0].profile.event)`, "
         + "mode: \($modes)) during its measured runs only: its figures are lower than unprofiled ones, and "
         + "compare-results.sh compares it only with files profiled alike. Below, for \($headline) "
         + "(\($picked | map("\(.server): \(.tool) over \(.protocol)") | join(", "))), the \(_top) frames of each server with the most "
         + "samples on top of the stack (self time), as a share of its samples; the flame graph shows the whole stacks.",
         "",
         "| Server | Top frames by self time | Flame graph |",
         "|:--|:--|:--|"]
        + ($picked | map(
            "| \(.server) | \(.profile.top_frames[:_top] | map("\(.frame | _cell_frame) \(.share | _percent)") | join("<br>")) | "
            + (if .profile.flame_graph then "[flame graph](\($link)/\(.profile.flame_graph | @uri | gsub("%2F"; "/")))" else "–" end)
            + " |"))
        + [""]
    end;
