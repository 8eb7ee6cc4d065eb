/* The scenes' random stream: xoshiro256** (Blackman & Vigna), state filled by splitmix64 so that
 * any 64-bit seed, 0 included, gives a well-mixed state. */
#include <math.h>

#include "scene/scene_internal.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void scene_rng_seed(SceneRng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}

uint64_t scene_rng_next(SceneRng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double scene_rng_uniform(SceneRng *r)
{
    return (double)(scene_rng_next(r) >> 11) * 0x1.0p-53;
}

double scene_rng_uniform_pos(SceneRng *r)
{
    return (double)((scene_rng_next(r) >> 11) + 1) * 0x1.0p-53;
}

/* Box-Muller, one value per call: simpler to keep reproducible than a cached pair. */
double scene_rng_normal(SceneRng *r)
{
    double u = scene_rng_uniform_pos(r), v = scene_rng_uniform(r);
    return sqrt(-2.0 * log(u)) * cos(2.0 * SCENE_PI * v);
}

void scene_rng_direction(SceneRng *r, double dest[3])
{
    double z = 2.0 * scene_rng_uniform(r) - 1.0, phi = 2.0 * SCENE_PI * scene_rng_uniform(r);
    double s = sqrt(1.0 - z * z);
    dest[0] = s * cos(phi);
    dest[1] = s * sin(phi);
    dest[2] = z;
}
