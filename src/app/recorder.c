/* Recordings: raw RGB frames piped into ffmpeg, which writes a temporary file that replaces the
 * target (atomic_file_replace) once ffmpeg has exited cleanly; or numbered PNGs, each written
 * atomically by capture_write_png. */
#include <GL/glew.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app/recorder.h"
#include "render/capture.h"
#include "util/atomic_file.h"
#include "util/clock.h"

extern char **environ;

#define MAX_SIDE 32768

struct Recorder {
    char *path; /* the target, as given */
    char *tmp;  /* video: what ffmpeg writes until it has succeeded */
    bool video;
    bool made_folder;
    int width, height, fps;
    int frames;
    double opened, last_frame; /* clock_seconds() at the start and at the last frame added */
    uint8_t *frame;    /* a frame centred on the recording's size, when sizes differ */
    uint8_t *readback; /* recorder_capture's pixels */
    size_t readback_size;
    pid_t ffmpeg;      /* 0 once reaped */
    int pipe;          /* ffmpeg's stdin; -1 once closed */
    int log;           /* ffmpeg's stderr, an unlinked file; -1 without one */
    char failure[512]; /* the first failure, repeated by every later call */
};

static bool has_video_extension(const char *path)
{
    static const char *const video[] = {".mp4", ".mkv", ".webm", ".mov"};
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/')) return false;
    for (size_t i = 0; i < sizeof video / sizeof video[0]; i++)
        if (strcasecmp(dot, video[i]) == 0) return true;
    return false;
}

/* The way execvp searches PATH, so that a missing program is known before anything starts. */
static bool find_program(const char *name, char *out, size_t len)
{
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;;) {
        const char *end = strchr(p, ':');
        int n = end ? (int)(end - p) : (int)strlen(p);
        /* An empty entry is the current folder. */
        int w = snprintf(out, len, "%.*s/%s", n ? n : 1, n ? p : ".", name);
        struct stat st;
        if (w > 0 && (size_t)w < len && stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return true;
        if (!end) return false;
        p = end + 1;
    }
}

/* The folder that holds path ("." for a bare name), into out (room for strlen(path) + 2). */
static void parent_of(const char *path, char *out)
{
    strcpy(out, path);
    size_t n = strlen(out);
    while (n > 1 && out[n - 1] == '/') out[--n] = '\0';
    char *slash = strrchr(out, '/');
    if (!slash) strcpy(out, ".");
    else slash[slash == out ? 1 : 0] = '\0'; /* "/name" lies in "/" */
}

static bool is_folder(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Keeps the first failure and puts it into err. */
static void fail(Recorder *r, char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void fail(Recorder *r, char *err, size_t errlen, const char *fmt, ...)
{
    if (!r->failure[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->failure, sizeof r->failure, fmt, ap);
        va_end(ap);
    }
    snprintf(err, errlen, "%s", r->failure);
}

static void recorder_free(Recorder *r)
{
    if (r->pipe >= 0) close(r->pipe);
    if (r->ffmpeg > 0) {
        int status;
        while (waitpid(r->ffmpeg, &status, 0) < 0 && errno == EINTR) {
        }
    }
    if (r->log >= 0) close(r->log);
    free(r->path);
    free(r->tmp);
    free(r->frame);
    free(r->readback);
    free(r);
}

/* The first line ffmpeg wrote to its log: at -loglevel error, usually the cause. */
static void ffmpeg_said(const Recorder *r, char *out, size_t len)
{
    out[0] = '\0';
    if (r->log < 0) return;
    char buf[256];
    ssize_t n = pread(r->log, buf, sizeof buf - 1, 0);
    if (n <= 0) return;
    buf[n] = '\0';
    char *line = buf;
    while (isspace((unsigned char)*line)) line++;
    line[strcspn(line, "\r\n")] = '\0';
    if (*line) snprintf(out, len, ": %s", line);
}

/* Ends ffmpeg's input and waits for it. 0 when it exited with status 0; else -1 with why. */
static int ffmpeg_finish(Recorder *r, char *why, size_t len)
{
    if (r->pipe >= 0) close(r->pipe);
    r->pipe = -1;
    int status = 0;
    pid_t got;
    while ((got = waitpid(r->ffmpeg, &status, 0)) < 0 && errno == EINTR) {
    }
    r->ffmpeg = 0;
    char said[260];
    ffmpeg_said(r, said, sizeof said);
    if (got < 0) {
        snprintf(why, len, "cannot wait for ffmpeg: %s", strerror(errno));
        return -1;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    if (WIFSIGNALED(status))
        snprintf(why, len, "ffmpeg was killed by signal %d%s", WTERMSIG(status), said);
    else
        snprintf(why, len, "ffmpeg exited with status %d%s", WEXITSTATUS(status), said);
    return -1;
}

static int open_video(Recorder *r, char *err, size_t errlen)
{
    char ffmpeg[4096];
    if (!find_program("ffmpeg", ffmpeg, sizeof ffmpeg)) {
        snprintf(err, errlen,
                 "--record %s needs ffmpeg, which is not installed (apt-get install ffmpeg), or give a folder "
                 "for numbered PNGs",
                 r->path);
        return -1;
    }
    char *parent = malloc(strlen(r->path) + 2);
    if (!parent) {
        snprintf(err, errlen, "recording: %s: out of memory", r->path);
        return -1;
    }
    parent_of(r->path, parent);
    bool parent_ok = is_folder(parent);
    if (!parent_ok) snprintf(err, errlen, "recording: cannot write %s: folder %s does not exist", r->path, parent);
    free(parent);
    if (!parent_ok) return -1;
    if (is_folder(r->path)) {
        snprintf(err, errlen, "recording: %s is a folder: give a file name for the video", r->path);
        return -1;
    }
    /* Even sizes: yuv420p keeps one colour sample per 2 x 2 pixels. */
    r->width &= ~1;
    r->height &= ~1;
    if (r->width == 0 || r->height == 0) {
        snprintf(err, errlen, "recording: %s: a video needs frames of at least 2x2 pixels", r->path);
        return -1;
    }
    /* "out.mp4.part.mp4": ffmpeg picks the container from the extension. */
    const char *ext = strrchr(r->path, '.');
    r->tmp = malloc(strlen(r->path) + sizeof ".part" + strlen(ext));
    if (!r->tmp) {
        snprintf(err, errlen, "recording: %s: out of memory", r->path);
        return -1;
    }
    sprintf(r->tmp, "%s.part%s", r->path, ext);

    /* A dead ffmpeg must make write() fail with EPIPE rather than end the program; a handler
     * someone installed is left in place. */
    struct sigaction old;
    if (sigaction(SIGPIPE, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
        signal(SIGPIPE, SIG_IGN);

    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(err, errlen, "recording: cannot make a pipe to ffmpeg: %s", strerror(errno));
        return -1;
    }
    /* ffmpeg sees the end of its input only if no other process holds the write end. */
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    FILE *log = tmpfile();
    if (log) {
        r->log = dup(fileno(log));
        fclose(log);
        if (r->log >= 0) fcntl(r->log, F_SETFD, FD_CLOEXEC);
    }

    char size[32], fps[16];
    snprintf(size, sizeof size, "%dx%d", r->width, r->height);
    snprintf(fps, sizeof fps, "%d", r->fps);
    /* WebM holds VP8/VP9/AV1 only; constant quality there needs -b:v 0. */
    bool webm = strcasecmp(ext, ".webm") == 0;
    static const char *const h264[] = {"-c:v", "libx264", "-crf", "18", NULL};
    static const char *const vp9[] = {"-c:v", "libvpx-vp9", "-crf", "31", "-b:v", "0", NULL};
    const char *argv[32] = {"ffmpeg", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", size,
                            "-r", fps, "-i", "-", "-pix_fmt", "yuv420p"};
    int argc = 16;
    for (const char *const *a = webm ? vp9 : h264; *a; a++) argv[argc++] = *a;
    argv[argc++] = r->tmp;

    posix_spawn_file_actions_t files;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&files);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_adddup2(&files, fds[0], 0);
    posix_spawn_file_actions_addopen(&files, 1, "/dev/null", O_WRONLY, 0);
    if (r->log >= 0) posix_spawn_file_actions_adddup2(&files, r->log, 2);
    /* ffmpeg starts with SIGPIPE at its default, and in its own process group, so that Ctrl-C
     * in the terminal reaches the program, which then finishes the recording. */
    sigset_t pipe_only, none;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr, &pipe_only);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
    int rc = posix_spawn(&r->ffmpeg, ffmpeg, &files, &attr, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&files);
    posix_spawnattr_destroy(&attr);
    close(fds[0]);
    if (rc != 0) {
        r->ffmpeg = 0;
        close(fds[1]);
        snprintf(err, errlen, "recording: cannot start %s: %s", ffmpeg, strerror(rc));
        return -1;
    }
    r->pipe = fds[1];
    return 0;
}

static int open_folder(Recorder *r, char *err, size_t errlen)
{
    if (mkdir(r->path, 0777) == 0) {
        r->made_folder = true;
    } else if (errno == ENOENT) {
        char *parent = malloc(strlen(r->path) + 2);
        if (parent) parent_of(r->path, parent);
        snprintf(err, errlen, "recording: cannot create folder %s: folder %s does not exist", r->path,
                 parent ? parent : "above it");
        free(parent);
        return -1;
    } else if (errno != EEXIST) {
        snprintf(err, errlen, "recording: cannot create folder %s: %s", r->path, strerror(errno));
        return -1;
    }
    if (!is_folder(r->path)) {
        snprintf(err, errlen,
                 "recording: %s is a file, not a folder: give a folder for numbered PNGs, or a name ending in "
                 ".mp4, .mkv, .webm or .mov",
                 r->path);
        return -1;
    }
    if (access(r->path, W_OK) != 0) {
        snprintf(err, errlen, "recording: cannot write in folder %s: %s", r->path, strerror(errno));
        return -1;
    }
    /* Frames of an earlier recording would be overwritten one by one: keep them. */
    char *first = malloc(strlen(r->path) + sizeof "/frame_000001.png");
    if (!first) {
        snprintf(err, errlen, "recording: %s: out of memory", r->path);
        return -1;
    }
    sprintf(first, "%s/frame_000001.png", r->path);
    bool taken = access(first, F_OK) == 0;
    free(first);
    if (taken) {
        snprintf(err, errlen,
                 "recording: folder %s already holds frame_000001.png from another recording: give a new or "
                 "empty folder",
                 r->path);
        return -1;
    }
    return 0;
}

Recorder *recorder_open(const RecorderDesc *desc, char *err, size_t errlen)
{
    if (!desc || !desc->path || !desc->path[0]) {
        snprintf(err, errlen, "recording: no file or folder given");
        return NULL;
    }
    if (desc->width <= 0 || desc->height <= 0 || desc->width > MAX_SIDE || desc->height > MAX_SIDE) {
        snprintf(err, errlen, "recording: %s: cannot record frames of %dx%d pixels (window minimised?)",
                 desc->path, desc->width, desc->height);
        return NULL;
    }
    if (desc->fps < 0 || desc->fps > 1000) {
        snprintf(err, errlen, "recording: %s: %d frames per second is out of range 1 .. 1000", desc->path,
                 desc->fps);
        return NULL;
    }
    Recorder *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(desc->path))) {
        free(r);
        snprintf(err, errlen, "recording: %s: out of memory", desc->path);
        return NULL;
    }
    r->pipe = r->log = -1;
    r->opened = r->last_frame = clock_seconds();
    r->width = desc->width;
    r->height = desc->height;
    r->fps = desc->fps ? desc->fps : 60;
    r->video = has_video_extension(desc->path);
    r->frame = malloc((size_t)r->width * (size_t)r->height * 3);
    if (!r->frame) {
        snprintf(err, errlen, "recording: %s: out of memory for %dx%d frames", r->path, r->width, r->height);
        recorder_free(r);
        return NULL;
    }
    if ((r->video ? open_video(r, err, errlen) : open_folder(r, err, errlen)) != 0) {
        recorder_free(r);
        return NULL;
    }
    return r;
}

/* rgb as a frame of the recording's size, centred: cropped or padded with black. */
static const uint8_t *fit(Recorder *r, const uint8_t *rgb, int width, int height)
{
    if (width == r->width && height == r->height) return rgb;
    int w = width < r->width ? width : r->width, h = height < r->height ? height : r->height;
    int to_x = (r->width - w) / 2, to_y = (r->height - h) / 2;
    int from_x = (width - w) / 2, from_y = (height - h) / 2;
    if (w < r->width || h < r->height) memset(r->frame, 0, (size_t)r->width * (size_t)r->height * 3);
    for (int y = 0; y < h; y++)
        memcpy(r->frame + ((size_t)(to_y + y) * (size_t)r->width + (size_t)to_x) * 3,
               rgb + ((size_t)(from_y + y) * (size_t)width + (size_t)from_x) * 3, (size_t)w * 3);
    return r->frame;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int recorder_frame(Recorder *r, const uint8_t *rgb, int width, int height, char *err, size_t errlen)
{
    if (r->failure[0]) {
        snprintf(err, errlen, "%s", r->failure);
        return -1;
    }
    if (width <= 0 || height <= 0) {
        snprintf(err, errlen, "recording: %s: a frame of %dx%d pixels holds nothing", r->path, width, height);
        return -1;
    }
    const uint8_t *frame = fit(r, rgb, width, height);
    if (r->video) {
        if (write_all(r->pipe, frame, (size_t)r->width * (size_t)r->height * 3) != 0) {
            int write_errno = errno;
            char why[400];
            if (ffmpeg_finish(r, why, sizeof why) == 0)
                snprintf(why, sizeof why, "ffmpeg stopped reading (%s)", strerror(write_errno));
            remove(r->tmp);
            fail(r, err, errlen, "recording: %s not written: %s after %d frames", r->path, why, r->frames);
            return -1;
        }
    } else {
        char *path = malloc(strlen(r->path) + 32);
        if (!path) {
            fail(r, err, errlen, "recording: %s: out of memory", r->path);
            return -1;
        }
        sprintf(path, "%s/frame_%06d.png", r->path, r->frames + 1);
        char why[400];
        int rc = capture_write_png(path, r->width, r->height, frame, why, sizeof why);
        free(path);
        if (rc != 0) {
            fail(r, err, errlen, "recording: %s", why);
            return -1;
        }
    }
    r->frames++;
    r->last_frame = clock_seconds();
    return 0;
}

int recorder_capture(Recorder *r, unsigned int framebuffer, int width, int height, char *err, size_t errlen)
{
    if (width <= 0 || height <= 0) return 0;
    if (r->failure[0]) {
        snprintf(err, errlen, "%s", r->failure);
        return -1;
    }
    size_t need = (size_t)width * (size_t)height * 3;
    if (need > r->readback_size) {
        uint8_t *grown = realloc(r->readback, need);
        if (!grown) {
            fail(r, err, errlen, "recording: %s: out of memory for %dx%d pixels", r->path, width, height);
            return -1;
        }
        r->readback = grown;
        r->readback_size = need;
    }
    while (glGetError() != GL_NO_ERROR) {
    }
    capture_read(framebuffer, width, height, r->readback);
    GLenum e = glGetError();
    if (e != GL_NO_ERROR) {
        fail(r, err, errlen, "recording: %s: reading framebuffer %u failed (GL error 0x%04x)", r->path,
             framebuffer, (unsigned)e);
        return -1;
    }
    return recorder_frame(r, r->readback, width, height, err, errlen);
}

/* The video's length, which is not the time it took to record: "0.6 s of video at 60 fps". */
static void describe_length(const Recorder *r, char *buf, size_t len)
{
    snprintf(buf, len, "%.1f s of video at %d fps", (double)r->frames / r->fps, r->fps);
}

static int close_video(Recorder *r, char *msg, size_t msglen)
{
    if (r->failure[0]) {
        snprintf(msg, msglen, "%s", r->failure);
        return -1;
    }
    char why[400];
    int finished = ffmpeg_finish(r, why, sizeof why);
    if (r->frames == 0) {
        remove(r->tmp);
        snprintf(msg, msglen, "recording: no frames recorded; %s not written", r->path);
        return 0;
    }
    if (finished != 0) {
        remove(r->tmp);
        snprintf(msg, msglen, "recording: %s not written: %s", r->path, why);
        return -1;
    }
    struct stat st;
    if (stat(r->tmp, &st) != 0 || st.st_size == 0) {
        remove(r->tmp);
        snprintf(msg, msglen, "recording: %s not written: ffmpeg finished but left nothing in %s", r->path, r->tmp);
        return -1;
    }
    char err[600];
    if (atomic_file_replace(r->tmp, r->path, err, sizeof err) != 0) {
        snprintf(msg, msglen, "recording: %s", err);
        return -1;
    }
    char length[96];
    describe_length(r, length, sizeof length);
    snprintf(msg, msglen, "recorded %d frames over %.1f s to %s: %s", r->frames, r->last_frame - r->opened, r->path,
             length);
    return 0;
}

static int close_folder(Recorder *r, char *msg, size_t msglen)
{
    if (r->failure[0]) {
        snprintf(msg, msglen, "%s (%d frames written before)", r->failure, r->frames);
        return -1;
    }
    if (r->frames == 0) {
        /* Only a folder this recording made, and only while empty. */
        if (r->made_folder) rmdir(r->path);
        snprintf(msg, msglen, "recording: no frames recorded in %s", r->path);
        return 0;
    }
    char length[96];
    describe_length(r, length, sizeof length);
    snprintf(msg, msglen, "recorded %d frames over %.1f s to %s/frame_000001.png .. frame_%06d.png: %s", r->frames,
             r->last_frame - r->opened, r->path, r->frames, length);
    return 0;
}

int recorder_close(Recorder *r, char *msg, size_t msglen)
{
    if (!r) return 0;
    int rc = r->video ? close_video(r, msg, msglen) : close_folder(r, msg, msglen);
    recorder_free(r);
    return rc;
}

int recorder_frames(const Recorder *r) { return r->frames; }
const char *recorder_path(const Recorder *r) { return r->path; }

int recorder_new_path(char *buf, size_t len)
{
    char ffmpeg[4096];
    return recorder_new_name(buf, len, find_program("ffmpeg", ffmpeg, sizeof ffmpeg) ? ".mp4" : "");
}

int recorder_new_name(char *buf, size_t len, const char *ext)
{
    if (!buf || len == 0) return -1;
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    char stamp[64];
    strftime(stamp, sizeof stamp, "starburst-%Y%m%d-%H%M%S", &tm);
    for (int i = 1; i < 1000; i++) {
        int n = i == 1 ? snprintf(buf, len, "%s%s", stamp, ext) : snprintf(buf, len, "%s-%d%s", stamp, i, ext);
        if (n < 0 || (size_t)n >= len) return -1;
        struct stat st;
        if (lstat(buf, &st) != 0 && errno == ENOENT) return 0;
    }
    return -1;
}

void recorder_size(const Recorder *r, int *width, int *height)
{
    *width = r->width;
    *height = r->height;
}
