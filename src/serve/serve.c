/* The server: libwebsockets' service loop on one thread, the frame encoder on another, and the
 * frame loop's calls, which meet them under one lock.
 *
 * What each holds: the service thread alone touches the connections (a Page each, libwebsockets'
 * per-connection memory); the encoder thread alone the frame being encoded; under the lock lie the
 * queues between them and the frame loop (messages in, answers out), the raw frame handed over, the
 * newest encoded frame and the newest readout. A thread that leaves something for the service
 * thread wakes it with lws_cancel_service, the one call of the library that other threads may make. */
#include "serve/serve.h"

#include <libwebsockets.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve/frame_encoder.h"
#include "serve/serve_token.h"
#include "serve/web_files.h"
#include "util/clock.h"

/* Messages waiting for the frame loop, answers waiting for the service thread. */
#define SERVE_QUEUE 256
/* An answer's longest JSON; the answers one page may have waiting. */
#define SERVE_REPLY_MAX 512
#define SERVE_PAGE_REPLIES 64
/* HTTP bodies go out in pieces of this size. */
#define SERVE_HTTP_PIECE 16384

enum { PROTOCOL_HTTP = 0, PROTOCOL_PAGE };

/* One WebSocket connection (libwebsockets' per-connection memory, zeroed when it opens). */
typedef struct Page {
    bool admitted, drives, open;
    uint64_t id;
    struct lws *wsi;
    uint64_t sent_frame, sent_status;
    ServeCollect collect;
    bool binary;           /* the message under way came as binary */
    double allowance, allowance_at; /* messages it may still send this second */
    double refused_said;   /* when "too many messages" was last said */
    char replies[SERVE_PAGE_REPLIES][SERVE_REPLY_MAX];
    int reply_head, reply_count;
} Page;

/* An HTTP request for one of web/'s files. */
typedef struct Fetch {
    const char *body;
    size_t len, sent;
} Fetch;

typedef struct Answer {
    uint64_t page;
    char json[SERVE_REPLY_MAX];
} Answer;

struct Serve {
    struct lws_context *ctx;
    pthread_t service, encoder;
    bool service_started, encoder_started;
    atomic_bool quit;
    bool public_view;
    int max_pages, port;
    char drive_token[SERVE_TOKEN_LEN + 1], view_token[SERVE_TOKEN_LEN + 1];
    char url_drive[256], url_view[256];
    /* The service thread's own. */
    Page *pages[SERVE_MAX_PAGES];
    uint64_t next_id;
    /* Under the lock. */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int page_count;
    ServeCommand in[SERVE_QUEUE];
    int in_head, in_count;
    Answer *out; /* SERVE_QUEUE of them */
    int out_head, out_count;
    const uint8_t *raw; /* the frame lent by the frame loop (not ours to free) */
    int raw_width, raw_height;
    long long raw_number; /* the frame loop's number of the raw frame */
    bool raw_busy; /* the encoder reads the raw frame */
    FrameBytes frame; /* the newest encoded frame */
    uint64_t frame_seq;
    uint8_t *status;
    size_t status_len, status_capacity;
    uint64_t status_seq;
    ServeStats stats;
    double encode_ms_sum, bytes_sum;
    /* The encoder thread's own. */
    FrameEncoder *enc;
    FrameBytes encoding;
};

const char *serve_json_text(const char *text, char *buf, size_t len)
{
    size_t at = 0;
    if (len < 3) {
        if (len) buf[0] = '\0';
        return buf;
    }
    buf[at++] = '"';
    for (const unsigned char *c = (const unsigned char *)text; *c && at + 8 < len; c++) {
        if (*c == '"' || *c == '\\') {
            buf[at++] = '\\';
            buf[at++] = (char)*c;
        } else if (*c < 0x20) {
            at += (size_t)snprintf(buf + at, len - at, "\\u%04x", *c);
        } else {
            buf[at++] = (char)*c;
        }
    }
    buf[at++] = '"';
    buf[at] = '\0';
    return buf;
}

/* {"type":"reply","ok":false,"text":"..."} */
static void answer_json(bool ok, const char *text, char *buf, size_t len)
{
    char quoted[SERVE_REPLY_MAX - 40];
    snprintf(buf, len, "{\"type\":\"reply\",\"ok\":%s,\"text\":%s}", ok ? "true" : "false",
             serve_json_text(text, quoted, sizeof quoted));
}

/* ---- the service thread ---- */

static Serve *serve_of(struct lws *wsi) { return lws_context_user(lws_get_context(wsi)); }

static void page_say(Page *p, const char *json)
{
    if (p->reply_count == SERVE_PAGE_REPLIES) return; /* a page that does not read its answers loses the newest */
    snprintf(p->replies[(p->reply_head + p->reply_count) % SERVE_PAGE_REPLIES], SERVE_REPLY_MAX, "%s", json);
    p->reply_count++;
    lws_callback_on_writable(p->wsi);
}

static void page_refuse(Page *p, const char *text)
{
    char json[SERVE_REPLY_MAX];
    answer_json(false, text, json, sizeof json);
    page_say(p, json);
}

static Page *page_by_id(Serve *s, uint64_t id)
{
    for (int i = 0; i < SERVE_MAX_PAGES; i++)
        if (s->pages[i] && s->pages[i]->id == id) return s->pages[i];
    return NULL;
}

/* Who may open the WebSocket: a page served here (Origin is http:// and the Host it asked), with a
 * token; false with why in a line for the log. */
static bool admit(Serve *s, struct lws *wsi, Page *p, char *why, size_t len)
{
    char origin[256], host[200], want[220], arg[SERVE_TOKEN_LEN + 16];
    if (lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) <= 0) {
        snprintf(why, len, "no Host header");
        return false;
    }
    if (lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) <= 0) {
        snprintf(why, len, "no Origin header");
        return false;
    }
    snprintf(want, sizeof want, "http://%s", host);
    if (strcmp(origin, want) != 0) {
        snprintf(why, len, "Origin %.100s is not this server's (%.100s)", origin, want);
        return false;
    }
    pthread_mutex_lock(&s->lock);
    const int pages = s->page_count;
    pthread_mutex_unlock(&s->lock);
    if (pages >= s->max_pages) {
        snprintf(why, len, "%d pages are open, the most", pages);
        return false;
    }
    const char *token = lws_get_urlarg_by_name(wsi, "token=", arg, (int)sizeof arg);
    const size_t given = token ? strlen(token) : 0;
    const bool drive = token && serve_token_equal(token, given, s->drive_token);
    const bool view = token && serve_token_equal(token, given, s->view_token);
    if (!drive && !view && !(s->public_view && (!token || given == 0))) {
        snprintf(why, len, token ? "a wrong token" : "no token");
        return false;
    }
    p->admitted = true;
    p->drives = drive;
    return true;
}

static void page_opened(Serve *s, struct lws *wsi, Page *p)
{
    p->id = ++s->next_id;
    p->wsi = wsi;
    p->open = true;
    p->allowance = SERVE_RATE;
    p->allowance_at = clock_seconds();
    for (int i = 0; i < SERVE_MAX_PAGES; i++)
        if (!s->pages[i]) {
            s->pages[i] = p;
            break;
        }
    pthread_mutex_lock(&s->lock);
    s->page_count++;
    pthread_mutex_unlock(&s->lock);
    char json[128];
    snprintf(json, sizeof json, "{\"type\":\"hello\",\"role\":\"%s\",\"page\":%llu}", p->drives ? "drive" : "watch",
             (unsigned long long)p->id);
    page_say(p, json);
}

static void page_closed(Serve *s, Page *p)
{
    if (!p->open) return;
    p->open = false;
    for (int i = 0; i < SERVE_MAX_PAGES; i++)
        if (s->pages[i] == p) s->pages[i] = NULL;
    pthread_mutex_lock(&s->lock);
    s->page_count--;
    pthread_mutex_unlock(&s->lock);
}

/* Whether the page may send another message now (SERVE_RATE a second, as many at once). */
static bool page_within_rate(Page *p)
{
    const double now = clock_seconds();
    p->allowance += (now - p->allowance_at) * SERVE_RATE;
    p->allowance_at = now;
    if (p->allowance > SERVE_RATE) p->allowance = SERVE_RATE;
    if (p->allowance >= 1) {
        p->allowance -= 1;
        return true;
    }
    if (now - p->refused_said >= 1.0) {
        char text[128];
        snprintf(text, sizeof text, "too many messages: at most %d a second; those over it are dropped", SERVE_RATE);
        page_refuse(p, text);
        p->refused_said = now;
    }
    return false;
}

/* A whole message from a page: read, checked, and queued for the frame loop, or refused. */
static void page_message(Serve *s, Page *p, const char *data, size_t len)
{
    char err[300];
    ServeMsg m;
    if (p->binary) {
        page_refuse(p, "a binary message: messages are text");
        return;
    }
    if (!p->drives) {
        page_refuse(p, "this page watches (its token is the view token): only the driver's page changes the run");
        return;
    }
    if (serve_msg_read(data, len, &m, err, sizeof err) != 0) {
        page_refuse(p, err);
        return;
    }
    pthread_mutex_lock(&s->lock);
    const bool room = s->in_count < SERVE_QUEUE;
    if (room) s->in[(s->in_head + s->in_count++) % SERVE_QUEUE] = (ServeCommand){.page = p->id, .msg = m};
    pthread_mutex_unlock(&s->lock);
    if (!room) page_refuse(p, "the server is behind on messages: this one is dropped");
}

static void page_received(Serve *s, struct lws *wsi, Page *p, const void *in, size_t len)
{
    const bool fresh = p->collect.ended || (p->collect.len == 0 && p->collect.dropped == 0);
    if (fresh) p->binary = false;
    if (lws_frame_is_binary(wsi)) p->binary = true;
    const bool last = lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0;
    const ServeCollected r = serve_collect(&p->collect, in, len, last);
    if (r == SERVE_COLLECT_MORE) return;
    if (!page_within_rate(p)) return;
    if (r == SERVE_COLLECT_TOO_LONG) {
        char text[128];
        snprintf(text, sizeof text, "a message of %zu bytes: the most is %d", p->collect.len + p->collect.dropped,
                 SERVE_MSG_MAX);
        page_refuse(p, text);
        return;
    }
    page_message(s, p, p->collect.buf, p->collect.len);
}

/* Answers from the frame loop, to their pages; and every page told there may be more to send. */
static void deliver(Serve *s)
{
    Answer a;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        const bool any = s->out_count > 0;
        if (any) {
            a = s->out[s->out_head];
            s->out_head = (s->out_head + 1) % SERVE_QUEUE;
            s->out_count--;
        }
        pthread_mutex_unlock(&s->lock);
        if (!any) break;
        Page *p = page_by_id(s, a.page);
        if (p) page_say(p, a.json);
    }
    for (int i = 0; i < SERVE_MAX_PAGES; i++)
        if (s->pages[i]) lws_callback_on_writable(s->pages[i]->wsi);
}

/* One write a call, as libwebsockets asks: an answer, else a newer readout, else a newer frame. */
static int page_writable(Serve *s, struct lws *wsi, Page *p)
{
    static uint8_t buf[LWS_PRE + SERVE_REPLY_MAX + 4096];
    if (p->reply_count > 0) {
        const char *json = p->replies[p->reply_head];
        const size_t n = strlen(json);
        memcpy(buf + LWS_PRE, json, n);
        p->reply_head = (p->reply_head + 1) % SERVE_PAGE_REPLIES;
        p->reply_count--;
        if (lws_write(wsi, buf + LWS_PRE, n, LWS_WRITE_TEXT) < (int)n) return -1;
        lws_callback_on_writable(wsi);
        return 0;
    }
    pthread_mutex_lock(&s->lock);
    int rc = 0;
    bool more = false;
    if (s->status_seq != p->sent_status && s->status_len > 0) {
        p->sent_status = s->status_seq;
        rc = lws_write(wsi, s->status + LWS_PRE, s->status_len, LWS_WRITE_TEXT) < (int)s->status_len ? -1 : 0;
        more = s->frame_seq != p->sent_frame;
    } else if (s->frame_seq != p->sent_frame && s->frame.len > 0) {
        p->sent_frame = s->frame_seq;
        rc = lws_write(wsi, s->frame.buf + s->frame.head, s->frame.len, LWS_WRITE_BINARY) < (int)s->frame.len ? -1 : 0;
        s->stats.sent++;
    }
    pthread_mutex_unlock(&s->lock);
    if (more) lws_callback_on_writable(wsi);
    return rc;
}

static int on_page(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    Serve *s = serve_of(wsi);
    Page *p = user;
    char why[300];
    switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        if (!p || !admit(s, wsi, p, why, sizeof why)) {
            lwsl_notice("refused a WebSocket: %s\n", p ? why : "no room for it");
            return 1;
        }
        return 0;
    case LWS_CALLBACK_ESTABLISHED:
        if (!p || !p->admitted) return -1;
        page_opened(s, wsi, p);
        return 0;
    case LWS_CALLBACK_CLOSED:
        if (p) page_closed(s, p);
        return 0;
    case LWS_CALLBACK_RECEIVE:
        if (p && p->open) page_received(s, wsi, p, in, len);
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE: return p && p->open ? page_writable(s, wsi, p) : 0;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED: deliver(s); return 0;
    default: return 0;
    }
}

static const char *mime_of(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (dot && !strcmp(dot, ".html")) return "text/html; charset=utf-8";
    if (dot && !strcmp(dot, ".js")) return "text/javascript; charset=utf-8";
    if (dot && !strcmp(dot, ".css")) return "text/css; charset=utf-8";
    return "application/octet-stream";
}

static int http_status(struct lws *wsi, unsigned code)
{
    if (lws_return_http_status(wsi, code, NULL)) return -1;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

static int add_header(struct lws *wsi, const char *name, const char *value, unsigned char **p, unsigned char *end)
{
    return lws_add_http_header_by_name(wsi, (const unsigned char *)name, (const unsigned char *)value, (int)strlen(value), p,
                                       end);
}

/* GET of one of web/'s files by its name ("/" is index.html); nothing else is served, and no name
 * reaches the file system. */
static int http_request(struct lws *wsi, Fetch *f, const char *path)
{
    if (lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) <= 0) return http_status(wsi, HTTP_STATUS_METHOD_NOT_ALLOWED);
    const char *name = !path || !strcmp(path, "/") || !path[0] ? "index.html" : path + (path[0] == '/');
    size_t len = 0;
    const char *body = strchr(name, '/') ? NULL : web_file(name, &len);
    if (!body) return http_status(wsi, HTTP_STATUS_NOT_FOUND);
    unsigned char head[LWS_PRE + 1024], *start = head + LWS_PRE, *p = start, *end = head + sizeof head - 1;
    if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, mime_of(name), (lws_filepos_t)len, &p, end) ||
        add_header(wsi, "cache-control:", "no-store", &p, end) ||
        add_header(wsi, "x-content-type-options:", "nosniff", &p, end) ||
        add_header(wsi, "referrer-policy:", "no-referrer", &p, end) ||
        add_header(wsi, "content-security-policy:",
                   "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; "
                   "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
                   &p, end) ||
        lws_finalize_write_http_header(wsi, start, &p, end))
        return -1;
    *f = (Fetch){.body = body, .len = len, .sent = 0};
    lws_callback_on_writable(wsi);
    return 0;
}

static int http_writable(struct lws *wsi, Fetch *f)
{
    static uint8_t buf[LWS_PRE + SERVE_HTTP_PIECE];
    if (!f->body) return 0;
    const size_t n = f->len - f->sent < SERVE_HTTP_PIECE ? f->len - f->sent : SERVE_HTTP_PIECE;
    const bool last = f->sent + n == f->len;
    memcpy(buf + LWS_PRE, f->body + f->sent, n);
    if (lws_write(wsi, buf + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) < (int)n) return -1;
    f->sent += n;
    if (!last) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    f->body = NULL;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

static int on_http(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    Fetch *f = user;
    switch (reason) {
    case LWS_CALLBACK_HTTP: return f ? http_request(wsi, f, in) : -1;
    case LWS_CALLBACK_HTTP_WRITEABLE: return f ? http_writable(wsi, f) : -1;
    /* A WebSocket that names no protocol of ours is refused (libwebsockets may open it on this
     * first protocol without asking the filter). */
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
    case LWS_CALLBACK_ESTABLISHED: return -1;
    default: return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

static const struct lws_protocols protocols[] = {
    [PROTOCOL_HTTP] = {"http", on_http, sizeof(Fetch), 0, 0, NULL, 0},
    [PROTOCOL_PAGE] = {"starburst", on_page, sizeof(Page), 4096, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static void *service_main(void *arg)
{
    Serve *s = arg;
    while (!atomic_load(&s->quit))
        if (lws_service(s->ctx, 0) < 0) break;
    return NULL;
}

/* ---- the encoder thread ---- */

static void *encoder_main(void *arg)
{
    Serve *s = arg;
    char err[256];
    bool said = false;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        while (!s->raw_busy && !atomic_load(&s->quit)) pthread_cond_wait(&s->wake, &s->lock);
        pthread_mutex_unlock(&s->lock);
        if (atomic_load(&s->quit)) break;
        const double t0 = clock_seconds();
        const FrameImage img = {.rgba = s->raw, .width = s->raw_width, .height = s->raw_height, .number = s->raw_number};
        const int rc = frame_encoder_encode(s->enc, &img, &s->encoding, err, sizeof err);
        const double ms = (clock_seconds() - t0) * 1e3;
        pthread_mutex_lock(&s->lock);
        if (rc == 0) {
            const FrameBytes newest = s->encoding;
            s->encoding = s->frame;
            s->frame = newest;
            s->frame_seq++;
            s->stats.frames++;
            s->encode_ms_sum += ms;
            s->bytes_sum += (double)newest.len;
        }
        s->raw_busy = false;
        pthread_mutex_unlock(&s->lock);
        if (rc != 0 && !said) {
            lwsl_err("%s\n", err);
            said = true;
        }
        lws_cancel_service(s->ctx);
    }
    return NULL;
}

/* ---- the frame loop's calls ---- */

static void on_log(int level, const char *line)
{
    fprintf(stderr, "starburst: serve: %s", line);
}

/* The threads take no signals: SIGINT and the others reach the frame loop, which stops the run. */
static int start_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    const int rc = pthread_create(t, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

Serve *serve_create(const ServeDesc *d, char *err, size_t errlen)
{
    Serve *s = calloc(1, sizeof *s);
    if (!s || !(s->out = calloc(SERVE_QUEUE, sizeof *s->out))) {
        snprintf(err, errlen, "serve: out of memory");
        free(s);
        return NULL;
    }
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->wake, NULL);
    s->public_view = d->public_view;
    s->max_pages = d->max_pages > 0 && d->max_pages < SERVE_MAX_PAGES ? d->max_pages : SERVE_MAX_PAGES;
    s->frame.head = s->encoding.head = LWS_PRE;
    if (serve_token_make(s->drive_token, err, errlen) != 0 || serve_token_make(s->view_token, err, errlen) != 0) {
        serve_destroy(s);
        return NULL;
    }
    char why[256];
    if (!(s->enc = frame_encoder_jpeg(d->quality > 0 ? d->quality : SERVE_JPEG_QUALITY, 0, why, sizeof why))) {
        snprintf(err, errlen, "serve: %s", why);
        serve_destroy(s);
        return NULL;
    }
    s->stats.encoder = frame_encoder_name(s->enc);
    lws_set_log_level(LLL_ERR, on_log);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = d->port;
    info.iface = d->host;
    info.protocols = protocols;
    info.user = s;
    info.server_string = "starburst";
    if (!strchr(d->host, ':')) info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
    s->ctx = lws_create_context(&info);
    if (!s->ctx) {
        snprintf(err, errlen, "serve: cannot listen on %s%s%s:%d (in use, or not an address of this machine)",
                 strchr(d->host, ':') ? "[" : "", d->host, strchr(d->host, ':') ? "]" : "", d->port);
        serve_destroy(s);
        return NULL;
    }
    s->port = lws_get_vhost_listen_port(lws_get_vhost_by_name(s->ctx, "default"));
    if (s->port <= 0) {
        snprintf(err, errlen, "serve: cannot listen on %s:%d", d->host, d->port);
        serve_destroy(s);
        return NULL;
    }
    char host[128];
    if (!strcmp(d->host, "0.0.0.0") && gethostname(host, sizeof host) == 0) host[sizeof host - 1] = '\0';
    else if (strchr(d->host, ':')) snprintf(host, sizeof host, "[%s]", d->host); /* IPv6, as a URL writes it */
    else snprintf(host, sizeof host, "%s", d->host);
    snprintf(s->url_drive, sizeof s->url_drive, "http://%s:%d/?token=%s", host, s->port, s->drive_token);
    if (s->public_view) snprintf(s->url_view, sizeof s->url_view, "http://%s:%d/", host, s->port);
    else snprintf(s->url_view, sizeof s->url_view, "http://%s:%d/?token=%s", host, s->port, s->view_token);
    if (start_thread(&s->encoder, encoder_main, s) != 0) {
        snprintf(err, errlen, "serve: cannot start the encoder's thread");
        serve_destroy(s);
        return NULL;
    }
    s->encoder_started = true;
    if (start_thread(&s->service, service_main, s) != 0) {
        snprintf(err, errlen, "serve: cannot start the server's thread");
        serve_destroy(s);
        return NULL;
    }
    s->service_started = true;
    return s;
}

void serve_destroy(Serve *s)
{
    if (!s) return;
    pthread_mutex_lock(&s->lock);
    atomic_store(&s->quit, true);
    pthread_cond_broadcast(&s->wake);
    pthread_mutex_unlock(&s->lock);
    if (s->encoder_started) pthread_join(s->encoder, NULL);
    if (s->ctx) lws_cancel_service(s->ctx);
    if (s->service_started) pthread_join(s->service, NULL);
    if (s->ctx) lws_context_destroy(s->ctx);
    frame_encoder_destroy(s->enc);
    frame_bytes_free(&s->frame);
    frame_bytes_free(&s->encoding);
    free(s->status);
    free(s->out);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->wake);
    free(s);
}

int serve_port(const Serve *s) { return s->port; }
const char *serve_url(const Serve *s, bool drive) { return drive ? s->url_drive : s->url_view; }

bool serve_take(Serve *s, ServeCommand *out)
{
    pthread_mutex_lock(&s->lock);
    const bool any = s->in_count > 0;
    if (any) {
        *out = s->in[s->in_head];
        s->in_head = (s->in_head + 1) % SERVE_QUEUE;
        s->in_count--;
    }
    pthread_mutex_unlock(&s->lock);
    return any;
}

void serve_reply(Serve *s, uint64_t page, bool ok, const char *text)
{
    pthread_mutex_lock(&s->lock);
    if (s->out_count < SERVE_QUEUE) {
        Answer *a = &s->out[(s->out_head + s->out_count++) % SERVE_QUEUE];
        a->page = page;
        answer_json(ok, text, a->json, sizeof a->json);
    }
    pthread_mutex_unlock(&s->lock);
    lws_cancel_service(s->ctx);
}

ServeFrameState serve_frame_state(Serve *s)
{
    pthread_mutex_lock(&s->lock);
    const ServeFrameState state = {.watched = s->page_count > 0, .busy = s->raw_busy};
    pthread_mutex_unlock(&s->lock);
    return state;
}

bool serve_frame_lend(Serve *s, const uint8_t *rgba, int width, int height, long long number)
{
    pthread_mutex_lock(&s->lock);
    const bool taken = s->page_count > 0 && !s->raw_busy && width > 0 && height > 0;
    if (taken) {
        s->raw = rgba;
        s->raw_width = width;
        s->raw_height = height;
        s->raw_number = number;
        s->raw_busy = true;
        pthread_cond_broadcast(&s->wake);
    }
    pthread_mutex_unlock(&s->lock);
    return taken;
}

void serve_status(Serve *s, const char *json)
{
    const size_t n = strlen(json);
    pthread_mutex_lock(&s->lock);
    if (LWS_PRE + n > s->status_capacity) {
        uint8_t *grown = realloc(s->status, LWS_PRE + n);
        if (grown) {
            s->status = grown;
            s->status_capacity = LWS_PRE + n;
        }
    }
    if (LWS_PRE + n <= s->status_capacity) {
        memcpy(s->status + LWS_PRE, json, n);
        s->status_len = n;
        s->status_seq++;
    }
    pthread_mutex_unlock(&s->lock);
    lws_cancel_service(s->ctx);
}

ServeStats serve_stats(Serve *s)
{
    pthread_mutex_lock(&s->lock);
    ServeStats st = s->stats;
    st.pages = s->page_count;
    st.encode_ms = st.frames ? s->encode_ms_sum / (double)st.frames : 0;
    st.bytes = st.frames ? s->bytes_sum / (double)st.frames : 0;
    pthread_mutex_unlock(&s->lock);
    return st;
}
