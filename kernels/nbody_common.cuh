/* What the force kernels share: the epilogue that stores a body's acceleration and gives the
 * leapfrog kick, and the approximate reciprocal square root. Device code only. */
#ifndef STARBURST_NBODY_COMMON_CUH
#define STARBURST_NBODY_COMMON_CUH

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "kernels.h"

namespace nbody {

struct Epilogue {
    float4 *acc;
    float4 *vel;
    float *speed;
    float half_kick, next_kick, damping;
    int *nonfinite;
};

/* Sets *flag where a value written is NaN or Inf: a plain store, as every writer stores 1. */
__device__ __forceinline__ void flag_nonfinite(int *flag, float x, float y, float z)
{
    if (flag && !(isfinite(x) && isfinite(y) && isfinite(z))) *flag = 1;
}

template <bool KICK>
__device__ __forceinline__ void finish(int i, float ax, float ay, float az, const Epilogue &e)
{
    e.acc[i] = make_float4(ax, ay, az, 0.0f);
    if (KICK) {
        float4 v = e.vel[i];
        /* Damping acts on the synchronised velocity, so where an advance ends does not matter. */
        v.x = fmaf(ax, e.next_kick, fmaf(ax, e.half_kick, v.x) * e.damping);
        v.y = fmaf(ay, e.next_kick, fmaf(ay, e.half_kick, v.y) * e.damping);
        v.z = fmaf(az, e.next_kick, fmaf(az, e.half_kick, v.z) * e.damping);
        e.vel[i] = v;
        flag_nonfinite(e.nonfinite, v.x, v.y, v.z);
        if (e.speed) e.speed[i] = sqrtf(v.x * v.x + v.y * v.y + v.z * v.z);
    }
}

__device__ __forceinline__ float rsqrt_ftz(float x)
{
    float y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

/* What a launcher returns after its launches: their error, taken through CUDA_CHECK. */
inline cudaError_t launch_error()
{
    CudaStatus st = {};
    CUDA_CHECK(&st, cudaGetLastError());
    return st.error;
}

/* The symmetric kernel (nbody_symmetric.cu): its launch, pair sums kernel then sum + kick, and
 * its shape check (0, or -1 with one line in err). */
cudaError_t launch_symmetric(const NbodyForces *f, float eps2, cudaStream_t stream);
cudaError_t launch_symmetric_tasks(const NbodyForces *f, float eps2, int first, int count, cudaStream_t stream);
cudaError_t launch_symmetric_finish(const NbodyForces *f, cudaStream_t stream);
int symmetric_check(NbodyShape shape, char *err, size_t errlen);

} // namespace nbody

#endif
