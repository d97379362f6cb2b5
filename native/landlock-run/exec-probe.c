/*
 * --probe's question for exec rules: whether this kernel can stop an exec
 * for the supervisor (seccomp user notification and its CONTINUE answer),
 * and whether the supervisor can then look up the exec's program as the
 * process would (openat2, Linux 5.6: exec-read.c refuses every exec without it).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "landlock-run.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* --probe: whether this kernel can stop an exec for us (user notification and its CONTINUE answer). */
int exec_notify_works(void)
{
	__u32 action = SECCOMP_RET_USER_NOTIF;
	struct seccomp_notif_sizes sizes;
	struct utsname u;
	int major = 0, minor = 0;

	struct open_how how = { .flags = O_PATH | O_CLOEXEC };
	int fd;

	if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) || syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes))
		return 0;
	fd = (int)syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));
	if (fd < 0)
		return 0;
	close(fd);
	/* Why the release too: the CONTINUE answer (Linux 5.5) has no flag to probe */
	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return 0;
	return major > 5 || (major == 5 && minor >= 5);
}
