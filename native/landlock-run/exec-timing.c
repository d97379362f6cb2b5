/*
 * exec-timing.c - the timing build's clock (exec-timing.h): each step's
 * duration from the previous mark, kept for up to MAX_SAMPLES notifications,
 * and their medians written to stderr when the listener closes.
 */
#ifdef EXEC_TIMING
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "exec-timing.h"

#define MAX_SAMPLES 20000

static const char *names[N_STEPS] = { "path", "real path", "argv", "NOTIF_ID_VALID", "decision", "host round trip", "RECV to answer (no host)", "answer to next RECV" };
static double samples[N_STEPS][MAX_SAMPLES];
static int counts[N_STEPS];
static struct timespec last, began, answered;
static unsigned long long pending_id;
static struct timespec pending_at;

static double us(struct timespec a, struct timespec b)
{
	return (double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3;
}

static void keep(enum exec_step step, double value)
{
	if (counts[step] < MAX_SAMPLES)
		samples[step][counts[step]++] = value;
}

/* start: a notification was just received (1), or it was just answered (0) */
void exec_timing_mark(int start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (start) {
		if (answered.tv_sec)
			keep(STEP_GAP, us(answered, now));
		began = now;
	} else {
		keep(STEP_ALL, us(began, now));
		answered = now;
	}
	last = now;
}

void exec_timing_step(enum exec_step step)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	keep(step, us(last, now));
	last = now;
}

/* sent: a request went to the host (1), or its answer came back (0); one outstanding at a time is timed */
void exec_timing_host(unsigned long long id, int sent)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (sent) {
		pending_id = id;
		pending_at = now;
	} else if (id == pending_id && pending_at.tv_sec) {
		keep(STEP_HOST, us(pending_at, now));
		pending_at.tv_sec = 0;
		answered = now;
	}
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void exec_timing_report(void)
{
	int i;

	for (i = 0; i < N_STEPS; i++) {
		if (!counts[i])
			continue;
		qsort(samples[i], (size_t)counts[i], sizeof(double), by_value);
		fprintf(stderr, "exec-timing %-26s n=%-6d median %8.2f us  p25 %8.2f  p75 %8.2f\n", names[i], counts[i],
			samples[i][counts[i] / 2], samples[i][counts[i] / 4], samples[i][counts[i] * 3 / 4]);
	}
}
#endif
