#!/usr/bin/env bash
# variants: a server's named settings and the run's contestants (issue #38).
#
# A variant is a server plus a named set of settings, declared in servers/NAME/variants.tsv:
# one line a variant, tab-separated: NAME, JVM_OPTIONS (space-separated), ENV (KEY=VALUE words
# the server's process gets), PROPERTIES (key=value words, passed as -Dkey=value) and
# DESCRIPTION; "-" for none, # comments, a header line starting with "name". The first variant
# is the server's default (what a run without --variants measures); a server without the file
# has one, "default", with no settings.
#
# A contestant is what one server start measures in a variant run: a variant crossed with the
# matrix options (--jdk, --gc, --heap, --server-cpus), labelled SERVER:VARIANT[+jdkN][+GC]
# [+heapSIZE][+cpusN] (an axis in the label when its option is given): the one key its rows are
# grouped and shown by (jq: noise::row_name).
#
#   variants::names SERVER
#     Its variants' names, one a line, the default first (not aot: it is picked by name only).
#   variants::field SERVER VARIANT FIELD
#     jvm_options, env, properties or description of a declared variant ("" for none), or of
#     aot (the default's settings); returns 1 for an unknown variant.
#   variants::select SPEC SERVER...
#     The picked variants of SPEC (a comma list of SERVER:VARIANT, where SERVER may be * for
#     each of SERVER... and VARIANT * for all of a server's; a bare SERVER is its default)
#     among the servers SERVER..., as SERVER:VARIANT lines in the order given (each once).
#     Returns 1 with the reason on stdout for a server not selected, an unknown variant or a
#     pattern that picks nothing.
#   variants::axis_values OPTION TEXT
#     Checks a matrix option's comma list (--jdk 21,25; --gc g1,zgc,parallel,serial; --heap
#     512m,1g; --server-cpus 1,2) and prints its values one a line; 1 with the reason on
#     stdout when one is bad or given twice.
#   variants::gc_flag GC
#     The JVM flag that picks GC (g1, zgc, parallel, serial, shenandoah).
#   variants::contestants VARIANT_LINES JDKS GCS HEAPS CPUS
#     Crosses the picked variants (SERVER:VARIANT lines) with the matrix (comma lists; empty:
#     that axis is not in the run) and prints one JSON object a line, one per contestant:
#     {label, server, variant, description, jvm_options: [...], env: {...}, properties: {...},
#      jdk, gc, heap, server_cpus} (an axis not given: null).
#   variants::launch_options CONTESTANT_JSON
#     The JVM options a contestant's start adds after servers/jvm.options, one a line: its
#     variant's options, -Dkey=value per property, the GC, the heap (-Xms -Xmx), the cores
#     (-XX:ActiveProcessorCount), and -XX:+PrintCommandLineFlags (the JVM's own report of the
#     flags it runs with, on the server's log).
#   variants::aot_refusal CONTESTANT_JSON DEFAULT_JDK_MAJOR
#     Why an aot contestant cannot run (its JDK, or DEFAULT_JDK_MAJOR without --jdk, is older
#     than VARIANTS_AOT_MIN_JDK: it cannot make an AOT cache), on stdout; returns 1 when it can
#     (or is no aot contestant).
#   variants::aot_options SERVER_DIR JAVA_HOME CACHE_DIR
#     The JVM options of an aot start, one a line: -XX:AOTCache=FILE when CACHE_DIR holds the
#     cache of this server build and JDK (FILE: SERVER-HASH.aot, HASH of the server's jar and
#     the JDK's version, so either changing makes a new one), else -XX:AOTCacheOutput=FILE (this
#     start is the training run: the JVM writes the cache when it exits, i.e. when the run
#     stops the server after its warm-up and measured runs, in a child JVM that takes seconds:
#     VARIANTS_AOT_STOP_TIMEOUT_S); with the cache, -Xlog:aot too: the JVM's own word on the
#     server's log that it opened the cache.
#   variants::cpu_list CPULIST COUNT
#     The first COUNT CPUs of CPULIST (a taskset list; empty: every CPU this process may use),
#     as a comma list; 1 with the reason on stdout when it holds fewer.
# Depends on jq and lib/servers.sh (SERVERS_DIR).

VARIANTS_GCS='g1 zgc parallel serial shenandoah'
# The built-in variant of every server: its default, started warm from an ahead-of-time cache
# (JEP 483, 514, 515: classes loaded and linked, method profiles) that the suite's own warm-up
# trains; JDK 25 makes it in one step (-XX:AOTCacheOutput).
VARIANTS_AOT=aot VARIANTS_AOT_MIN_JDK=25
# how long a training start may take to stop: its JVM then assembles the cache (5-20 s here)
# shellcheck disable=SC2034 # read by lib/place/local.sh
VARIANTS_AOT_STOP_TIMEOUT_S=120
# where the caches are kept, one per server build and JDK (BARRAGE_AOT_CACHE_DIR: elsewhere)
# shellcheck disable=SC2034 # read by lib/place/local.sh
VARIANTS_AOT_CACHE=${BARRAGE_AOT_CACHE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.cache/aot}

variants::_file() { printf '%s\n' "$SERVERS_DIR/$1/variants.tsv"; }

# variants::_lines SERVER: the declared lines (no comments, no header), or a default one.
variants::_lines() {
  local file
  file=$(variants::_file "$1")
  if [[ -f $file ]]; then
    awk -F'\t' '!/^#/ && NF > 0 && $1 != "name"' "$file"
  else
    printf 'default\t-\t-\t-\tno variants declared: the server as it is\n'
  fi
}

variants::names() { variants::_lines "$1" | cut -f1; }

variants::field() {
  local column variant=$2
  if [[ $variant == "$VARIANTS_AOT" ]]; then
    [[ $3 != description ]] || { printf '%s\n' "the default, started from an AOT cache its warm-up made (JDK $VARIANTS_AOT_MIN_JDK+)"; return 0; }
    variant=$(variants::names "$1" | head -n 1)
  fi
  case $3 in jvm_options) column=2 ;; env) column=3 ;; properties) column=4 ;; description) column=5 ;; *) return 1 ;; esac
  variants::_lines "$1" | awk -F'\t' -v name="$variant" -v c="$column" '
    $1 == name { found = 1; v = $c; if (v == "-") v = ""; print v } END { exit !found }'
}

variants::aot_refusal() {
  local jdk
  [[ $(jq -r .variant <<<"$1") == "$VARIANTS_AOT" ]] || return 1
  jdk=$(jq -r '.jdk // ""' <<<"$1")
  jdk=${jdk:-$2}
  [[ -n $jdk ]] && ((jdk < VARIANTS_AOT_MIN_JDK)) || return 1
  printf '%s\n' "$(jq -r .label <<<"$1"): the aot variant needs JDK $VARIANTS_AOT_MIN_JDK or newer to make its AOT cache (-XX:AOTCacheOutput, JEP 514); it would run JDK $jdk"
}

variants::aot_options() {
  local dir=$1 java_home=$2 cache=$3 hash file
  hash=$({ sha256sum <"$dir/target/server.jar"; java::version "$java_home"; } | sha256sum | cut -c1-16)
  file=$cache/$(basename "$dir")-$hash.aot
  if [[ -s $file ]]; then printf '%s\n' "-XX:AOTCache=$file" -Xlog:aot
  else
    # what a stopped training left (an empty cache, its configuration) goes first
    mkdir -p "$cache" && rm -f -- "$file" "$file.config"
    printf '%s\n' "-XX:AOTCacheOutput=$file"
  fi
}

variants::select() {
  local spec=$1 item server variant name out=() picked picked_any
  shift
  local servers=("$@") seen=' '
  IFS=, read -r -a items <<<"$spec"
  ((${#items[@]})) || { echo "no variants given"; return 1; }
  for item in "${items[@]}"; do
    server=${item%%:*} variant=''
    [[ $item == *:* ]] && variant=${item#*:}
    [[ -n $server && $item != *:*:* ]] || { echo "'$item' is not SERVER:VARIANT"; return 1; }
    if [[ $server != '*' && " ${servers[*]} " != *" $server "* ]]; then
      echo "'$item': $server is not among the servers measured (${servers[*]})"; return 1
    fi
    picked_any=0
    for name in "${servers[@]}"; do
      [[ $server == '*' || $server == "$name" ]] || continue
      if [[ -z $variant ]]; then picked=$(variants::names "$name" | head -n 1)
      elif [[ $variant == '*' ]]; then picked=$(variants::names "$name")
      elif [[ $variant == "$VARIANTS_AOT" ]]; then picked=$VARIANTS_AOT
      else picked=$(variants::names "$name" | grep -xF -- "$variant") || picked=''
      fi
      if [[ -z $picked && $server != '*' ]]; then
        echo "'$item': $name has no variant '$variant' (declared: $(variants::names "$name" | paste -sd' '); servers/$name/variants.tsv; and $VARIANTS_AOT, every server's)"
        return 1
      fi
      while IFS= read -r picked; do
        [[ -n $picked ]] || continue
        picked_any=1
        [[ $seen == *" $name:$picked "* ]] && continue
        seen+="$name:$picked " out+=("$name:$picked")
      done <<<"$picked"
    done
    ((picked_any)) || { echo "'$item' picks no variant of ${servers[*]}"; return 1; }
  done
  printf '%s\n' "${out[@]}"
}

variants::axis_values() {
  local option=$1 text=$2 value values=() seen=' ' pattern
  case $option in
    --jdk) pattern='^[1-9][0-9]$' ;;
    --gc) pattern="^(${VARIANTS_GCS// /|})$" ;;
    --heap) pattern='^[1-9][0-9]{0,5}[mg]$' ;;
    --server-cpus) pattern='^[1-9][0-9]{0,3}$' ;;
    *) echo "no such matrix option: $option"; return 1 ;;
  esac
  IFS=, read -r -a values <<<"$text"
  ((${#values[@]})) || { echo "$option needs a value"; return 1; }
  for value in "${values[@]}"; do
    if ! [[ $value =~ $pattern ]]; then
      case $option in
        --jdk) echo "$option wants JDK feature releases like 21,25, got '$value'" ;;
        --gc) echo "$option wants ${VARIANTS_GCS// /, }, got '$value'" ;;
        --heap) echo "$option wants sizes like 512m or 1g, got '$value'" ;;
        --server-cpus) echo "$option wants core counts like 1,2, got '$value'" ;;
      esac
      return 1
    fi
    # the servers are compiled for JAVA_MIN_MAJOR (lib/java.sh): an older JVM cannot load them
    if [[ $option == --jdk ]] && ((value < ${JAVA_MIN_MAJOR:-21})); then
      echo "$option: the servers need JDK ${JAVA_MIN_MAJOR:-21} or newer, got '$value'"; return 1
    fi
    # a heap by its size in MiB: 1g and 1024m are one heap, not two contestants
    local key=$value
    if [[ $option == --heap && $value == *g ]]; then key=$((${value%g} * 1024))m; fi
    if [[ $seen == *" $key="* ]]; then
      local first=${seen#*" $key="} && first=${first%% *}
      if [[ $first == "$value" ]]; then echo "$option: '$value' given twice in '$text'"
      else echo "$option: '$value' is the same heap as '$first' in '$text' (give each size once)"; fi
      return 1
    fi
    seen+="$key=$value "
  done
  printf '%s\n' "${values[@]}"
}

variants::gc_flag() {
  case $1 in
    g1) echo -XX:+UseG1GC ;; zgc) echo -XX:+UseZGC ;; parallel) echo -XX:+UseParallelGC ;;
    serial) echo -XX:+UseSerialGC ;; shenandoah) echo -XX:+UseShenandoahGC ;;
    *) return 1 ;;
  esac
}

# variants::_axis TEXT: a comma list's values, or one empty value when TEXT is empty.
variants::_axis() { if [[ -n $1 ]]; then tr ',' '\n' <<<"$1"; else echo ''; fi; }

variants::contestants() {
  local lines=$1 jdks=$2 gcs=$3 heaps=$4 cpus=$5 line server variant jdk gc heap n
  while IFS= read -r line; do
    [[ -n $line ]] || continue
    server=${line%%:*} variant=${line#*:}
    while IFS= read -r jdk; do
      while IFS= read -r gc; do
        while IFS= read -r heap; do
          while IFS= read -r n; do
            jq -cn --arg server "$server" --arg variant "$variant" --arg jdk "$jdk" --arg gc "$gc" --arg heap "$heap" --arg cpus "$n" \
              --arg jvm "$(variants::field "$server" "$variant" jvm_options)" --arg env "$(variants::field "$server" "$variant" env)" \
              --arg props "$(variants::field "$server" "$variant" properties)" \
              --arg description "$(variants::field "$server" "$variant" description)" '
              def words: split(" ") | map(select(length > 0));
              def pairs: words | map(capture("^(?<key>[^=]+)=(?<value>.*)$")) | from_entries;
              def nullable: if . == "" then null else . end;
              {label: ("\($server):\($variant)" + ([(if $jdk != "" then "jdk\($jdk)" else empty end),
                        ($gc | select(. != "")), (if $heap != "" then "heap\($heap)" else empty end),
                        (if $cpus != "" then "cpus\($cpus)" else empty end)] | map("+" + .) | join(""))),
               server: $server, variant: $variant, description: ($description | nullable),
               jvm_options: ($jvm | words), env: ($env | pairs), properties: ($props | pairs),
               jdk: ($jdk | nullable), gc: ($gc | nullable), heap: ($heap | nullable),
               server_cpus: (if $cpus == "" then null else $cpus | tonumber end)}'
          done < <(variants::_axis "$cpus")
        done < <(variants::_axis "$heaps")
      done < <(variants::_axis "$gcs")
    done < <(variants::_axis "$jdks")
  done <<<"$lines"
}

variants::launch_options() {
  local gc
  gc=$(jq -r '.gc // ""' <<<"$1")
  jq -r '.jvm_options[], (.properties | to_entries[] | "-D\(.key)=\(.value)")' <<<"$1"
  [[ -z $gc ]] || variants::gc_flag "$gc"
  jq -r '(.heap // empty | "-Xms\(.)", "-Xmx\(.)"), (.server_cpus // empty | "-XX:ActiveProcessorCount=\(.)")' <<<"$1"
  echo -XX:+PrintCommandLineFlags
}

variants::cpu_list() {
  local list=$1 count=$2 cpus=() part from to i
  [[ -n $list ]] || list=$(taskset -pc $$ | sed 's/.*: //')
  IFS=, read -r -a parts <<<"$list"
  for part in "${parts[@]}"; do
    from=${part%-*} to=${part#*-}
    for ((i = from; i <= to; i++)); do cpus+=("$i"); done
  done
  if ((${#cpus[@]} < count)); then
    echo "$count core(s) wanted, the server may use ${#cpus[@]} here (CPUs $list)"
    return 1
  fi
  (IFS=,; echo "${cpus[*]:0:count}")
}
