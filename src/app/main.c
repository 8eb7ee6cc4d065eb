/* starburst: four programs in one binary. `starburst bench ...` is the bench (src/bench/),
 * `starburst export ...` hands a scene to SWIFT (src/app/export.c), `starburst serve ...` runs
 * the viewer headless for web pages (src/app/serve_cli.c, src/serve/); anything else is the
 * interactive galaxy-collision visualizer (src/app/). */
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "app/export_cli.h"
#include "app/paths.h"
#include "app/serve_cli.h"
#include "bench/bench.h"

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "bench") == 0) return bench_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "export") == 0) return export_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "serve") == 0) return serve_main(argc - 1, argv + 1);
    char err[512] = "";
    AppOptions o;
    app_default_options(&o);
    int rc = app_parse_args(&o, argc, argv, err, sizeof err);
    if (rc == 1) return 0;
    if (rc != 0 || app_check_paths(&o, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        app_options_free(&o);
        return 2;
    }
    return app_run(&o);
}
