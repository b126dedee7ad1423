#!/usr/bin/env bash
# Starts the java-http server in the foreground. exec: this script's PID becomes the JVM's.
# Env: PORT (default 8080), BIND (default 127.0.0.1), JAVA_OPTS (replaces servers/jvm.options),
# VARIANT_JVM_OPTIONS (a variant's, after them: lib/variants.sh) and the variant's own (README: Variants).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/log.sh
source "$here/../../lib/log.sh"
# shellcheck source=lib/java.sh
source "$here/../../lib/java.sh"
java::exec_server "$here"
