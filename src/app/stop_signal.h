/* Ctrl+C, SIGTERM and SIGHUP end a run the way closing its window does: the frame loop stops at
 * the next frame boundary, the run is finished as usual (saved where --save asks, the screenshot
 * and the recording written), and the program then dies of the signal it received, so its caller
 * sees it was interrupted (a shell reads 128 + the signal number, and a shell script stops). A
 * second of these signals, while the run stops, ends the program at once, without a save, with one
 * line on stderr saying so ("starburst: a second SIGINT: stopped at once, nothing saved").
 *
 * The handler only records the signal's number (and, the first time, has SIGPIPE ignored, so
 * that output to a pipe that the signal closed cannot end the program before its save); the frame
 * loop polls for it. A signal ignored when the program started (nohup ignores SIGHUP) stays
 * ignored. */
#ifndef STARBURST_STOP_SIGNAL_H
#define STARBURST_STOP_SIGNAL_H

#include <stdbool.h>

/* Installs the handlers of SIGINT, SIGTERM and SIGHUP (with SA_RESTART, so that a write under way
 * when one arrives goes on). */
void stop_signal_install(void);
/* The signal that asked the program to stop (SIGINT, SIGTERM or SIGHUP), or 0. */
int stop_signal_requested(void);
/* "SIGINT", "SIGTERM" or "SIGHUP" ("a signal" for another). */
const char *stop_signal_name(int sig);
/* The end of a run that the handlers covered, given its exit status. Without a stop request:
 * returns status. After a run that stopped cleanly (status 0): prints one line to stderr unless
 * quiet ("starburst: interrupted by SIGINT: saved run.tipsy", or "...: stopping" without a
 * save_path), then ends the program by the signal itself; where that cannot happen, returns
 * 128 + the signal number. A run that failed (status != 0, its error already printed) says
 * "starburst: interrupted by SIGINT" and keeps its status: the error is what the caller must see. */
int stop_signal_finish(int status, const char *save_path, bool quiet);

#endif
