#!/usr/bin/env python3
"""How many occupied buckets MLIR's attribute uniquer probes per new attribute.

MLIR's `ParametricStorageUniquer` (mlir/lib/Support/StorageUniquer.cpp) keeps the storage of
each attribute kind in 8 shards and picks the shard with `hash & 7`. Each shard is an
`llvm::DenseSet` that picks the home bucket with `hash & (buckets - 1)` — the same low
bits — and probes quadratically (+1, +2, +3, ...) from there, growing at 3/4 load. Inside a
shard every hash has the same low three bits, so only one bucket in eight can be a home
bucket and the probe sequences pile up behind them. The uniquer compares every occupied
bucket it passes with the new key by reading that bucket's storage object (the stored hash
is not compared first), so each probe is a dereference of some attribute created earlier:
on a million-op graph, a cache and TLB miss.

This simulates that table with random 32-bit hashes: the occupied buckets probed per
insertion of a new key, with MLIR's low-bit sharding and with the shard taken from the top
bits instead (independent of the bucket index). It is how the README backs its statement
about the write-back floor; it needs nothing but Python.

usage: tools/uniquer-probe-sim.py [TOTAL_INSERTS ...]   (default: 20000 2000000)
"""
import random
import sys

SHARDS = 8
MIN_BUCKETS = 64


def occupied_probes_per_insert(total, shard_of, seed=1):
    rng = random.Random(seed)
    shards = [{"buckets": [None] * MIN_BUCKETS, "used": 0} for _ in range(SHARDS)]
    probes = 0
    for _ in range(total):
        h = rng.getrandbits(32)
        shard = shards[shard_of(h)]
        if (shard["used"] + 1) * 4 >= len(shard["buckets"]) * 3:
            shard["buckets"] = rehash(shard["buckets"])
        buckets = shard["buckets"]
        mask = len(buckets) - 1
        b, step = h & mask, 1
        while buckets[b] is not None:
            probes += 1
            b, step = (b + step) & mask, step + 1
        buckets[b] = h
        shard["used"] += 1
    return probes / total


def rehash(old):
    new = [None] * (len(old) * 2)
    mask = len(new) - 1
    for h in old:
        if h is None:
            continue
        b, step = h & mask, 1
        while new[b] is not None:
            b, step = (b + step) & mask, step + 1
        new[b] = h
    return new


def main():
    totals = [int(a) for a in sys.argv[1:]] or [20000, 2000000]
    print("inserts    | occupied buckets probed per new key")
    print("           | MLIR (shard = hash & 7) | shard = top 3 bits")
    for total in totals:
        low = occupied_probes_per_insert(total, lambda h: h & (SHARDS - 1))
        high = occupied_probes_per_insert(total, lambda h: h >> 29)
        print(f"{total:>10} | {low:23.2f} | {high:18.2f}")


if __name__ == "__main__":
    main()
