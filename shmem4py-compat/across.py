"""A self-checking shmem4py program for jobs that span hosts (scripts/wheel-netns runs it).

Every PE puts its number into the next PE's array, reads the previous one's back with a get,
adds to a counter on PE 0 with an atomic, and joins a sum reduction and a broadcast; PE 0 checks
the totals. Any wrong value makes the PE print what it saw and exit 1, so the launcher's exit
status is the verdict. Run: `oshrun -np 4 python across.py` or under a site launcher.
"""

import sys

import numpy as np
from shmem4py import shmem

me = shmem.my_pe()
npes = shmem.n_pes()
right, left = (me + 1) % npes, (me - 1) % npes
errors = []

# put to the right neighbour, then read the left one's array with a get
ring = shmem.zeros(64, dtype="i8")
mine = np.arange(64, dtype="i8") + 1000 * me
shmem.put(ring, mine, right)
shmem.barrier_all()
expect = np.arange(64, dtype="i8") + 1000 * left
if not np.array_equal(ring, expect):
    errors.append(f"put from PE {left}: got {ring[:4]}..., expected {expect[:4]}...")
seen = np.empty(64, dtype="i8")
shmem.get(seen, ring, left)
expect = np.arange(64, dtype="i8") + 1000 * ((left - 1) % npes)
if not np.array_equal(seen, expect):
    errors.append(f"get of PE {left}'s array: got {seen[:4]}..., expected {expect[:4]}...")

# atomics on PE 0
counter = shmem.zeros(1, dtype="i8")
shmem.barrier_all()
shmem.atomic_add(counter, me + 1, 0)
shmem.barrier_all()
if me == 0 and int(counter[0]) != npes * (npes + 1) // 2:
    errors.append(f"atomic_add on PE 0: {int(counter[0])}, expected {npes * (npes + 1) // 2}")

# a reduction and a broadcast
src = shmem.full(8, me + 1, dtype="f8")
dst = shmem.zeros(8, dtype="f8")
shmem.reduce(dst, src, shmem.OP_SUM)
if not np.all(dst == npes * (npes + 1) / 2):
    errors.append(f"sum reduction: {dst[:2]}..., expected {npes * (npes + 1) / 2}")
word = shmem.array([me * 7 + 3] * 4, dtype="i4")
shmem.broadcast(word, word, npes - 1)
if not np.all(word == (npes - 1) * 7 + 3):
    errors.append(f"broadcast from PE {npes - 1}: {word}, expected {(npes - 1) * 7 + 3}")

shmem.barrier_all()
for e in errors:
    print(f"[PE {me}] across.py: {e}", flush=True)
if me == 0 and not errors:
    print(f"across.py: put, get, atomic_add, sum reduction, broadcast on {npes} PEs: PASS", flush=True)
shmem.free(ring)
shmem.free(counter)
shmem.free(src)
shmem.free(dst)
shmem.free(word)
sys.exit(1 if errors else 0)
