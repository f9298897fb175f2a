"""Free TCP ports on 127.0.0.1 for servers a test starts later (and must name in advance).

A port the system chooses (binding port 0) comes from its ephemeral range, from which it also
gives every outgoing connection and every other port-0 server its port: between the release
and the server's start, a test running in parallel can take it ("cannot listen on
127.0.0.1:..."). These ports are drawn at random below that range, where only a server asking
for that exact port can take one, and checked free by binding them.

    free_ports.py N    prints N distinct free ports, separated by spaces
"""
import random
import socket
import sys

LOWEST = 20000


def ephemeral_range_start():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_ports(count):
    """`count` distinct ports on 127.0.0.1, each free when checked."""
    start = ephemeral_range_start()
    if start <= LOWEST + 1000:  # no room below the range: let the system choose
        return _system_ports(count)
    chosen = []
    for _ in range(64 * count):
        if len(chosen) == count:
            break
        candidate = random.randrange(LOWEST, start)
        if candidate in chosen:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", candidate))
            except OSError:
                continue
        chosen.append(candidate)
    if len(chosen) != count:
        raise RuntimeError(f"no {count} free ports below {start}")
    return chosen


def free_port():
    return free_ports(1)[0]


def _system_ports(count):
    socks = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            socks.append(s)
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


if __name__ == "__main__":
    print(" ".join(str(p) for p in free_ports(int(sys.argv[1]))))
