/*
 * --probe's question for exec rules: whether this kernel can stop an exec
 * for the supervisor (seccomp user notification and its CONTINUE answer).
 */
#define _GNU_SOURCE
#include <linux/seccomp.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "landlock-run.h"

/* --probe: whether this kernel can stop an exec for us (user notification and its CONTINUE answer). */
int exec_notify_works(void)
{
	__u32 action = SECCOMP_RET_USER_NOTIF;
	struct seccomp_notif_sizes sizes;
	struct utsname u;
	int major = 0, minor = 0;

	if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) || syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes))
		return 0;
	/* Why the release too: the CONTINUE answer (Linux 5.5) has no flag to probe */
	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return 0;
	return major > 5 || (major == 5 && minor >= 5);
}
