#!/usr/bin/env python3
"""Docs name only public symbols: every symbol of ours that a guide names is in an API baseline.

Usage: python3 scripts/check-doc-symbols.py [DOC.md ...]

Reads Docs/*.md, Docs/Providers/*.md and README.md (or the files given): their code spans
(`...`) and their Swift code blocks. A name counts as ours when a type, member or function of
that name is declared in Sources/, Providers/ or Integrations/FederateVapor/Sources/ (at any
access level); names of other libraries are left alone. It fails when a guide names
- a type of ours that no baseline (api/, Integrations/FederateVapor/api/) lists, or
- `Type.member` (or `Type.member(labels:)`, `Type(labels:)`) where Type is public and ours and
  the baseline has no such member of it, while our code declares a member of that name,
so a guide never tells users to call what they cannot (a `package` or internal declaration).
Exit status 1 on any finding, each printed as `Docs/X.md:LINE: ...`.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
BASELINES = [ROOT / "api", ROOT / "Integrations/FederateVapor/api"]
SOURCES = [ROOT / "Sources", ROOT / "Providers", ROOT / "Integrations/FederateVapor/Sources"]

DECLARATION = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|open|final|static|nonisolated|"
    r"override|mutating|indirect|convenience|required|lazy|weak|unowned|nonmutating|distributed)\s+|"
    r"nonisolated\(nonsending\)\s+)*"
    r"(struct|enum|class|actor|protocol|typealias|func|var|let|case|init|subscript)\b\s*([A-Za-z_][A-Za-z0-9_]*)?")
IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*"
# `Type`, `Type.member`, `Type.Nested.member`, each optionally followed by `(labels:)` or `(`.
REFERENCE = re.compile(rf"(?<![A-Za-z0-9_./@#$=-])([A-Z]{IDENTIFIER}(?:\.{IDENTIFIER})*)(?![=-])(\()?")
# Modules: ours are stripped from a qualified name (`FederateTokens.IDToken`); a name qualified
# by another library's module is that library's.
OUR_MODULES = {path.stem for folder in BASELINES for path in folder.glob("*.txt")} | {"FederateServer", "FederateVapor"}
OTHER_MODULES = {"AsyncHTTPClient", "Crypto", "Foundation", "Hummingbird", "MCP", "NIOCore", "NIOPosix", "PostgresNIO",
                 "Swift", "Vapor", "X509", "Logging", "Metrics", "Tracing", "ServiceLifecycle", "HTTPTypes"}
# Guides about Federate's inside, which name internal types on purpose: the architecture (for
# contributors) only.
INTERNALS = {"Docs/Architecture.md"}


def baseline():
    """Public type paths and, per type path, its public member names."""
    types, members = set(), {}
    for folder in BASELINES:
        for path in sorted(folder.glob("*.txt")):
            for line in path.read_text().splitlines():
                kind, _, rest = line.partition(" ")
                name = rest.split(":", 1)[0]
                if kind in ("struct", "enum", "class", "protocol", "actor", "typealias"):
                    types.add(name)
                elif kind in ("property", "method", "init", "enum.case", "type.method", "type.property", "subscript"):
                    owner, _, member = name.rpartition(".")
                    member = member.split("(", 1)[0]
                    if kind == "init":
                        owner, member = name.split(".init", 1)[0], "init"
                    members.setdefault(owner, set()).add(member)
    return types, members


def declared():
    """Names our code declares: types, and members or functions."""
    types, names = set(), set()
    for folder in SOURCES:
        for path in folder.rglob("*.swift"):
            if ".build" in path.parts:
                continue
            for line in path.read_text(errors="replace").splitlines():
                match = DECLARATION.match(line)
                if not match:
                    continue
                kind, name = match.group(1), match.group(2)
                # A type at the start of a line is top-level; a nested one is named through its outer type.
                if kind in ("struct", "enum", "class", "actor", "protocol", "typealias") and name and not line[0].isspace():
                    types.add(name)
                elif kind == "init":
                    names.add("init")
                elif name:
                    names.add(name)
    return types, names


def spans(path):
    """(line number, text) of each code span and each line of a Swift code block."""
    in_block, swift = False, False
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = re.sub(r"\]\([^)]*\)", "]", line)  # link targets are paths, not symbols
        stripped = line.strip()
        if stripped.startswith("```"):
            if in_block:
                in_block = False
            else:
                in_block, swift = True, stripped[3:].strip() == "swift"
            continue
        if in_block:
            if swift:
                yield number, line.split("//", 1)[0]
            continue
        for span in re.findall(r"`([^`]+)`", line):
            # A path, a file name, a header or cookie line, a command: not Swift.
            if "/" in span or span.endswith((".md", ".swift", ".py")) or ": " in span or span.startswith(("federate ", "swift ")):
                continue
            yield number, span


def check(paths):
    public_types, public_members = baseline()
    our_types, our_names = declared()
    findings = []
    for path in paths:
        relative = path.relative_to(ROOT)
        for number, text in spans(path):
            for match in REFERENCE.finditer(text):
                parts = match.group(1).split(".")
                called = match.group(2) is not None
                if parts[0] in OTHER_MODULES:
                    continue
                if parts[0] in OUR_MODULES and len(parts) > 1 and parts[1][:1].isupper():
                    parts = parts[1:]
                # The longest prefix that is a type of ours; the rest is a member.
                owner = None
                for end in range(len(parts), 0, -1):
                    candidate = ".".join(parts[:end])
                    if parts[end - 1] in our_types:
                        owner, rest = candidate, parts[end:]
                        break
                if owner is None:
                    continue
                if owner not in public_types:
                    findings.append(f"{relative}:{number}: `{owner}` is not public (no API baseline lists it)")
                    continue
                member = rest[0] if rest else ("init" if called else None)
                if member is None or member == "self" or member == "Type":
                    continue
                if member[0].isupper() and f"{owner}.{member}" in public_types:
                    continue
                known = public_members.get(owner, set())
                if member not in known and member in our_names:
                    shown = f"{owner}.{member}" if rest else f"{owner}(…)"
                    findings.append(f"{relative}:{number}: `{shown}` is not in the API baseline of {owner}")
    return findings


def main():
    paths = [pathlib.Path(arg).resolve() for arg in sys.argv[1:]] or sorted(
        path for path in [*ROOT.glob("Docs/*.md"), *ROOT.glob("Docs/Providers/*.md"), ROOT / "README.md"]
        if str(path.relative_to(ROOT)) not in INTERNALS)
    findings = sorted(set(check(paths)))
    for finding in findings:
        print(finding)
    print(f"check-doc-symbols: {len(paths)} files, {len(findings)} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
