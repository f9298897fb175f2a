#!/usr/bin/env python3
"""Lists the public API of every library product, from the compiler's symbol graphs.

    python3 scripts/public-api.py            # writes api/<Module>.txt and prints the counts
    python3 scripts/public-api.py --check    # compares with api/, fails on any difference
    python3 scripts/public-api.py --package Integrations/FederateVapor [--check]
                                             # the same for that package, into its own api/ (built
                                             # with the root's build folder, as scripts/test.sh does)

It reads the modules the last `swift build` (or `swift test`) produced, so build first. Each
line of api/<Module>.txt is one public declaration (its kind, its path, its declaration as
the compiler prints it) or one conformance; compiler-synthesized members are left out.
`--check` also fails when a public declaration has no doc comment (one that implements a
documented protocol requirement inherits the requirement's, as DocC shows it), and prints the number
of public declarations per module and in all (the 0.1.0 goal: at most 1,100).

The baseline under api/ changes only together with CHANGELOG.md: scripts/check-api.sh runs
this check and, on a clone with history, that rule.
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The package whose API is listed (the root, or the one after --package) and its baseline folder.
PACKAGE = os.path.join(ROOT, sys.argv[sys.argv.index("--package") + 1]) if "--package" in sys.argv else ROOT
API_DIR = os.path.join(PACKAGE, "api")
# Another package builds into the root's build folder (scripts/test.sh), so nothing is built twice.
SCRATCH = [] if PACKAGE == ROOT else ["--scratch-path", os.path.join(ROOT, ".build")]


def library_modules():
    """The Swift targets of the package's library products, in a stable order."""
    described = json.loads(subprocess.check_output(["swift", "package", "describe", "--type", "json"], cwd=PACKAGE))
    targets = {t["name"]: t for t in described["targets"]}
    modules = set()
    for product in described["products"]:
        if "library" not in product["type"]:
            continue
        for name in product["targets"]:
            if targets[name].get("module_type") == "SwiftTarget":
                modules.add(name)
    return sorted(modules)


def dump_symbol_graphs():
    """Builds (debug, reusing the last build) and dumps every module's symbol graph; returns their folder."""
    out = subprocess.check_output(
        ["swift", "package", *SCRATCH, "dump-symbol-graph", "--skip-synthesized-members"],
        cwd=PACKAGE, text=True, stderr=subprocess.STDOUT,
    )
    marker = "Files written to "
    for line in out.splitlines():
        if line.startswith(marker):
            return line[len(marker):].strip()
    sys.exit(f"swift package dump-symbol-graph did not say where it wrote:\n{out}")


def spelled(fragments):
    return "".join(f["spelling"] for f in fragments).replace("\n", " ")


def graphs_of(module, folder):
    """The module's own symbol graph and those of its extensions to other modules."""
    graphs = []
    for name in sorted(os.listdir(folder)):
        if name == f"{module}.symbols.json" or name.startswith(f"{module}@"):
            with open(os.path.join(folder, name)) as f:
                graphs.append(json.load(f))
    return graphs


def declarations(module, graphs):
    """(lines, undocumented) for one module."""
    lines, undocumented = set(), []
    for graph in graphs:
        names = {}
        for symbol in graph["symbols"]:
            precise = symbol["identifier"]["precise"]
            names[precise] = ".".join(symbol["pathComponents"])
            if "::SYNTHESIZED::" in precise:
                continue
            path = ".".join(symbol["pathComponents"])
            kind = symbol["kind"]["identifier"].removeprefix("swift.")
            declaration = spelled(symbol.get("declarationFragments", []))
            lines.add(f"{kind} {path}: {declaration}")
            if "docComment" not in symbol and kind not in ("extension",):
                undocumented.append(f"{module}: {path} ({kind})")
        for relation in graph["relationships"]:
            if relation["kind"] != "conformsTo" or "::SYNTHESIZED::" in relation["source"]:
                continue
            source = names.get(relation["source"])
            if source is None:
                continue
            target = relation.get("targetFallback") or names.get(relation["target"]) or relation["target"]
            lines.add(f"conformance {source}: {target}")
    return sorted(lines), sorted(undocumented)


def compare(module, lines, path):
    """Prints how `lines` differ from the baseline at `path`; whether they do."""
    try:
        with open(path) as f:
            baseline = f.read().splitlines()
    except FileNotFoundError:
        baseline = []
    if baseline == lines:
        return False
    old, new = set(baseline), set(lines)
    print(f"the public API of {module} differs from {os.path.relpath(path, ROOT)}:")
    for line in sorted(old - new):
        print(f"  - {line}")
    for line in sorted(new - old):
        print(f"  + {line}")
    return True


def main():
    check = "--check" in sys.argv[1:]
    folder = dump_symbol_graphs()
    failed, counts = False, []
    for module in library_modules():
        lines, undocumented = declarations(module, graphs_of(module, folder))
        counts.append((module, sum(1 for line in lines if not line.startswith("conformance "))))
        path = os.path.join(API_DIR, f"{module}.txt")
        if not check:
            os.makedirs(API_DIR, exist_ok=True)
            with open(path, "w") as f:
                f.write("".join(line + "\n" for line in lines))
            continue
        failed |= compare(module, lines, path)
        if undocumented:
            failed = True
            print(f"{len(undocumented)} public declarations of {module} have no doc comment:")
            for entry in undocumented:
                print(f"  {entry}")
    if not check:
        known = {f"{module}.txt" for module, _ in counts}
        for name in os.listdir(API_DIR):
            if name.endswith(".txt") and name not in known:
                os.remove(os.path.join(API_DIR, name))
    for module, count in counts:
        print(f"{count:6d}  {module}")
    print(f"{sum(count for _, count in counts):6d}  public declarations in all")
    if failed:
        print("update the baseline with `python3 scripts/public-api.py` and say what changed in CHANGELOG.md")
        sys.exit(1)


if __name__ == "__main__":
    main()
