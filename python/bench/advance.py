"""The Python side of run.advance's overhead (advance.c is the C side): STEPS steps of the 16K
collision on the CPU in CALLS calls.   /usr/bin/python3 python/bench/advance.py 50 50"""
import sys
import time

import starburst

steps, calls = (int(a) for a in (sys.argv[1:] + ["50", "1"])[:2])
r = starburst.Run(scene="collision", n=16384, seed=1, backend="cpu")
r.advance(1)  # the first step computes the first accelerations
t0 = time.perf_counter()
for _ in range(calls):
    r.advance(steps // calls)
print("Python: %d steps in %d calls: %.3f s" % (steps // calls * calls, calls, time.perf_counter() - t0))
