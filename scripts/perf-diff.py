#!/usr/bin/env python3
"""What one request of a route costs more than one of another, per symbol, from two
`perf record -F 4000 -e cpu-clock -p SERVER` profiles taken during load (scripts/load.sh with
LOAD_PERF=1). Each sample is 1/4000 s of the server's CPU; divided by the requests served
while it was taken, a symbol's samples give its CPU microseconds per request.

Usage: perf-diff.py BASELINE.perf BASELINE_REQUESTS ROUTE.perf ROUTE_REQUESTS [TOP]
"""
import collections, subprocess, sys

FREQUENCY = 4000


def per_request(path, requests):
    """Microseconds per request by (shared object, symbol)."""
    report = subprocess.run(
        ["perf", "report", "-i", path, "--stdio", "-n", "--no-children", "--sort", "dso,sym", "-g", "none",
         "--percent-limit", "0"],
        capture_output=True, text=True, check=True).stdout
    costs = collections.Counter()
    for line in report.splitlines():
        fields = line.split()
        if len(fields) < 4 or line.startswith("#") or not fields[0].endswith("%"):
            continue
        samples, dso, symbol = int(fields[1]), fields[2], " ".join(fields[4:])
        costs[(dso, symbol[:110])] += samples * 1e6 / FREQUENCY / requests
    return costs


def main():
    baseline = per_request(sys.argv[1], int(sys.argv[2]))
    route = per_request(sys.argv[3], int(sys.argv[4]))
    top = int(sys.argv[5]) if len(sys.argv) > 5 else 40
    print(f"server CPU per request: {sum(baseline.values()):.1f} us (baseline route), {sum(route.values()):.1f} us (measured route)")
    by_dso = collections.Counter()
    for (dso, _), cost in route.items():
        by_dso[dso] += cost
    for (dso, _), cost in baseline.items():
        by_dso[dso] -= cost
    print("added per request, by shared object:")
    for dso, cost in by_dso.most_common():
        if abs(cost) >= 0.5:
            print(f"  {cost:8.1f} us  {dso}")
    added = collections.Counter(route)
    added.subtract(baseline)
    print(f"added per request, the {top} largest symbols:")
    for (dso, symbol), cost in added.most_common(top):
        print(f"  {cost:8.2f} us  {dso:28.28s} {symbol}")


main()
