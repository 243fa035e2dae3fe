#!/usr/bin/env python3
"""Differential soak: random ge-gen graphs (every family, random seeds and sizes) x random
ge-compile option sets x random schedules, through compile, lower and `ge-run --check`
(race detector on, outputs compared with the reference interpreter).

A failure writes its .ge and the command that shows it under --out. Graphs the pipeline
cannot compile or lower are counted apart (a compiler limit, not a schedule bug).

  tools/soak.py --graphs 50 --seed 1 [--min-ops 100 --max-ops 2000] [--out DIR]
Exit status 1 when any run failed.
"""
import argparse, os, random, re, shutil, subprocess, sys, time

FAMILIES = ["transformer", "resnet", "wide-dag", "control-flow"]
OPTIONS = [
    [],
    ["single-stream=true"],
    ["max-task-normal=8"],
    ["max-task-normal=32", "max-task-huge=64"],
    ["hcom-parallel=true"],
    ["memory-priority=true"],
    ["hcom-parallel=true", "max-task-normal=16"],
]
MODES = ["uniform", "reverse", "delay-stream:1", "max-overlap"]


W18888 = re.compile(r"W18888: There is no control relation between write node %(\S+) and read node %(\S+) ")
RACE = re.compile(r"race: \S+: \S+ `([^`]+)` on [^,]+ and \S+ `([^`]+)` on ")


def graph_races_only(out, err):
    """Whether every race ge-run found is between a pair of nodes GraphLint already
    reported (W18888: a variable written and read without a control relation): a race of
    the graph as written, not one the compiler introduced."""
    pairs = {frozenset(m.groups()) for m in W18888.finditer(err)}
    races = [l for l in out.splitlines() if " race: " in l]
    if not races or not pairs:
        return False
    for line in races:
        m = RACE.search(line)
        if not m or frozenset(m.groups()) not in pairs:
            return False
    return "match the reference" in out or "differs from the reference" not in err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--min-ops", type=int, default=100)
    ap.add_argument("--max-ops", type=int, default=2000)
    ap.add_argument("--schedules", type=int, default=0, help="per graph (0: random 1..8)")
    ap.add_argument("--bin", default=None,
                    help="directory of ge-gen and ge-run (default: PATH, else target/debug)")
    ap.add_argument("--out", default="soak-failures")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    if a.bin is None and shutil.which("ge-run") and shutil.which("ge-gen"):
        gen, run = shutil.which("ge-gen"), shutil.which("ge-run")
    else:
        d = a.bin or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "debug")
        gen, run = os.path.join(d, "ge-gen"), os.path.join(d, "ge-run")
    counts = {"passed": 0, "failed": 0, "not-lowered": 0, "graph-race": 0}
    start = time.time()
    for g in range(a.graphs):
        family = rng.choice(FAMILIES)
        seed = rng.randrange(1 << 30)
        ops = rng.randint(a.min_ops, a.max_ops)
        opts = rng.choice(OPTIONS)
        k = a.schedules or rng.randint(1, 8)
        sim_seed = rng.randrange(1 << 20)
        text = subprocess.run([gen, "--format", "ge", "--family", family, "--ops", str(ops),
                               "--seed", str(seed)], capture_output=True, text=True)
        if text.returncode != 0:
            print(f"graph {g}: ge-gen failed: {text.stderr.strip()}", file=sys.stderr)
            counts["failed"] += 1
            continue
        path = os.path.join(a.out, f"g{g}-{family}-{seed}.ge")
        os.makedirs(a.out, exist_ok=True)
        with open(path, "w") as f:
            f.write(text.stdout)
        cmd = [run, path, "--check", "--schedules", str(k), "--sim-seed", str(sim_seed)]
        if opts:
            cmd += ["--pipeline-options", ",".join(opts)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        what = f"graph {g}: {family} ops={ops} seed={seed} options={opts or 'default'} schedules={k}"
        if r.returncode == 0:
            counts["passed"] += 1
            os.remove(path)
            print(f"{what}: ok")
        elif graph_races_only(r.stdout, r.stderr):
            counts["graph-race"] += 1
            os.remove(path)
            print(f"{what}: only races the graph itself leaves open (GraphLint W18888)")
        elif "cannot compile and lower" in r.stderr or "cannot read the task model" in r.stderr:
            counts["not-lowered"] += 1
            os.remove(path)
            print(f"{what}: not lowered ({r.stderr.strip().splitlines()[-1]})")
        else:
            counts["failed"] += 1
            with open(path + ".cmd", "w") as f:
                f.write(" ".join(repr(c) if " " in c else c for c in cmd) + "\n")
                f.write(r.stdout[-4000:] + r.stderr[-4000:])
            last = (r.stderr.strip().splitlines() or ["?"])[-1]
            print(f"{what}: FAILED ({last}); reproducer {path}, command in {path}.cmd")
    minutes = (time.time() - start) / 60
    rate = a.graphs / minutes if minutes > 0 else 0
    print(f"soak: {a.graphs} graphs in {minutes:.2f} min ({rate:.1f} graphs/minute): "
          f"{counts['passed']} passed, {counts['graph-race']} with graph races only, "
          f"{counts['not-lowered']} not lowered, {counts['failed']} failed")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
