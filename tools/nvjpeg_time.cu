/* What encoding a frame for the page costs with CUDA's nvJPEG on the GPU, against the frame's
 * readback that it would save: a binary PPM (P6) read and put on the device as the RGBA rows
 * bottom first that the server's frame holds there, then REPEATS times: the rows turned into
 * interleaved RGB top first (one kernel), nvJPEG's encode at quality 80, 4:2:0, and its bitstream
 * copied to the host (the bytes a page gets); the median and 90th percentile and the bytes; then
 * the copy of the RGBA frame to the host (pageable and pinned) that the CPU encoder needs first.
 * tools/jpeg_time.c times libjpeg-turbo on the same frame. Built where CUDA's nvjpeg.h is:
 *
 *   nvcc -O2 -o nvjpeg_time tools/nvjpeg_time.cu -lnvjpeg
 *   nvjpeg_time frame.ppm [REPEATS] [OUT.jpg] */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>
#include <nvjpeg.h>

static double now_ms()
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

#define CHECK_CUDA(x)                                                                                                \
    do {                                                                                                             \
        cudaError_t e_ = (x);                                                                                        \
        if (e_ != cudaSuccess) {                                                                                     \
            fprintf(stderr, "nvjpeg_time: %s: %s\n", #x, cudaGetErrorString(e_));                                   \
            return 1;                                                                                                \
        }                                                                                                            \
    } while (0)
#define CHECK_NVJPEG(x)                                                                                              \
    do {                                                                                                             \
        nvjpegStatus_t s_ = (x);                                                                                     \
        if (s_ != NVJPEG_STATUS_SUCCESS) {                                                                           \
            fprintf(stderr, "nvjpeg_time: %s: status %d\n", #x, (int)s_);                                            \
            return 1;                                                                                                \
        }                                                                                                            \
    } while (0)

/* RGBA, bottom row first (as GL reads a framebuffer) into RGB, top row first. */
__global__ void to_rgb(const uchar4 *rgba, unsigned char *rgb, int w, int h)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w) return;
    const uchar4 p = rgba[(size_t)(h - 1 - y) * w + x];
    unsigned char *d = rgb + 3 * ((size_t)y * w + x);
    d[0] = p.x;
    d[1] = p.y;
    d[2] = p.z;
}

static double percentile(std::vector<double> v, double q)
{
    std::sort(v.begin(), v.end());
    return v[(size_t)(q * (double)(v.size() - 1))];
}

int main(int argc, char **argv)
{
    const int repeats = argc > 2 ? atoi(argv[2]) : 100;
    FILE *f = argc > 1 ? fopen(argv[1], "rb") : nullptr;
    int w = 0, h = 0, max = 0;
    if (!f || fscanf(f, "P6 %d %d %d", &w, &h, &max) != 3 || max != 255 || w <= 0 || h <= 0 || fgetc(f) == EOF ||
        repeats <= 0) {
        fprintf(stderr, "usage: nvjpeg_time FRAME.ppm [REPEATS] [OUT.jpg]\n");
        return 2;
    }
    const size_t pixels = (size_t)w * h;
    std::vector<unsigned char> rgb(3 * pixels), rgba(4 * pixels);
    if (fread(rgb.data(), 3, pixels, f) != pixels) {
        fprintf(stderr, "nvjpeg_time: %s is short\n", argv[1]);
        return 1;
    }
    fclose(f);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const unsigned char *s = &rgb[3 * ((size_t)(h - 1 - y) * w + x)];
            unsigned char *d = &rgba[4 * ((size_t)y * w + x)];
            d[0] = s[0], d[1] = s[1], d[2] = s[2], d[3] = 255;
        }
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    uchar4 *d_rgba;
    unsigned char *d_rgb;
    CHECK_CUDA(cudaMalloc(&d_rgba, 4 * pixels));
    CHECK_CUDA(cudaMalloc(&d_rgb, 3 * pixels));
    CHECK_CUDA(cudaMemcpy(d_rgba, rgba.data(), 4 * pixels, cudaMemcpyHostToDevice));

    nvjpegHandle_t handle;
    nvjpegEncoderState_t state;
    nvjpegEncoderParams_t params;
    CHECK_NVJPEG(nvjpegCreateSimple(&handle));
    CHECK_NVJPEG(nvjpegEncoderStateCreate(handle, &state, stream));
    CHECK_NVJPEG(nvjpegEncoderParamsCreate(handle, &params, stream));
    CHECK_NVJPEG(nvjpegEncoderParamsSetQuality(params, 80, stream));
    CHECK_NVJPEG(nvjpegEncoderParamsSetSamplingFactors(params, NVJPEG_CSS_420, stream));
    CHECK_NVJPEG(nvjpegEncoderParamsSetOptimizedHuffman(params, 0, stream));
    nvjpegImage_t image = {};
    image.channel[0] = d_rgb;
    image.pitch[0] = 3 * (size_t)w;

    std::vector<unsigned char> jpeg;
    std::vector<double> ms;
    for (int k = 0; k < repeats + 5; k++) {
        const double t0 = now_ms();
        to_rgb<<<dim3((w + 255) / 256, h), 256, 0, stream>>>(d_rgba, d_rgb, w, h);
        CHECK_CUDA(cudaGetLastError());
        CHECK_NVJPEG(nvjpegEncodeImage(handle, state, params, &image, NVJPEG_INPUT_RGBI, w, h, stream));
        size_t len = 0;
        CHECK_NVJPEG(nvjpegEncodeRetrieveBitstream(handle, state, nullptr, &len, stream));
        jpeg.resize(len);
        CHECK_NVJPEG(nvjpegEncodeRetrieveBitstream(handle, state, jpeg.data(), &len, stream));
        CHECK_CUDA(cudaStreamSynchronize(stream));
        jpeg.resize(len);
        if (k >= 5) ms.push_back(now_ms() - t0);
    }
    printf("nvJPEG (GPU), quality 80, 4:2:0, %dx%d from RGBA on the device: median %.3f ms, 90th percentile %.3f ms, "
           "%zu bytes\n",
           w, h, percentile(ms, 0.5), percentile(ms, 0.9), jpeg.size());
    if (argc > 3) {
        FILE *o = fopen(argv[3], "wb");
        if (!o || fwrite(jpeg.data(), 1, jpeg.size(), o) != jpeg.size() || fclose(o) != 0) {
            fprintf(stderr, "nvjpeg_time: cannot write %s\n", argv[3]);
            return 1;
        }
    }

    /* What the CPU encoder needs first: the frame on the host. */
    unsigned char *pinned;
    CHECK_CUDA(cudaMallocHost(&pinned, 4 * pixels));
    for (int pass = 0; pass < 2; pass++) {
        std::vector<double> copy;
        for (int k = 0; k < repeats + 5; k++) {
            const double t0 = now_ms();
            CHECK_CUDA(cudaMemcpy(pass ? pinned : rgba.data(), d_rgba, 4 * pixels, cudaMemcpyDeviceToHost));
            if (k >= 5) copy.push_back(now_ms() - t0);
        }
        printf("the RGBA frame to %s host memory (%.1f MB): median %.3f ms, 90th percentile %.3f ms\n",
               pass ? "pinned" : "pageable", 4e-6 * (double)pixels, percentile(copy, 0.5), percentile(copy, 0.9));
    }
    cudaFreeHost(pinned);
    nvjpegEncoderParamsDestroy(params);
    nvjpegEncoderStateDestroy(state);
    nvjpegDestroy(handle);
    cudaFree(d_rgba);
    cudaFree(d_rgb);
    cudaStreamDestroy(stream);
    return 0;
}
