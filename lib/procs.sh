#!/usr/bin/env bash
# procs: the processes a run starts in the background (load tools, contract checks, builds),
# each in a process group of its own, kept in a list so that an interrupt stops every one of
# them by process group (never by name) and a test can check that none is left.
#
#   procs::record_to FILE
#     From now on, every process started here or noted with procs::record gets a line
#     "PID<TAB>START<TAB>LABEL" in FILE: PID is also its process group, START its start time
#     (clock ticks after boot, /proc/PID/stat field 22) so that a reused PID is not taken for it.
#   procs::record PID LABEL
#     Adds a process started elsewhere (a server, the CPU sampler) to FILE; it is not stopped here.
#   procs::spawn LABEL CMD...
#     Starts CMD (a command or a shell function, with the caller's redirections) in the
#     background in a new process group, records it and sets PROCS_PID.
#   procs::wait PID
#     Waits for a spawned PID and returns its exit status. A trapped signal interrupts the
#     wait at once (a foreground child would delay the trap until it ended).
#   procs::run LABEL CMD...
#     procs::spawn, then procs::wait: CMD's exit status.
#   procs::stop PID [TIMEOUT_S=5]
#     TERM to the process group, KILL to it after TIMEOUT_S; returns 0 once the group is gone.
#   procs::stop_all
#     procs::stop for every spawned group still running, newest first (5 s each before KILL).

PROCS_FILE='' PROCS_PID=''
# Spawned process groups not yet waited for.
PROCS_RUNNING=()

procs::record_to() { PROCS_FILE=$1; }

procs::record() {
  local pid=$1 label=$2 stat=''
  [[ -n $PROCS_FILE ]] || return 0
  read -r stat 2>/dev/null <"/proc/$pid/stat" || true
  # After the command name (which may hold spaces), the start time is the 20th field.
  local fields=()
  read -r -a fields <<<"${stat##*) }"
  printf '%s\t%s\t%s\n' "$pid" "${fields[19]:-?}" "$label" >>"$PROCS_FILE"
}

procs::spawn() {
  local label=$1 had_monitor=0
  shift
  # With job control on, `&` puts the job in a process group of its own (PGID == PID), and
  # the job does not inherit the ignored SIGINT of an asynchronous command.
  [[ $- == *m* ]] && had_monitor=1
  set -m
  # Under job control a background job keeps the terminal as stdin: a read would stop it.
  "$@" </dev/null &
  PROCS_PID=$!
  ((had_monitor)) || set +m
  PROCS_RUNNING+=("$PROCS_PID")
  procs::record "$PROCS_PID" "$label"
}

# procs::_forget PID: drops PID from the running list.
procs::_forget() {
  local i
  for i in "${!PROCS_RUNNING[@]}"; do
    [[ ${PROCS_RUNNING[i]} == "$1" ]] && unset 'PROCS_RUNNING[i]'
  done
  PROCS_RUNNING=("${PROCS_RUNNING[@]}")
}

procs::wait() {
  local pid=$1 rc=0
  wait "$pid" || rc=$?
  procs::_forget "$pid"
  return "$rc"
}

procs::run() {
  procs::spawn "$@"
  procs::wait "$PROCS_PID"
}

# procs::_group_alive PGID: 0 while any non-zombie process is in the group.
procs::_group_alive() {
  local state
  while read -r state; do
    [[ -n $state && $state != Z* ]] && return 0
  done < <(ps -o stat= -g "$1" 2>/dev/null)
  return 1
}

procs::stop() {
  local pid=$1 timeout=${2:-5} deadline
  [[ $pid =~ ^[0-9]+$ && $pid -gt 1 ]] || return 1
  kill -TERM -- "-$pid" 2>/dev/null || true
  deadline=$((SECONDS + timeout))
  while procs::_group_alive "$pid" && ((SECONDS < deadline)); do sleep 0.1; done
  if procs::_group_alive "$pid"; then
    kill -KILL -- "-$pid" 2>/dev/null || true
    deadline=$((SECONDS + 2))
    while procs::_group_alive "$pid" && ((SECONDS < deadline)); do sleep 0.1; done
  fi
  # Reaps it (and keeps the shell from reporting its death), only while it exists: see
  # system::sample_stop for the bash 5.2 wait that never returns.
  if kill -0 "$pid" 2>/dev/null; then wait "$pid" 2>/dev/null || true; fi
  procs::_forget "$pid"
  ! procs::_group_alive "$pid"
}

procs::stop_all() {
  local i
  for ((i = ${#PROCS_RUNNING[@]} - 1; i >= 0; i--)); do
    procs::stop "${PROCS_RUNNING[i]}" 5 || true
  done
}
