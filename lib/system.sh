#!/usr/bin/env bash
# system: facts about the machine for the results file, CPU pinning, and /proc sampling
# of a server's CPU and memory and of a load tool's CPU.
#
#   system::cores
#     Number of online CPUs.
#   system::default_pinning
#     Prints "SERVER_CPUS CLIENT_CPUS" (taskset lists) that split the cores into two
#     disjoint halves, the server's first; prints nothing on a single-core machine.
#   system::count_cpus CPULIST
#     Number of CPUs in a taskset list like 0-3,6.
#   system::info DESCRIPTION JAVA_VERSION JVM_FLAGS SERVER_CPUS CLIENT_CPUS
#     Prints the results file's `system` object (empty strings become null; no pinning
#     when SERVER_CPUS is empty; cpuScaling from system::cpu_scaling).
#   system::cpu_scaling
#     Prints the `cpuScaling` object: the CPU frequency governor(s), cpufreq driver, the
#     frequency range and boost from $SYSTEM_SYSFS (default /sys), and whether the CPU says
#     it runs under a hypervisor. Without cpufreq those are null and `note` says why.
#   system::sample_start PID FILE
#     Starts a background sampler that appends "TIME_US CPU_TICKS RSS_KB LOAD1 LOAD5 LOAD15
#     CPU_TOTAL CPU_IDLE CPU_STEAL" lines to FILE every 200 ms while PID lives: utime+stime
#     of all its threads, VmRSS, /proc/loadavg, and the whole machine's CPU ticks from
#     /proc/stat (all, idle+iowait, steal). Sets SAMPLER_PID.
#   system::sample_stop
#     Stops the sampler (no-op if none is running).
#   system::stats FILE SECONDS
#     Prints the row's `server_stats` object from the samples of the last SECONDS (the
#     measured phase; the warm-up before it is left out): cpu_pct (100 = one core busy,
#     null with fewer than two samples) and rss_peak_kb, the largest VmRSS.
#   system::machine_stats FILE SECONDS SERVER_STATS CLIENT_STATS
#     Prints the row's `machine_stats` object from the samples of sample_start over the
#     last SECONDS: loadavg_before and loadavg_after ([1, 5, 15] minutes, at the window's
#     first and last sample), cpu_pct (the whole machine, steal left out; 100 = one core),
#     steal_pct (the share of all CPUs' time the hypervisor gave to others) and
#     other_cpu_pct: cpu_pct minus the server's and the load tool's cpu_pct (from the
#     SERVER_STATS and CLIENT_STATS objects; null when one is unknown). Each is null with
#     fewer than two samples that carry machine fields.
#   system::group_sample_start PID FILE
#     Starts a background sampler that appends "TIME_US PID CPU_NS BUSY_NS" lines to FILE
#     every 200 ms while process PID lives: over every thread of PID and of its descendants
#     (a load tool under timeout and taskset, and whatever it forks), the time on a CPU, and
#     that time plus the time spent runnable, waiting for a CPU (/proc/PID/task/TID/schedstat;
#     without schedstat, CPU_NS comes from utime+stime and BUSY_NS is "-"). Sets
#     GROUP_SAMPLER_PID.
#   system::group_sample_stop
#     Stops that sampler (no-op if none is running).
#   system::group_stats FILE SECONDS CORES
#     Prints the row's `client_stats` object from the samples of the last SECONDS: cpu_pct
#     (100 = one core), busy_pct (on a CPU or waiting for one; null without schedstat) and
#     cores (CORES: the cores the tool could use); the percentages are null with fewer than
#     two samples. Samples of different processes (a tool run twice, as wrk's warm-up and
#     measured run) are not subtracted from each other, and an interval in which a thread
#     ended (its time went with it) is left out.

SAMPLER_PID='' GROUP_SAMPLER_PID=''

system::cores() { nproc; }

system::count_cpus() {
  local part count=0 parts
  IFS=, read -r -a parts <<<"$1"
  for part in "${parts[@]}"; do
    if [[ $part == *-* ]]; then count=$((count + ${part#*-} - ${part%-*} + 1)); else count=$((count + 1)); fi
  done
  printf '%s\n' "$count"
}

system::default_pinning() {
  local cores half
  cores=$(system::cores)
  ((cores >= 2)) || return 0
  half=$((cores / 2))
  # A one-CPU half is written as a single number, not "0-0".
  if ((half == 1)); then printf '0 '; else printf '0-%d ' $((half - 1)); fi
  if ((cores - half == 1)); then printf '%d\n' "$half"; else printf '%d-%d\n' "$half" $((cores - 1)); fi
}

system::info() {
  local description=$1 java=$2 jvm_flags=$3 server_cpus=$4 client_cpus=$5 os cpu_model ram_kb
  os=$(. /etc/os-release 2>/dev/null && printf '%s' "${PRETTY_NAME:-$NAME}") || os=$(uname -s)
  cpu_model=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
  ram_kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
  jq -n --arg os "${os:-$(uname -s)}" --arg kernel "$(uname -r)" --arg arch "$(uname -m)" \
    --arg cpu "${cpu_model:-unknown}" --argjson cores "$(system::cores)" --argjson ram_kb "${ram_kb:-0}" \
    --arg java "$java" --arg flags "$jvm_flags" --arg description "$description" \
    --arg server "$server_cpus" --arg client "$client_cpus" --argjson scaling "$(system::cpu_scaling)" '
    def nullable: if . == "" then null else . end;
    {os: $os, kernel: $kernel, arch: $arch, cpuModel: $cpu, cpuCores: $cores,
     ramGB: ($ram_kb / 1048576 * 10 | round / 10),
     java: ($java | nullable), jvmFlags: ($flags | nullable), description: ($description | nullable),
     cpuPinning: (if $server == "" then null else {server: $server, client: $client} end),
     cpuScaling: $scaling}'
}

system::sample_start() {
  local pid=$1 file=$2
  { (
    local stat fields rss load1 load5 load15 rest
    while read -r stat 2>/dev/null <"/proc/$pid/stat"; do
      # After the command (which may hold spaces), utime and stime are fields 12 and 13.
      read -r -a fields <<<"${stat##*) }"
      rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null) || rss=''
      read -r load1 load5 load15 rest </proc/loadavg
      system::_machine_ticks
      printf '%s %s %s %s %s %s %s\n' "${EPOCHREALTIME/[.,]/}" $((fields[11] + fields[12])) "${rss:-0}" \
        "$load1" "$load5" "$load15" "$SYSTEM_MACHINE_TICKS"
      sleep 0.2
    done
  ) >>"$file" & } 2>/dev/null # (as in system::group_sample_start)
  SAMPLER_PID=$!
}

# system::_machine_ticks: sets SYSTEM_MACHINE_TICKS to "TOTAL IDLE STEAL", the ticks of all
# CPUs from /proc/stat's first line (guest time is inside user already, so not added).
system::_machine_ticks() {
  local user nice sys idle iowait irq softirq steal rest
  read -r _ user nice sys idle iowait irq softirq steal rest </proc/stat
  SYSTEM_MACHINE_TICKS="$((user + nice + sys + idle + iowait + irq + softirq + steal)) $((idle + iowait)) $steal"
}

system::sample_stop() {
  [[ -n $SAMPLER_PID ]] || return 0
  # Reap it only while it exists: bash 5.2 can lose the exit of a child reaped while a trap
  # interrupted `wait`, and a `wait` for that PID then never returns.
  if kill "$SAMPLER_PID" 2>/dev/null; then wait "$SAMPLER_PID" 2>/dev/null || true; fi
  SAMPLER_PID=''
}

system::stats() {
  local file=$1 seconds=$2
  awk -v seconds="$seconds" -v hz="$(getconf CLK_TCK)" '
    { t[NR] = $1; ticks[NR] = $2; rss[NR] = $3 }
    END {
      if (NR == 0) { print "{\"cpu_pct\":null,\"rss_peak_kb\":null}"; exit }
      first = NR
      while (first > 1 && t[NR] - t[first - 1] <= seconds * 1000000) first--
      peak = 0
      for (i = first; i <= NR; i++) if (rss[i] > peak) peak = rss[i]
      if (NR - first < 1 || t[NR] == t[first]) cpu = "null"
      else cpu = sprintf("%.1f", (ticks[NR] - ticks[first]) / hz / ((t[NR] - t[first]) / 1000000) * 100)
      printf "{\"cpu_pct\":%s,\"rss_peak_kb\":%d}\n", cpu, peak
    }' "$file"
}

system::machine_stats() {
  local file=$1 seconds=$2 server=$3 client=$4
  awk -v seconds="$seconds" '
    NF >= 9 { n++; t[n] = $1; load[n] = "[" $4 "," $5 "," $6 "]"; total[n] = $7; idle[n] = $8; steal[n] = $9 }
    END {
      first = n
      while (first > 1 && t[n] - t[first - 1] <= seconds * 1000000) first--
      if (n - first < 1 || total[n] == total[first]) {
        print "{\"loadavg_before\":null,\"loadavg_after\":null,\"cpu_pct\":null,\"steal_pct\":null}"; exit
      }
      ticks = total[n] - total[first]; st = steal[n] - steal[first]
      busy = ticks - (idle[n] - idle[first]) - st
      # ticks are all CPUs together: busy / ticks * cores is in cores; cores = ticks / (hz * s).
      printf "{\"loadavg_before\":%s,\"loadavg_after\":%s,\"cpu_pct\":%.1f,\"steal_pct\":%.2f}\n",
        load[first], load[n], busy / ((t[n] - t[first]) / 1000000) / hz * 100, st / ticks * 100
    }' hz="$(getconf CLK_TCK)" "$file" |
    jq -c --argjson server "$server" --argjson client "$client" '
      # The three are sampled over windows that differ by up to a sample: never below 0.
      . + {other_cpu_pct: ([.cpu_pct, $server.cpu_pct?, $client.cpu_pct?] as [$all, $s, $c]
                           | if $all == null or $s == null or $c == null then null
                             else ([$all - $s - $c, 0] | max * 10 | round / 10) end)}'
}

system::cpu_scaling() {
  local sysfs=${SYSTEM_SYSFS:-/sys} cpu dir governors=() driver='' min='' max='' boost='' virtual=false
  for dir in "$sysfs"/devices/system/cpu/cpu[0-9]*/cpufreq; do
    [[ -r $dir/scaling_governor ]] && governors+=("$(<"$dir/scaling_governor")")
  done
  cpu=$sysfs/devices/system/cpu/cpu0/cpufreq
  [[ -r $cpu/scaling_driver ]] && driver=$(<"$cpu/scaling_driver")
  [[ -r $cpu/cpuinfo_min_freq ]] && min=$(<"$cpu/cpuinfo_min_freq")
  [[ -r $cpu/cpuinfo_max_freq ]] && max=$(<"$cpu/cpuinfo_max_freq")
  if [[ -r $sysfs/devices/system/cpu/cpufreq/boost ]]; then
    boost=$(<"$sysfs/devices/system/cpu/cpufreq/boost")
  elif [[ -r $sysfs/devices/system/cpu/intel_pstate/no_turbo ]]; then
    boost=$((1 - $(<"$sysfs/devices/system/cpu/intel_pstate/no_turbo")))
  fi
  grep -qw hypervisor /proc/cpuinfo && virtual=true
  jq -cn --arg governors "$(printf '%s\n' "${governors[@]}" | sort -u | paste -sd,)" --arg driver "$driver" \
    --arg min "$min" --arg max "$max" --arg boost "$boost" --argjson virtual "$virtual" '
    def nullable: if . == "" then null else . end;
    {governor: ($governors | nullable), driver: ($driver | nullable),
     min_khz: ($min | nullable | if . then tonumber else . end),
     max_khz: ($max | nullable | if . then tonumber else . end),
     boost: (if $boost == "" then null else $boost == "1" end), virtualized: $virtual,
     note: (if $governors != "" then null
            elif $virtual then "no cpufreq in /sys: the kernel of this virtual machine does not set the CPU frequency; the host does, unseen (governor, range and boost unknown)"
            else "no cpufreq in /sys: no frequency scaling driver is loaded (governor, range and boost unknown)" end)}'
}

# system::_tree_times PID: sets SYSTEM_TREE_TIMES to "CPU_NS BUSY_NS" summed over the threads
# of PID and its descendants (BUSY_NS "-" when a thread has no schedstat). Builtins only, no
# subshell: it runs every 200 ms beside the measurement.
system::_tree_times() {
  local pids=("$1") pid task cpu=0 busy=0 on wait rest stat fields children
  while ((${#pids[@]})); do
    pid=${pids[-1]}
    unset 'pids[-1]'
    for task in /proc/"$pid"/task/*; do
      if read -r on wait rest 2>/dev/null <"$task/schedstat"; then
        cpu=$((cpu + on))
        [[ $busy != - ]] && busy=$((busy + on + wait))
      elif read -r stat 2>/dev/null <"$task/stat"; then
        read -r -a fields <<<"${stat##*) }"
        cpu=$((cpu + (fields[11] + fields[12]) * 1000000000 / SYSTEM_HZ))
        busy=-
      fi
      # The list has no newline at its end: read fails there, having read it.
      children=()
      read -r -a children 2>/dev/null <"$task/children" || true
      pids+=("${children[@]}")
    done
  done
  SYSTEM_TREE_TIMES="$cpu $busy"
}

system::group_sample_start() {
  local pid=$1 file=$2
  SYSTEM_HZ=$(getconf CLK_TCK)
  # stderr to /dev/null from the fork on: one stopped as it starts has bash print "wait_for:
  # No record of process" there (see on_exit in run-benchmarks.sh)
  { (
    while [[ -d /proc/$pid ]]; do
      system::_tree_times "$pid"
      printf '%s %s %s\n' "${EPOCHREALTIME/[.,]/}" "$pid" "$SYSTEM_TREE_TIMES"
      sleep 0.2
    done
  ) >>"$file" & } 2>/dev/null
  GROUP_SAMPLER_PID=$!
}

system::group_sample_stop() {
  [[ -n $GROUP_SAMPLER_PID ]] || return 0
  kill "$GROUP_SAMPLER_PID" 2>/dev/null || true
  wait "$GROUP_SAMPLER_PID" 2>/dev/null || true
  GROUP_SAMPLER_PID=''
}

system::group_stats() {
  local file=$1 seconds=$2 cores=$3
  [[ -f $file ]] || file=/dev/null
  awk -v seconds="$seconds" -v cores="$cores" '
    { t[NR] = $1; g[NR] = $2; cpu[NR] = $3; busy[NR] = $4 }
    END {
      first = NR
      while (first > 1 && t[NR] - t[first - 1] <= seconds * 1000000) first--
      # An interval in which a thread ended (the sum went down: its time left with it) says
      # nothing about the rest: it is left out of the time and of the sum alike.
      known = 1
      for (i = first; i <= NR; i++) if (busy[i] == "-") known = 0
      for (i = first + 1; i <= NR; i++) {
        if (g[i] != g[i - 1]) continue
        dt = (t[i] - t[i - 1]) * 1000
        if (cpu[i] >= cpu[i - 1]) { cpu_ns += cpu[i] - cpu[i - 1]; cpu_span += dt }
        if (known && busy[i] >= busy[i - 1]) { busy_ns += busy[i] - busy[i - 1]; busy_span += dt }
      }
      c = cpu_span > 0 ? sprintf("%.1f", cpu_ns / cpu_span * 100) : "null"
      b = busy_span > 0 ? sprintf("%.1f", busy_ns / busy_span * 100) : "null"
      printf "{\"cpu_pct\":%s,\"busy_pct\":%s,\"cores\":%d}\n", c, b, cores
    }' "$file"
}
