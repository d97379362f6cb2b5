/*
 * exec-read.c - what an exec stopped by --exec-notify asks for, read from the
 * stopped process: its memory (/proc/PID/mem), a NUL-terminated string in it,
 * and the real path of the program it names (resolved through /proc/PID/root,
 * cwd or the dirfd, with a script's #! interpreter). exec-notify.c decides.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landlock-run.h"

int exec_read_mem(int mem, unsigned long addr, void *buf, size_t len)
{
	ssize_t n = pread(mem, buf, len, (off_t)addr);

	return n == (ssize_t)len ? 0 : -1;
}

/* Copy the NUL-terminated string at addr into out (at most room bytes, NUL included); its length, or -1. */
long exec_read_string(int mem, unsigned long addr, char *out, size_t room)
{
	size_t got = 0;

	while (got < room) {
		/* Why page by page: a string may end just before an unmapped page */
		size_t chunk = 4096 - ((addr + got) & 4095);
		ssize_t n;
		char *nul;

		if (chunk > room - got)
			chunk = room - got;
		n = pread(mem, out + got, chunk, (off_t)(addr + got));
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
 * O_PATH and read back. Empty when it does not resolve (the exec will fail).
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
	fd = open(where, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, out, room - 1);
	out[n > 0 ? n : 0] = '\0';
	file = open(link, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(fd);
	if (file < 0)
		return;
	if (fstat(file, &st) == 0 && S_ISREG(st.st_mode) && (n = read(file, head, sizeof(head) - 1)) > 2 &&
	    head[0] == '#' && head[1] == '!') {
		char *end;

		head[n] = '\0';
		end = strchr(head, '\n');
		if (end)
			*end = '\0';
		snprintf(interp, interp_room, "%s", head + 2);
	}
	close(file);
}

