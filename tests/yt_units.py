"""yt (Debian's python3-yt) opens Starburst's files with their true units: a TIPSY save through the
.param beside it, the export's ics.hdf5 through the call README gives. Total mass, the half-mass
radius about the centre of mass and the rms speed in physical units, as yt reads them, against
Starburst's own: the bodies in model units (read raw here) times the scale starburst-measure
prints for the same file.

usage: /usr/bin/python3 yt_units.py MEASURE SAVE.tipsy ICS.hdf5
"""
import re
import subprocess
import sys

import h5py
import numpy as np
import yt

yt.set_log_level(40)
measure, save, ics = sys.argv[1:4]
failures = 0


def scale(path):
    """kpc, km/s and Msun of one model unit, from starburst-measure's units line."""
    out = subprocess.run([measure, path], capture_output=True, text=True, check=True).stdout
    m = re.search(r"units: length ([0-9.e+]+) kpc, speed ([0-9.e+]+) km/s, mass ([0-9.e+]+) Msun", out)
    if not m:
        raise SystemExit(f"FAIL: {path}: no units line from starburst-measure: {out}")
    # The line rounds to 4 figures: the save's .ini and the file's Units give them whole.
    return tuple(float(g) for g in m.groups())


def figures(pos, vel, mass):
    """Total mass, half-mass radius about the centre of mass, rms speed."""
    total = mass.sum()
    centre = (pos * mass[:, None]).sum(axis=0) / total
    r = np.sqrt(((pos - centre) ** 2).sum(axis=1))
    order = np.argsort(r)
    half = r[order][np.searchsorted(np.cumsum(mass[order]), 0.5 * total)]
    rms = np.sqrt((mass * (vel**2).sum(axis=1)).sum() / total)
    return total, half, rms


def compare(name, ours, theirs, rtol):
    global failures
    labels = ("total mass (Msun)", "half-mass radius (kpc)", "rms speed (km/s)")
    for label, a, b in zip(labels, ours, theirs):
        ok = abs(a - b) <= rtol * abs(a)
        print(f"{'ok' if ok else 'FAIL'}: {name}: {label}: Starburst {a:.6g}, yt {b:.6g}")
        failures += not ok


def raw_tipsy(path):
    """The TIPSY file's bodies in model units: its dark particles, then its stars (no gas)."""
    with open(path, "rb") as f:
        head = f.read(32)
        endian = "<" if np.frombuffer(head[12:16], "<i4")[0] == 3 else ">"
        nsph, ndark, nstar = np.frombuffer(head[16:28], endian + "i4")
        assert nsph == 0, "Starburst writes no gas"
        dark = np.frombuffer(f.read(36 * ndark), endian + "f4").reshape(ndark, 9).astype(np.float64)
        star = np.frombuffer(f.read(44 * nstar), endian + "f4").reshape(nstar, 11).astype(np.float64)
    d = np.vstack([dark[:, :7], star[:, :7]])
    return d[:, 1:4], d[:, 4:7], d[:, 0]


def yt_figures(ds, mass_field, pos_field, vel_field):
    ad = ds.all_data()
    return figures(ad[pos_field].in_units("kpc").d, ad[vel_field].in_units("km/s").d,
                   ad[mass_field].in_units("Msun").d)


# A TIPSY save: yt finds the .param in the save's folder.
kpc, kms, msun = scale(save)
pos, vel, mass = raw_tipsy(save)
total, half, rms = figures(pos, vel, mass)
ours = (total * msun, half * kpc, rms * kms)
ds = yt.load(save)
compare("TIPSY save", ours, yt_figures(ds, ("all", "Mass"), ("all", "Coordinates"), ("all", "Velocities")), 2e-3)

# The export's ics.hdf5, as README says to load it.
with h5py.File(ics) as f:
    u = f["Units"].attrs
    L, M, T = (float(u[k]) for k in ("Unit length in cgs (U_L)", "Unit mass in cgs (U_M)", "Unit time in cgs (U_t)"))
    g = f["PartType1"]
    pos, vel, mass = g["Coordinates"][:], g["Velocities"][:].astype(np.float64), g["Masses"][:].astype(np.float64)
    box = f["Header"].attrs["BoxSize"]
if np.ndim(box) != 0:
    print(f"FAIL: ics.hdf5: BoxSize is {np.shape(box)}, not one number (a cube)")
    failures += 1
kpc, kms, msun = scale(ics)
total, half, rms = figures(pos, vel, mass)
ours = (total * msun, half * kpc, rms * kms)
ds = yt.load(ics, unit_base={"UnitLength_in_cm": L, "UnitMass_in_g": M, "UnitVelocity_in_cm_per_s": L / T})
compare("ics.hdf5", ours, yt_figures(ds, ("all", "Masses"), ("all", "Coordinates"), ("all", "Velocities")), 2e-3)

sys.exit(1 if failures else 0)
