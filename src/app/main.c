/* starburst: the interactive galaxy-collision visualizer, and `starburst bench`. */
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "app/bench_cli.h"
#include "app/paths.h"

int main(int argc, char **argv)
{
    char err[512] = "";
    if (argc > 1 && strcmp(argv[1], "bench") == 0) {
        BenchCli b;
        int rc = bench_parse_args(&b, argc - 1, argv + 1, err, sizeof err);
        if (rc == 1) return 0;
        if (rc != 0) {
            fprintf(stderr, "starburst: %s\n", err);
            return 2;
        }
        return bench_main(&b);
    }
    AppOptions o;
    app_default_options(&o);
    int rc = app_parse_args(&o, argc, argv, err, sizeof err);
    if (rc == 1) return 0;
    if (rc != 0 || app_check_paths(&o, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        return 2;
    }
    return app_run(&o);
}
