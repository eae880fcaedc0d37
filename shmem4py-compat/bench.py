"""shmem4py-compat/bench.py: the cost of the Python binding on rshmem.

Measures put and get of 8 B and 1 MiB, atomic fetch-add and barrier_all from Python through
shmem4py, and the same routines called directly in C (bench/shmem4py.c), on 2 PEs, and prints one
table: figure, Python us, C us, overhead (Python - C, us per call) and the ratio.

Run it with the venv that shmem4py-compat/run makes (it installs rshmem into build/ and shmem4py
into build/shmem4py/venv); `shmem4py-compat/run --bench` does both:

    build/shmem4py/venv/bin/python shmem4py-compat/bench.py [--reps N]

Both sides measure alike (bench/bench.h): a figure is 41 batches of k calls, k calibrated so that
a batch lasts about 1 ms after a warm-up; a run reports the median time per call over its batches;
the table shows the median over --reps runs (default 3), Python and C runs alternating. PE 0 makes
the calls to PE 1, which waits in barrier_all; barrier_all runs on both PEs. The Python calls use
NumPy arrays of C longs, for which shmem4py calls shmem_long_put, shmem_long_get and
shmem_long_atomic_fetch_add: the routines the C program calls.

With --pe the script is one PE of the Python side (started by the driver under oshrun) and prints
bench.h's lines: figure, size, unit, median, p10, p90.
"""

import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")
BIG = 1 << 20
BATCHES = 41
TARGET_S = 1e-3


def pe_main():
    """One PE of the Python side."""
    import numpy as np
    from shmem4py import shmem

    now = time.perf_counter
    me, npes = shmem.my_pe(), shmem.n_pes()
    peer = npes - 1
    remote = {8: shmem.zeros(1, dtype="l"), BIG: shmem.zeros(BIG // 8, dtype="l")}
    local = {8: np.ones(1, dtype="l"), BIG: np.ones(BIG // 8, dtype="l")}
    counter = shmem.zeros(1, dtype="l")

    def report(figure, size, per_call):
        per_call.sort()
        pick = lambda p: per_call[int(p * (len(per_call) - 1) + 0.5)] * 1e6
        print(f"{figure}\t{size}\tus\t{pick(0.5):.4f}\t{pick(0.1):.4f}\t{pick(0.9):.4f}", flush=True)

    def batch(op, k):
        t0 = now()
        for _ in range(k):
            op()
        return now() - t0

    def calibrate(op):
        for _ in range(3):
            op()
        k = 1
        while True:
            dt = batch(op, k)
            if dt >= TARGET_S / 4 or k >= 1 << 24:
                return max(1, min(1 << 24, int(k * TARGET_S / max(dt, 1e-9))))
            k *= 4

    def measure(op):
        k = calibrate(op)
        return [batch(op, k) / k for _ in range(BATCHES)]

    shmem.barrier_all()
    if me == 0 and npes > 1:
        for size in (8, BIG):
            dst, src = remote[size], local[size]

            def put():
                shmem.put(dst, src, peer)
                shmem.quiet()

            report("put", size, measure(put))
        for size in (8, BIG):
            dst, src = local[size], remote[size]
            report("get", size, measure(lambda: shmem.get(dst, src, peer)))
        report("fetch_add", 8, measure(lambda: shmem.atomic_fetch_add(counter, 1, peer)))

    # barrier_all: PE 0 calibrates the batch length and tells the others.
    ctl = shmem.zeros(1, dtype="l")
    for _ in range(10):
        shmem.barrier_all()
    k = 1
    while True:
        shmem.barrier_all()
        dt = batch(shmem.barrier_all, k)
        decision = 0
        if me == 0 and (dt >= TARGET_S / 4 or k >= 1 << 20):
            decision = max(1, int(k * TARGET_S / max(dt, 1e-9)))
        if me == 0:
            for pe in range(npes):
                shmem.atomic_set(ctl, decision, pe)
        shmem.quiet()
        shmem.barrier_all()
        if ctl[0] > 0:
            k = int(ctl[0])
            break
        k *= 4
    times = []
    for _ in range(BATCHES):
        shmem.barrier_all()
        times.append(batch(shmem.barrier_all, k) / k)
    if me == 0:
        report("barrier_all", npes, times)
    shmem.barrier_all()


def run(cmd):
    """Runs one side on 2 PEs; returns {(figure, size): median us}."""
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}{p.stderr}")
    out = {}
    for line in p.stdout.splitlines():
        f = line.split("\t")
        if len(f) == 6:
            out[(f[0], int(f[1]))] = float(f[3])
    return out


def main():
    reps = 3
    if "--reps" in sys.argv:
        reps = int(sys.argv[sys.argv.index("--reps") + 1])
    oshrun = os.path.join(BUILD, "bin", "oshrun")
    oshcc = os.path.join(BUILD, "bin", "oshcc")
    if not os.path.exists(oshrun):
        sys.exit("bench: build/bin/oshrun is missing; run scripts/install --prefix build first")
    exe = os.path.join(BUILD, "shmem4py", "bench-shmem4py")
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    subprocess.run([oshcc, "-O2", "-o", exe, os.path.join(ROOT, "bench", "shmem4py.c")], check=True)
    sides = {
        "C": [oshrun, "-np", "2", "--timeout", "240", exe],
        "Python": [oshrun, "-np", "2", "--timeout", "240", sys.executable,
                   os.path.abspath(__file__), "--pe"],
    }
    results = {"C": [], "Python": []}
    for rep in range(reps):
        for side in (["Python", "C"] if rep % 2 == 0 else ["C", "Python"]):
            results[side].append(run(sides[side]))

    def median(side, key):
        return statistics.median(r[key] for r in results[side])

    def size_name(figure, size):
        if figure == "barrier_all":
            return f"{size} PEs"
        return "1 MiB" if size == BIG else f"{size} B"

    print(f"shmem4py on rshmem: Python (shmem4py {version()}) next to C, us per call, 2 PEs, "
          f"median of {reps} runs")
    print("| figure | size | Python us | C us | overhead us | ratio |")
    print("|---|---|---|---|---|---|")
    for key in results["C"][0]:
        py, c = median("Python", key), median("C", key)
        print(f"| {key[0]} | {size_name(*key)} | {fmt(py)} | {fmt(c)} | {fmt(py - c)} | "
              f"{py / c:.1f} |")


def fmt(us):
    return f"{us:.3g}" if abs(us) < 1000 else f"{us:.0f}"


def version():
    try:
        from importlib.metadata import version as v
        return v("shmem4py")
    except Exception:  # noqa: BLE001 - only for the title
        return "?"


if __name__ == "__main__":
    if "--pe" in sys.argv:
        pe_main()
    else:
        main()
