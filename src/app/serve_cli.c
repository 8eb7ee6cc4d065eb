/* `starburst serve [viewer options] [--listen ADDR:PORT] [--public-view]`: its own two options
 * taken out of argv, the rest read as the viewer reads them; then the viewer's frame loop, headless,
 * with the server's steps in it. */
#include "app/serve_cli.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/paths.h"
#include "util/params.h"

static void usage(FILE *f)
{
    fputs("usage: starburst serve [--listen ADDR:PORT] [--public-view] [viewer options]\n"
          "  --listen ADDR:PORT  the address to serve on (default 127.0.0.1:8080, this machine only);\n"
          "                      0.0.0.0 for every network, [::1]:8080 for IPv6; PORT 0 picks a free one\n"
          "  --public-view       a page opened without a token watches (the driver's token still drives)\n"
          "  viewer options      as the viewer's (starburst --help): the scene, -n, --backend, --load,\n"
          "                      --open, --preset, --size (the frames' size, default 1280x720), --save, ...\n"
          "The first line printed is the address that drives the run, with its token; the second the\n"
          "one that watches it. Ctrl+C ends the run as closing the window does (saved where --save asks).\n",
          f);
}

/* "127.0.0.1:8080", "localhost:0", "[::1]:8080": an IPv4 address (or localhost), or an IPv6 one in
 * brackets, and a port. host gets the address without its brackets. */
static int read_listen(const char *text, char *host, size_t hostlen, int *port, char *err, size_t errlen)
{
    char quoted[120];
    const bool six = text && text[0] == '[';
    const char *close = six ? strchr(text, ']') : NULL;
    const char *colon = six ? (close && close[1] == ':' ? close + 1 : NULL) : text ? strrchr(text, ':') : NULL;
    const char *start = six ? text + 1 : text;
    const char *stop = six ? close : colon;
    unsigned char addr[16];
    char *end;
    if (colon && stop && stop >= start && (size_t)(stop - start) < hostlen) {
        snprintf(host, hostlen, "%.*s", (int)(stop - start), start);
        if (!six && !strcmp(host, "localhost")) snprintf(host, hostlen, "127.0.0.1");
        errno = 0;
        const long p = strtol(colon + 1, &end, 10);
        if (colon[1] && !*end && errno == 0 && p >= 0 && p <= 65535 &&
            inet_pton(six ? AF_INET6 : AF_INET, host, addr) == 1) {
            *port = (int)p;
            return 0;
        }
    }
    snprintf(err, errlen,
             "serve: --listen '%s': expected an IPv4 address and a port, like 127.0.0.1:8080, or an IPv6 address in "
             "brackets, like [::1]:8080",
             params_quote(text ? text : "", quoted, sizeof quoted));
    return -1;
}

int serve_main(int argc, char **argv)
{
    static char host[64] = "127.0.0.1";
    int port = 8080;
    bool public_view = false, listen_seen = false;
    char err[512] = "";
    char **rest = calloc((size_t)argc + 2, sizeof *rest);
    if (!rest) return 1;
    int nrest = 0;
    rest[nrest++] = "starburst";
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            usage(stdout);
            free(rest);
            return 0;
        }
        if (!strcmp(arg, "--public-view")) {
            public_view = true;
        } else if (!strcmp(arg, "--listen") || !strncmp(arg, "--listen=", 9)) {
            const char *value = arg[8] == '=' ? arg + 9 : i + 1 < argc ? argv[++i] : NULL;
            if (listen_seen) snprintf(err, sizeof err, "serve: --listen is given twice: give it once");
            else if (!value) snprintf(err, sizeof err, "serve: --listen needs a value: ADDR:PORT, like 127.0.0.1:8080");
            else read_listen(value, host, sizeof host, &port, err, sizeof err);
            listen_seen = true;
            if (err[0]) break;
        } else if (!strcmp(arg, "--headless")) {
            /* served runs are headless: said or not */
        } else {
            rest[nrest++] = argv[i];
        }
    }
    AppOptions o;
    app_default_options(&o);
    int rc = err[0] ? -1 : app_parse_args(&o, nrest, rest, err, sizeof err);
    free(rest);
    if (rc == 1) return 0;
    if (rc != 0 || app_check_paths(&o, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        app_options_free(&o);
        return 2;
    }
    o.headless = true;
    o.serve = true;
    o.serve_host = host;
    o.serve_port = port;
    o.public_view = public_view;
    return app_run(&o);
}
