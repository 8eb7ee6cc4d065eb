"""run.render: the state drawn headless inside the library (EGL; Mesa's llvmpipe on a machine without
a GPU) as the program draws it: the galaxies lit near the centre, the corners dark, and pixel for
pixel the program's own --screenshot of the same run, state, size and settings."""
import os

import numpy as np
import pytest

import starburst


def rendered(r, *args, **kw):
    try:
        return r.render(*args, **kw)
    except starburst.Error as e:
        if "EGL" in str(e):
            pytest.skip("no headless GL here: %s" % e)
        raise


def png_pixels(path):
    Image = pytest.importorskip("PIL.Image", reason="Debian's python3-pil reads the program's PNG")
    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"))


def test_a_frame_has_the_galaxies_lit(tmp_path, starburst_cli):
    r = starburst.Run(scene="collision", n=2048, seed=3, backend="cpu")
    r.advance(2)
    img = rendered(r, 320, 200)
    assert img.shape == (200, 320, 3) and img.dtype == np.uint8
    h, w = img.shape[:2]
    luma = img.astype(float).mean(axis=2)
    centre = luma[h // 4:3 * h // 4, w // 4:3 * w // 4]
    corners = [luma[:h // 8, :w // 8], luma[:h // 8, -w // 8:], luma[-h // 8:, :w // 8], luma[-h // 8:, -w // 8:]]
    assert centre.max() > 200, "no bright pixel near the centre"
    assert (centre > 64).sum() > 50
    assert all(c.mean() < 8 for c in corners), [c.mean() for c in corners]

    # The program's picture of the same state: its save, loaded and drawn by the program, against
    # the save loaded here (a loaded run opens in three quarters, a built encounter down its axis).
    save = str(tmp_path / "s.tipsy")
    r.save(save)
    loaded = starburst.Run.load(save, backend="cpu")
    assert np.array_equal(rendered(loaded, 320, 200), screenshot(starburst_cli, tmp_path, "--load", save))
    # The state was drawn, not stepped.
    assert r.step == 2 and loaded.step == 2


def screenshot(starburst_cli, tmp_path, *args, size="320x200"):
    """The program's first frame of a paused run, headless, as a numpy array."""
    png = str(tmp_path / "program.png")
    rc, out = starburst_cli(*args, "--headless", "--quiet", "--backend", "cpu", "--paused", "--frames", 1,
                            "--size", size, "--screenshot", png)
    assert rc == 0, out
    return png_pixels(png)


def test_every_setting_draws_as_the_program_draws_it(tmp_path, starburst_cli):
    built = starburst.Run(scene="collision", n=2048, seed=3, backend="cpu")
    assert np.array_equal(rendered(built, 320, 200),
                          screenshot(starburst_cli, tmp_path, "--scene", "collision", "-n", 2048, "--seed", 3))
    built.advance(3)
    save = str(tmp_path / "s.tipsy")
    built.save(save)
    loaded = starburst.Run.load(save, backend="cpu")
    img = rendered(loaded, 240, 160, color="speed", show_halo=True, exposure=2, point_size=1.5)
    assert np.array_equal(img, screenshot(starburst_cli, tmp_path, "--load", save, "--color", "speed", "--show-halo",
                                          "--exposure", 2, "--point-size", 1.5, size="240x160"))
    live = starburst.Run(scene="disk", n=2048, seed=3, backend="cpu", halo="live")
    assert np.array_equal(rendered(live, 320, 200, show_halo=True),
                          screenshot(starburst_cli, tmp_path, "--scene", "disk", "-n", 2048, "--seed", 3, "--halo",
                                     "live", "--show-halo"))


def reach(img):
    """How far from the picture's centre the disk's light reaches: the 90th percentile of the lit
    pixels' distances."""
    ys, xs = np.nonzero(img.astype(float).mean(axis=2) > 32)
    h, w = img.shape[:2]
    return float(np.percentile(np.hypot(xs - w / 2, ys - h / 2), 90))


def test_the_camera_moves_where_it_is_told():
    r = starburst.Run(scene="disk", n=4096, seed=1, backend="cpu")
    home = rendered(r, 200, 200)
    # Looked down on, the disk is a round face: as wide as it is tall; nearer, it covers more.
    top = rendered(r, 200, 200, camera={"pitch": 90})
    luma = top.astype(float).mean(axis=2) > 64
    ys, xs = np.nonzero(luma)
    assert abs((xs.max() - xs.min()) - (ys.max() - ys.min())) <= 0.15 * (xs.max() - xs.min())
    edge = rendered(r, 200, 200, camera={"pitch": 0})
    ys, xs = np.nonzero(edge.astype(float).mean(axis=2) > 64)
    assert (ys.max() - ys.min()) < 0.5 * (xs.max() - xs.min()), "edge-on, the disk is a thin line"
    near = rendered(r, 200, 200, camera={"pitch": 90, "distance": 8})
    far = rendered(r, 200, 200, camera={"pitch": 90, "distance": 30})
    assert reach(near) > 1.2 * reach(top) and reach(top) > 1.2 * reach(far), (reach(near), reach(top), reach(far))
    aside = rendered(r, 200, 200, camera={"pitch": 90, "target": (4, 0, 0)})
    ys, xs = np.nonzero(aside.astype(float).mean(axis=2) > 64)
    assert xs.mean() < 100, "the disk moves left when the eye looks to its right"
    assert not np.array_equal(home, top)


def test_a_size_the_program_refuses_is_refused_with_its_line(starburst_cli):
    r = starburst.Run(scene="disk", n=2048, seed=3, backend="cpu")
    for args, kw in (((0, 200), {}), ((320, 200), {"color": "plaid"}), ((320, 200), {"exposure": -1}),
                     ((320, 200), {"point_size": 100})):
        with pytest.raises(starburst.Error) as e:
            rendered(r, *args, **kw)
        option = {"color": ["--color", kw.get("color")], "exposure": ["--exposure", kw.get("exposure")],
                  "point_size": ["--point-size", kw.get("point_size")]}
        extra = [x for k in kw for x in option[k]]
        rc, out = starburst_cli("--scene", "disk", "-n", 2048, "--headless", "--size", "%dx%d" % args, "--frames", 1,
                                *extra)
        assert rc != 0 and str(e.value) == out.strip().splitlines()[-1][len("starburst: "):]


def test_a_camera_that_cannot_be_is_refused():
    r = starburst.Run(scene="disk", n=2048, seed=3, backend="cpu")
    for camera in ({"distance": -1}, {"distance": float("inf")}, {"yaw": float("nan")}, {"zoom": 2}):
        with pytest.raises(starburst.Error, match="camera"):
            rendered(r, 64, 64, camera=camera)
    assert rendered(r, 64, 64).shape == (64, 64, 3), "the run draws on after a refusal"


def test_frames_are_the_run_as_it_goes():
    r = starburst.Run(scene="disk", n=2048, seed=5, backend="cpu")
    shots = list(r.frames(3, steps=4, width=64, height=48))
    assert len(shots) == 3 and r.step == 8
    again = starburst.Run(scene="disk", n=2048, seed=5, backend="cpu")
    for k, shot in enumerate(shots):
        assert np.array_equal(shot, rendered(again, 64, 48)), "frame %d" % k
        again.advance(4)
    assert not np.array_equal(shots[0], shots[2])
    with pytest.raises(starburst.Error, match="frames"):
        list(r.frames(2, steps=-1))
    assert r.step == 8


def test_a_movie_is_written_whole(tmp_path):
    import shutil
    import subprocess
    if not shutil.which("ffmpeg") or not shutil.which("ffprobe"):
        if os.environ.get("STARBURST_REQUIRE_FFMPEG") == "1":
            pytest.fail("ffmpeg is required here (STARBURST_REQUIRE_FFMPEG=1): apt-get install ffmpeg")
        pytest.skip("Debian's ffmpeg writes the movie")
    r = starburst.Run(scene="collision", n=2048, seed=5, backend="cpu")
    rendered(r, 16, 16)
    path = tmp_path / "collision.mp4"
    assert r.movie(path, 6, steps=2, fps=12, width=96, height=64) == str(path)
    assert r.step == 10 and sorted(p.name for p in tmp_path.iterdir()) == ["collision.mp4"]
    probe = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                            "stream=nb_read_frames,width,height", "-of", "csv=p=0", str(path)],
                           capture_output=True, text=True, check=True)
    assert probe.stdout.strip() == "96,64,6"
    with pytest.raises(starburst.Error, match="does not exist"):
        r.movie(tmp_path / "no" / "such.mp4", 2)
