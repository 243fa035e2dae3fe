#!/usr/bin/env python3
"""Split a pass's growth into MLIR's attribute uniquer, the kernel's page faults and the rest.

Reads two `perf script --no-inline -F comm,ip,sym` dumps of `perf record --call-graph dwarf`
runs of ge-opt: one of the big graph (one run) and one of the small graph (`--small-runs`
runs in one recording, so its sample count is large enough). Only samples whose call stack
contains `--pass` (a symbol substring, e.g. `StreamAlloc as`) count. A sample is charged to
the uniquer when a frame between its leaf and the innermost ge_mlir frame belongs to MLIR's
`StorageUniquer` (looking up or creating a uniqued attribute: the per-op write-back's
dictionaries, the new ops' name strings, event ids). It is charged to page faults when such
a frame is the kernel's page-fault entry (`asm_exc_page_fault`, `exc_page_fault`): the
first touch of memory the process has not used before, whoever touched it (a fault while the
uniquer allocates counts here, not as the uniquer). What a fault costs depends on the
machine more than on the pass: on a VM that hands freed memory back to its host (virtio
free page reporting), a page new to the process can cost a host fault too, and a big graph
needs more of them than the kernel keeps at hand. With both recordings at the same
sampling rate, the ratio of sample counts per run is the ratio of CPU times, so

    growth = (big samples) / (small samples / small runs),  k = log(growth) / log(n_big / n_small)

is printed for all samples, for the uniquer's, for the page faults' and for the rest.
With `--verifier`, the same for MLIR's verification after the pass (an `OperationVerifier`
frame under the pass manager, outside the pass), then for the pass and it together.

usage: growth-split.py --pass SYMBOL --big FILE --small FILE --small-runs N --ratio R [--verifier]
       (R = n_big / n_small, e.g. 100 for 1M against 10k ops)
"""
import argparse
import math
import sys


def samples(path):
    """Yields each sample's frames (symbol names, leaf first)."""
    frames = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.strip():
                frames.append(line)
                continue
            if frames:
                # The first line is the sample header (comm); then one "ip symbol" per frame.
                yield [(fr.strip().split(" ", 1) + [""])[1] for fr in frames[1:]]
            frames = []
    if frames:
        yield [(fr.strip().split(" ", 1) + [""])[1] for fr in frames[1:]]


# The kernel's page-fault entry points, as `perf script` names them.
FAULT_ENTRIES = ("asm_exc_page_fault", "exc_page_fault")


def part_of(stack):
    """'faults', 'uniquer' or 'rest': what the frames between the leaf and the innermost
    ge_mlir frame show (a fault first: the kernel's time, whoever touched the page)."""
    part = "rest"
    for sym in stack:
        if "ge_mlir" in sym:
            break
        if sym in FAULT_ENTRIES:
            return "faults"
        if "StorageUniquer" in sym:
            part = "uniquer"
    return part


def in_pass(pass_symbol):
    """Selects the samples inside the pass."""
    return lambda stack: any(pass_symbol in s for s in stack)


def in_verification(pass_symbol):
    """Selects the samples of MLIR's verification after a pass: an `OperationVerifier`
    frame under the pass manager's `OpToOpPassAdaptor`, outside the pass itself (the
    verification the parser runs has no pass manager above it)."""

    def select(stack):
        return (
            not any(pass_symbol in s for s in stack)
            and any("OperationVerifier" in s for s in stack)
            and any("OpToOpPassAdaptor" in s for s in stack)
        )

    return select


def count(path, selectors):
    """For each selector, in one read of the dump: the selected samples' total and each
    part's."""
    counts = [{"uniquer": 0, "faults": 0, "rest": 0} for _ in selectors]
    for stack in samples(path):
        for select, parts in zip(selectors, counts):
            if select(stack):
                parts[part_of(stack)] += 1
    return [(sum(parts.values()), parts) for parts in counts]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pass", dest="pass_symbol", required=True)
    ap.add_argument("--big", required=True)
    ap.add_argument("--small", required=True)
    ap.add_argument("--small-runs", type=int, required=True)
    ap.add_argument("--ratio", type=float, required=True)
    ap.add_argument("--label", default="")
    ap.add_argument("--verifier", action="store_true",
                    help="also split MLIR's verification after the pass (recordings made "
                    "without --verify-each=false), and print the two together")
    a = ap.parse_args()

    def growth(big, small):
        per_run = small / a.small_runs
        if big == 0 or per_run == 0:
            return "-", "-"
        g = big / per_run
        return f"x{g:.0f}", f"{math.log(g) / math.log(a.ratio):.3f}"

    def report(label, big_total, big, small_total, small):
        cells = []
        for name, b, s in [("all", big_total, small_total)] + [
            (part, big[part], small[part]) for part in ("uniquer", "faults", "rest")
        ]:
            g, k = growth(b, s)
            cells.append(f"{name} {g} n^{k}")
        shares = " ".join(
            f"{part} {100.0 * big[part] / max(big_total, 1):.0f}%"
            for part in ("uniquer", "faults")
        )
        print(f"{label:<12} samples big {big_total} small/run {small_total / a.small_runs:.1f} | "
              + " | ".join(cells) + f" | share big: {shares}")

    selectors = [in_pass(a.pass_symbol)]
    if a.verifier:
        selectors.append(in_verification(a.pass_symbol))
    big_counts = count(a.big, selectors)
    small_counts = count(a.small, selectors)
    (big_total, big), (small_total, small) = big_counts[0], small_counts[0]
    if big_total == 0 or small_total == 0:
        sys.exit(f"growth-split.py: no samples inside '{a.pass_symbol}' (wrong --pass?)")
    report(a.label, big_total, big, small_total, small)
    if not a.verifier:
        return
    (vbig_total, vbig), (vsmall_total, vsmall) = big_counts[1], small_counts[1]
    if vbig_total == 0 or vsmall_total == 0:
        sys.exit("growth-split.py: no samples of a verification after the pass (recorded "
                 "with --verify-each=false?)")
    report(a.label + "+verifier", vbig_total, vbig, vsmall_total, vsmall)
    both = {part: big[part] + vbig[part] for part in big}
    small_both = {part: small[part] + vsmall[part] for part in small}
    report(a.label + " with it", big_total + vbig_total, both,
           small_total + vsmall_total, small_both)


if __name__ == "__main__":
    main()
