/* Little-endian numbers in byte buffers, the one way the file formats read and write them
 * (TIPSY's native order, a save's accelerations beside it). */
#ifndef STARBURST_LE_BYTES_H
#define STARBURST_LE_BYTES_H

#include <stdint.h>
#include <string.h>

static inline uint32_t le_get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t le_get_u64(const unsigned char *p)
{
    return (uint64_t)le_get_u32(p) | (uint64_t)le_get_u32(p + 4) << 32;
}
static inline int32_t le_get_i32(const unsigned char *p)
{
    const uint32_t u = le_get_u32(p);
    int32_t i;
    memcpy(&i, &u, 4);
    return i;
}
static inline float le_get_f32(const unsigned char *p)
{
    const uint32_t u = le_get_u32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline double le_get_f64(const unsigned char *p)
{
    const uint64_t u = le_get_u64(p);
    double d;
    memcpy(&d, &u, 8);
    return d;
}
static inline void le_put_u32(unsigned char *p, uint32_t u)
{
    for (int k = 0; k < 4; k++) p[k] = (unsigned char)(u >> (8 * k));
}
static inline void le_put_u64(unsigned char *p, uint64_t u)
{
    le_put_u32(p, (uint32_t)u);
    le_put_u32(p + 4, (uint32_t)(u >> 32));
}
static inline void le_put_i32(unsigned char *p, int32_t i)
{
    uint32_t u;
    memcpy(&u, &i, 4);
    le_put_u32(p, u);
}
static inline void le_put_f32(unsigned char *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    le_put_u32(p, u);
}
static inline void le_put_f64(unsigned char *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    le_put_u64(p, u);
}

#endif
