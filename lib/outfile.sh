#!/usr/bin/env bash
# outfile: where an entry script may write a file a person named (history.sh --html, report.sh -o).
#
#   outfile::check OPTION PATH [INPUT...]
#     Returns 0 when PATH may be written: it does not exist, or it is a regular file (not a
#     symlink) that is none of the INPUTs (files the script reads: -ef, the same file under
#     another name too), and its folder exists. Else returns 1 with the reason on stderr,
#     naming OPTION. The scripts write a page beside it and rename it over PATH: a rename
#     replaces what is there, so a FIFO, a device (as root, /dev/null), a socket, a folder or a
#     symlink (the link itself, not where it points) would be lost, and an input overwritten.
# Depends on lib/log.sh.

outfile::check() {
  local option=$1 path=$2 input
  shift 2
  if [[ -L $path ]]; then
    log::error "$option: $path is a symbolic link: it would be replaced by the file (name where it points instead)"; return 1
  fi
  if [[ -e $path && ! -f $path ]]; then
    log::error "$option: $path exists and is not a regular file (a folder, a device, a FIFO or a socket): it would be replaced"; return 1
  fi
  [[ -d $(dirname -- "$path") ]] || { log::error "$option: $(dirname -- "$path"): no such directory"; return 1; }
  for input in "$@"; do
    if [[ -e $path && $path -ef $input ]]; then
      log::error "$option: $path is $input, a file this run reads: two files, or it would be overwritten"; return 1
    fi
  done
  return 0
}
