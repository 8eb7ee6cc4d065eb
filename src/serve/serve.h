/* `starburst serve`'s side of the network: HTTP for the page (web/, built into the binary), a
 * WebSocket for the frames, the readout and the page's messages (serve_msg.h). The library is
 * libwebsockets, on a thread of its own; frames are encoded on another (frame_encoder.h), so the
 * frame loop neither waits for a page nor for the encoder.
 *
 * The frame loop (src/app) owns the run and calls this module from its one thread: it takes the
 * pages' messages (serve_take), answers them (serve_reply), hands over frames (serve_frame_begin,
 * serve_frame_submit) and the readout (serve_status). Each page gets the newest frame and readout
 * when its connection can take them: a slow page skips frames, and holds at most one in flight.
 *
 * The door: a WebSocket opens only with the drive token or the view token in its URL (?token=),
 * compared in constant time, or with none where public_view is on (it then watches); and only from
 * a page served here (its Origin names the Host it asked). A page with the view token watches: its
 * messages are refused. At most max_pages pages, and SERVE_RATE messages a second each. */
#ifndef STARBURST_SERVE_H
#define STARBURST_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "serve/serve_msg.h"

#define SERVE_MAX_PAGES 32
#define SERVE_RATE 200
#define SERVE_JPEG_QUALITY 80

typedef struct Serve Serve;

typedef struct ServeDesc {
    const char *host;  /* the address to listen on: "127.0.0.1" */
    int port;          /* 0: one the kernel picks (serve_port says which) */
    bool public_view;  /* a page without a token watches */
    int max_pages;     /* 0 = SERVE_MAX_PAGES */
    int quality;       /* JPEG, 0 = SERVE_JPEG_QUALITY */
} ServeDesc;

/* A page's message, read and checked for its form. */
typedef struct ServeCommand {
    uint64_t page;
    ServeMsg msg;
} ServeCommand;

typedef struct ServeStats {
    long long frames;   /* frames encoded */
    double encode_ms;   /* the mean over them */
    double bytes;       /* the mean frame's size */
    long long sent;     /* frames sent, all pages together */
    int pages;          /* pages open now */
    const char *encoder; /* "JPEG (libjpeg-turbo), quality 80" */
} ServeStats;

/* Listens and starts the threads: NULL with one line in err ("serve: cannot listen on
 * 127.0.0.1:8080: ..."). */
Serve *serve_create(const ServeDesc *desc, char *err, size_t errlen);
void serve_destroy(Serve *s);
int serve_port(const Serve *s);
/* The URLs to open: "http://HOST:PORT/?token=..." to drive, and to watch. */
const char *serve_url(const Serve *s, bool drive);

/* The oldest message not taken yet: true with *out; false where none waits. */
bool serve_take(Serve *s, ServeCommand *out);
/* An answer to a page's message (it may have closed since: then nothing). */
void serve_reply(Serve *s, uint64_t page, bool ok, const char *text);

/* What the frame loop needs to know of the pages and the encoder, read at once. */
typedef struct ServeFrameState {
    bool watched; /* a page is open: where none is, the frame loop reads nothing back */
    bool busy;    /* the encoder still reads the frame lent last */
} ServeFrameState;
ServeFrameState serve_frame_state(Serve *s);
/* Lends the encoder a frame of width x height RGBA (bottom row first, as GL reads it), the frame
 * loop's frame `number` (the readout's "frame" of the frame it ends): encoded, then sent to each
 * page as it can take it. The pixels must stay as they are until serve_frame_state says it is not busy.
 * False where it is not taken (no page, or the encoder still on the last one). */
bool serve_frame_lend(Serve *s, const uint8_t *rgba, int width, int height, long long number);
/* The readout, one JSON object, for every page. */
void serve_status(Serve *s, const char *json);
ServeStats serve_stats(Serve *s);

/* text as a JSON string with its quotes, cut to fit len; returns buf. */
const char *serve_json_text(const char *text, char *buf, size_t len);

#endif
