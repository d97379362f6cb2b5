/*
 * limits.c - the command's resource limits (--limit NAME=N), set in the
 * child before exec so the supervisor is never limited by them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "landlock-run.h"

static const struct {
	const char *name;
	int resource;
} names[] = {
	{ "nproc", RLIMIT_NPROC },
	{ "as", RLIMIT_AS },
	{ "fsize", RLIMIT_FSIZE },
	{ "cpu", RLIMIT_CPU },
	{ "nofile", RLIMIT_NOFILE },
};

#define N_NAMES (sizeof(names) / sizeof(names[0]))

/* "NAME=N" -> o->limits; anything else is a launcher error. */
void parse_limit(struct options *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	unsigned long long v;
	char *end;
	size_t i;

	if (!eq)
		fail("--limit wants NAME=N, got '%s'", arg);
	for (i = 0; i < N_NAMES; i++)
		if (strlen(names[i].name) == (size_t)(eq - arg) && !strncmp(arg, names[i].name, (size_t)(eq - arg)))
			break;
	/* Why: a misspelt limit must not silently leave the resource unbounded. */
	if (i == N_NAMES)
		fail("--limit: unknown resource in '%s' (nproc, as, fsize, cpu, nofile)", arg);
	errno = 0;
	v = strtoull(eq + 1, &end, 10);
	if (errno || end == eq + 1 || *end || v == 0 || eq[1] == '-')
		fail("--limit %s wants a positive integer, got '%s'", names[i].name, eq + 1);
	o->limit[i] = (rlim_t)v;
}

/*
 * Why soft and hard alike: the command has no CAP_SYS_RESOURCE, so it can
 * never raise a hard limit again. A value above the current hard limit is
 * clamped to it (only a capability could raise it, and that bound is
 * already tighter).
 */
void apply_limits(const struct options *o)
{
	struct rlimit now, want;
	size_t i;

	for (i = 0; i < N_NAMES; i++) {
		if (!o->limit[i])
			continue;
		if (getrlimit(names[i].resource, &now))
			fail("getrlimit %s: %s", names[i].name, strerror(errno));
		want.rlim_max = now.rlim_max != RLIM_INFINITY && now.rlim_max < o->limit[i] ? now.rlim_max : o->limit[i];
		want.rlim_cur = want.rlim_max;
		if (setrlimit(names[i].resource, &want))
			fail("setrlimit %s=%llu: %s", names[i].name, (unsigned long long)want.rlim_max, strerror(errno));
	}
}
