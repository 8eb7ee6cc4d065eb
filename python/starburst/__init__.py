"""Starburst from Python: a galaxy collision (or another of the program's scenes) made, evolved,
read into numpy and saved, by the same code the `starburst` program runs.

    import starburst
    run = starburst.Run(scene="collision", n=4096, seed=1, backend="cpu")
    run.evolve("500 Myr")
    print(run.time, run.positions[:3], run.energy()["total"])
    run.save("collision.tipsy")          # starburst --load collision.tipsy goes on from here

Values are in the run's model units (G = 1; the galaxy scenes' unit of time is 8.41 Myr, of length
a disk scale length, 2.6 kpc); a string may carry a unit ("0.2 Myr", "200 pc"), read as the command
line reads it. A value the program refuses raises starburst.Error with the program's own line, and
leaves the run as it was.

The C library is found through the environment variable STARBURST_LIB (a path to
libstarburst.so.0), else in the build folder of the source tree beside this package, else where
the system's loader looks (see starburst._lib)."""
import ctypes
import math
import os
import shutil
import subprocess

import numpy as np

from . import _lib

__all__ = ["Run", "Error", "version"]

_lib_c = _lib.lib


class Error(Exception):
    """A call refused or failed: the message is the line the program prints; code is the C
    library's (1 a value refused, 2 a file, 3 the backend stopped, 4 memory)."""

    def __init__(self, message, code=1):
        super().__init__(message)
        self.code = code


def version():
    """The C library's version as (major, minor)."""
    v = _lib_c.starburst_version()
    return v >> 16, v & 0xFFFF


def _text(value):
    """A value as the command line would be given it: a string as it is, a number exactly."""
    if value is None:
        return None
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bool):
        raise TypeError("a number or a string is expected, not %r" % (value,))
    if isinstance(value, (int, np.integer)):
        return str(int(value)).encode()
    return repr(float(value)).encode()


def _name(value):
    return None if value is None else str(value).encode()


_ERR_BYTES = 1024


class Run:
    """A run of the program: its bodies, clock and parameters.

    Run(scene="collision", n=None, seed=1, backend="auto", force="auto", halo="field") builds one
    of the program's scenes as `starburst --scene SCENE -n N --seed SEED --backend B --force M
    --halo H` does: n None is the program's default (16384 on the CPU, 131072 on CUDA); scene one
    of collision, disk, plummer, shell, random; backend auto, cpu or cuda; force auto, direct,
    tree or fmm; halo field (analytic halos, every body a star) or live (halo bodies). dt and
    softening are the scene's own, damping 1 (off), theta and alpha the program's defaults.
    Run.load(path) goes on from a save."""

    def __init__(self, scene="collision", n=None, seed=1, backend="auto", force="auto", halo="field", _handle=None):
        self._r = _handle
        if _handle is not None:
            return
        if n is not None and (isinstance(n, bool) or int(n) != n):
            raise Error("-n: '%s' is not a whole number" % (n,))
        desc = _lib.Desc(_name(scene), 0 if n is None else int(n), int(seed), _name(backend), _name(force),
                         _name(halo))
        handle = ctypes.c_void_p()
        err = ctypes.create_string_buffer(_ERR_BYTES)
        rc = _lib_c.starburst_make(ctypes.byref(desc), ctypes.byref(handle), err, _ERR_BYTES)
        if rc != 0:
            raise Error(err.value.decode(errors="replace"), rc)
        self._r = handle

    @classmethod
    def load(cls, path, backend="auto", force="auto"):
        """The run saved at path (a TIPSY file with path.ini beside it, as `starburst --load`
        takes), going on with its saved dt, softening, damping, theta and alpha."""
        handle = ctypes.c_void_p()
        err = ctypes.create_string_buffer(_ERR_BYTES)
        rc = _lib_c.starburst_load(str(path).encode(), _name(backend), _name(force), ctypes.byref(handle), err,
                                   _ERR_BYTES)
        if rc != 0:
            raise Error(err.value.decode(errors="replace"), rc)
        return cls(_handle=handle)

    @classmethod
    def open(cls, path, backend="auto", force="auto"):
        """A run from the first snapshot of what is at path, as `starburst --open` takes it: a
        TIPSY file (this program's or another code's; on the scale its .ini gives, else in model
        units), an HDF5 snapshot (SWIFT, GADGET), a folder or a pattern of them. dt and softening
        are what its files record, else the program's defaults."""
        handle = ctypes.c_void_p()
        err = ctypes.create_string_buffer(_ERR_BYTES)
        rc = _lib_c.starburst_open(str(path).encode(), _name(backend), _name(force), ctypes.byref(handle), err,
                                   _ERR_BYTES)
        if rc != 0:
            raise Error(err.value.decode(errors="replace"), rc)
        return cls(_handle=handle)

    def close(self):
        """Frees the run now (else when the object goes)."""
        if self._r:
            _lib_c.starburst_destroy(self._r)
            self._r = None

    def __del__(self):
        if getattr(self, "_r", None):
            self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        if not self._r:
            return "<starburst.Run closed>"
        when = "t = %.6g" % self.time
        if self.myr:
            when += " (%.4g Myr)" % (self.time * self.myr)
        return "<starburst.Run of %d bodies, step %d, %s>" % (self.n, self.step, when)

    def _check(self, rc):
        if rc != 0:
            raise Error(_lib_c.starburst_error(self._r).decode(errors="replace"), rc)

    # ---- parameters ----

    _PARAMS = ("dt", "softening", "damping", "theta", "alpha", "steps_per_frame")

    def set(self, **values):
        """Sets parameters as the command line's options do: dt (model time units, or with a unit:
        "0.2 Myr"), softening (model length units, or "200 pc"), damping (velocity factor a step,
        1 = off), theta (the tree's opening angle), alpha (the tree opened by estimated error; 0:
        by theta), steps_per_frame (what a save records for the window). Each value is checked
        against the program's range; where one is refused, none of them is set."""
        before = self.params()
        try:
            for key, value in values.items():
                self._check(_lib_c.starburst_set(self._r, key.encode(), _text(value)))
        except Error:
            for key, value in before.items():
                _lib_c.starburst_set(self._r, key.encode(), repr(value).encode())
            raise

    def params(self):
        """The parameters now, in model units, as a dict (dt, softening, damping, theta, alpha,
        steps_per_frame)."""
        out = {k: _lib_c.starburst_get(self._r, k.encode()) for k in self._PARAMS}
        out["steps_per_frame"] = int(out["steps_per_frame"])
        return out

    # ---- the clock ----

    def advance(self, steps=1):
        """Runs steps steps of dt (the program's leapfrog, with the force method chosen)."""
        if isinstance(steps, bool) or int(steps) != steps:
            raise Error("steps: '%s' is not a whole number" % (steps,))
        self._check(_lib_c.starburst_advance(self._r, int(steps)))

    def time_of(self, t):
        """t in model time units: a number as it is, a string read as --dt reads one ("500 Myr",
        "1.2 Gyr", "30")."""
        if not isinstance(t, str):
            return float(t)
        out = ctypes.c_double()
        self._check(_lib_c.starburst_parse_time(self._r, t.encode(), ctypes.byref(out)))
        return out.value

    def evolve(self, t):
        """Runs whole steps of dt until the run's time reaches t (model time units, or a string
        with its unit: "500 Myr"); the last step ends less than dt past it. Returns the steps
        run."""
        target = self.time_of(t)
        dt = self.params()["dt"]
        left = target - self.time
        steps = max(0, math.ceil(left / dt - 1e-9)) if left > 0 else 0
        self.advance(steps)
        return steps

    @property
    def time(self):
        """The simulated time, in model time units (see myr)."""
        return _lib_c.starburst_time(self._r)

    @property
    def step(self):
        """Steps run since the scene was built (a loaded run counts on from its save)."""
        return _lib_c.starburst_step(self._r)

    @property
    def myr(self):
        """One model time unit in Myr, or 0.0 where the run has no physical scale."""
        return _lib_c.starburst_myr(self._r)

    @property
    def kpc(self):
        """One model length unit in kpc, or 0.0 where the run has no physical scale."""
        return _lib_c.starburst_kpc(self._r)

    # ---- the bodies ----

    @property
    def n(self):
        """Bodies held: the stars, and with halos as fields one centre body a galaxy, last."""
        return _lib_c.starburst_count(self._r)

    def _read(self, which):
        n = self.n
        arrays = {"pos": None, "vel": None, "mass": None, "tag": None}
        shapes = {"pos": ((n, 3), np.float32), "vel": ((n, 3), np.float32), "mass": ((n,), np.float32),
                  "tag": ((n,), np.uint8)}
        shape, dtype = shapes[which]
        out = np.empty(shape, dtype)
        arrays[which] = out.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8 if which == "tag" else ctypes.c_float))
        self._check(_lib_c.starburst_read(self._r, arrays["pos"], arrays["vel"], arrays["mass"], arrays["tag"]))
        return out

    @property
    def positions(self):
        """Positions now, a copy: float32 array (n, 3), model length units."""
        return self._read("pos")

    @property
    def velocities(self):
        """Velocities now, a copy: float32 array (n, 3), model speed units."""
        return self._read("vel")

    @property
    def masses(self):
        """Masses, a copy: float32 array (n,), model mass units."""
        return self._read("mass")

    @property
    def tags(self):
        """Which galaxy and component each body is, a copy: uint8 array (n,), galaxy << 2 |
        component (0 disk, 1 bulge, 2 halo, 3 other)."""
        return self._read("tag")

    def set_bodies(self, positions=None, velocities=None, masses=None):
        """Replaces the bodies' positions (n, 3), velocities (n, 3) and masses (n,) in model units
        (None: kept), the time and step as they are; the tags stay. Each body is checked as a
        file's bodies are (finite, no larger than 1e18, a mass above 0): one that is not is
        refused with its index, and the run is left as it was."""
        n = self.n
        given = []
        for label, value, shape in (("positions", positions, (n, 3)), ("velocities", velocities, (n, 3)),
                                    ("masses", masses, (n,))):
            if value is None:
                given.append(None)
                continue
            a = np.ascontiguousarray(value, dtype=np.float32)
            if a.shape != shape:
                raise Error("%s: shape %s given, the run holds %d bodies: expected %s" % (label, a.shape, n, shape))
            given.append(a)
        ptrs = [None if a is None else a.ctypes.data_as(ctypes.POINTER(ctypes.c_float)) for a in given]
        self._check(_lib_c.starburst_write(self._r, *ptrs))

    # ---- measures and files ----

    def energy(self):
        """The energy now with the run's softening, summed in double: a dict of kinetic,
        potential, friction (the work the halo fields' friction took out; 0 without fields) and
        total (their sum: what the integrator conserves), in model energy units."""
        k, p, f = ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
        self._check(_lib_c.starburst_energy(self._r, ctypes.byref(k), ctypes.byref(p), ctypes.byref(f)))
        return {"kinetic": k.value, "potential": p.value, "friction": f.value,
                "total": k.value + p.value + f.value}

    def measure(self, ring=None, beyond=None):
        """The structure of each galaxy now, as `starburst-measure` prints it for a save of this
        state (the same code): a dict from the galaxy (0, 1) to a dict of
          bodies        {"disk", "bulge", "halo"}: the galaxy's bodies of each component
          other         its bodies of no component
          R_half        {"disk", "bulge", "halo"}: half-mass radii (the disk's cylindrical in its
                        plane, found from its spin; the others spherical)
          rms_z         the disk's rms thickness
          ring          (R0, R1): the annulus of the disk plane measured (default 2 3)
          ring_bodies   disk bodies in it
          sigma_R, kappa, Q   there: radial velocity dispersion, epicyclic frequency, Toomre's Q
          A             [A_1 .. A_6]: the Fourier amplitudes of the disk there
          beyond        the radius of beyond_fraction (default 22.5)
          beyond_fraction  {"disk", "halo"}: mass fractions beyond it
          virial        2K/|W|, W at the run's softening (with halos as fields: the stars'
                        Clausius virial in their field, field True)
          softening
        in model units. A figure the bodies cannot give (no bodies of a component, fewer than two
        disk bodies in the annulus, 2K/|W| over 32768 bodies) is None, where the tool prints
        "not measured". ring (R0, R1) and beyond as the tool's --ring and --beyond."""
        r0, r1 = (0.0, 0.0) if ring is None else (float(ring[0]), float(ring[1]))
        out = (_lib.Measure * 2)()
        count = ctypes.c_int()
        self._check(_lib_c.starburst_measure(self._r, r0, r1, 0.0 if beyond is None else float(beyond), out,
                                             ctypes.byref(count)))

        def value(x):
            return None if math.isnan(x) else x

        def parts(values, names=("disk", "bulge", "halo")):
            return {name: value(values[i]) for i, name in enumerate(("disk", "bulge", "halo")) if name in names}

        galaxies = {}
        for m in out[:count.value]:
            galaxies[m.galaxy] = {
                "bodies": {name: m.bodies[i] for i, name in enumerate(("disk", "bulge", "halo"))},
                "other": m.other, "R_half": parts(m.half_mass_radius), "rms_z": value(m.disk_rms_z),
                "ring": (m.ring[0], m.ring[1]), "ring_bodies": m.ring_bodies, "sigma_R": value(m.sigma_r),
                "kappa": value(m.kappa), "Q": value(m.toomre_q), "A": [value(a) for a in m.fourier[1:7]],
                "beyond": m.beyond, "beyond_fraction": parts(m.beyond_fraction, ("disk", "halo")),
                "virial": value(m.virial), "softening": m.softening, "field": bool(m.field)}
        return galaxies

    def save(self, path):
        """Writes the run as the program saves it (path as TIPSY, path.acc, path.ini):
        `starburst --load path` and Run.load(path) go on from it bit for bit."""
        self._check(_lib_c.starburst_save(self._r, str(path).encode()))

    def export_swift(self, folder):
        """Hands the state now to SWIFT in folder (made where it does not exist), as `starburst
        export --swift` does: the initial conditions, params.yml for this run's dt and softening,
        and README.txt (how to run it). Returns the program's summary line. Halos as fields are
        sampled into bodies at a built run's start only: a later state is refused (Error)."""
        out = ctypes.create_string_buffer(_ERR_BYTES)
        self._check(_lib_c.starburst_export_swift(self._r, str(folder).encode(), out, _ERR_BYTES))
        return out.value.decode(errors="replace")

    # ---- pictures ----

    def render(self, width=1280, height=720, camera=None, color="component", exposure=None, point_size=None,
               show_halo=False):
        """The state now as the program draws it: a numpy uint8 array (height, width, 3), top row
        first (a notebook shows it with matplotlib's imshow). It is the picture the program's
        --screenshot takes of the same state (`starburst --load SAVE --headless --paused --frames
        1 --screenshot`), drawn by the same renderer inside the library, headless (EGL: NVIDIA's on
        a GPU, Mesa's elsewhere); the state is not stepped.

        camera: None for the program's home view of the state, or a dict of any of yaw and pitch
        (degrees; the eye at target + distance (cos p cos y, cos p sin y, sin p), z up), distance
        (model lengths from the target) and target (x, y, z), the rest the home view's; pitch 90
        looks down on the x-y plane. color: component (galaxy and disk/bulge/halo) or speed;
        exposure and point_size as --exposure and --point-size (None: the program's defaults);
        show_halo draws the dark halo too (its bodies, or each field's ring)."""
        view = _lib.View(width=int(width), height=int(height), color=_name(color),
                         exposure=0.0 if exposure is None else float(exposure),
                         point_size=0.0 if point_size is None else float(point_size), show_halo=int(bool(show_halo)))
        bits = {"yaw": _lib.CAMERA_YAW, "pitch": _lib.CAMERA_PITCH, "distance": _lib.CAMERA_DISTANCE,
                "target": _lib.CAMERA_TARGET}
        for key, value in (camera or {}).items():
            if key not in bits:
                raise Error("camera: %s: not yaw, pitch, distance or target" % key)
            view.camera |= bits[key]
            if key == "target":
                view.target[:] = [float(x) for x in value]
            else:
                setattr(view, key, float(value))
        if not (0 < view.width <= 16384 and 0 < view.height <= 16384):
            # the library reads the size as --size does, and says so in its line
            self._check(_lib_c.starburst_render(self._r, ctypes.byref(view), None))
        img = np.empty((view.height, view.width, 3), dtype=np.uint8)
        self._check(_lib_c.starburst_render(self._r, ctypes.byref(view),
                                            img.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8))))
        return img

    def frames(self, count, steps=None, width=1280, height=720, camera=None, **draw):
        """Pictures of the run as it goes, for a movie: yields count numpy images (as render
        gives), the state now first, then after each `steps` steps (default: the run's
        steps_per_frame, as the program's frames go). camera and the drawing's keywords (color,
        exposure, point_size, show_halo) as render's; camera None follows the home view of each
        state. The run is advanced by (count - 1) x steps in all."""
        count = int(count)
        steps = int(self.params()["steps_per_frame"] if steps is None else steps)
        if count < 0 or steps < 0:
            raise Error("frames: count and steps are 0 or more (got %d, %d)" % (count, steps))
        for k in range(count):
            if k:
                self.advance(steps)
            yield self.render(width, height, camera=camera, **draw)

    def movie(self, path, count, steps=None, fps=30, width=1280, height=720, camera=None, **draw):
        """Writes the frames of frames() into a video at path (its container from the name:
        .mp4, .webm, .mkv ...) through ffmpeg (Debian's ffmpeg), H.264 for .mp4, fps frames a
        second; half-written files are not left under path (a temporary name until the end).
        Returns path."""
        ffmpeg = shutil.which("ffmpeg")
        if not ffmpeg:
            raise Error("movie: ffmpeg not found (apt-get install ffmpeg)")
        path = os.fspath(path)
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise Error("movie: cannot write %s: folder %s does not exist" % (path, folder))
        root, ext = os.path.splitext(path)
        partial = "%s.partial%s" % (root, ext)
        args = [ffmpeg, "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "%dx%d" % (width, height),
                "-r", str(fps), "-i", "-"]
        if ext.lower() in (".mp4", ".mov", ".mkv"):
            args += ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2"]
        p = subprocess.Popen(args + [partial], stdin=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            for img in self.frames(count, steps, width, height, camera, **draw):
                p.stdin.write(img.tobytes())
            p.stdin.close()
            why = p.stderr.read().decode(errors="replace").strip()
            if p.wait() != 0:
                raise Error("movie: ffmpeg could not write %s: %s" % (path, why.splitlines()[-1] if why else "failed"))
            os.replace(partial, path)
        except BaseException:
            p.kill()
            p.wait()
            if os.path.exists(partial):
                os.unlink(partial)
            raise
        return path
