"""starburst.Run against the program it wraps: the same bits as the program's own saves after the
same steps, the same lines for the same bad values, and each call's contract (units, copies,
round trips, a refused value leaving the run as it was). The CPU backend, small N."""
import math
import os

import numpy as np
import pytest

import starburst
from conftest import refusal

N = 2048


def run(**kw):
    args = dict(scene="collision", n=N, seed=3, backend="cpu")
    args.update(kw)
    return starburst.Run(**args)


def read_file(path):
    with open(path, "rb") as f:
        return f.read()


SAVE_FILES = ("", ".acc", ".ini", ".param")


def same_saves(a, b):
    for ext in SAVE_FILES:
        assert os.path.exists(a + ext) == os.path.exists(b + ext), ext
        if os.path.exists(a + ext):
            assert read_file(a + ext) == read_file(b + ext), "%s%s differs from %s%s" % (a, ext, b, ext)


# ---- the program's bits ----

@pytest.mark.parametrize("scene,n,force,halo,frames,k", [
    ("collision", N, None, None, 5, 2),  # the CPU's default method at this N: the fmm, by error
    ("collision", 1024, "tree", "live", 3, 2),
    ("plummer", 512, "direct", None, 3, 4),
    ("disk", 1024, "tree", None, 4, 1),
])
def test_a_save_is_the_programs_after_the_same_steps(tmp_path, starburst_cli, scene, n, force, halo, frames, k):
    prog, py = str(tmp_path / "prog.tipsy"), str(tmp_path / "py.tipsy")
    args = ["--headless", "--quiet", "--size", "64x64", "--backend", "cpu", "--scene", scene, "-n", n,
            "--seed", 3, "--frames", frames, "--steps-per-frame", k, "--save", prog]
    if force:
        args += ["--force", force]
    if halo:
        args += ["--halo", halo]
    rc, out = starburst_cli(*args)
    assert rc == 0, out
    r = starburst.Run(scene=scene, n=n, seed=3, backend="cpu", force=force or "auto", halo=halo or "field")
    r.set(steps_per_frame=k)
    for _ in range(frames):
        r.advance(k)
    assert r.step == frames * k
    r.save(py)
    same_saves(prog, py)


def test_a_save_from_python_loads_in_the_program_and_goes_on_bit_for_bit(tmp_path, starburst_cli):
    first, mine, theirs = (str(tmp_path / f) for f in ("first.tipsy", "mine.tipsy", "theirs.tipsy"))
    r = run()
    r.advance(3)
    r.save(first)
    rc, out = starburst_cli("--load", first, "--headless", "--quiet", "--size", "64x64", "--frames", 1)
    assert rc == 0, out
    # Two more steps: from the save in the program, and in Python from the same save.
    rc, out = starburst_cli("--load", first, "--headless", "--quiet", "--size", "64x64", "--frames", 2,
                            "--steps-per-frame", 1, "--save", theirs)
    assert rc == 0, out
    again = starburst.Run.load(first, backend="cpu")
    assert again.step == 3 and again.time == r.time
    assert again.params() == r.params()
    # Frame by frame as the program goes: the halo fields' friction loss a save records (the
    # centres' w) is summed over each advance, so the steps are grouped as the program's frames.
    again.advance(1)
    again.advance(1)
    again.save(mine)
    same_saves(mine, theirs)
    # And the run never saved is where the loaded one is.
    r.advance(2)
    assert np.array_equal(r.positions, again.positions)
    assert np.array_equal(r.velocities, again.velocities)


# ---- refusals: the program's line, the run unchanged ----

@pytest.mark.parametrize("key,value,option", [
    ("dt", -1, "--dt"), ("dt", "20", "--dt"), ("softening", "abc", "--softening"), ("damping", 1.5, "--damping"),
    ("theta", 2, "--theta"), ("dt", "3 parsec", "--dt"),
])
def test_a_bad_parameter_is_refused_as_the_program_refuses_it(starburst_cli, key, value, option):
    r = run(n=256)
    r.advance(1)
    before, step, pos = r.params(), r.step, r.positions
    with pytest.raises(starburst.Error) as e:
        r.set(**{"steps_per_frame": 3, key: value})
    text = value if isinstance(value, str) else str(value)
    rc, out = starburst_cli("--backend", "cpu", "--headless", option, text)
    assert rc != 0
    assert str(e.value) == refusal(out)
    assert r.params() == before  # the value given before the bad one is not kept either
    assert r.step == step and np.array_equal(r.positions, pos)


@pytest.mark.parametrize("kw,args", [
    (dict(scene="nope"), ["--scene", "nope"]),
    (dict(n=3), ["-n", "3"]),
    (dict(n=-5), ["-n", "-5"]),
    (dict(halo="dark"), ["--halo", "dark"]),
    (dict(force="fast"), ["--force", "fast"]),
    (dict(backend="gpu"), ["--backend", "gpu"]),
])
def test_a_bad_description_is_refused_as_the_program_refuses_it(starburst_cli, kw, args):
    with pytest.raises(starburst.Error) as e:
        run(**kw)
    rc, out = starburst_cli("--headless", *args)
    assert rc != 0
    assert str(e.value) == refusal(out)


def test_a_missing_save_is_refused(tmp_path):
    with pytest.raises(starburst.Error) as e:
        starburst.Run.load(str(tmp_path / "none.tipsy"), backend="cpu")
    assert "none.tipsy" in str(e.value)


# ---- units ----

def test_a_time_with_its_unit_is_read_as_the_program_reads_it(tmp_path, starburst_cli):
    prog = str(tmp_path / "prog.tipsy")
    rc, out = starburst_cli("--headless", "--quiet", "--size", "64x64", "--backend", "cpu", "-n", 256, "--seed", 3,
                            "--dt", "0.2Myr", "--softening", "150 pc", "--frames", 1, "--save", prog)
    assert rc == 0, out
    r = run(n=256)
    r.set(dt="0.2Myr", softening="150 pc")
    ini = dict(line.split(" = ", 1) for line in open(prog + ".ini").read().splitlines() if " = " in line)
    assert np.float32(r.params()["dt"]) == np.float32(float(ini["dt"]))
    assert np.float32(r.params()["softening"]) == np.float32(float(ini["softening"]))
    # 500 Myr on the Milky-Way scale: 500 / (Myr a model time unit).
    assert r.myr > 0
    assert math.isclose(r.time_of("500 Myr"), 500 / r.myr, rel_tol=1e-12)
    assert math.isclose(r.time_of("1.5 Gyr"), 1500 / r.myr, rel_tol=1e-12)
    with pytest.raises(starburst.Error):
        r.time_of("3 kpc")
    # 150 pc on the same scale: 0.15 / (kpc a model length unit).
    assert r.kpc > 0 and np.float32(r.params()["softening"]) == np.float32(0.15 / r.kpc)


def test_evolve_runs_whole_steps_up_to_the_time():
    r = run(n=256)
    dt = r.params()["dt"]
    steps = r.evolve("5 Myr")
    target = 5 / r.myr
    assert steps == r.step and steps > 0
    assert r.time >= target - 1e-9 and r.time - dt < target
    assert r.evolve(r.time) == 0


def test_a_scene_without_a_scale_refuses_a_unit():
    r = run(scene="plummer", n=256)
    assert r.myr == 0 and r.kpc == 0
    assert r.time_of(2) == 2.0
    with pytest.raises(starburst.Error):
        r.set(dt="0.2Myr")


# ---- the bodies ----

def test_the_arrays_are_copies_of_the_state():
    r = run(n=512)
    assert r.n == 512 + 2  # the stars and the two halo fields' centres, last
    pos, vel, m, tags = r.positions, r.velocities, r.masses, r.tags
    assert pos.shape == (r.n, 3) and pos.dtype == np.float32
    assert vel.shape == (r.n, 3) and m.shape == (r.n,) and tags.dtype == np.uint8
    assert set(np.unique(tags >> 2)) == {0, 1}  # two galaxies
    assert np.all(tags[-2:] & 3 == 2)  # the halo centres
    assert np.all(m > 0)
    pos[:] = 0
    assert not np.array_equal(r.positions, pos)
    r.advance(1)
    assert not np.array_equal(r.positions[:512], run(n=512).positions[:512])


def test_set_bodies_round_trips():
    a, b = run(n=512), run(n=512)
    a.advance(2)
    b.advance(2)
    # The same bodies written back: nothing changes, and the run goes on bit for bit.
    b.set_bodies(b.positions, b.velocities, b.masses)
    assert b.step == a.step and b.time == a.time
    a.advance(2)
    b.advance(2)
    assert np.array_equal(a.positions, b.positions) and np.array_equal(a.velocities, b.velocities)
    # Other bodies written: read back as written, float32.
    pos = a.positions + np.float32(0.5)
    vel = a.velocities * np.float32(0.9)
    m = a.masses * np.float32(2)
    a.set_bodies(positions=pos, velocities=vel, masses=m)
    assert np.array_equal(a.positions, pos) and np.array_equal(a.velocities, vel) and np.array_equal(a.masses, m)
    a.set_bodies(velocities=vel * 0)
    assert np.array_equal(a.positions, pos) and not a.velocities.any()
    a.advance(1)
    assert np.isfinite(a.positions).all()


@pytest.mark.parametrize("what,fault", [("mass", "has a mass of 0"),
                                         ("pos", "has a position that is not finite"),
                                         ("vel", "has a velocity beyond 1e18")])
def test_a_bad_body_is_refused_as_a_file_reader_refuses_it(what, fault):
    r = run(n=256)
    pos, vel, m = r.positions, r.velocities, r.masses
    if what == "mass":
        m[7] = 0
    elif what == "pos":
        pos[7, 1] = np.nan
    else:
        vel[7, 2] = 1e19
    with pytest.raises(starburst.Error) as e:
        r.set_bodies(pos, vel, m)
    assert str(e.value) == "set_bodies: body 7 " + fault
    assert np.array_equal(r.positions, run(n=256).positions)
    with pytest.raises(starburst.Error) as e:
        r.set_bodies(positions=pos[:10])
    assert "the run holds 258 bodies" in str(e.value)


# ---- energy ----

def test_energy_is_the_direct_sum_of_the_bodies():
    r = starburst.Run(scene="plummer", n=300, seed=2, backend="cpu", force="direct")
    r.advance(5)
    x, v, m = (a.astype(np.float64) for a in (r.positions, r.velocities, r.masses))
    eps = np.float64(np.float32(r.params()["softening"]))
    d = x[:, None, :] - x[None, :, :]
    inv = 1 / np.sqrt((d ** 2).sum(-1) + eps ** 2)
    np.fill_diagonal(inv, 0)
    potential = -0.5 * (m[:, None] * m[None, :] * inv).sum()
    kinetic = 0.5 * (m * (v ** 2).sum(1)).sum()
    e = r.energy()
    assert math.isclose(e["kinetic"], kinetic, rel_tol=1e-9)
    assert math.isclose(e["potential"], potential, rel_tol=1e-9)
    assert e["friction"] == 0 and e["total"] == e["kinetic"] + e["potential"]


def test_energy_is_conserved_over_a_few_steps():
    r = starburst.Run(scene="plummer", n=512, seed=2, backend="cpu", force="direct")
    e0 = r.energy()["total"]
    r.advance(20)
    assert abs(r.energy()["total"] - e0) < 1e-3 * abs(e0)


def test_a_run_says_what_it_is():
    r = run(n=256)
    r.advance(2)
    assert repr(r) == "<starburst.Run of 258 bodies, step 2, t = %.6g (%.4g Myr)>" % (r.time, r.time * r.myr)
    r.close()
    assert repr(r) == "<starburst.Run closed>"


def test_version_and_docstrings():
    assert starburst.version()[0] == 0
    for name in ("advance", "evolve", "set", "params", "set_bodies", "energy", "save", "load", "time_of"):
        assert getattr(starburst.Run, name).__doc__
    for name in ("time", "step", "positions", "velocities", "masses", "tags", "n", "myr"):
        assert getattr(starburst.Run, name).__doc__
