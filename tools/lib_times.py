"""Times libstarburst's pictures and reads through its C API (ctypes alone: no numpy needed).

    python3 tools/lib_times.py LIBSTARBURST [--ppm FILE] [--read-n N[,N...]] [--cudart LIB]

- starburst_render of the 1M collision (CUDA) at 1920x1080 and at 16x16 (what a picture costs
  beside its pixels), ms a picture: first, median, 90th percentile, least;
- starburst_read of the positions of N bodies against one cudaMemcpy of the same bytes from the
  device into pageable host memory (the cudart given, else the first found).
"""
import argparse
import ctypes as C
import statistics
import sys
import time


class Desc(C.Structure):
    _fields_ = [("scene", C.c_char_p), ("n", C.c_int), ("seed", C.c_uint64), ("backend", C.c_char_p),
                ("force", C.c_char_p), ("halo", C.c_char_p)]


class View(C.Structure):
    _fields_ = [("width", C.c_int), ("height", C.c_int), ("camera", C.c_uint), ("yaw", C.c_float),
                ("pitch", C.c_float), ("distance", C.c_float), ("target", C.c_float * 3), ("exposure", C.c_float),
                ("point_size", C.c_float), ("color", C.c_char_p), ("show_halo", C.c_int)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lib")
    ap.add_argument("--ppm", help="write the 1920x1080 picture here")
    ap.add_argument("--read-n", default="1048576,16777216")
    ap.add_argument("--cudart", default="")
    ap.add_argument("--repeats", type=int, default=40)
    a = ap.parse_args()
    lib = C.CDLL(a.lib)
    lib.starburst_make.argtypes = [C.POINTER(Desc), C.POINTER(C.c_void_p), C.c_char_p, C.c_size_t]
    lib.starburst_render.argtypes = [C.c_void_p, C.POINTER(View), C.c_void_p]
    lib.starburst_read.argtypes = [C.c_void_p, C.c_void_p, C.c_void_p, C.c_void_p, C.c_void_p]
    lib.starburst_advance.argtypes = [C.c_void_p, C.c_int]
    lib.starburst_count.argtypes = [C.c_void_p]
    lib.starburst_destroy.argtypes = [C.c_void_p]
    lib.starburst_error.restype = C.c_char_p
    lib.starburst_error.argtypes = [C.c_void_p]

    def make(n):
        r = C.c_void_p()
        err = C.create_string_buffer(1024)
        if lib.starburst_make(C.byref(Desc(scene=b"collision", n=n, seed=1, backend=b"cuda")), C.byref(r), err, 1024):
            sys.exit("make: %s" % err.value.decode())
        return r

    def times(run, f, k):
        t = []
        for _ in range(k):
            t0 = time.perf_counter()
            rc = f()
            t.append((time.perf_counter() - t0) * 1e3)
            if rc:
                sys.exit("rc %d: %s" % (rc, lib.starburst_error(run).decode() if run else "cudaMemcpy"))
        rest = sorted(t[1:])
        return "first %.2f, median %.2f, p90 %.2f, least %.2f ms (%d)" % (
            t[0], statistics.median(rest), rest[int(0.9 * (len(rest) - 1))], rest[0], k)

    r = make(1048576)
    lib.starburst_advance(r, 20)
    for w, h in ((1920, 1080), (16, 16)):
        buf = (C.c_uint8 * (w * h * 3))()
        v = View(width=w, height=h)
        print("render 1M collision %dx%d: %s" % (w, h, times(r, lambda: lib.starburst_render(r, C.byref(v), buf),
                                                             a.repeats)), flush=True)
        if a.ppm and w == 1920:
            with open(a.ppm, "wb") as f:
                f.write(b"P6 %d %d 255\n" % (w, h))
                f.write(bytes(buf))
    lib.starburst_destroy(r)

    cu = None
    for name in ([a.cudart] if a.cudart else []) + ["libcudart.so", "libcudart.so.13", "libcudart.so.12"]:
        try:
            cu = C.CDLL(name)
            break
        except OSError:
            pass
    for n in (int(x) for x in a.read_n.split(",")):
        run = make(n)
        count = lib.starburst_count(run)  # the stars and, with halo fields, their centres
        pos = (C.c_float * (3 * count))()
        print("read positions of %d bodies: %s" % (count, times(run, lambda: lib.starburst_read(run, pos, None, None,
                                                                                               None), 8)), flush=True)
        lib.starburst_destroy(run)
        if cu:
            size = 3 * count * 4
            d = C.c_void_p()
            cu.cudaMalloc.argtypes = [C.POINTER(C.c_void_p), C.c_size_t]
            cu.cudaMemcpy.argtypes = [C.c_void_p, C.c_void_p, C.c_size_t, C.c_int]
            cu.cudaFree.argtypes = [C.c_void_p]
            cu.cudaMalloc(C.byref(d), size)
            host = (C.c_uint8 * size)()
            print("cudaMemcpy of the same %d bytes to pageable memory: %s" % (
                size, times(None, lambda: cu.cudaMemcpy(host, d, size, 2), 8)), flush=True)
            cu.cudaFree(d)
    if not cu:
        print("no libcudart to time a cudaMemcpy with")


if __name__ == "__main__":
    main()
