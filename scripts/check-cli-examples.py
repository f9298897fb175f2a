#!/usr/bin/env python3
"""Run every marked CLI example of Docs/*.md and Docs/Providers/*.md and compare its output.

Usage: python3 scripts/check-cli-examples.py --federate .build/debug/federate [DOC.md ...]

An example is marked with an HTML comment right before its block (blank lines may separate them):

- `<!-- cli-example -->` before a ```sh block holding one command (lines may end in `\\`), and
  `<!-- cli-output -->` before the block that shows what it prints on standard output, further
  down (prose may come between). The next `cli-output` after a `cli-example` is its output.
- `<!-- cli-transcript -->` before a block whose first line is `$ COMMAND` and whose other lines
  are the output.

Either marker may say `dev-provider` (`<!-- cli-example: dev-provider -->`): the example then runs
against a `federate dev-provider` started for it, and `PORT` in the command and the output is its
port. `swift run federate` and `federate` at the start of a command are the binary given. The
command runs under bash in the package root, so `< Examples/demo-tokens.txt` works as written.

In the expected output, a line that is only `…` stands for any number of lines (the guide
shortened the output there), and `…` inside a line for any text. Every other line must be what the
command printed, exactly. Exit status 0 when every example matches (the last line says how many ran),
1 otherwise (with a diff), 2 on misuse.
"""

import argparse
import difflib
import glob
import json
import os
import re
import signal
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FENCE = re.compile(r"^\s*(`{3,})\s*(\w*)\s*$")
MARKER = re.compile(r"^\s*<!--\s*cli-(example|output|transcript)\s*(?::\s*([\w-]+))?\s*-->\s*$")


class Example:
    def __init__(self, doc, line, command, expected, needs):
        self.doc, self.line, self.command, self.expected, self.needs = doc, line, command, expected, needs


def blocks(lines, start):
    """The fenced block starting at or after `start` (blank lines only before it): (first line, body lines, end)."""
    i = start
    while i < len(lines) and not lines[i].strip():
        i += 1
    match = FENCE.match(lines[i]) if i < len(lines) else None
    if not match:
        raise ValueError(f"line {start}: a cli marker must come right before a fenced block")
    fence, body, j = match.group(1), [], i + 1
    while j < len(lines) and lines[j].strip() != fence:
        body.append(lines[j])
        j += 1
    return i + 2, body, j + 1


def command_of(body):
    text = "\n".join(line for line in body if line.strip() and not line.strip().startswith("#"))
    return re.sub(r"\\\n\s*", "", text).strip()


def extract(doc):
    lines = open(os.path.join(ROOT, doc), encoding="utf-8").read().split("\n")
    examples, pending, i = [], None, 0
    while i < len(lines):
        marker = MARKER.match(lines[i])
        if not marker:
            i += 1
            continue
        kind, needs = marker.group(1), marker.group(2)
        if needs not in (None, "dev-provider"):
            raise ValueError(f"{doc}:{i + 1}: unknown requirement '{needs}'")
        first, body, end = blocks(lines, i + 1)
        if kind == "example":
            if pending:
                raise ValueError(f"{doc}:{pending[0]}: a cli-example without its cli-output")
            pending = (first, command_of(body), needs)
        elif kind == "output":
            if not pending:
                raise ValueError(f"{doc}:{i + 1}: a cli-output without a cli-example before it")
            examples.append(Example(doc, pending[0], pending[1], body, pending[2]))
            pending = None
        else:
            if not body or not body[0].startswith("$ "):
                raise ValueError(f"{doc}:{first}: a cli-transcript starts with '$ COMMAND'")
            examples.append(Example(doc, first, body[0][2:].strip(), body[1:], needs))
        i = end
    if pending:
        raise ValueError(f"{doc}:{pending[0]}: a cli-example without its cli-output")
    return examples


def matches(expected, actual):
    """Whether `actual` lines fit `expected`, where `…` alone is any lines and `…` in a line any text."""
    def line_matches(pattern, line):
        if "…" not in pattern:
            return pattern == line
        return re.fullmatch(".*".join(re.escape(part) for part in pattern.split("…")), line) is not None

    memo = {}

    def fit(e, a):
        if (e, a) in memo:
            return memo[(e, a)]
        if e == len(expected):
            result = a == len(actual)
        elif expected[e].strip() == "…":
            result = any(fit(e + 1, k) for k in range(a, len(actual) + 1))
        else:
            result = a < len(actual) and line_matches(expected[e], actual[a]) and fit(e + 1, a + 1)
        memo[(e, a)] = result
        return result

    return fit(0, 0)


class DevProvider:
    def __init__(self, federate):
        self.process = subprocess.Popen(
            [federate, "dev-provider"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        try:
            issuer = json.loads(line)["issuer"]
        except (ValueError, KeyError):
            self.stop()
            raise RuntimeError(f"federate dev-provider printed {line!r}")
        self.port = issuer.rsplit(":", 1)[1].rstrip("/")

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def run(example, federate, provider):
    command = re.sub(r"^(swift run )?federate(?=\s)", lambda _: federate, example.command)
    expected = example.expected
    if example.needs == "dev-provider":
        command = command.replace("PORT", provider.port)
        expected = [line.replace("PORT", provider.port) for line in expected]
    result = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, timeout=300)
    actual = result.stdout.rstrip("\n").split("\n") if result.stdout else []
    while expected and not expected[-1].strip():
        expected = expected[:-1]
    if matches(expected, actual):
        return None
    diff = "\n".join(difflib.unified_diff(expected, actual, "documented", "printed", lineterm=""))
    return f"{example.doc}:{example.line}: `{example.command}` (exit {result.returncode}) prints otherwise:\n{diff}\n{result.stderr[-2000:]}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--federate", required=True, help="the federate binary")
    parser.add_argument("docs", nargs="*")
    args = parser.parse_args()
    federate = os.path.abspath(args.federate)
    if not os.access(federate, os.X_OK):
        print(f"check-cli-examples: {federate} is not an executable", file=sys.stderr)
        return 2
    docs = args.docs or sorted(
        os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "Docs", "*.md")) + glob.glob(os.path.join(ROOT, "Docs", "Providers", "*.md")))
    try:
        examples = [example for doc in docs for example in extract(doc)]
    except ValueError as error:
        print(f"check-cli-examples: {error}", file=sys.stderr)
        return 2
    provider = DevProvider(federate) if any(e.needs == "dev-provider" for e in examples) else None
    try:
        failures = [failure for failure in (run(example, federate, provider) for example in examples) if failure]
    finally:
        if provider:
            provider.stop()
    for failure in failures:
        print(failure)
    print(f"{len(examples)} CLI examples in {len(docs)} guides, {len(failures)} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
