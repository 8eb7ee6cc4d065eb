/* Halos as fields on the GPU (halo_field.h holds the design and the formulas, shared with the CPU
 * backend's src/sim/halo_field.c). The stars' own forces are in acc when the fields' step runs;
 * the step is two launches:
 *   1. one thread a star: every halo's pull (nbody_halo_pull) added to the star's acceleration, and
 *      the star's pull on each centre, m_i g_h, in double; each block sums its threads' in shared
 *      memory, in a fixed tree order, into one row of partial sums (3 per halo);
 *   2. one block: its threads add the rows, each a fixed stride of them in order, then the same
 *      tree; thread 0 turns the stars' reaction, the halos' mutual pull and the friction into the
 *      centres' accelerations (nbody_halo_centres) and, where a kick follows, counts the energy the
 *      friction takes out in it into the centres' vel.w (nbody_halo_kick_loss), as sim_cpu.c does.
 * No atomics: the sums' order depends on the star count alone, so a run repeats bit for bit.
 *
 * The opening half kick of an advance applies the stored accelerations, whose friction part is
 * not kept: it is found again as the centres' stored accelerations less gravity's alone (the same
 * two launches with the Coulomb logarithm 0), as sim_halo_stored_friction does on the host. */
#include "cuda_check.h"
#include "kernels.h"
#include "nbody_common.cuh"

#include <stdio.h>
#include <stdlib.h>

struct NbodyHaloField {
    int n_stars, count;
    NbodyHalos *halos; /* device: [0] as given, [1] the same with ln_lambda 0 (gravity alone) */
    double *rows;      /* device: NBODY_HALO_SUMS doubles for each block of launch 1 */
    float ln_lambda;
};

namespace {

constexpr int BLOCK = 256;
constexpr int SUMS = 3 * NBODY_HALO_MAX;

int star_blocks(int n_stars) { return (n_stars + BLOCK - 1) / BLOCK; }

/* The block's sum of s[k] (per thread) into out[k], in the fixed order of a halving tree. */
__device__ void block_sum(double (&red)[SUMS][BLOCK], const double (&s)[SUMS], double *out)
{
#pragma unroll
    for (int k = 0; k < SUMS; k++) red[k][threadIdx.x] = s[k];
    __syncthreads();
    for (int half = BLOCK / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
#pragma unroll
            for (int k = 0; k < SUMS; k++) red[k][threadIdx.x] += red[k][threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x < SUMS) out[threadIdx.x] = red[threadIdx.x][0];
}

/* Launch 1: the halos' pull on each star (added to acc where ADD) and the block's row of the
 * stars' pull on the centres, sum m_i g_h(x_i - c_h). */
template <bool ADD>
__global__ void pull_stars(const NbodyHalos *__restrict__ hs, const float4 *__restrict__ pos, float4 *__restrict__ acc,
                           int n_stars, float eps2, double *__restrict__ rows)
{
    __shared__ double red[SUMS][BLOCK];
    const int i = blockIdx.x * BLOCK + threadIdx.x, count = hs->count;
    double s[SUMS] = {};
    if (i < n_stars) {
        const float4 x = pos[i];
        float a[3] = {0, 0, 0};
#pragma unroll
        for (int h = 0; h < NBODY_HALO_MAX; h++) {
            if (h >= count) break;
            const float4 c = pos[n_stars + h];
            float gx = 0, gy = 0, gz = 0;
            nbody_halo_pull(&hs->halo[h], x.x - c.x, x.y - c.y, x.z - c.z, eps2, &gx, &gy, &gz);
            a[0] += gx, a[1] += gy, a[2] += gz;
            s[3 * h] = (double)x.w * gx;
            s[3 * h + 1] = (double)x.w * gy;
            s[3 * h + 2] = (double)x.w * gz;
        }
        if (ADD) {
            float4 ai = acc[i];
            ai.x += a[0], ai.y += a[1], ai.z += a[2];
            acc[i] = ai;
        }
    }
    block_sum(red, s, rows + (size_t)SUMS * blockIdx.x);
}

enum Mode {
    FORCES,      /* the centres' accelerations */
    FORCES_LOSS, /* and the loss of the kick that follows */
    OPENING,     /* the loss of the opening half kick from the stored accelerations */
};

/* Launch 2, one block: the rows summed, then the centres (Mode). */
__global__ void centres(const NbodyHalos *__restrict__ hs, Mode mode, const float4 *__restrict__ pos,
                        float4 *__restrict__ acc, float4 *__restrict__ vel, int n_stars, float eps2,
                        const double *__restrict__ rows, int nrows, float half, float next, float damping)
{
    __shared__ double red[SUMS][BLOCK];
    __shared__ double react[SUMS];
    double s[SUMS] = {};
    for (int b = threadIdx.x; b < nrows; b += BLOCK)
#pragma unroll
        for (int k = 0; k < SUMS; k++) s[k] += rows[(size_t)SUMS * b + k];
    block_sum(red, s, react);
    __syncthreads();
    if (threadIdx.x != 0) return;
    const int count = hs->count;
    float cp[4 * NBODY_HALO_MAX] = {}, cv[4 * NBODY_HALO_MAX] = {};
    for (int h = 0; h < count; h++) {
        const float4 p = pos[n_stars + h], v = vel[n_stars + h];
        cp[4 * h] = p.x, cp[4 * h + 1] = p.y, cp[4 * h + 2] = p.z, cp[4 * h + 3] = p.w;
        cv[4 * h] = v.x, cv[4 * h + 1] = v.y, cv[4 * h + 2] = v.z, cv[4 * h + 3] = v.w;
    }
    double ac[SUMS], fric[SUMS];
    nbody_halo_centres(hs, react, cp, cv, eps2, ac, fric);
    for (int h = 0; h < count; h++) {
        float4 *ah = acc + n_stars + h;
        const float4 v = vel[n_stars + h];
        if (mode == OPENING) {
            /* hs is gravity alone here: the friction is what the stored accelerations hold beyond it. */
            const float a[3] = {ah->x, ah->y, ah->z};
            const double M = hs->halo[h].mass;
            double f[3];
            for (int d = 0; d < 3; d++) f[d] = M * ((double)a[d] - ac[3 * h + d]);
            const float u[3] = {v.x, v.y, v.z};
            vel[n_stars + h].w = v.w + (float)nbody_halo_kick_loss(f, u, a, half);
            continue;
        }
        const float a[3] = {(float)ac[3 * h], (float)ac[3 * h + 1], (float)ac[3 * h + 2]};
        *ah = make_float4(a[0], a[1], a[2], 0.0f);
        if (mode != FORCES_LOSS) continue;
        /* This step's closing half kick, then the next one's opening half kick from the velocity
         * the kick gives between them (its arithmetic: nbody_common.cuh's finish). */
        const double *f = fric + 3 * h;
        const float u[3] = {v.x, v.y, v.z};
        float loss = v.w + (float)nbody_halo_kick_loss(f, u, a, half);
        if (next > 0) {
            const float w[3] = {fmaf(a[0], half, u[0]) * damping, fmaf(a[1], half, u[1]) * damping,
                                fmaf(a[2], half, u[2]) * damping};
            loss += (float)nbody_halo_kick_loss(f, w, a, next);
        }
        vel[n_stars + h].w = loss;
    }
}

cudaError_t step(const NbodyHaloField *h, const NbodyHalos *hs, Mode mode, const float4 *pos, float4 *acc,
                 float4 *vel, float eps2, float half, float next, float damping, cudaStream_t stream)
{
    const int nb = star_blocks(h->n_stars);
    if (mode == OPENING) pull_stars<false><<<nb, BLOCK, 0, stream>>>(hs, pos, acc, h->n_stars, eps2, h->rows);
    else pull_stars<true><<<nb, BLOCK, 0, stream>>>(hs, pos, acc, h->n_stars, eps2, h->rows);
    centres<<<1, BLOCK, 0, stream>>>(hs, mode, pos, acc, vel, h->n_stars, eps2, h->rows, nb, half, next, damping);
    return nbody::launch_error();
}

} // namespace

extern "C" size_t nbody_halo_field_bytes(int n_stars)
{
    return 2 * sizeof(NbodyHalos) + (size_t)SUMS * sizeof(double) * (size_t)star_blocks(n_stars);
}

extern "C" NbodyHaloField *nbody_halo_field_create(const NbodyHalos *halos, int n_stars, char *err, size_t errlen)
{
    if (!halos || halos->count < 1 || halos->count > NBODY_HALO_MAX || n_stars < 1) {
        snprintf(err, errlen, "halo fields: %d halos for %d stars: 1 to %d halos and a star are needed",
                 halos ? halos->count : 0, n_stars, NBODY_HALO_MAX);
        return NULL;
    }
    NbodyHaloField *h = (NbodyHaloField *)calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, errlen, "halo fields: out of host memory");
        return NULL;
    }
    h->n_stars = n_stars;
    h->count = halos->count;
    h->ln_lambda = halos->ln_lambda;
    NbodyHalos two[2] = {*halos, *halos};
    two[1].ln_lambda = 0;
    CudaStatus st = {};
    const size_t rows = (size_t)SUMS * sizeof(double) * (size_t)star_blocks(n_stars);
    if (!CUDA_CHECK(&st, cudaMalloc((void **)&h->halos, sizeof two)) ||
        !CUDA_CHECK(&st, cudaMemcpy(h->halos, two, sizeof two, cudaMemcpyHostToDevice)) ||
        !CUDA_CHECK(&st, cudaMalloc((void **)&h->rows, rows))) {
        snprintf(err, errlen, "halo fields for %d stars: %s", n_stars, st.message);
        nbody_halo_field_destroy(h);
        return NULL;
    }
    return h;
}

extern "C" void nbody_halo_field_destroy(NbodyHaloField *h)
{
    if (!h) return;
    cudaFree(h->halos);
    cudaFree(h->rows);
    free(h);
}

extern "C" cudaError_t nbody_halo_forces_launch(const NbodyHaloField *h, const float4 *pos, float4 *acc, float4 *vel,
                                                float eps2, const NbodyHaloKick *kick, cudaStream_t stream)
{
    /* One halo has no friction: nothing to count (the CPU backend counts none either). */
    const bool loss = kick && h->count > 1;
    return step(h, h->halos, loss ? FORCES_LOSS : FORCES, pos, acc, vel, eps2, loss ? kick->half_kick : 0,
                loss ? kick->next_kick : 0, loss ? kick->damping : 1, stream);
}

extern "C" cudaError_t nbody_halo_opening_loss_launch(const NbodyHaloField *h, const float4 *pos,
                                                      const float4 *acc, float4 *vel, float eps2, float tau,
                                                      cudaStream_t stream)
{
    if (h->count < 2 || !(h->ln_lambda > 0)) return cudaSuccess; /* no friction in the stored accelerations */
    /* OPENING only reads acc. */
    return step(h, h->halos + 1, OPENING, pos, const_cast<float4 *>(acc), vel, eps2, tau, 0, 1, stream);
}
