"""run.render: the state drawn headless (EGL; Mesa's llvmpipe on a machine without a GPU) as the
program draws it: the galaxies lit near the centre, the corners dark, and the program's own
--screenshot of the same state and size."""
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

    # The program's picture of the same state: its save, drawn by the program.
    save, png = str(tmp_path / "s.tipsy"), str(tmp_path / "s.png")
    r.save(save)
    rc, out = starburst_cli("--load", save, "--headless", "--quiet", "--backend", "cpu", "--paused", "--frames", 1,
                            "--size", "320x200", "--screenshot", png)
    assert rc == 0, out
    assert np.array_equal(img, png_pixels(png))
    # The state was drawn, not stepped.
    assert r.step == 2


def test_a_size_the_program_refuses_is_refused_with_its_line(starburst_cli):
    r = starburst.Run(scene="disk", n=2048, seed=3, backend="cpu")
    with pytest.raises(starburst.Error) as e:
        rendered(r, 0, 200)
    rc, out = starburst_cli("--scene", "disk", "-n", 2048, "--headless", "--size", "0x200", "--frames", 1)
    assert rc != 0 and str(e.value) == out.strip().splitlines()[-1][len("starburst: "):]
