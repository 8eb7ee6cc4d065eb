/* The timing core of the bench: force kernels timed with CUDA events on a fixed random ball, and
 * the device's FP32 rate measured by a kernel of independent FFMA chains, so "% of peak" is read
 * against this card at its present clocks rather than a datasheet. */
#include "cuda_check.h"
#include "kernels.h"

#include <stdlib.h>
#include <string.h>

struct NbodyBench {
    int n;
    float4 *pos, *vel, *acc;
    cudaEvent_t start, mid, stop;
};

namespace {

constexpr int PEAK_CHAINS = 8;
constexpr int PEAK_UNROLL = 16;

/* PEAK_CHAINS independent chains per thread keep every FP32 lane busy despite FFMA latency;
 * the store that never happens keeps the compiler from dropping the arithmetic. */
__global__ void fp32_peak(float *out, int iterations, float b, float c)
{
    float x[PEAK_CHAINS];
#pragma unroll
    for (int k = 0; k < PEAK_CHAINS; k++) x[k] = threadIdx.x * 1e-3f + k;
    for (int it = 0; it < iterations; it++) {
#pragma unroll
        for (int u = 0; u < PEAK_UNROLL; u++) {
#pragma unroll
            for (int k = 0; k < PEAK_CHAINS; k++) x[k] = fmaf(x[k], b, c);
        }
    }
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < PEAK_CHAINS; k++) sum += x[k];
    if (sum == -1.0f) out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

/* A ball of radius 1, uniform in volume, bodies of mass 1/n at rest (LCG, fixed seed). */
void random_ball(float4 *pos, int n, unsigned seed)
{
    unsigned long long s = seed * 2862933555777941757ull + 3037000493ull;
    auto next = [&s]() {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return (float)((s >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f;
    };
    for (int i = 0; i < n; i++) {
        float x, y, z;
        do {
            x = next();
            y = next();
            z = next();
        } while (x * x + y * y + z * z > 1.0f);
        pos[i] = make_float4(x, y, z, 1.0f / n);
    }
}

int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

} // namespace

extern "C" cudaError_t nbody_device_info(char *name, size_t namelen, int *sm_count)
{
    int dev;
    cudaDeviceProp p;
    CudaStatus st = {};
    if (!CUDA_CHECK(&st, cudaGetDevice(&dev)) || !CUDA_CHECK(&st, cudaGetDeviceProperties(&p, dev))) return st.error;
    if (namelen > 0) {
        strncpy(name, p.name, namelen - 1);
        name[namelen - 1] = '\0';
    }
    *sm_count = p.multiProcessorCount;
    return cudaSuccess;
}

extern "C" cudaError_t nbody_bench_fp32_peak(double *fp32_instr_per_s)
{
    int dev, sms;
    CudaStatus st = {};
    if (!CUDA_CHECK(&st, cudaGetDevice(&dev)) ||
        !CUDA_CHECK(&st, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)))
        return st.error;
    const int block = 256, grid = sms * 8, iterations = 4096;
    float *out = NULL;
    cudaEvent_t a = NULL, b = NULL;
    bool ok = CUDA_CHECK(&st, cudaMalloc(&out, (size_t)grid * block * sizeof(float))) &&
              CUDA_CHECK(&st, cudaEventCreate(&a)) && CUDA_CHECK(&st, cudaEventCreate(&b));
    double best = 0.0;
    for (int rep = 0; ok && rep < 4; rep++) {
        float ms = 0.0f;
        ok = CUDA_CHECK(&st, cudaEventRecord(a));
        if (ok) fp32_peak<<<grid, block>>>(out, iterations, 0.999999f, 1e-6f);
        ok = ok && CUDA_CHECK(&st, cudaGetLastError()) && CUDA_CHECK(&st, cudaEventRecord(b)) &&
             CUDA_CHECK(&st, cudaEventSynchronize(b)) && CUDA_CHECK(&st, cudaEventElapsedTime(&ms, a, b));
        double instr = (double)grid * block * iterations * PEAK_UNROLL * PEAK_CHAINS;
        if (ok && rep > 0 && instr / (ms * 1e-3) > best) best = instr / (ms * 1e-3);
    }
    if (a) cudaEventDestroy(a);
    if (b) cudaEventDestroy(b);
    CUDA_CHECK(&st, cudaFree(out));
    *fp32_instr_per_s = best;
    return st.error;
}

extern "C" cudaError_t nbody_bench_create(NbodyBench **out, int n, unsigned seed)
{
    *out = NULL;
    NbodyBench *b = (NbodyBench *)calloc(1, sizeof *b);
    float4 *host = (float4 *)malloc((size_t)n * sizeof(float4));
    if (!b || !host) {
        free(b);
        free(host);
        return cudaErrorMemoryAllocation;
    }
    b->n = n;
    random_ball(host, n, seed);
    const size_t bytes = (size_t)n * sizeof(float4);
    CudaStatus st = {};
    bool ok = CUDA_CHECK(&st, cudaMalloc(&b->pos, bytes)) && CUDA_CHECK(&st, cudaMalloc(&b->vel, bytes)) &&
              CUDA_CHECK(&st, cudaMalloc(&b->acc, bytes)) &&
              CUDA_CHECK(&st, cudaMemcpy(b->pos, host, bytes, cudaMemcpyHostToDevice)) &&
              CUDA_CHECK(&st, cudaMemset(b->vel, 0, bytes)) && CUDA_CHECK(&st, cudaEventCreate(&b->start)) &&
              CUDA_CHECK(&st, cudaEventCreate(&b->mid)) && CUDA_CHECK(&st, cudaEventCreate(&b->stop));
    free(host);
    if (!ok) {
        nbody_bench_destroy(b);
        return st.error;
    }
    *out = b;
    return cudaSuccess;
}

extern "C" void nbody_bench_destroy(NbodyBench *b)
{
    if (!b) return;
    cudaFree(b->pos);
    cudaFree(b->vel);
    cudaFree(b->acc);
    if (b->start) cudaEventDestroy(b->start);
    if (b->mid) cudaEventDestroy(b->mid);
    if (b->stop) cudaEventDestroy(b->stop);
    free(b);
}

/* The steps are timed with zero dt and zero kick so the bodies stay where they are: every launch
 * sees the same inputs. */
extern "C" cudaError_t nbody_bench_time(NbodyBench *b, NbodyKernel kernel, NbodyPrecision precision, NbodyShape shape,
                                        int repeats, double *force_ms, double *step_ms)
{
    NbodyForces f = {};
    f.kernel = kernel;
    f.precision = precision;
    f.shape = shape;
    f.n = b->n;
    f.eps2 = 1e-4f;
    f.pos = b->pos;
    f.acc = b->acc;
    f.vel = b->vel;
    f.damping = 1.0f;
    if (repeats < 1) repeats = 1;
    double *fm = (double *)malloc(2 * (size_t)repeats * sizeof(double));
    if (!fm) return cudaErrorMemoryAllocation;
    double *sm = fm + repeats;
    f.pair_sums_bytes = nbody_pair_sums_bytes(kernel, shape, b->n);
    CudaStatus st = {};
    bool ok = (!f.pair_sums_bytes || CUDA_CHECK(&st, cudaMalloc((void **)&f.pair_sums, f.pair_sums_bytes))) &&
              CUDA_CHECK(&st, nbody_forces_launch(&f, 0)) && CUDA_CHECK(&st, cudaDeviceSynchronize());
    for (int r = 0; r < repeats && ok; r++) {
        float t1 = 0.0f, t2 = 0.0f;
        ok = CUDA_CHECK(&st, cudaEventRecord(b->start)) &&
             CUDA_CHECK(&st, nbody_drift_launch(b->pos, b->vel, b->acc, b->n, 0.0f, 0.0f, NULL, 0)) &&
             CUDA_CHECK(&st, cudaEventRecord(b->mid)) && CUDA_CHECK(&st, nbody_forces_launch(&f, 0)) &&
             CUDA_CHECK(&st, cudaEventRecord(b->stop)) && CUDA_CHECK(&st, cudaEventSynchronize(b->stop)) &&
             CUDA_CHECK(&st, cudaEventElapsedTime(&t1, b->mid, b->stop)) &&
             CUDA_CHECK(&st, cudaEventElapsedTime(&t2, b->start, b->stop));
        fm[r] = t1;
        sm[r] = t2;
    }
    if (ok) {
        qsort(fm, repeats, sizeof *fm, compare_double);
        qsort(sm, repeats, sizeof *sm, compare_double);
        *force_ms = fm[repeats / 2];
        *step_ms = sm[repeats / 2];
    }
    free(fm);
    cudaFree(f.pair_sums);
    return st.error;
}
