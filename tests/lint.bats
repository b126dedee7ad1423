#!/usr/bin/env bats
# Every Bash file of the suite is shellcheck clean (a disable needs its reason beside it).

load test_helper

setup() {
  cd "$BATS_TEST_DIRNAME/.." || return 1
}

@test "lint: shellcheck finds nothing in the entry scripts, lib/, tests and bench scripts" {
  local files=()
  mapfile -t files < <(git ls-files '*.sh' '*.bats' .ci/run)
  ((${#files[@]} > 10))
  # one shellcheck per core, each on every other file: the same findings in half the time
  # (xargs exits 123 when any of them found something)
  run bash -c 'printf "%s\0" "$@" | xargs -0 -P "$(nproc)" -n "$(((${#} + $(nproc) - 1) / $(nproc)))" shellcheck -x' _ "${files[@]}"
  echo "$output"
  [ "$status" -eq 0 ]
}
