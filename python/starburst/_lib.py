"""The C library (include/starburst.h) loaded through ctypes, with its calls' signatures.

Where it is found: the path in the environment variable STARBURST_LIB; else libstarburst.so.0 in a
build folder of the source tree this package sits in (build/, then build-chk/); else wherever the
system's loader finds it (installed by `cmake --install`)."""
import ctypes
import ctypes.util
import os

_HERE = os.path.dirname(os.path.abspath(__file__))
_SONAME = "libstarburst.so.0"


def _candidates():
    given = os.environ.get("STARBURST_LIB")
    if given:
        yield given
        return
    tree = os.path.dirname(os.path.dirname(_HERE))
    for build in ("build", "build-chk"):
        yield os.path.join(tree, build, _SONAME)
    yield _SONAME


def _load():
    """The library and the path it was loaded from."""
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path + " (no such file)")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("starburst: libstarburst not found; build it (make) or set STARBURST_LIB to its path. "
                      "Tried: " + "; ".join(tried))


class Desc(ctypes.Structure):
    _fields_ = [("scene", ctypes.c_char_p), ("n", ctypes.c_int), ("seed", ctypes.c_uint64),
                ("backend", ctypes.c_char_p), ("force", ctypes.c_char_p), ("halo", ctypes.c_char_p)]


class Measure(ctypes.Structure):
    _fields_ = [("galaxy", ctypes.c_int), ("bodies", ctypes.c_int * 3), ("other", ctypes.c_int),
                ("half_mass_radius", ctypes.c_double * 3), ("disk_rms_z", ctypes.c_double),
                ("ring", ctypes.c_double * 2), ("ring_bodies", ctypes.c_int), ("sigma_r", ctypes.c_double),
                ("kappa", ctypes.c_double), ("toomre_q", ctypes.c_double), ("fourier", ctypes.c_double * 7),
                ("beyond", ctypes.c_double), ("beyond_fraction", ctypes.c_double * 3), ("virial", ctypes.c_double),
                ("softening", ctypes.c_double), ("field", ctypes.c_int)]


class View(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int), ("camera", ctypes.c_uint),
                ("yaw", ctypes.c_float), ("pitch", ctypes.c_float), ("distance", ctypes.c_float),
                ("target", ctypes.c_float * 3), ("exposure", ctypes.c_float), ("point_size", ctypes.c_float),
                ("color", ctypes.c_char_p), ("show_halo", ctypes.c_int)]


CAMERA_YAW, CAMERA_PITCH, CAMERA_DISTANCE, CAMERA_TARGET = 1, 2, 4, 8

lib, path = _load()
_run = ctypes.c_void_p
_f = ctypes.POINTER(ctypes.c_float)
_d = ctypes.POINTER(ctypes.c_double)
_signatures = {
    "starburst_version": (ctypes.c_int, []),
    "starburst_make": (ctypes.c_int, [ctypes.POINTER(Desc), ctypes.POINTER(_run), ctypes.c_char_p, ctypes.c_size_t]),
    "starburst_load": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(_run),
                                      ctypes.c_char_p, ctypes.c_size_t]),
    "starburst_open": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(_run),
                                      ctypes.c_char_p, ctypes.c_size_t]),
    "starburst_export_swift": (ctypes.c_int, [_run, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]),
    "starburst_destroy": (None, [_run]),
    "starburst_error": (ctypes.c_char_p, [_run]),
    "starburst_set": (ctypes.c_int, [_run, ctypes.c_char_p, ctypes.c_char_p]),
    "starburst_get": (ctypes.c_double, [_run, ctypes.c_char_p]),
    "starburst_advance": (ctypes.c_int, [_run, ctypes.c_int]),
    "starburst_time": (ctypes.c_double, [_run]),
    "starburst_step": (ctypes.c_longlong, [_run]),
    "starburst_myr": (ctypes.c_double, [_run]),
    "starburst_kpc": (ctypes.c_double, [_run]),
    "starburst_parse_time": (ctypes.c_int, [_run, ctypes.c_char_p, _d]),
    "starburst_count": (ctypes.c_int, [_run]),
    "starburst_read": (ctypes.c_int, [_run, _f, _f, _f, ctypes.POINTER(ctypes.c_uint8)]),
    "starburst_write": (ctypes.c_int, [_run, _f, _f, _f]),
    "starburst_energy": (ctypes.c_int, [_run, _d, _d, _d]),
    "starburst_measure": (ctypes.c_int, [_run, ctypes.c_double, ctypes.c_double, ctypes.c_double,
                                         ctypes.POINTER(Measure), ctypes.POINTER(ctypes.c_int)]),
    "starburst_save": (ctypes.c_int, [_run, ctypes.c_char_p]),
    "starburst_render": (ctypes.c_int, [_run, ctypes.POINTER(View), ctypes.POINTER(ctypes.c_uint8)]),
}
for _name, (_res, _args) in _signatures.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args
