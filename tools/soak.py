#!/usr/bin/env python3
"""Differential soak: random ge-gen graphs (every family, random seeds and sizes, small
tensor shapes unless --full-tensors) x random
ge-compile option sets x random schedules, through compile, lower and `ge-run --check`
(race detector on, outputs compared with the reference interpreter).

A failure writes its .ge and the command that shows it under --out, then is shrunk by
delta debugging over the root graph's nodes and the options (tools/soak_shrink.py) to
`<name>.min.ge` with the exact command in `<name>.min.cmd`. Graphs the pipeline cannot
compile or lower are counted apart (a compiler limit, not a schedule bug); so are graphs
whose only races are the ones the graph itself leaves open (ge-run's "graph race", from
GraphLint's W18888 pairs), unless --strict.

  tools/soak.py --graphs 50 --seed 1 [--min-ops 100 --max-ops 2000] [--out DIR]
  tools/soak.py --shrink FILE.ge [--options a=1,b=2] [--strict]   # shrink one failing graph
Exit status 1 when any run failed.
"""
import argparse, os, random, re, shutil, subprocess, sys, time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import soak_shrink  # noqa: E402

FAMILIES = ["transformer", "resnet", "wide-dag", "control-flow"]
OPTIONS = [
    [],
    ["single-stream=true"],
    ["max-task-normal=8"],
    ["max-task-normal=32", "max-task-huge=64"],
    ["hcom-parallel=true"],
    ["memory-priority=true"],
    ["hcom-parallel=true", "max-task-normal=16"],
    ["event=notify"],
    ["event=notify", "hcom-parallel=true", "max-task-normal=8"],
    ["physical-memory-refreshable=true", "feature-map-refreshable=true"],
]
MODES = ["uniform", "reverse", "delay-stream:1", "max-overlap"]


SCHEDULE = re.compile(r"^schedule (\d+) \(sim seed (\d+)(?:, mode |, )?([^)]*)\)", re.M)


def classify(r, strict=False):
    """What a `ge-run --check` run shows: None (passed, or only races the graph itself
    leaves open and no --strict), or (kind, schedule line) with kind one of `race`,
    `mismatch`, `not-lowered`, `crash` or `error`, the schedule line naming the first
    schedule (seed, mode) that showed it."""
    out, err = r.stdout, r.stderr
    race = next((l for l in out.splitlines() if ": race: " in l or (strict and ": graph race " in l)), None)
    if race:
        return "race", race
    if r.returncode == 0:
        return None
    if r.returncode not in (0, 1):
        return "crash", err.strip().splitlines()[-1:] or ["?"]
    if "differs from the reference" in err:
        m = re.search(r"--check: schedule (\d+) differs", err)
        line = next((l for l in out.splitlines() if m and l.startswith(f"schedule {m.group(1)} (")), "")
        return "mismatch", line
    if "cannot compile and lower" in err or "cannot read the task model" in err:
        return "not-lowered", ""
    return "error", (err.strip().splitlines() or ["?"])[-1]


def schedule_args(line, k):
    """`--schedules 1 --sim-seed S --schedule-mode M` of the schedule a line names (else
    the original `k` schedules)."""
    m = SCHEDULE.search(line or "")
    if not m:
        return ["--schedules", str(k)]
    mode = m.group(3).strip() or "uniform"
    return ["--schedules", "1", "--sim-seed", m.group(2), "--schedule-mode", mode]


def ge_run(run, path, opts, sched):
    cmd = [run, path, "--check"] + sched
    if opts:
        cmd += ["--pipeline-options", ",".join(opts)]
    return cmd, subprocess.run(cmd, capture_output=True, text=True)


def shrink(run, path, opts, k, strict=False, budget=300, log=print, sim_seed=0):
    """Delta-debugs the failing graph at `path` (options `opts`, `k` schedules from
    `sim_seed`): writes `<path>.min.ge` and `<path>.min.cmd`; returns (nodes before, nodes
    after, command)."""
    text = open(path).read()
    cmd, r = ge_run(run, path, opts, ["--schedules", str(k), "--sim-seed", str(sim_seed)])
    first = classify(r, strict)
    if first is None or first[0] == "not-lowered":
        raise ValueError(f"{path}: does not fail ({first})")
    kind = first[0]
    sched = schedule_args(first[1], k)
    tmp = path + ".try.ge"

    def fails(graph_text, options):
        with open(tmp, "w") as f:
            f.write(graph_text)
        got = classify(ge_run(run, tmp, options, sched)[1], strict)
        return got is not None and got[0] == kind
    if not fails(text, opts):  # the single schedule must show it alone
        sched = ["--schedules", str(k), "--sim-seed", str(sim_seed)]
    graph = soak_shrink.Graph(text)
    # Options first (fewer, and each one cut makes the node tests cheaper to read).
    kept_opts, _ = soak_shrink.ddmin(opts, lambda o: fails(text, o), budget=64) if opts else ([], 0)
    removable = graph.removable()
    kept, tests = soak_shrink.ddmin(
        removable, lambda keep: fails(graph.without(set(removable) - set(keep)), kept_opts), budget)
    small = graph.without(set(removable) - set(kept))
    if not fails(small, kept_opts):  # budget ran out mid-way: keep the last failing text
        small, kept_opts = text, opts
    out = path[:-3] + ".min.ge" if path.endswith(".ge") else path + ".min.ge"
    with open(out, "w") as f:
        f.write(small)
    final, _ = ge_run(run, out, kept_opts, sched)
    if strict:
        final = final + ["--race-check=on"]
    command = " ".join(repr(c) if " " in c else c for c in final)
    with open(out[:-3] + ".cmd", "w") as f:
        f.write(f"# {kind}: shows with\n{command}\n")
    after = soak_shrink.Graph(small).node_count()
    if os.path.exists(tmp):
        os.remove(tmp)
    log(f"shrunk {path}: {graph.node_count()} -> {after} nodes, options {opts or 'default'} -> "
        f"{kept_opts or 'default'}, {tests} node tests; {kind} reproduced by {out}: {command}")
    return graph.node_count(), after, command


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
    ap.add_argument("--strict", action="store_true",
                    help="races the graph itself leaves open (W18888) count as failures")
    ap.add_argument("--no-shrink", action="store_true", help="keep failures as they are")
    ap.add_argument("--shrink", metavar="FILE.ge", help="shrink this failing graph and stop")
    ap.add_argument("--options", default="", help="with --shrink: its --pipeline-options")
    ap.add_argument("--full-tensors", action="store_true",
                    help="ge-gen's full shapes (default: --small-tensors, the same graphs with "
                         "kernels that cost next to nothing; the races and the comparison "
                         "depend on the schedule and the memory plan, not on the sizes)")
    ap.add_argument("--minutes", type=float, default=0,
                    help="stop starting graphs after this many minutes (0: no limit)")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    if a.bin is None and shutil.which("ge-run") and shutil.which("ge-gen"):
        gen, run = shutil.which("ge-gen"), shutil.which("ge-run")
    else:
        d = a.bin or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "debug")
        gen, run = os.path.join(d, "ge-gen"), os.path.join(d, "ge-run")
    if a.shrink:
        opts = [o for o in a.options.split(",") if o]
        try:
            shrink(run, a.shrink, opts, a.schedules or 8, a.strict)
        except ValueError as e:
            print(f"soak: {e}", file=sys.stderr)
            return 1
        return 0
    counts = {"passed": 0, "failed": 0, "not-lowered": 0, "graph-race": 0}
    start = time.time()
    done = 0
    for g in range(a.graphs):
        if a.minutes and time.time() - start > a.minutes * 60:
            print(f"soak: stopped after {a.minutes} minutes")
            break
        done += 1
        family = rng.choice(FAMILIES)
        seed = rng.randrange(1 << 30)
        ops = rng.randint(a.min_ops, a.max_ops)
        opts = rng.choice(OPTIONS)
        k = a.schedules or rng.randint(1, 8)
        sim_seed = rng.randrange(1 << 20)
        gen_cmd = [gen, "--format", "ge", "--family", family, "--ops", str(ops), "--seed", str(seed)]
        if not a.full_tensors:
            gen_cmd.append("--small-tensors")
        text = subprocess.run(gen_cmd, capture_output=True, text=True)
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
        got = classify(r, a.strict)
        if got is None:
            graph_race = " graph race " in r.stdout
            counts["graph-race" if graph_race else "passed"] += 1
            os.remove(path)
            print(f"{what}: " + ("only races the graph itself leaves open (GraphLint W18888)"
                                 if graph_race else "ok"), flush=True)
        elif got[0] == "not-lowered":
            counts["not-lowered"] += 1
            os.remove(path)
            print(f"{what}: not lowered ({r.stderr.strip().splitlines()[-1]})", flush=True)
        else:
            counts["failed"] += 1
            with open(path + ".cmd", "w") as f:
                f.write(" ".join(repr(c) if " " in c else c for c in cmd) + "\n")
                f.write(r.stdout[-4000:] + r.stderr[-4000:])
            print(f"{what}: FAILED ({got[0]}: {got[1]}); reproducer {path}, command in {path}.cmd",
                  flush=True)
            if not a.no_shrink:
                try:
                    shrink(run, path, opts, k, a.strict, sim_seed=sim_seed)
                except ValueError as e:
                    print(f"  not shrunk: {e}")
    minutes = (time.time() - start) / 60
    rate = done / minutes if minutes > 0 else 0
    print(f"soak: {done} graphs in {minutes:.2f} min ({rate:.1f} graphs/minute): "
          f"{counts['passed']} passed, {counts['graph-race']} with graph races only, "
          f"{counts['not-lowered']} not lowered, {counts['failed']} failed")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
