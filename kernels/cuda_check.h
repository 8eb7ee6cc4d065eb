/* The one way a CUDA call is checked, in C and in CUDA C++: CUDA_CHECK(status, call) runs call
 * (an expression giving a cudaError_t) and is true when it succeeded. A failure is kept in
 * *status, the first one only (later failures are usually its echoes), as the error and one line,
 * "cuda: file:line: call: error string"; it is also taken out of the runtime's last-error slot,
 * so the next launch's check does not report it again. Nothing is printed: the caller passes the
 * line on (the simulation as sim_error) or returns the error (the bench's launchers). */
#ifndef STARBURST_CUDA_CHECK_H
#define STARBURST_CUDA_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

typedef struct CudaStatus {
    cudaError_t error; /* the first failure; cudaSuccess while there is none */
    char message[256]; /* its line; empty while there is none */
} CudaStatus;

static inline bool cuda_check_at(CudaStatus *status, cudaError_t e, const char *call, const char *file, int line)
{
    if (e == cudaSuccess) return true;
    (void)cudaGetLastError();
    if (status->message[0] == '\0') {
        const char *base = strrchr(file, '/');
        status->error = e;
        snprintf(status->message, sizeof status->message, "cuda: %s:%d: %s: %s", base ? base + 1 : file, line, call,
                 cudaGetErrorString(e));
    }
    return false;
}

#define CUDA_CHECK(status, call) cuda_check_at((status), (call), #call, __FILE__, __LINE__)

/* A failure as a person reads it, without the source location the message carries for a
 * developer: "no NVIDIA driver" where the runtime found none (it says "CUDA driver version is
 * insufficient"), "no NVIDIA GPU found", else the runtime's words. */
static inline void cuda_status_reason(const CudaStatus *status, char *buf, size_t len)
{
    int driver = 0;
    if (status->error == cudaErrorInsufficientDriver && cudaDriverGetVersion(&driver) == cudaSuccess && driver == 0)
        snprintf(buf, len, "no NVIDIA driver");
    else if (status->error == cudaErrorNoDevice)
        snprintf(buf, len, "no NVIDIA GPU found");
    else
        snprintf(buf, len, "%s", cudaGetErrorString(status->error));
}

#endif
