/* The other GPUs of the host (sim_cuda_peers.h): their streams, events and copies of the
 * positions, the symmetric kernel's tasks and the tree's shared walk launched there. */
#include "sim/sim_cuda_peers.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/gpu_split.h"

typedef struct Peer {
    int device;
    bool atomics; /* native atomics on the primary's memory (the primary itself: true) */
    cudaStream_t stream;
    cudaEvent_t copy_begin, copy_end, done;
    float4 *pos; /* all n positions, copied from the primary's every split call */
    NbodyTree *tree; /* its tree, built alike from pos, while the tree is the method */
} Peer;

struct SimPeers {
    int primary, n, count; /* count: peers, the primary not included */
    Peer peer[GPU_SPLIT_MAX - 1];
    cudaEvent_t drifted; /* on the primary's stream: the positions are written */
    int *next;           /* on the primary: the counter the trees' shared walk draws groups from */
    bool atomics;        /* every peer has native atomics on the primary's memory (the shared walk) */
    bool timed;          /* a split call has run: the copies' events hold times */
    long fail_after;     /* STARBURST_PEER_FAIL_AFTER: split calls before a failure is injected; 0 = never */
};

static void peer_free(Peer *q)
{
    if (cudaSetDevice(q->device) != cudaSuccess) return;
    if (q->stream) cudaStreamSynchronize(q->stream);
    nbody_tree_destroy(q->tree);
    cudaFree(q->pos);
    if (q->copy_begin) cudaEventDestroy(q->copy_begin);
    if (q->copy_end) cudaEventDestroy(q->copy_end);
    if (q->done) cudaEventDestroy(q->done);
    if (q->stream) cudaStreamDestroy(q->stream);
    memset(q, 0, sizeof *q);
}

/* Peer access is the process's, once for each pair of devices: a second enable is an error of
 * the runtime's (cudaErrorPeerAccessAlreadyEnabled), which compute-sanitizer reports. So the
 * pairs enabled are remembered: bit p of peer_enabled[d], device d reaching device p. */
static _Atomic unsigned long long peer_enabled[64];

/* Current device d reaching primary's memory: true, or false with why. */
static bool peer_enable(int d, int primary, CudaStatus *st)
{
    const bool kept = d >= 0 && d < 64 && primary >= 0 && primary < 64;
    const unsigned long long bit = kept ? 1ull << primary : 0;
    if (kept && (atomic_load(&peer_enabled[d]) & bit)) return true;
    const cudaError_t e = cudaDeviceEnablePeerAccess(primary, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError(); /* enabled by other code */
    else if (!CUDA_CHECK(st, e)) return false;
    if (kept) atomic_fetch_or(&peer_enabled[d], bit);
    return true;
}

/* Device d as a peer of primary for n bodies: true, or false with why. */
static bool peer_open(Peer *q, int d, int primary, int n, CudaStatus *st)
{
    q->device = d;
    q->atomics = true;
    if (d != primary) {
        int reach = 0;
        if (!CUDA_CHECK(st, cudaDeviceCanAccessPeer(&reach, d, primary))) return false;
        if (!reach) {
            snprintf(st->message, sizeof st->message, "GPU %d cannot reach GPU %d's memory (no peer access)", d,
                     primary);
            return false;
        }
    }
    if (!CUDA_CHECK(st, cudaSetDevice(d))) return false;
    if (d != primary) {
        int atomics = 0;
        if (!CUDA_CHECK(st, cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, d, primary)))
            return false;
        q->atomics = atomics != 0;
        if (!peer_enable(d, primary, st)) return false;
    }
    return CUDA_CHECK(st, cudaStreamCreateWithFlags(&q->stream, cudaStreamNonBlocking)) &&
           CUDA_CHECK(st, cudaEventCreate(&q->copy_begin)) && CUDA_CHECK(st, cudaEventCreate(&q->copy_end)) &&
           CUDA_CHECK(st, cudaEventCreateWithFlags(&q->done, cudaEventDisableTiming)) &&
           CUDA_CHECK(st, cudaMalloc((void **)&q->pos, (size_t)n * sizeof(float4)));
}

SimPeers *sim_peers_create(int primary, int want, int n, char *note, size_t notelen)
{
    note[0] = '\0';
    if (want == 1) return NULL;
    int found = 0;
    CudaStatus st = {0};
    if (!CUDA_CHECK(&st, cudaGetDeviceCount(&found))) {
        snprintf(note, notelen, "running on 1 GPU: %s", st.message);
        return NULL;
    }
    /* STARBURST_PEERS_ON_ONE_GPU=1: the peers are streams of the first GPU itself, so that the
     * split's arithmetic and its bits are tested where one GPU is found. */
    const char *one = getenv("STARBURST_PEERS_ON_ONE_GPU");
    const bool alone = one && atoi(one) == 1;
    if (alone) found = want < 0 ? 2 : want;
    const int gpus = gpu_count_resolve(want, found);
    if (want > found) snprintf(note, notelen, "%d GPUs asked for, %d found: running on %d", want, found, gpus);
    if (gpus < 2) return NULL;
    SimPeers *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(note, notelen, "running on 1 GPU: out of host memory");
        return NULL;
    }
    p->primary = primary;
    p->n = n;
    const char *fail = getenv("STARBURST_PEER_FAIL_AFTER");
    p->fail_after = fail ? atol(fail) : 0;
    for (int k = 0; k < found && p->count < gpus - 1; k++) {
        const int d = alone ? primary : k;
        if (!alone && d == primary) continue;
        Peer *q = &p->peer[p->count];
        CudaStatus pst = {0};
        if (peer_open(q, d, primary, n, &pst)) {
            p->count++;
            continue;
        }
        peer_free(q);
        snprintf(note, notelen, "GPU %d left out: %s", d, pst.message);
    }
    cudaSetDevice(primary);
    p->atomics = true;
    for (int i = 0; i < p->count; i++) p->atomics = p->atomics && p->peer[i].atomics;
    if (p->count == 0 || !CUDA_CHECK(&st, cudaEventCreateWithFlags(&p->drifted, cudaEventDisableTiming)) ||
        !CUDA_CHECK(&st, cudaMalloc((void **)&p->next, sizeof(int)))) {
        if (st.message[0]) snprintf(note, notelen, "running on 1 GPU: %s", st.message);
        sim_peers_destroy(p);
        return NULL;
    }
    return p;
}

void sim_peers_destroy(SimPeers *p)
{
    if (!p) return;
    int current = p->primary;
    cudaGetDevice(&current);
    for (int i = 0; i < p->count; i++) peer_free(&p->peer[i]);
    cudaSetDevice(current);
    if (p->drifted) cudaEventDestroy(p->drifted);
    cudaFree(p->next);
    free(p);
}

int sim_peers_gpus(const SimPeers *p) { return p ? p->count + 1 : 1; }

/* Waits for every peer's stream, errors ignored: after a failure nothing of this call may still
 * write into the primary's slots while the primary runs the launch alone. */
static void peers_drain(SimPeers *p)
{
    for (int i = 0; i < p->count; i++)
        if (cudaSetDevice(p->peer[i].device) == cudaSuccess) cudaStreamSynchronize(p->peer[i].stream);
    (void)cudaGetLastError();
}

/* Whether a shared call may go ahead: false with why where a failure is injected
 * (STARBURST_PEER_FAIL_AFTER) or the call has other bodies than the peers hold. */
static bool peers_may_run(SimPeers *p, int n, char *why, size_t whylen)
{
    why[0] = '\0';
    if (p->fail_after > 0 && --p->fail_after == 0) {
        snprintf(why, whylen, "injected failure (STARBURST_PEER_FAIL_AFTER)");
        return false;
    }
    if (n != p->n) {
        snprintf(why, whylen, "the peers hold %d bodies, the call has %d", p->n, n);
        return false;
    }
    return true;
}

/* Peer q, once the primary's positions are written (p->drifted), copies them on its stream,
 * timed by its copy events; the current device is then q's. */
static bool peer_takes_positions(const SimPeers *p, Peer *q, const float4 *pos, CudaStatus *st)
{
    return CUDA_CHECK(st, cudaSetDevice(q->device)) && CUDA_CHECK(st, cudaStreamWaitEvent(q->stream, p->drifted, 0)) &&
           CUDA_CHECK(st, cudaEventRecord(q->copy_begin, q->stream)) &&
           CUDA_CHECK(st, cudaMemcpyPeerAsync(q->pos, q->device, pos, p->primary, (size_t)p->n * sizeof(float4),
                                              q->stream)) &&
           CUDA_CHECK(st, cudaEventRecord(q->copy_end, q->stream));
}

/* A peer's call failed (st): nothing of it left running, the primary current again, why said. */
static bool peers_failed(SimPeers *p, const CudaStatus *st, char *why, size_t whylen)
{
    peers_drain(p);
    cudaSetDevice(p->primary);
    snprintf(why, whylen, "%s", st->message);
    p->timed = false;
    return false;
}

bool sim_peers_symmetric(SimPeers *p, const NbodyForces *f, cudaStream_t stream, CudaStatus *primary, char *why,
                         size_t whylen)
{
    if (!peers_may_run(p, f->n, why, whylen)) return false;
    int first[GPU_SPLIT_MAX], count[GPU_SPLIT_MAX];
    gpu_split_tasks(f->shape.parts, p->count + 1, first, count);
    CudaStatus st = {0};
    bool ok = CUDA_CHECK(&st, cudaEventRecord(p->drifted, stream));
    for (int i = 0; ok && i < p->count; i++) {
        Peer *q = &p->peer[i];
        NbodyForces g = *f;
        g.pos = q->pos; /* its own copy; the sums go to the primary's slots */
        ok = peer_takes_positions(p, q, f->pos, &st) &&
             CUDA_CHECK(&st, nbody_symmetric_tasks_launch(&g, first[i + 1], count[i + 1], q->stream)) &&
             CUDA_CHECK(&st, cudaEventRecord(q->done, q->stream));
    }
    if (!ok) return peers_failed(p, &st, why, whylen);
    /* From here on the calls are the primary's: a failure is the simulation's own. */
    bool mine = CUDA_CHECK(primary, cudaSetDevice(p->primary)) &&
                CUDA_CHECK(primary, nbody_symmetric_tasks_launch(f, first[0], count[0], stream));
    for (int i = 0; mine && i < p->count; i++)
        mine = CUDA_CHECK(primary, cudaStreamWaitEvent(stream, p->peer[i].done, 0));
    if (mine) CUDA_CHECK(primary, nbody_symmetric_finish_launch(f, stream));
    p->timed = true;
    return true;
}

bool sim_peers_tree_able(const SimPeers *p, char *why, size_t whylen)
{
    if (p->atomics) return true;
    snprintf(why, whylen, "the tree runs on one GPU: the GPUs have no native atomics on each other's memory, "
                          "which its shared walk needs");
    return false;
}

/* Each peer's tree for n bodies, made on first use and drawing from the shared counter: true, or
 * false with st. */
static bool peers_have_trees(SimPeers *p, int n, CudaStatus *st)
{
    for (int i = 0; i < p->count; i++) {
        Peer *q = &p->peer[i];
        if (q->tree) continue;
        if (!CUDA_CHECK(st, cudaSetDevice(q->device))) return false;
        char err[200];
        if (!(q->tree = nbody_tree_create(n, err, sizeof err))) {
            snprintf(st->message, sizeof st->message, "GPU %d: %s", q->device, err);
            return false;
        }
        nbody_tree_share_walk(q->tree, p->next);
    }
    return true;
}

bool sim_peers_tree(SimPeers *p, NbodyTree *mine, const float4 *pos, int n, float eps2, float theta, float alpha,
                    float4 *acc, cudaStream_t stream, CudaStatus *primary, char *why, size_t whylen)
{
    if (!peers_may_run(p, n, why, whylen)) {
        nbody_tree_share_walk(mine, NULL);
        return false;
    }
    CudaStatus st = {0};
    bool ok = peers_have_trees(p, n, &st) && CUDA_CHECK(&st, cudaSetDevice(p->primary)) &&
              CUDA_CHECK(&st, cudaMemsetAsync(p->next, 0, sizeof(int), stream)) &&
              CUDA_CHECK(&st, cudaEventRecord(p->drifted, stream));
    for (int i = 0; ok && i < p->count; i++) {
        Peer *q = &p->peer[i];
        ok = peer_takes_positions(p, q, pos, &st) &&
             CUDA_CHECK(&st, nbody_tree_forces_rel(q->tree, q->pos, n, eps2, theta, alpha, acc, q->stream)) &&
             CUDA_CHECK(&st, cudaEventRecord(q->done, q->stream));
    }
    if (!ok) {
        nbody_tree_share_walk(mine, NULL);
        return peers_failed(p, &st, why, whylen);
    }
    nbody_tree_share_walk(mine, p->next);
    bool mine_ok = CUDA_CHECK(primary, cudaSetDevice(p->primary)) &&
                   CUDA_CHECK(primary, nbody_tree_forces_rel(mine, pos, n, eps2, theta, alpha, acc, stream));
    for (int i = 0; mine_ok && i < p->count; i++)
        mine_ok = CUDA_CHECK(primary, cudaStreamWaitEvent(stream, p->peer[i].done, 0));
    p->timed = true;
    return true;
}

void sim_peers_tree_counts(const SimPeers *p, NbodyTreeStats *add)
{
    for (int i = 0; p && i < p->count; i++) {
        if (!p->peer[i].tree) continue;
        NbodyTreeStats st;
        if (cudaSetDevice(p->peer[i].device) != cudaSuccess) break;
        nbody_tree_stats(p->peer[i].tree, &st);
        add->body_body += st.body_body;
        add->body_cell += st.body_cell;
    }
    if (p) cudaSetDevice(p->primary);
}

void sim_peers_tree_release(SimPeers *p)
{
    for (int i = 0; p && i < p->count; i++) {
        if (!p->peer[i].tree || cudaSetDevice(p->peer[i].device) != cudaSuccess) continue;
        cudaStreamSynchronize(p->peer[i].stream);
        nbody_tree_destroy(p->peer[i].tree);
        p->peer[i].tree = NULL;
    }
    if (p) cudaSetDevice(p->primary);
}

double sim_peers_exchange_ms(const SimPeers *p)
{
    if (!p || !p->timed) return 0;
    double worst = 0;
    for (int i = 0; i < p->count; i++) {
        float ms = 0;
        if (cudaSetDevice(p->peer[i].device) == cudaSuccess &&
            cudaEventElapsedTime(&ms, p->peer[i].copy_begin, p->peer[i].copy_end) == cudaSuccess && ms > worst)
            worst = ms;
    }
    (void)cudaGetLastError();
    cudaSetDevice(p->primary);
    return worst;
}
