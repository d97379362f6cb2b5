/*
 * exec-read.c - what an exec stopped by --exec-notify asks for, read from the
 * stopped process: its memory, a NUL-terminated string in it, and the real
 * path of the program it names (resolved through /proc/PID/root, cwd or the
 * dirfd, with a script's #! interpreter). exec-notify.c decides.
 *
 * Why process_vm_readv and not /proc/PID/mem: the same ptrace access check
 * (PTRACE_MODE_ATTACH, each call rather than at open), without a procfs
 * lookup and an open for each new process, which cost more than the reads
 * (~20 us of ~25 here). Each call finds the pid again; exec-notify.c checks
 * the notification is still live after the last read (SECCOMP_IOCTL_NOTIF_ID_VALID),
 * so every read was of the process that is stopped, not of one that reused its pid.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "landlock-run.h"

/* What of [addr, addr + len) the process has mapped readable, from addr on: bytes read, or -1. */
static ssize_t peek(pid_t pid, unsigned long addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)addr, len };
	char mem[64];
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	int fd;

	/* Why /proc/PID/mem then: a kernel without cross-memory attach (ENOSYS), or a container's
	 * seccomp profile that refuses the syscall (EPERM); a real ptrace refusal fails there too */
	if (n >= 0 || (errno != ENOSYS && errno != EPERM))
		return n;
	snprintf(mem, sizeof(mem), "/proc/%d/mem", (int)pid);
	fd = open(mem, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = pread(fd, buf, len, (off_t)addr);
	close(fd);
	return n;
}

/*
 * Pointers from addr on (an argv), as many as `max` and the rest of addr's page
 * hold, in one read: how many were read (at least one), or -1.
 */
long exec_read_pointers(pid_t pid, unsigned long addr, unsigned long *out, size_t max)
{
	size_t bytes = 4096 - (addr & 4095);
	ssize_t n;

	/* Why: a misaligned pointer may straddle two pages; then it is read alone, whole or not at all */
	if (bytes < sizeof(*out))
		bytes = sizeof(*out);
	if (bytes / sizeof(*out) < max)
		max = bytes / sizeof(*out);
	n = peek(pid, addr, out, max * sizeof(*out));
	return n < (ssize_t)sizeof(*out) ? -1 : n / (ssize_t)sizeof(*out);
}

/* Copy the NUL-terminated string at addr into out (at most room bytes, NUL included); its length, -1, or -2 if it does not fit. */
long exec_read_string(pid_t pid, unsigned long addr, char *out, size_t room)
{
	size_t got = 0;

	while (got < room) {
		/* Why page by page: a string may end just before an unmapped page */
		size_t chunk = 4096 - ((addr + got) & 4095);
		ssize_t n;
		char *nul;

		if (chunk > room - got)
			chunk = room - got;
		n = peek(pid, addr + got, out + got, chunk);
		if (n <= 0)
			return -1;
		nul = memchr(out + got, '\0', (size_t)n);
		if (nul)
			return nul - out;
		got += (size_t)n;
	}
	return -2; /* does not fit */
}

/*
 * The program the kernel would run, as a real path: `path` taken from the
 * process's root, working directory or dirfd through /proc (the kernel
 * follows those links into the process's own mount namespace), opened
 * and read back. Empty when it does not resolve (the exec will fail).
 * And its "#!" line, when it is a script (`interp`, without the "#!"; empty
 * otherwise): the kernel runs the interpreter with no exec of its own.
 */
void exec_real_path(pid_t pid, int dirfd, const char *path, int empty_path, char *out, size_t room, char *interp, size_t interp_room)
{
	char where[PATH_MAX + 64], link[64], head[256];
	struct stat st;
	ssize_t n;
	int fd, len, file;

	out[0] = '\0';
	interp[0] = '\0';
	if (strlen(path) >= PATH_MAX)
		return; /* the kernel refuses it too (ENAMETOOLONG) */
	if (empty_path && !*path)
		len = snprintf(where, sizeof(where), "/proc/%d/fd/%d", (int)pid, dirfd);
	else if (path[0] == '/')
		len = snprintf(where, sizeof(where), "/proc/%d/root%s", (int)pid, path);
	else if (dirfd == AT_FDCWD)
		len = snprintf(where, sizeof(where), "/proc/%d/cwd/%s", (int)pid, path);
	else
		len = snprintf(where, sizeof(where), "/proc/%d/fd/%d/%s", (int)pid, dirfd, path);
	if (len < 0 || (size_t)len >= sizeof(where))
		return;
	/*
	 * Why O_PATH first: the supervisor runs outside the command's Landlock
	 * domain, so it opens for reading only what fstat shows is a regular file
	 * (a device or FIFO the exec names is never opened). Why O_PATH kept when
	 * the reopen fails: a program the supervisor may not read (mode 0711)
	 * still runs, and its real path is still a name a rule can meet.
	 */
	fd = open(where, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, out, room - 1);
	out[n > 0 ? n : 0] = '\0';
	file = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? open(link, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) : -1;
	if (file >= 0 && (n = pread(file, head, sizeof(head) - 1, 0)) > 2 && head[0] == '#' && head[1] == '!') {
		char *end;

		head[n] = '\0';
		end = strchr(head, '\n');
		if (end)
			*end = '\0';
		snprintf(interp, interp_room, "%s", head + 2);
	}
	if (file >= 0)
		close(file);
	close(fd);
}
