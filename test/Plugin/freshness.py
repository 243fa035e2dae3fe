#!/usr/bin/env python3
"""Whether a cargo-built artifact is older than a source file it was built from.

The plugin comparison (same-output.test) runs ge-opt and libge_mlir_c.so side by side and
expects byte-identical output. `cargo build --bin ge-opt` rebuilds ge-opt only, so after a
change to the library the plugin can be a build of the sources before it, and the two
"differ" although the code does not. cargo writes the sources of every workspace crate an
artifact was built from beside it (`target/<profile>/<name>.d`, make syntax); an artifact
older than one of them is stale, which is how cargo itself decides to rebuild.

Usage: freshness.py [--root DIR] ARTIFACT...   exit 1 and one line per stale artifact (naming the newest
source that is newer), exit 0 when every artifact is at least as new as its sources.
"""

import os
import sys


def dep_info(artifact):
    """The dep-info file cargo writes beside `artifact` (None if there is none)."""
    directory, name = os.path.split(artifact)
    stem = name.split(".")[0]
    path = os.path.join(directory, stem + ".d")
    return path if os.path.exists(path) else None


def sources(dep_file):
    """The prerequisites of every rule of a make-syntax dep-info file."""
    with open(dep_file) as handle:
        text = handle.read().replace("\\\n", " ")
    found = []
    for line in text.splitlines():
        # `target: dep dep ...`; a space inside a path is written `\ `.
        head, colon, rest = line.partition(": ")
        if not colon:
            continue
        words = rest.replace("\\ ", "\0").split()
        found.extend(word.replace("\0", " ") for word in words)
    return found


def stale_source(artifact, root=None):
    """The newest source newer than `artifact`, or None when it is fresh (or cannot say).
    With `root`, only sources under it count: a dep-info file shared with another checkout
    (target directories seeded with hard links share it, and cargo rewrites it in place)
    names that checkout's files, which say nothing about this one."""
    dep_file = dep_info(artifact)
    if dep_file is None or not os.path.exists(artifact):
        return None
    built = os.stat(artifact).st_mtime_ns
    newest = None
    for source in sources(dep_file):
        if root and not os.path.abspath(source).startswith(os.path.join(root, "")):
            continue
        try:
            modified = os.stat(source).st_mtime_ns
        except OSError:
            continue  # a source since removed: cargo rebuilds, but nothing to name here
        if modified > built and (newest is None or modified > newest[0]):
            newest = (modified, source)
    return newest[1] if newest else None


def stale_message(artifact, root=None):
    """A sentence saying why `artifact` is stale, or None when it is fresh."""
    source = stale_source(artifact, root)
    if source is None:
        return None
    return (f"{artifact} is older than {source}, one of the sources it is built from: "
            f"rebuild it (test/run.sh builds ge-opt and the plugin)")


def main(args):
    root = None
    if args[:1] == ["--root"]:
        root, args = os.path.abspath(args[1]), args[2:]
    artifacts = args
    messages = [m for m in (stale_message(a, root) for a in artifacts) if m]
    for message in messages:
        print(f"stale: {message}")
    if not messages:
        print(f"fresh: {len(artifacts)} artifacts")
    return 1 if messages else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
