/* What the force kernels share: the epilogue that stores a body's acceleration and gives the
 * leapfrog kick, and the approximate reciprocal square root. Device code only. */
#ifndef STARBURST_NBODY_COMMON_CUH
#define STARBURST_NBODY_COMMON_CUH

#include <cuda_runtime.h>

#include "kernels.h"

namespace nbody {

struct Epilogue {
    float4 *acc;
    float4 *vel;
    float *speed;
    float kick, damping;
};

template <bool KICK>
__device__ __forceinline__ void finish(int i, float ax, float ay, float az, const Epilogue &e)
{
    e.acc[i] = make_float4(ax, ay, az, 0.0f);
    if (KICK) {
        float4 v = e.vel[i];
        v.x = (v.x + ax * e.kick) * e.damping;
        v.y = (v.y + ay * e.kick) * e.damping;
        v.z = (v.z + az * e.kick) * e.damping;
        e.vel[i] = v;
        if (e.speed) e.speed[i] = sqrtf(v.x * v.x + v.y * v.y + v.z * v.z);
    }
}

__device__ __forceinline__ float rsqrt_ftz(float x)
{
    float y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

/* The symmetric kernel (nbody_symmetric.cu): its launch, pair sums kernel then sum + kick, and
 * its shape check (0, or -1 with one line in err). */
cudaError_t launch_symmetric(const NbodyForces *f, float eps2, cudaStream_t stream);
int symmetric_check(NbodyShape shape, char *err, size_t errlen);

} // namespace nbody

#endif
