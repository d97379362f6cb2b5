/*
 * caps.c - drop every capability (effective, permitted, inheritable,
 * ambient, bounding set), lock the securebits, and check the result.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/securebits.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock-run.h"

static int last_cap(void)
{
	static int last = -1;
	FILE *f;

	if (last >= 0)
		return last;
	f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	if (f) {
		if (fscanf(f, "%d", &last) != 1)
			last = -1;
		fclose(f);
	}
	/* Why: without /proc, ask the kernel; it answers EINVAL past the end. */
	if (last < 0)
		for (last = 0; prctl(PR_CAPBSET_READ, last + 1, 0, 0, 0) >= 0; last++)
			;
	return last;
}

void read_caps(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };

	if (syscall(SYS_capget, &h, d))
		fail("capget: %s", strerror(errno));
}

int any_cap(const struct __user_cap_data_struct d[2])
{
	return (d[0].effective | d[0].permitted | d[0].inheritable |
		d[1].effective | d[1].permitted | d[1].inheritable) != 0;
}

#define LOCKED_SECUREBITS                                                     \
	(SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |      \
	 SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |            \
	 SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)

/*
 * Why: a root caller's command with capabilities can mknod a block device
 * and write the raw disk, kill any host process, or remount. Landlock
 * does not stop any of that; only dropping every capability does.
 */
void drop_capabilities(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2], zero[2];
	int cap, last = last_cap();

	read_caps(d);
	memset(zero, 0, sizeof(zero));
	if (any_cap(d)) {
		/* Why: both steps below need CAP_SETPCAP; without it we
		 * cannot empty the bounding set, so refuse to run. */
		if (!(d[0].permitted & (1U << CAP_SETPCAP)))
			fail("process has capabilities but not CAP_SETPCAP to drop them");
		d[0].effective = d[0].permitted;
		d[1].effective = d[1].permitted;
		if (syscall(SYS_capset, &h, d))
			fail("capset: %s", strerror(errno));
		/* Why: uid 0 must not regain capabilities on exec, and the
		 * setting is locked so the command cannot undo it. */
		if (prctl(PR_SET_SECUREBITS, LOCKED_SECUREBITS, 0, 0, 0))
			fail("PR_SET_SECUREBITS: %s", strerror(errno));
		/* Why a capability we do not hold is read first: each drop makes
		 * new credentials (and RCU-frees the old) even for one already
		 * gone, ~3 us against ~0.4 us a read; inside bwrap (--cap-add) 39
		 * of 41 are gone, for a root caller none, so those are dropped
		 * unread. verify_no_capabilities() reads every one again. */
		for (cap = 0; cap <= last; cap++) {
			__u32 held = cap < 32 ? d[0].permitted & (1U << cap) : d[1].permitted & (1U << (cap - 32));

			if (!held && prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 0)
				continue;
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL)
				fail("PR_CAPBSET_DROP %d: %s", cap, strerror(errno));
		}
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))
		fail("clearing ambient capabilities: %s", strerror(errno));
	if (syscall(SYS_capset, &h, zero))
		fail("capset: %s", strerror(errno));
}

/* Why: trust the kernel's answer, not our own bookkeeping. */
void verify_no_capabilities(int dropped_bounding_set)
{
	struct __user_cap_data_struct d[2];
	int cap, last = last_cap();

	read_caps(d);
	if (any_cap(d))
		fail("capabilities remain after dropping them");
	/* No ambient check: the kernel keeps ambient a subset of permitted
	 * and inheritable, and capget has just shown both empty. */
	for (cap = 0; dropped_bounding_set && cap <= last; cap++)
		if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) != 0)
			fail("capability %d remains in the bounding set", cap);
	if (dropped_bounding_set &&
	    (prctl(PR_GET_SECUREBITS, 0, 0, 0, 0) & LOCKED_SECUREBITS) != LOCKED_SECUREBITS)
		fail("securebits were not locked");
}
