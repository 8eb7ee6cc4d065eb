/* The one clock: seconds on the monotonic clock, for frame times, rates and timeouts. Its zero is
 * arbitrary; only differences mean anything. Wall-clock time (file names, dates) is not this. */
#ifndef STARBURST_CLOCK_H
#define STARBURST_CLOCK_H

#ifdef __cplusplus
extern "C" {
#endif

double clock_seconds(void);

#ifdef __cplusplus
}
#endif

#endif
