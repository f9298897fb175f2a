#!/usr/bin/env python3
"""pgbench scripts of exactly the statements Federate ran, read from a PostgreSQL server log.

    scripts/pgbench-statements.py SERVER_LOG VALUES_FILE OUT_DIR

SERVER_LOG: written with log_statement = 'all' while `AccountsPerf statements` ran one returning
and one new sign-in, each between the markers `SELECT 'federate-bench: returning'`, `... new'`
and `... end'`. VALUES_FILE: that run's output, which names what varies (the subjects, the new
user's uid and email). Writes OUT_DIR/returning.sql and OUT_DIR/new.sql: each statement the
server logged between two markers, in order (a transaction's BEGIN and COMMIT included), as sent.

A parameter whose logged value varies from one sign-in to the next becomes a pgbench variable,
so `pgbench -M prepared` sends it as a parameter too: the returning subject is one of the 1,000
signed in before, drawn at random; a new sign-in's subject, uid and email are one fresh number.
The other parameters become SQL literals of the logged values (a literal of unknown type, as
the parameter was, or NULL): pgbench variables cannot be NULL or text. Exits non-zero when a
marker or a statement is missing.
"""
import re
import sys

LINE = re.compile(r"^\S+ \S+ \S+ \[\d+\] (LOG|DETAIL|ERROR|STATEMENT):\s+(.*)$")
PARAM = re.compile(r"\$(\d+) = (NULL|'(?:[^']|'')*')")
MARKER = re.compile(r"^SELECT 'federate-bench: (\w+)'$")


def entries(path):
    """(kind, text) of each log entry, continuation lines (tab-indented) joined with newlines."""
    current = None
    with open(path, encoding="utf-8", errors="replace") as log:
        for raw in log:
            raw = raw.rstrip("\n")
            match = LINE.match(raw)
            if match:
                if current:
                    yield current
                current = [match.group(1), match.group(2)]
            elif current and raw.startswith("\t"):
                current[1] += "\n" + raw[1:]
        if current:
            yield current


def statements(path):
    """Each statement the server ran: (sql, {number: logged value}); markers as ('marker', name),
    errors as ('error', message)."""
    found = []
    for kind, text in entries(path):
        if kind == "LOG":
            match = re.match(r"^(?:statement|execute [^:]*): (.*)$", text, re.S)
            if not match:
                continue
            sql = match.group(1)
            if sql.strip().rstrip(";") == "SELECT 1":
                continue  # the pool's keep-alive on another connection, not a sign-in's
            marker = MARKER.match(sql.strip())
            found.append(("marker", marker.group(1)) if marker else (sql, {}))
        elif kind == "DETAIL" and text.startswith("parameters:") and found and found[-1][0] not in ("marker", "error"):
            found[-1][1].update({int(n): v for n, v in PARAM.findall(text)})
        elif kind == "ERROR":
            found.append(("error", text))
    return found


def between(found, start, end):
    names = [(i, s[1]) for i, s in enumerate(found) if s[0] == "marker"]
    begin = next((i for i, n in names if n == start), None)
    finish = next((i for i, n in names if n == end and begin is not None and i > begin), None)
    if begin is None or finish is None:
        sys.exit(f"markers {start!r}..{end!r} not found in the log")
    run = found[begin + 1:finish]
    errors = [text for sql, text in run if sql == "error"]
    if errors:
        sys.exit(f"the server logged an error between {start!r} and {end!r}: {errors[0]}")
    if not run:
        sys.exit(f"no statement between {start!r} and {end!r}")
    return run


def script(run, variables, header):
    """A pgbench script: `variables` maps a logged value (quoted) to a pgbench variable name."""
    out = [f"-- {line}" for line in header] + [f"\\set {name} {expr}" for name, expr in variables["set"]]
    for sql, params in run:
        def replace(match):
            number = int(match.group(1))
            value = params.get(number)
            if value is None:
                sys.exit(f"parameter ${number} has no logged value")
            return ":" + variables["names"][value] if value in variables["names"] else value

        out.append(re.sub(r"\$(\d+)", replace, sql).rstrip().rstrip(";") + ";")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    log, values_file, out_dir = sys.argv[1:]
    values = {}  # ("returning" | "new" | "first", key) -> value, from lines such as "new subject=2000000000 uid=…"
    for line in open(values_file, encoding="utf-8"):
        for key, value in re.findall(r"(\w+)=(\S+)", line):
            values[(line.split()[0], key)] = value
    try:
        returning_subject = values[("returning", "subject")]
        new_subject, uid, email = values[("new", "subject")], values[("new", "uid")], values[("new", "email")]
        first = int(values[("first", "subject")])
        count = int(values[("first", "count")])
    except KeyError as missing:
        sys.exit(f"{values_file} does not name {missing}")
    found = statements(log)
    quoted = lambda text: "'" + text.replace("'", "''") + "'"
    returning = {
        "set": [("subject", f"random({first}, {first + count - 1})")],
        "names": {quoted(returning_subject): "subject"},
    }
    new = {
        "set": [("n", "random(3000000000, 999999999999999)")],
        "names": {quoted(new_subject): "n", quoted(uid): "n", quoted(email): "n"},
    }
    header = ["Generated by scripts/pgbench-statements.py from the statements Federate ran"]
    with open(f"{out_dir}/returning.sql", "w", encoding="utf-8") as out:
        out.write(script(between(found, "returning", "new"), returning, header + ["a returning sign-in"]))
    with open(f"{out_dir}/new.sql", "w", encoding="utf-8") as out:
        out.write(script(between(found, "new", "end"), new, header + ["a new sign-in"]))


if __name__ == "__main__":
    main()
