#!/usr/bin/env bash
# Starts the netty server in the foreground. exec: this script's PID becomes the JVM's.
# Env: PORT (default 8080), BIND (default 127.0.0.1), JAVA_OPTS (replaces servers/jvm.options).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/log.sh
source "$here/../../lib/log.sh"
# shellcheck source=lib/java.sh
source "$here/../../lib/java.sh"
java_home=$(java::home)
jar=$here/target/server.jar
[[ -f $jar ]] || log::die "$jar is missing: build it first (mvn -B package in servers/, or servers::build netty)"
mapfile -t jvm_options < <(java::server_options "$here/../jvm.options")
export PORT=${PORT:-8080} BIND=${BIND:-127.0.0.1}
exec "$java_home/bin/java" "${jvm_options[@]}" -jar "$jar"
