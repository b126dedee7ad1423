#!/usr/bin/env python3
"""hotspot_attach.py PID LIBRARY OPTIONS: hands OPTIONS to the JVMTI agent LIBRARY in the
HotSpot JVM PID (loading it if needed), as `jcmd PID JVMTI.agent_load LIBRARY OPTIONS` does,
in milliseconds instead of a JVM's start-up: lib/profile.sh uses it to start a profiler at the
end of a warm-up, when a jcmd on a busy machine would start it seconds late.

HotSpot's attach protocol (version 1): touch .attach_pidPID in the JVM's working directory and
send it SIGQUIT, which makes it listen on the UNIX socket .java_pidPID in its temporary folder;
then one request per connection: "1", the command and three arguments, each NUL-terminated.
The reply: the command's status on the first line, then its output (for "load": the agent's
"return code: N"). Prints the reply; exit status 0 when both say 0, 1 otherwise, 2 when PID is
not a HotSpot JVM (SIGQUIT would stop most other processes) or cannot be reached."""
import os
import signal
import socket
import sys
import time


def is_hotspot(pid):
    """Whether pid has HotSpot's library mapped."""
    with open(f"/proc/{pid}/maps", encoding="ascii", errors="replace") as maps:
        return any(line.rstrip().endswith("/libjvm.so") for line in maps)


def socket_path(pid):
    """The attach socket of pid, making the JVM open it when it is not there yet."""
    path = f"/proc/{pid}/root/tmp/.java_pid{pid}"
    if os.path.exists(path):
        return path
    trigger = f"/proc/{pid}/cwd/.attach_pid{pid}"
    with open(trigger, "w", encoding="ascii"):
        pass
    try:
        os.kill(pid, signal.SIGQUIT)
        deadline = time.monotonic() + 10
        while not os.path.exists(path):
            if time.monotonic() > deadline:
                raise TimeoutError(f"JVM {pid} opened no attach socket within 10 s")
            time.sleep(0.05)
    finally:
        os.unlink(trigger)
    return path


def main():
    pid, library, options = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    try:
        if not is_hotspot(pid):
            print(f"process {pid} is not a HotSpot JVM", file=sys.stderr)
            return 2
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(socket_path(pid))
            request = ["1", "load", library, "true", options]
            conn.sendall(b"".join(part.encode() + b"\0" for part in request))
            reply = b""
            while chunk := conn.recv(4096):
                reply += chunk
    except (OSError, TimeoutError) as error:
        print(f"cannot attach to JVM {pid}: {error}", file=sys.stderr)
        return 2
    text = reply.decode(errors="replace")
    print(text, end="")
    lines = text.splitlines()
    ok = lines[:1] == ["0"] and any(line.strip() == "return code: 0" for line in lines[1:])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
