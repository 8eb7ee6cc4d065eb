"""Run.open and run.export_swift against the program: a TIPSY file of another code opened reads
the bodies its format holds (read here by a reader of the format of our own), and goes on bit
for bit as `starburst --open` does; an export writes the initial conditions `starburst export`
writes for the same state, and a state SWIFT cannot be given is refused."""
import os

import numpy as np
import pytest

import starburst
from conftest import refusal
from test_run import same_saves

GALAXY = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data", "galaxy_20K.bin")


def galaxy_file():
    path = os.path.abspath(GALAXY)
    if not os.path.exists(path):
        pytest.skip("no %s (the shared data folder beside the checkout)" % path)
    return path


def read_tipsy(path):
    """A TIPSY file as the format lays it out: a 32-byte header (time, n, ndim, nsph, ndark, nstar),
    then gas, dark and star particles. Either byte order, told by ndim = 3. Returns arrays of
    position, velocity and mass, and whether each body is dark."""
    raw = open(path, "rb").read()
    order = "<" if np.frombuffer(raw[12:16], "<i4")[0] == 3 else ">"
    _, n, _, nsph, ndark, nstar = np.frombuffer(raw[:28], np.dtype([("t", order + "f8")] + [
        (k, order + "i4") for k in ("n", "ndim", "nsph", "ndark", "nstar")]))[0]
    assert n == nsph + ndark + nstar
    f = order + "f4"
    gas = np.dtype([("m", f), ("x", f, 3), ("v", f, 3), ("rest", f, 5)])
    dark = np.dtype([("m", f), ("x", f, 3), ("v", f, 3), ("eps", f), ("phi", f)])
    star = np.dtype([("m", f), ("x", f, 3), ("v", f, 3), ("metals", f), ("tform", f), ("eps", f), ("phi", f)])
    at = 32
    parts = []
    for dtype, count in ((gas, nsph), (dark, ndark), (star, nstar)):
        parts.append(np.frombuffer(raw, dtype, count, at))
        at += dtype.itemsize * count
    assert at == len(raw)
    pos = np.concatenate([p["x"] for p in parts]).astype(np.float32)
    vel = np.concatenate([p["v"] for p in parts]).astype(np.float32)
    mass = np.concatenate([p["m"] for p in parts]).astype(np.float32)
    is_dark = np.concatenate([np.full(nsph, False), np.full(ndark, True), np.full(nstar, False)])
    return pos, vel, mass, is_dark


def rows(pos, vel, mass):
    """The bodies as a sorted table: the same bodies in any order give the same table."""
    table = np.column_stack([pos, vel, mass])
    return table[np.lexsort(table.T[::-1])]


def test_open_reads_a_tipsy_files_bodies():
    path = galaxy_file()
    pos, vel, mass, dark = read_tipsy(path)
    r = starburst.Run.open(path, backend="cpu")
    assert r.n == len(mass) == 20000 and r.step == 0 and r.time == 0
    assert np.array_equal(rows(r.positions, r.velocities, r.masses), rows(pos, vel, mass))
    # The dark particles are the halo (component 2), the stars not.
    halo = (r.tags & 3) == 2
    assert halo.sum() == dark.sum()
    assert np.array_equal(np.sort(r.masses[halo]), np.sort(mass[dark]))


def test_an_opened_file_goes_on_as_the_programs(tmp_path, starburst_cli):
    path = galaxy_file()
    prog, py = str(tmp_path / "prog.tipsy"), str(tmp_path / "py.tipsy")
    rc, out = starburst_cli("--headless", "--quiet", "--size", "64x64", "--backend", "cpu", "--open", path,
                            "--frames", 1, "--save", prog)
    assert rc == 0, out
    r = starburst.Run.open(path, backend="cpu")
    r.advance(1)
    r.save(py)
    same_saves(prog, py)


def test_open_refuses_what_the_program_refuses(tmp_path, starburst_cli):
    for bad in (tmp_path / "none.bin", tmp_path):
        rc, out = starburst_cli("--headless", "--quiet", "--backend", "cpu", "--open", bad, "--frames", 1)
        assert rc != 0
        with pytest.raises(starburst.Error) as e:
            starburst.Run.open(bad, backend="cpu")
        assert str(e.value) == refusal(out)


def hdf5_contents(path):
    """Every group's and dataset's attributes and every dataset's bytes (HDF5 files also hold
    the times their objects were written: the bytes of two files written apart differ there)."""
    h5py = pytest.importorskip("h5py", reason="Debian's python3-h5py reads the export")
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            attrs = {k: np.asarray(v).tobytes() for k, v in obj.attrs.items()}
            data = obj[()].tobytes() if isinstance(obj, h5py.Dataset) else None
            out[name] = (attrs, data)
        f.visititems(visit)
        out["/"] = ({k: np.asarray(v).tobytes() for k, v in f.attrs.items()}, None)
    return out


def test_an_export_is_the_programs(tmp_path, starburst_cli):
    r = starburst.Run(scene="collision", n=1024, seed=3, backend="cpu", halo="live")
    r.advance(2)
    save = str(tmp_path / "run.tipsy")
    r.save(save)
    ours, theirs = tmp_path / "py", tmp_path / "prog"
    summary = r.export_swift(ours)
    rc, out = starburst_cli("export", "--swift", theirs, "--load", save)
    assert rc == 0, out
    for name in ("ics.hdf5", "params.yml", "README.txt"):
        assert (ours / name).is_file(), name
    assert hdf5_contents(ours / "ics.hdf5") == hdf5_contents(theirs / "ics.hdf5")
    # params.yml says what it came from on its first line: the run here, the save there.
    assert (ours / "params.yml").read_text().splitlines()[1:] == (theirs / "params.yml").read_text().splitlines()[1:]
    assert summary.replace(str(ours), "") == out.strip().splitlines()[-1].replace("export: ", "", 1).replace(
        str(theirs), "")


def test_a_later_state_with_field_halos_is_refused(tmp_path):
    r = starburst.Run(scene="collision", n=1024, seed=3, backend="cpu")
    r.export_swift(tmp_path / "start")  # the built run's start: its fields sampled into bodies
    r.advance(1)
    before = r.positions
    with pytest.raises(starburst.Error) as e:
        r.export_swift(tmp_path / "later")
    assert "halos are fields, which SWIFT runs as bodies" in str(e.value)
    assert not (tmp_path / "later").exists()
    assert r.step == 1 and np.array_equal(r.positions, before)
