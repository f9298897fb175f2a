#!/usr/bin/env python3
"""Typecheck every Swift snippet of Docs/*.md and Docs/Providers/*.md against the built modules.

Usage: python3 scripts/extract-doc-snippets.py [--build-dir .build/debug] [--out DIR] [DOC.md ...]

Each ```swift block becomes the body of its own `async throws` function, in one generated
module per Markdown file, typechecked with one `swiftc -typecheck -wmo` per file (the files
in parallel). `#sourceLocation` maps every diagnostic back to the Markdown file and line, so
a snippet that does not compile fails as `Docs/Login.md:42:7: error: ...`. A block that
imports PackageDescription is typechecked as a package manifest instead.

A snippet is read the way a reader reads the guide: it gets the imports of the snippets
above it in the same file. What it assumes comes from an HTML comment right before the block
(blank lines may separate them), `<!-- snippet: DIRECTIVES -->`, directives separated by ';':

- `given NAME: TYPE, ...`: values the snippet uses but does not make (they become the
  function's parameters), e.g. `<!-- snippet: given token: String, nonce: String -->`;
- `continues`: the snippet goes on from the previous one in the file (its code comes first);
- `declarations`: the snippet declares types or functions at file scope (library code,
  `public`, extensions, `@main`) instead of running as a function body;
- `skip REASON`: not compiled; keep these rare, with a reason;
- lines after the comment's first line, up to `-->`, are hidden Swift code placed before the
  snippet (helpers such as a `redirect(to:)` the snippet calls).

A guide whose snippets need another package's modules says so on a line of its own,
`<!-- snippets-package: Integrations/FederateVapor -->`: it is left out of the default list (the
root's build has no Vapor), and that package's tests name it explicitly with its build folder.

Exit status 0 when every snippet typechecks, 1 otherwise (with the diagnostics), 2 on misuse.
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FENCE = re.compile(r"^(\s*)(`{3,})\s*(\w*)\s*$")
IMPORT = re.compile(r"^\s*(@\w+\s+)*(public\s+|internal\s+|package\s+)?import\s+(\w+)")


class Snippet:
    def __init__(self, doc, line, code, directives, prelude, prelude_line):
        self.doc = doc                # path relative to ROOT
        self.line = line              # 1-based line of the first code line
        self.code = code              # list of lines
        self.directives = directives  # dict
        self.prelude = prelude        # list of lines
        self.prelude_line = prelude_line
        self.end = line + len(code)

    @property
    def is_manifest(self):
        return any(re.match(r"^\s*import\s+PackageDescription\b", l) for l in self.code)


def parse_directives(text):
    directives = {}
    for part in [p.strip() for p in text.split(";") if p.strip()]:
        word, _, rest = part.partition(" ")
        if word not in ("given", "continues", "declarations", "skip"):
            raise ValueError(f"unknown snippet directive '{word}'")
        if word == "skip" and not rest.strip():
            raise ValueError("'skip' needs a reason")
        directives[word] = rest.strip()
    return directives


def extract(doc):
    lines = open(os.path.join(ROOT, doc), encoding="utf-8").read().split("\n")
    snippets, i = [], 0
    pending = None  # (directives, prelude, prelude_line) from the last comment
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("<!-- snippet:"):
            start = i
            first = stripped[len("<!-- snippet:"):]
            prelude = []
            if first.rstrip().endswith("-->"):
                head = first.rstrip()[:-3]
            else:
                head = first
                i += 1
                while i < len(lines) and "-->" not in lines[i]:
                    prelude.append(lines[i])
                    i += 1
                if i >= len(lines):
                    raise ValueError(f"{doc}:{start + 1}: unterminated snippet comment")
                tail = lines[i].split("-->")[0]
                if tail.strip():
                    prelude.append(tail)
            try:
                pending = (parse_directives(head), prelude, start + 2)
            except ValueError as error:
                raise ValueError(f"{doc}:{start + 1}: {error}")
            i += 1
            continue
        m = FENCE.match(line)
        if m:
            indent, fence, lang = m.group(1), m.group(2), m.group(3)
            j = i + 1
            while j < len(lines) and not (lines[j].strip().startswith(fence) and lines[j].strip().strip("`") == ""):
                j += 1
            if lang == "swift":
                code = [l[len(indent):] if l.startswith(indent) else l.lstrip() for l in lines[i + 1:j]]
                directives, prelude, prelude_line = pending or ({}, [], 0)
                snippets.append(Snippet(doc, i + 2, code, directives, prelude, prelude_line))
            pending = None
            i = j + 1
            continue
        if stripped:
            pending = None  # a comment applies to the block right after it only
        i += 1
    return snippets


def other_package(doc):
    """The package a guide's snippets need, when it is not this one (`<!-- snippets-package: PATH -->`)."""
    for line in open(os.path.join(ROOT, doc), encoding="utf-8"):
        m = re.match(r"^<!-- snippets-package: (\S+) -->$", line.strip())
        if m:
            return m.group(1)
    return None


def location(doc, line):
    return f'#sourceLocation(file: "{doc}", line: {line})'


def render(snippet, previous, inherited_imports):
    """The generated Swift file for one snippet, and the imports it adds."""
    parts = []  # (first line, lines) pieces of the body, in order
    if "continues" in snippet.directives:
        if previous is None:
            raise ValueError(f"{snippet.doc}:{snippet.line}: 'continues' but no snippet before it")
        parts.extend(previous.parts)
        given = previous.given
    else:
        given = []
    if snippet.directives.get("given"):
        given = given + [snippet.directives["given"]]
    if snippet.prelude:
        parts.append((snippet.prelude_line, snippet.prelude))
    parts.append((snippet.line, snippet.code))
    snippet.parts, snippet.given = parts, given

    imports, out = dict(inherited_imports), []
    body = []
    for first, lines in parts:
        kept = []
        for offset, text in enumerate(lines):
            m = IMPORT.match(text)
            if m:
                imports.setdefault(m.group(3), (first + offset, text.strip()))
                kept.append("")
            else:
                kept.append(text)
        body.append(location(snippet.doc, first))
        body.extend(kept)
    for name, (line, text) in imports.items():
        out.append(location(snippet.doc, line))
        out.append(text)
    if "declarations" in snippet.directives:
        out.extend(body)
        out.append("#sourceLocation()")
    else:
        out.append(f"func __snippet_line_{snippet.line}({', '.join(given)}) async throws {{")
        out.extend(body)
        out.append("#sourceLocation()")
        out.append("}")
    return "\n".join(out) + "\n", imports


def find_checkouts(build_dir):
    d = os.path.abspath(build_dir)
    for _ in range(4):
        candidate = os.path.join(d, "checkouts")
        if os.path.isdir(candidate):
            return candidate
        d = os.path.dirname(d)
    return None


def module_flags(build_dir):
    modules = os.path.join(build_dir, "Modules")
    if not os.path.isdir(modules):
        raise SystemExit(f"no {modules}: build the package first (swift build --build-tests)")
    flags = ["-I", modules]
    # C modules (swift-crypto's BoringSSL, NIO's shims, SQLite): their module maps, generated
    # by SwiftPM into the build folder or shipped in a package's include folder.
    for entry in sorted(os.listdir(build_dir)):
        path = os.path.join(build_dir, entry, "module.modulemap")
        if entry.endswith(".build") and os.path.isfile(path):
            flags += ["-Xcc", f"-fmodule-map-file={path}"]
    # This package's own system-library targets (CSQLite): module maps in its Sources.
    sources = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Sources")
    for folder, _, files in sorted(os.walk(sources)):
        if "module.modulemap" in files:
            flags += ["-Xcc", f"-fmodule-map-file={os.path.join(folder, 'module.modulemap')}"]
    checkouts = find_checkouts(build_dir)
    if checkouts:
        for package in sorted(os.listdir(checkouts)):
            sources = os.path.join(checkouts, package, "Sources")
            if not os.path.isdir(sources):
                continue
            for target in sorted(os.listdir(sources)):
                include = os.path.join(sources, target, "include")
                if os.path.isdir(include):
                    flags += ["-Xcc", "-I", "-Xcc", include]
                    if os.path.isfile(os.path.join(include, "module.modulemap")):
                        flags += ["-Xcc", f"-fmodule-map-file={os.path.join(include, 'module.modulemap')}"]
    return flags


def swiftc():
    return shutil.which("swiftc") or "/opt/swift/usr/bin/swiftc"


def manifest_api():
    return os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(swiftc()))), "lib", "swift", "pm", "ManifestAPI")


def typecheck(doc, snippets, out_dir, flags, cache):
    """Returns (ok, output) for one Markdown file."""
    name = re.sub(r"\W", "_", os.path.splitext(doc)[0])
    work = os.path.join(out_dir, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    files, manifests, previous, imports = [], [], None, {}
    for snippet in snippets:
        if "skip" in snippet.directives:
            continue
        if snippet.is_manifest:
            path = os.path.join(work, f"Package_line_{snippet.line}.swift")
            with open(path, "w") as f:
                f.write(location(doc, snippet.line) + "\n" + "\n".join(snippet.code) + "\n")
            manifests.append(path)
            continue
        text, imports = render(snippet, previous, imports)
        previous = snippet
        path = os.path.join(work, f"snippet_line_{snippet.line}.swift")
        with open(path, "w") as f:
            f.write(text)
        files.append(path)
    outputs, ok = [], True
    commands = []
    if files:
        commands.append([swiftc(), "-typecheck", "-wmo", "-parse-as-library", "-swift-version", "6",
                         "-module-name", "Snippets_" + name, "-module-cache-path", cache,
                         "-diagnostic-style", "llvm", *flags, *files])
    for path in manifests:
        commands.append([swiftc(), "-typecheck", "-swift-version", "6", "-I", manifest_api(),
                         "-package-description-version", "6.1", "-module-cache-path", cache,
                         "-diagnostic-style", "llvm", path])
    for command in commands:
        result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        errors = [l for l in (result.stdout + result.stderr).splitlines()]
        if result.returncode != 0:
            ok = False
            outputs.extend(errors)
    return ok, outputs


def errors_only(output):
    """The error diagnostics (with their notes and source excerpts), each once: a snippet that
    `continues` another repeats its code, and so its errors."""
    blocks, seen, kept = [], set(), []
    for line in output:
        if re.match(r"^\S+:\d+:\d+: (error|warning|note|remark):", line) or not blocks:
            blocks.append([line])
        else:
            blocks[-1].append(line)
    keep = False
    for block in blocks:
        header = block[0]
        if re.match(r"^\S+:\d+:\d+: error:", header) or not re.match(r"^\S+:\d+:\d+: ", header):
            keep = True
        elif re.match(r"^\S+:\d+:\d+: warning:", header):
            keep = False
        # notes follow their error or warning
        text = "\n".join(block)
        if keep and text not in seen:
            seen.add(text)
            kept.extend(block)
    return kept


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(ROOT, ".build", "debug"))
    parser.add_argument("--out", default=None, help="where the generated modules go (default: BUILD_DIR/doc-snippets)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("docs", nargs="*")
    args = parser.parse_args()

    build_dir = os.path.realpath(args.build_dir)
    out_dir = args.out or os.path.join(build_dir, "doc-snippets")
    os.makedirs(out_dir, exist_ok=True)
    cache = os.path.join(out_dir, "ModuleCache")
    docs = args.docs or sorted(
        [os.path.join("Docs", f) for f in os.listdir(os.path.join(ROOT, "Docs")) if f.endswith(".md")]
        + [os.path.join("Docs", "Providers", f) for f in os.listdir(os.path.join(ROOT, "Docs", "Providers")) if f.endswith(".md")])
    docs = [os.path.relpath(os.path.join(ROOT, d), ROOT) if os.path.isabs(d) else d for d in docs]
    if not args.docs:
        docs = [d for d in docs if not other_package(d)]

    started = time.monotonic()
    try:
        extracted = {doc: extract(doc) for doc in docs}
    except ValueError as error:
        print(f"error: {error}")
        return 2
    flags = module_flags(build_dir)
    total = sum(len(s) for s in extracted.values())
    skipped = [(s.doc, s.line, s.directives["skip"]) for ss in extracted.values() for s in ss if "skip" in s.directives]
    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {doc: pool.submit(typecheck, doc, snippets, out_dir, flags, cache)
                   for doc, snippets in extracted.items() if snippets}
        for doc in docs:
            if doc not in futures:
                continue
            try:
                ok, output = futures[doc].result()
            except ValueError as error:
                ok, output = False, [f"error: {error}"]
            if not ok:
                failed.append(doc)
                print("\n".join(errors_only(output)))
                bad = sorted({int(m.group(1)) for m in re.finditer(re.escape(doc) + r":(\d+):\d+: error", "\n".join(output))})
                for snippet in extracted[doc]:
                    if any(snippet.line <= l < snippet.end for l in bad) or (snippet.prelude and any(
                            snippet.prelude_line <= l < snippet.line for l in bad)):
                        print(f"{doc}:{snippet.line - 1}: the snippet here does not compile")
    for doc, line, reason in skipped:
        print(f"{doc}:{line - 1}: skipped ({reason})")
    elapsed = time.monotonic() - started
    if failed:
        print(f"doc snippets: {len(failed)} of {len(futures)} files fail to typecheck ({total} snippets, {elapsed:.1f} s)")
        return 1
    print(f"doc snippets: {total - len(skipped)} of {total} snippets in {len(futures)} files typecheck ({elapsed:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
