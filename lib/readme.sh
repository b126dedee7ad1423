#!/usr/bin/env bash
# readme: the steps of update-readme.sh (the content itself is lib/readme.jq).
#
#   readme::model RESULTS_FILE BASELINE [RESULTS_LINK]
#     Prints the model (JSON) of a checked results file: tables, chart data, metadata;
#     RESULTS_LINK: the file's folder as the README links it (flame graphs; default .).
#     Each table's rows carry their server's note for the table's protocol (readme::notes).
#   readme::notes
#     Prints {"SERVER": {"PROTOCOL": "TEXT"}} from the `note.PROTOCOL=TEXT` lines of every
#     servers/*/server.properties ($README_SERVERS_DIR, default the suite's servers/): what
#     the suite knows about a server's figures for a protocol (the README marks the row ‡).
#   readme::section CHARTS_LINK SOURCE_NAME < MODEL
#     Prints the Markdown that goes between the performance markers; CHARTS_LINK is the
#     charts directory as the README links it, SOURCE_NAME the results file it names.
#   readme::charts OUT_DIR < MODEL
#     Renders every chart with gnuplot into OUT_DIR and prints the file names, one a line
#     (a chart's data file too, when it has one: the chart over time).
#     Returns 1 (with gnuplot's words on stderr) if a chart cannot be made.
#   readme::splice README SECTION_FILE
#     Prints README with SECTION_FILE between "<!-- performance:start -->" and
#     "<!-- performance:end -->". Without markers, they are put right under a
#     "## Performance" heading, or a new "## Performance" section is appended at the end.
#     Returns 1 when the markers are broken (one without the other, repeated, out of order).
# Depends on jq, gnuplot and lib/log.sh; lib/readme.jq, lib/stats.jq, lib/format.jq next to this file.

README_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
README_START='<!-- performance:start -->'
README_END='<!-- performance:end -->'

readme::model() {
  local notes
  notes=$(readme::notes) || return 1
  jq -L "$README_LIB" --arg baseline "$2" --arg results_link "${3:-.}" --argjson notes "$notes" \
    'import "readme" as r; r::model($baseline) | r::with_notes($notes)' "$1"
}

readme::notes() {
  local dir=${README_SERVERS_DIR:-$README_LIB/../servers} props
  for props in "$dir"/*/server.properties; do
    [[ -f $props ]] || continue
    jq -R --arg server "$(basename -- "$(dirname -- "$props")")" \
      'capture("^note\\.(?<protocol>[a-z0-9]+)=(?<text>.+)$")? | {($server): {(.protocol): .text}}' "$props"
  done | jq -s 'reduce .[] as $note ({}; . * $note)'
}

readme::section() {
  jq -r -L "$README_LIB" --arg charts "$1" --arg source "$2" 'import "readme" as r; r::section($charts; $source)'
}

readme::charts() {
  local dir=$1 charts i file data_file
  # NUL-separated fours: file, script, data file ("" for none), data.
  mapfile -d '' -t charts < <(jq -j -L "$README_LIB" --arg dir "$dir" \
    'import "readme" as r; r::chart_scripts($dir)[] | .file, "\u0000", .script, "\u0000", .data_file, "\u0000", .data, "\u0000"'
    printf 'rc=%s' "$?")
  # none when errexit ended the subshell before its last line
  if ((${#charts[@]} == 0)) || [[ ${charts[-1]} != rc=0 ]]; then return 1; fi
  for ((i = 0; i + 3 < ${#charts[@]}; i += 4)); do
    file=${charts[i]} data_file=${charts[i + 2]}
    if [[ -n $data_file ]]; then
      printf '%s' "${charts[i + 3]}" >"$dir/$data_file"
      printf '%s\n' "$data_file"
    fi
    if ! printf '%s' "${charts[i + 1]}" | gnuplot >&2; then
      log::error "gnuplot could not draw $file"
      return 1
    fi
    # gnuplot reports some failures (such as an unwritable output) only as warnings.
    if [[ ! -s $dir/$file ]]; then
      log::error "gnuplot drew nothing for $file"
      return 1
    fi
    printf '%s\n' "$file"
  done
}

readme::splice() {
  local readme=$1 section=$2
  awk -v start="$README_START" -v end="$README_END" -v section_file="$section" '
    function trim(s) { gsub(/^[ \t\r]+|[ \t\r]+$/, "", s); return s }
    function emit_block(   line) {
      print start
      while ((getline line < section_file) > 0) print line
      close(section_file)
      print end
    }
    { lines[NR] = $0; t = trim($0)
      if (t == start) { starts++; start_at = NR }
      if (t == end) { ends++; end_at = NR }
      if (heading_at == 0 && t ~ /^## +Performance$/) heading_at = NR }
    END {
      if (starts > 1 || ends > 1 || starts != ends || (starts == 1 && end_at < start_at)) {
        print "the performance markers are broken: expected one \"" start "\" line before one \"" end "\" line" > "/dev/stderr"
        exit 1
      }
      if (starts == 1) {
        for (i = 1; i < start_at; i++) print lines[i]
        emit_block()
        for (i = end_at + 1; i <= NR; i++) print lines[i]
      } else if (heading_at > 0) {
        for (i = 1; i <= heading_at; i++) print lines[i]
        print ""
        emit_block()
        for (i = heading_at + 1; i <= NR; i++) print lines[i]
      } else {
        for (i = 1; i <= NR; i++) print lines[i]
        if (NR > 0 && lines[NR] != "") print ""
        print "## Performance"
        print ""
        emit_block()
      }
    }' "$readme"
}
