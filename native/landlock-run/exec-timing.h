/*
 * exec-timing.h - a timing build of the exec notification (make TIMING=1):
 * clock_gettime around each step of one notification, and at the end the
 * median of each step over every notification, on stderr as the supervisor exits. Measurements only
 * (docs/measurements/): the shipped launcher is built without it and these
 * macros are empty.
 */
#ifndef EXEC_TIMING_H
#define EXEC_TIMING_H

enum exec_step { STEP_PATH, STEP_REAL, STEP_ARGV, STEP_VALID, STEP_DECIDE, STEP_HOST, STEP_ALL, STEP_GAP, N_STEPS };

#ifdef EXEC_TIMING
void exec_timing_mark(int start);
void exec_timing_step(enum exec_step step);
void exec_timing_host(unsigned long long id, int sent);
void exec_timing_report(void);
#define TIMING_MARK(start) exec_timing_mark(start)
#define TIMING_STEP(step) exec_timing_step(step)
#define TIMING_HOST(id, sent) exec_timing_host(id, sent)
#define TIMING_REPORT_AT_EXIT() atexit(exec_timing_report)
#else
#define TIMING_MARK(start) ((void)0)
#define TIMING_STEP(step) ((void)0)
#define TIMING_HOST(id, sent) ((void)0)
#define TIMING_REPORT_AT_EXIT() ((void)0)
#endif

#endif
