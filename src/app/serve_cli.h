/* `starburst serve`: the run headless, served to web pages (src/serve, src/app/remote.c). */
#ifndef STARBURST_SERVE_CLI_H
#define STARBURST_SERVE_CLI_H

/* The program: argv[0] is "serve". Returns an exit status (2 for bad input, with one line). */
int serve_main(int argc, char **argv);

#endif
