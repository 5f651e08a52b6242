#!/usr/bin/env python3
"""Fails when a file of the repository refers to a path outside it, or vendored material changed.

A clone must pass its tests with nothing beside it. This looks at every file git tracks (and new
files it does not ignore), CHANGELOGs and the vendored material itself aside, and reports, with the
file and line:
  - a relative path that climbs out of the repository: more '../' than the file's depth (a path
    is taken as relative to the folder of the file that names it);
  - an absolute path into a home or work folder (/home/<user>, /Users/<user>, /root, /work);
  - a file under Fixtures/ThirdParty/ that is not exactly the copy its row in
    Fixtures/ThirdParty/SOURCES.md records (bytes and SHA-256), or a row without its file.
Exits 1 when it finds any. scripts/test-all.sh runs it.
"""
import argparse
import hashlib
import os
import re
import subprocess
import sys

# A run of "../" (or "..\\/" in JSON) climbing from where it stands.
CLIMB = re.compile(r"(?<![\w.])((?:\.\.(?:/|\\/))+)")
# An absolute path into a home or work folder: /home/<user>, /Users/<user>, /root, /work.
# Not a URL's path (https://host/home/...): the character before the slash is no word, dot or slash.
ABSOLUTE = re.compile(r"(?<![\w.:/~$-])(/(?:home|Users)/[\w.-]+|/root(?=[/\s\"'`)]|$)|/work(?=/))")
VENDORED = "Fixtures/ThirdParty/"
SOURCES = VENDORED + "SOURCES.md"
# Release notes tell history, paths that once were included.
EXEMPT = re.compile(r"(^|/)CHANGELOG\.md$")


def tracked_files(root):
    listing = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             check=True, capture_output=True).stdout
    return sorted(path for path in listing.decode().split("\0") if path)


def problems_in(path, text):
    depth = path.count("/")
    for number, line in enumerate(text.splitlines(), 1):
        for match in CLIMB.finditer(line):
            climbs = match.group(1).count("..")
            if climbs > depth:
                yield (number, f"'{match.group(0)}' climbs {climbs} folder(s) up from a file {depth} deep: "
                       "it leaves the repository")
        for match in ABSOLUTE.finditer(line):
            yield (number, f"'{match.group(1)}' is an absolute path into a home or work folder")


def vendored_problems(root, files):
    """Every file under Fixtures/ThirdParty has a row in SOURCES.md whose size and SHA-256 it matches."""
    rows = {}
    try:
        with open(os.path.join(root, SOURCES), encoding="utf-8") as sources:
            for number, line in enumerate(sources, 1):
                cells = [cell.strip().strip("`") for cell in line.strip().strip("|").split("|")]
                if len(cells) == 6 and re.fullmatch(r"[0-9a-f]{64}", cells[5]):
                    rows[cells[3]] = (number, int(cells[4]), cells[5])
    except OSError as error:
        yield (SOURCES, 0, f"cannot be read: {error.strerror}")
        return
    present = {path[len(VENDORED):] for path in files
               if path.startswith(VENDORED) and path != SOURCES and os.path.isfile(os.path.join(root, path))}
    for name in sorted(present):
        if name not in rows:
            yield (VENDORED + name, 1, f"has no row in {SOURCES} (repository, commit, path, bytes, SHA-256)")
            continue
        number, size, digest = rows[name]
        with open(os.path.join(root, VENDORED, name), "rb") as vendored:
            data = vendored.read()
        if len(data) != size or hashlib.sha256(data).hexdigest() != digest:
            yield (VENDORED + name, 1, f"differs from the copy {SOURCES}:{number} records "
                   f"({len(data)} bytes here, {size} there): vendored files stay unmodified")
    for name in sorted(set(rows) - present):
        yield (SOURCES, rows[name][0], f"names {VENDORED}{name}, which is not in the repository")


def main():
    parser = argparse.ArgumentParser(prog="scripts/check-paths.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", nargs="?", default=os.path.dirname(os.path.abspath(__file__)),
                        help="a folder of the repository to check (default: this script's)")
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], check=True, capture_output=True,
                          text=True, cwd=parser.parse_args().folder).stdout.strip()
    files = tracked_files(root)
    found = []
    for path in files:
        if EXEMPT.search(path) or path.startswith(VENDORED):
            continue
        full = os.path.join(root, path)
        if not os.path.isfile(full) or os.path.islink(full):
            continue
        with open(full, "rb") as handle:
            data = handle.read()
        if b"\0" in data[:8192]:
            continue  # binary
        found += [(path, number, message) for number, message in problems_in(path, data.decode("utf-8", "replace"))]
    found += list(vendored_problems(root, files))
    for path, number, message in found:
        print(f"{path}:{number}: {message}")
    if found:
        print(f"check-paths: {len(found)} problem(s); a clone must need nothing beside it "
              f"(vendor third-party material in {VENDORED}, with its row in {SOURCES})", file=sys.stdout)
        return 1
    print(f"check-paths: {len(files)} files refer to nothing outside the repository; {VENDORED} matches {SOURCES}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
