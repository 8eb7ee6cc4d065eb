/* Checks a screenshot of the collision scene: the image is not black, and its light forms exactly
 * K separate clusters (two galaxies by default).
 *
 * Pixels brighter than a threshold (above the background, relative to the brightest) are lit.
 * The image is cut into blocks; a block holding a few lit pixels is lit, so that lone stars
 * between the galaxies do not bridge them. Lit blocks grown by one block are grouped into
 * 8-connected components, weighed by their lit pixels. The K heaviest must hold at least 80% of
 * the light between them, each at least 10%, and the next one less than 10%. With --region X0 Y0
 * X1 Y1 (pixels, the top-left corner first), the K clusters' centres lie inside that rectangle and
 * at least 95% of the lit pixels with them. With --sizes, the line also gives each of the K
 * clusters' size: the longer side of its lit blocks' bounding box, in pixels; and each one's
 * spread: the rms distance from its centre of the lit pixels nearer to it than to the other
 * centres, stars apart from the dense part counted too, so that it grows with the view's nearness
 * however the light spreads. Prints one line of what it measured; exits 0 when the
 * image passes, 1 when it does not, 2 on bad usage. */
#include <stb_image.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Component {
    long weight;      /* lit pixels */
    double cx, cy;    /* centroid, pixels */
    int label;
    int x0, y0, x1, y1; /* lit blocks' bounding box, in blocks */
} Component;

static int by_weight(const void *a, const void *b)
{
    long wa = ((const Component *)a)->weight, wb = ((const Component *)b)->weight;
    return (wa < wb) - (wa > wb);
}

static int usage(void)
{
    fprintf(stderr, "usage: check_image IMAGE.png [--clusters K] [--threshold 0..255] [--block PIXELS]\n"
                    "                   [--region X0 Y0 X1 Y1] [--sizes]\n"
                    "       check_image --same A.png B.png\n       check_image --lines WITH.png WITHOUT.png [MIN_PERCENT]\n");
    return 2;
}

/* Two images of one size as RGB into *a and *b (freed by the caller); false, with a line said,
 * when they cannot both be read or differ in size. */
static bool load_pair(const char *a_path, const char *b_path, unsigned char **a, unsigned char **b, int *w, int *h)
{
    int wb, hb, c;
    *a = stbi_load(a_path, w, h, &c, 3);
    *b = stbi_load(b_path, &wb, &hb, &c, 3);
    if (*a && *b && *w == wb && *h == hb) return true;
    printf("check_image: %s vs %s: cannot load both at one size\n", a_path, b_path);
    stbi_image_free(*a);
    stbi_image_free(*b);
    return false;
}

/* Two renderings of one scene: the same size, and nearly every pixel within a few levels. */
static int compare(const char *a_path, const char *b_path)
{
    int wa, ha;
    unsigned char *a, *b;
    if (!load_pair(a_path, b_path, &a, &b, &wa, &ha)) return 1;
    size_t n = (size_t)wa * ha * 3, off = 0, lit = 0;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        int d = abs((int)a[i] - (int)b[i]);
        sum += d;
        off += d > 16;
        lit += a[i] > 24;
    }
    stbi_image_free(a);
    stbi_image_free(b);
    double mean = sum / (double)n, frac = (double)off / (double)n;
    bool ok = lit > n / 1000 && mean < 1.0 && frac < 0.005;
    printf("check_image: %s vs %s: mean |diff| %.4f levels, %.4f%% of values off by > 16, %.2f%% lit: %s\n", a_path,
           b_path, mean, 100 * frac, 100.0 * (double)lit / (double)n, ok ? "OK (same image)" : "FAIL");
    return ok ? 0 : 1;
}

/* One view with lines drawn over it and without: the first holds pixels brighter than the second
 * (the lines) on at least min_percent of the image (0.2% unless given), and almost none darker
 * (nothing else changed). */
static int lines_over(const char *on_path, const char *off_path, double min_percent)
{
    int wa, ha;
    unsigned char *on, *off;
    if (!load_pair(on_path, off_path, &on, &off, &wa, &ha)) return 1;
    const size_t pixels = (size_t)wa * ha;
    size_t brighter = 0, darker = 0;
    for (size_t i = 0; i < pixels; i++) {
        int up = 0, down = 0;
        for (int k = 0; k < 3; k++) {
            const int d = (int)on[3 * i + k] - (int)off[3 * i + k];
            up = d > up ? d : up;
            down = -d > down ? -d : down;
        }
        brighter += up > 12;
        darker += down > 12;
    }
    stbi_image_free(on);
    stbi_image_free(off);
    const bool ok = (double)brighter > (double)pixels * min_percent / 100 && darker < pixels / 2000;
    printf("check_image: %s over %s: %.2f%% of pixels brighter by > 12 levels, %.3f%% darker: %s\n", on_path,
           off_path, 100.0 * (double)brighter / (double)pixels, 100.0 * (double)darker / (double)pixels,
           ok ? "OK (lines drawn over it)" : "FAIL");
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--same") == 0) return compare(argv[2], argv[3]);
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "--lines") == 0) {
        const double min_percent = argc == 5 ? atof(argv[4]) : 0.2;
        if (!(min_percent > 0 && min_percent < 100)) return usage();
        return lines_over(argv[2], argv[3], min_percent);
    }
    const char *path = NULL;
    int clusters = 2, block = 0;
    double threshold = -1;
    double region[4];
    bool in_region = false, sizes = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--clusters") == 0 && i + 1 < argc) clusters = atoi(argv[++i]);
        else if (strcmp(argv[i], "--region") == 0 && i + 4 < argc) {
            for (int k = 0; k < 4; k++) region[k] = atof(argv[++i]);
            in_region = true;
        }
        else if (strcmp(argv[i], "--threshold") == 0 && i + 1 < argc) threshold = atof(argv[++i]);
        else if (strcmp(argv[i], "--block") == 0 && i + 1 < argc) block = atoi(argv[++i]);
        else if (strcmp(argv[i], "--sizes") == 0) sizes = true;
        else if (argv[i][0] == '-' || path) return usage();
        else path = argv[i];
    }
    if (!path || clusters < 1) return usage();

    int w, h, channels;
    unsigned char *rgb = stbi_load(path, &w, &h, &channels, 3);
    if (!rgb) {
        printf("check_image: %s: cannot load: %s\n", path, stbi_failure_reason());
        return 1;
    }
    size_t pixels = (size_t)w * h;
    float *lum = malloc(pixels * sizeof *lum);
    long histogram[256] = {0};
    for (size_t i = 0; i < pixels; i++) {
        const unsigned char *p = rgb + 3 * i;
        lum[i] = 0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2];
        histogram[(int)lum[i]]++;
    }
    stbi_image_free(rgb);

    /* Background: the median. Peak: the 99.9th percentile, so a few hot pixels do not set it. */
    int background = 0, peak = 0;
    long seen = 0;
    for (int v = 0; v < 256; v++) {
        seen += histogram[v];
        if (seen * 2 < (long)pixels) background = v + 1;
        if (seen * 1000 < (long)pixels * 999) peak = v + 1;
    }
    if (peak > 255) peak = 255;
    if (background > 255) background = 255;
    if (threshold < 0) {
        threshold = background + 0.15 * (peak - background);
        if (threshold < background + 20) threshold = background + 20;
    }
    long lit = 0, lit_inside = 0;
    for (size_t i = 0; i < pixels; i++) {
        if (!(lum[i] > threshold)) continue;
        lit++;
        const double x = (double)(i % (size_t)w) + 0.5, y = (double)(i / (size_t)w) + 0.5;
        lit_inside += in_region && x >= region[0] && x < region[2] && y >= region[1] && y < region[3];
    }
    double lit_fraction = (double)lit / (double)pixels;
    printf("check_image: %s %dx%d: lit %.2f%% (threshold %.0f, background %d, peak %d)", path, w, h,
           100 * lit_fraction, threshold, background, peak);
    if (lit_fraction < 0.001) {
        printf(": FAIL: the image is (nearly) black\n");
        free(lum);
        return 1;
    }

    if (block <= 0) block = (w < h ? w : h) / 90 > 2 ? (w < h ? w : h) / 90 : 2;
    int bw = (w + block - 1) / block, bh = (h + block - 1) / block;
    size_t blocks = (size_t)bw * bh;
    int *count = calloc(blocks, sizeof *count);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            if (lum[(size_t)y * w + x] > threshold) count[(y / block) * bw + x / block]++;
    /* A block is lit when at least 1/12 of it is: denser than scattered single stars. */
    int dense = block * block / 12 > 2 ? block * block / 12 : 2;
    unsigned char *on = calloc(blocks, 1), *grown = calloc(blocks, 1);
    long dense_lit = 0;
    for (size_t b = 0; b < blocks; b++)
        if (count[b] >= dense) {
            on[b] = 1;
            dense_lit += count[b];
        }
    for (int y = 0; y < bh; y++)
        for (int x = 0; x < bw; x++)
            if (on[y * bw + x])
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++)
                        if (x + dx >= 0 && x + dx < bw && y + dy >= 0 && y + dy < bh)
                            grown[(y + dy) * bw + x + dx] = 1;

    /* Label 8-connected components of the grown blocks with an explicit stack. */
    int *label = malloc(blocks * sizeof *label), *stack = malloc(blocks * sizeof *stack);
    for (size_t b = 0; b < blocks; b++) label[b] = -1;
    Component *comps = NULL;
    int ncomp = 0;
    for (size_t start = 0; start < blocks; start++) {
        if (!grown[start] || label[start] >= 0) continue;
        comps = realloc(comps, (size_t)(ncomp + 1) * sizeof *comps);
        Component *c = &comps[ncomp];
        *c = (Component){.label = ncomp, .x0 = bw, .y0 = bh, .x1 = -1, .y1 = -1};
        double sx = 0, sy = 0;
        int top = 0;
        stack[top++] = (int)start;
        label[start] = ncomp;
        while (top > 0) {
            int b = stack[--top], x = b % bw, y = b / bw;
            if (on[b]) {
                c->weight += count[b];
                c->x0 = x < c->x0 ? x : c->x0;
                c->y0 = y < c->y0 ? y : c->y0;
                c->x1 = x > c->x1 ? x : c->x1;
                c->y1 = y > c->y1 ? y : c->y1;
                sx += count[b] * ((x + 0.5) * block);
                sy += count[b] * ((y + 0.5) * block);
            }
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int nx = x + dx, ny = y + dy;
                    if (nx < 0 || nx >= bw || ny < 0 || ny >= bh) continue;
                    int nb = ny * bw + nx;
                    if (grown[nb] && label[nb] < 0) {
                        label[nb] = ncomp;
                        stack[top++] = nb;
                    }
                }
        }
        if (c->weight > 0) {
            c->cx = sx / c->weight;
            c->cy = sy / c->weight;
        }
        ncomp++;
    }

    /* Gap between the two heaviest: Chebyshev distance in blocks, by a breadth-first walk from the
     * lit blocks of the first. */
    qsort(comps, (size_t)ncomp, sizeof *comps, by_weight);
    int gap = -1;
    if (ncomp >= 2) {
        int *dist = malloc(blocks * sizeof *dist);
        int head = 0, tail = 0;
        for (size_t b = 0; b < blocks; b++) {
            dist[b] = -1;
            if (on[b] && label[b] == comps[0].label) {
                dist[b] = 0;
                stack[tail++] = (int)b;
            }
        }
        while (head < tail && gap < 0) {
            int b = stack[head++], x = b % bw, y = b / bw;
            if (on[b] && label[b] == comps[1].label) gap = dist[b] - 1;
            for (int dy = -1; dy <= 1 && gap < 0; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int nx = x + dx, ny = y + dy;
                    if (nx < 0 || nx >= bw || ny < 0 || ny >= bh || dist[ny * bw + nx] >= 0) continue;
                    dist[ny * bw + nx] = dist[b] + 1;
                    stack[tail++] = ny * bw + nx;
                }
        }
        free(dist);
    }

    double total = dense_lit > 0 ? (double)dense_lit : 1;
    double held = 0;
    printf(", %d component%s (block %d px)", ncomp, ncomp == 1 ? "" : "s", block);
    for (int i = 0; i < ncomp && i < clusters + 1; i++) {
        printf("%s %.1f%% at (%.0f,%.0f)", i ? "," : ":", 100 * comps[i].weight / total, comps[i].cx, comps[i].cy);
        if (i < clusters) held += comps[i].weight / total;
    }
    if (gap >= 0) printf(", gap %d px", gap * block);
    if (sizes) {
        printf(", sizes");
        for (int i = 0; i < ncomp && i < clusters; i++) {
            const int wide = comps[i].x1 - comps[i].x0 + 1, high = comps[i].y1 - comps[i].y0 + 1;
            printf(" %d", comps[i].x1 < 0 ? 0 : (wide > high ? wide : high) * block);
        }
        printf(" px, spreads");
        const int k = ncomp < clusters ? ncomp : clusters;
        double *sum = calloc((size_t)k + 1, sizeof *sum);
        long *n = calloc((size_t)k + 1, sizeof *n);
        for (size_t p = 0; p < pixels && k > 0; p++) {
            if (!(lum[p] > threshold)) continue;
            const double x = (double)(p % (size_t)w) + 0.5, y = (double)(p / (size_t)w) + 0.5;
            int near = 0;
            double best = INFINITY;
            for (int i = 0; i < k; i++) {
                const double d2 = (x - comps[i].cx) * (x - comps[i].cx) + (y - comps[i].cy) * (y - comps[i].cy);
                if (d2 < best) best = d2, near = i;
            }
            sum[near] += best;
            n[near]++;
        }
        for (int i = 0; i < k; i++) printf(" %.1f", n[i] > 0 ? sqrt(sum[i] / (double)n[i]) : 0.0);
        printf(" px");
        free(sum);
        free(n);
    }
    const double inside = lit > 0 ? (double)lit_inside / (double)lit : 0;
    bool centres_inside = true;
    for (int i = 0; i < ncomp && i < clusters; i++)
        centres_inside = centres_inside && comps[i].cx >= region[0] && comps[i].cx < region[2] &&
                         comps[i].cy >= region[1] && comps[i].cy < region[3];
    if (in_region)
        printf(", %.1f%% of the lit pixels in (%.0f,%.0f)-(%.0f,%.0f)", 100 * inside, region[0], region[1], region[2],
               region[3]);

    const char *why = NULL;
    if (ncomp < clusters) why = "fewer clusters than asked";
    else if (held < 0.8) why = "the largest clusters hold under 80% of the light";
    else if (comps[clusters - 1].weight < 0.1 * total) why = "too few clusters hold 10% of the light";
    else if (ncomp > clusters && comps[clusters].weight >= 0.1 * total) why = "more clusters than asked";
    else if (in_region && !centres_inside) why = "a cluster's centre lies outside the region";
    else if (in_region && inside < 0.95) why = "under 95% of the lit pixels lie in the region";
    if (why) printf(": FAIL: %s (want %d)\n", why, clusters);
    else printf(": OK (%d cluster%s)\n", clusters, clusters == 1 ? "" : "s");

    free(lum);
    free(comps);
    free(label);
    free(stack);
    free(count);
    free(on);
    free(grown);
    return why ? 1 : 0;
}
