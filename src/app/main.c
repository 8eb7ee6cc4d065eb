/* starburst: the interactive galaxy-collision visualizer, and `starburst bench`. */
#include <stdio.h>
#include <string.h>

#include "app/app.h"

int main(int argc, char **argv)
{
    AppOptions o;
    app_default_options(&o);
    char err[512] = "";
    int rc = app_parse_args(&o, argc, argv, err, sizeof err);
    if (rc == 1) return 0;
    if (rc != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        return 2;
    }
    return app_run(&o);
}
