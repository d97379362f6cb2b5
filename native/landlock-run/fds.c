/*
 * fds.c - the file descriptors inherited from the caller: none above 2
 * survives, and 0-2 are always open.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock-run.h"

/*
 * Why first: an inherited writable fd bypasses every path rule, so no fd of
 * the caller may survive into the command. Rule fds opened later are
 * O_CLOEXEC and the ruleset fd is closed explicitly. `first` is 4 with
 * --slot: fd 3 brings the command, and is closed before exec (slot.c).
 */
void close_inherited_fds(unsigned int first)
{
	DIR *d;
	struct dirent *e;

	if (syscall(SYS_close_range, first, ~0U, 0U) == 0)
		return;
	d = opendir("/proc/self/fd");
	if (!d)
		fail("cannot close inherited file descriptors: %s", strerror(errno));
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);

		if (fd >= (int)first && fd != dirfd(d))
			close(fd);
	}
	closedir(d);
}

/*
 * Why: if the caller left 0-2 closed, the next open() would take that slot
 * and the command would read or write our file as its stdio.
 */
void ensure_stdio_open(void)
{
	int fd;

	for (fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", O_RDWR) != fd)
			fail("cannot open /dev/null for fd %d", fd);
}
