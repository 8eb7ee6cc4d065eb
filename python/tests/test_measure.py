"""run.measure() against starburst-measure: the tool's line for a save of the same state, parsed
here, holds every figure of the dict as the tool prints it (the same digits), and "not measured"
where the dict has None."""
import re

import pytest

import starburst

FOUR = "%.4f"


def tool_lines(measure_cli, path, *options):
    rc, out = measure_cli(*options, path)
    assert rc == 0, out
    lines = {}
    for line in out.splitlines():
        m = re.match(r"\S+ galaxy (\d) t \S+: (.*)$", line)
        if m:
            lines[int(m.group(1))] = m.group(2)
    return lines


def parse(text):
    """The tool's line, its figures as printed (strings), None where it says "not measured"."""
    out = {}
    m = re.match(r"bodies (\d+)/(\d+)/(\d+)(?: and (\d+) of no component)?, R_half(.*?), rms_z (.*?), R (\S+)-(\S+): "
                 r"n (\d+)(.*?), beyond (\S+):(.*?), 2K/\|W\| (.*)$", text)
    assert m, text
    (disk, bulge, halo, other, halves, rms_z, r0, r1, ring_n, ring, beyond, fractions, virial) = m.groups()
    out["bodies"] = {"disk": int(disk), "bulge": int(bulge), "halo": int(halo)}
    out["other"] = int(other or 0)
    out["R_half"] = {c: v for c, v in re.findall(r" (disk|bulge|halo) (\S+)", halves)}
    out["rms_z"] = None if rms_z.startswith("not measured") else rms_z
    out["ring"] = (r0, r1)
    out["ring_bodies"] = int(ring_n)
    f = re.match(r" sigma_R (\S+) kappa (\S+) Q (\S+) A_1\.\.6 (\S+) (\S+) (\S+) (\S+) (\S+) (\S+)", ring)
    if f:
        out["sigma_R"], out["kappa"], out["Q"] = f.group(1), f.group(2), f.group(3)
        out["A"] = list(f.groups()[3:])
    else:
        assert "not measured" in ring, ring
        out["sigma_R"] = out["kappa"] = out["Q"] = None
        out["A"] = [None] * 6
    out["beyond"] = beyond
    out["beyond_fraction"] = {c: v for c, v in re.findall(r" (disk|halo) (\S+)", fractions)}
    v = re.match(r"(\S+) at softening (\S+) \((.*)\)$", virial)
    out["virial"], out["softening"] = (v.group(1), v.group(2)) if v else (None, None)
    out["field"] = bool(v) and "field halo" in v.group(3)
    return out


def as_printed(d):
    """The dict's figures printed as the tool prints them."""

    def four(x):
        return None if x is None else FOUR % x

    def parts(values):
        return {c: "-" if x is None else FOUR % x for c, x in values.items()}

    return {"bodies": d["bodies"], "other": d["other"], "R_half": parts(d["R_half"]), "rms_z": four(d["rms_z"]),
            "ring": ("%g" % d["ring"][0], "%g" % d["ring"][1]), "ring_bodies": d["ring_bodies"],
            "sigma_R": four(d["sigma_R"]), "kappa": four(d["kappa"]),
            "Q": None if d["sigma_R"] is None else "-" if d["Q"] is None else "%.3f" % d["Q"],
            "A": [four(a) for a in d["A"]], "beyond": "%g" % d["beyond"],
            "beyond_fraction": parts(d["beyond_fraction"]), "virial": four(d["virial"]),
            "softening": None if d["virial"] is None else "%g" % d["softening"], "field": d["field"]}


@pytest.mark.parametrize("halo,n,steps,ring,beyond", [
    ("field", 4096, 6, None, None),
    ("live", 2048, 4, None, None),
    ("field", 2048, 2, (1, 4), 10),
    ("live", 1024, 0, (0.5, 1.25), 8),
])
def test_measure_is_what_the_tool_prints_for_a_save(tmp_path, measure_cli, halo, n, steps, ring, beyond):
    r = starburst.Run(scene="collision", n=n, seed=5, backend="cpu", halo=halo)
    r.advance(steps)
    path = str(tmp_path / "run.tipsy")
    r.save(path)
    options = []
    if ring:
        options += ["--ring", ring[0], ring[1]]
    if beyond:
        options += ["--beyond", beyond]
    lines = tool_lines(measure_cli, path, *options)
    got = r.measure(ring=ring, beyond=beyond)
    assert sorted(got) == sorted(lines) == [0, 1]
    for g, line in lines.items():
        assert as_printed(got[g]) == parse(line), "galaxy %d: %s" % (g, line)
        assert got[g]["field"] == (halo == "field")


def test_a_figure_the_bodies_cannot_give_is_none(tmp_path, measure_cli):
    # An annulus beyond every disk body: the tool says "not measured" for sigma_R, Q and A_m.
    r = starburst.Run(scene="disk", n=2048, seed=2, backend="cpu")
    path = str(tmp_path / "disk.tipsy")
    r.save(path)
    line = tool_lines(measure_cli, path, "--ring", 500, 600)[0]
    assert "not measured: no disk bodies in the annulus" in line
    got = r.measure(ring=(500, 600))[0]
    assert got["ring_bodies"] == 0 and got["sigma_R"] is None and got["A"] == [None] * 6
    assert as_printed(got) == parse(line)


def test_a_bad_annulus_is_refused_and_the_run_unchanged():
    r = starburst.Run(scene="disk", n=2048, seed=2, backend="cpu")
    before = r.measure()
    with pytest.raises(starburst.Error, match="not an annulus"):
        r.measure(ring=(3, 2))
    assert r.measure() == before
