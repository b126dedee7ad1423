#!/usr/bin/env bats
# Every Bash file of the suite is shellcheck clean (a disable needs its reason beside it).

setup() {
  cd "$BATS_TEST_DIRNAME/.." || return 1
}

@test "lint: shellcheck finds nothing in the entry scripts, lib/, tests and bench scripts" {
  local files=()
  mapfile -t files < <(git ls-files '*.sh' '*.bats' .ci/run)
  ((${#files[@]} > 10))
  run shellcheck -x "${files[@]}"
  echo "$output"
  [ "$status" -eq 0 ]
}
