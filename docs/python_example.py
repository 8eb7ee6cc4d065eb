"""The default collision from Python: two disk galaxies on their orbit, the distance between their
centres plotted against time, and a frame of the encounter drawn as the program draws it.

    /usr/bin/python3 docs/python_example.py [OUT_DIR] [N] [MYR]

writes OUT_DIR/separation.png (default: this folder) and, where headless GL is at hand,
OUT_DIR/frame.png. The same code as docs/python-example.ipynb, cell for cell."""
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed: the figures go to files
import matplotlib.pyplot as plt
import numpy as np

import starburst

out_dir = sys.argv[1] if len(sys.argv) > 1 else "docs"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
span = sys.argv[3] + " Myr" if len(sys.argv) > 3 else "1500 Myr"

# %% The run: the program's default collision (two disk galaxies with their halos), on the CPU.
run = starburst.Run(scene="collision", n=n, seed=1, backend="cpu")
print(run, run.params())


def centres(run):
    """Each galaxy's centre: the mass-weighted mean position of its stars (disk and bulge)."""
    pos, mass, tag = run.positions, run.masses, run.tags
    stars = (tag & 3) < 2
    galaxy = tag >> 2
    return [np.average(pos[stars & (galaxy == g)], axis=0, weights=mass[stars & (galaxy == g)]) for g in (0, 1)]


# %% Evolve, measuring the separation of the centres every 20 steps.
end = run.time_of(span)
times, separations = [], []
while True:
    a, b = centres(run)
    times.append(run.time * run.myr)
    separations.append(np.linalg.norm(a - b) * run.kpc)
    if run.time >= end:
        break
    run.advance(20)
closest = int(np.argmin(separations))
print("closest approach: %.1f kpc at %.0f Myr" % (separations[closest], times[closest]))

# %% The separation against time.
fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(times, separations)
ax.axvline(times[closest], color="grey", lw=0.8, ls="--")
ax.set_xlabel("time (Myr)")
ax.set_ylabel("separation of the galaxies' centres (kpc)")
ax.set_title("The default collision, %d stars" % ((run.tags & 3) < 2).sum())
fig.tight_layout()
fig.savefig(out_dir + "/separation.png", dpi=100)

# %% A frame of the state now, as the program draws it (headless GL: EGL).
try:
    frame = run.render(640, 360)
except starburst.Error as e:
    print("no frame:", e)
else:
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.imshow(frame)
    ax.set_axis_off()
    fig.tight_layout(pad=0)
    fig.savefig(out_dir + "/frame.png", dpi=100)
    print("frame:", frame.shape)
