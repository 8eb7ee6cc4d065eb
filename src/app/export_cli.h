/* `starburst export`: a scene or a saved run written for SWIFT (run/export.h). */
#ifndef STARBURST_EXPORT_CLI_H
#define STARBURST_EXPORT_CLI_H

/* The program: argv[0] is "export". Returns an exit status (2 for bad input, with one line). */
int export_main(int argc, char **argv);

#endif
