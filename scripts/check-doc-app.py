#!/usr/bin/env python3
"""Builds Docs/Server.md's complete app verbatim, as a separate package.

The blocks marked `<!-- doc-app: PATH -->` in Docs/Server.md are written to a new package
folder at PATH; the only change is that the federate dependency points at this checkout
instead of GitHub. The check fails when the code does not build, or when a module it imports is
in no product its Package.swift declares (so the page never relies on a module another
package happens to pull in): a Federate product brings the modules this package lists for it.

    python3 scripts/check-doc-app.py     # after `swift build` of this package: it reuses .build

It builds against this package's own build folder (`--scratch-path .build`), so only the app
itself is compiled (about a minute), not the dependencies again.
"""
import json, os, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "Docs", "Server.md")
BLOCK = re.compile(r"<!-- doc-app: (\S+) -->\n```swift\n(.*?)```", re.S)
REMOTE = '.package(url: "https://github.com/federate-swift/federate.git", branch: "main")'


def main():
    text = open(DOC).read()
    files = {path: body for path, body in BLOCK.findall(text)}
    if "Package.swift" not in files or not any(path.endswith(".swift") and path != "Package.swift" for path in files):
        sys.exit("Docs/Server.md has no complete app (blocks marked <!-- doc-app: PATH -->)")
    manifest = files["Package.swift"]
    if REMOTE not in manifest:
        sys.exit("the app's Package.swift no longer names federate as " + REMOTE)
    declared = set(re.findall(r'\.product\(name: "(\w+)"', manifest))
    # A product of this package brings its modules; another package's product, its own name.
    described = json.loads(subprocess.check_output(["swift", "package", "describe", "--type", "json"], cwd=ROOT))
    modules = {product["name"]: set(product["targets"]) for product in described["products"]}
    importable = set(declared).union(*(modules.get(name, set()) for name in declared))
    failed = False
    for path, body in files.items():
        if path == "Package.swift":
            continue
        for module in re.findall(r"^import (\w+)$", body, re.M):
            if module not in importable:
                print(f"Docs/Server.md's {path} imports {module}, which its Package.swift does not declare")
                failed = True
    if failed:
        sys.exit(1)
    with tempfile.TemporaryDirectory(prefix="federate-doc-app-") as folder:
        for path, body in files.items():
            body = body.replace(REMOTE, f'.package(name: "federate", path: "{ROOT}")') if path == "Package.swift" else body
            target = os.path.join(folder, path)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w") as out:
                out.write(body)
        build = subprocess.run(
            ["swift", "build", "--package-path", folder, "--scratch-path", os.path.join(ROOT, ".build")],
            capture_output=True, text=True)
        if build.returncode != 0:
            print(build.stdout[-6000:], build.stderr[-6000:])
            sys.exit("Docs/Server.md's complete app does not build")
    print(f"Docs/Server.md's complete app builds ({len(files) - 1} source files, {len(declared)} products)")


if __name__ == "__main__":
    main()
