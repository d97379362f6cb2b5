/*
 * exec.c - run COMMAND the way execvp() does in glibc, whatever libc the
 * launcher is linked with: a PATH search (the --env PATH) and, for a file
 * the kernel will not run because it has no "#!" line, a retry through
 * /bin/sh. musl's execvp() makes no such retry.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "landlock-run.h"

/* The default of glibc's execvp() when PATH is unset. */
#define DEFAULT_PATH "/bin:/usr/bin"

/*
 * Why the retry: POSIX has execvp() hand such a file to a shell, and
 * callers rely on it (a script written without "#!" runs under a shell
 * and under glibc). The new argv is built on the stack, one pointer per
 * argument: start_command() sizes the child's stack for it.
 */
static void exec_file(const char *file, char *const argv[])
{
	size_t argc = 0;

	execve(file, argv, environ);
	if (errno != ENOEXEC)
		return;
	while (argv[argc])
		argc++;
	{
		char *sh_argv[argc + 2];

		sh_argv[0] = "/bin/sh";
		sh_argv[1] = (char *)file;
		memcpy(sh_argv + 2, argv + 1, argc * sizeof(char *)); /* with the final NULL */
		execve("/bin/sh", sh_argv, environ);
	}
	errno = ENOEXEC;
}

/* Returns only on failure, with errno set as execvp() would. */
void exec_command_line(char *const argv[])
{
	const char *file = argv[0], *path, *p, *z;
	size_t len = strlen(file);
	char buf[PATH_MAX];
	int seen_eacces = 0;

	if (!*file) {
		errno = ENOENT;
		return;
	}
	if (strchr(file, '/')) {
		exec_file(file, argv);
		return;
	}
	path = getenv("PATH");
	if (!path)
		path = DEFAULT_PATH;
	for (p = path;; p = z + 1) {
		size_t dir;

		z = strchrnul(p, ':');
		dir = (size_t)(z - p);
		/* Why skip rather than truncate: a shortened path would run something
		 * else. An empty entry is the current directory, as in glibc. */
		if (dir + 1 + len + 1 <= sizeof(buf)) {
			memcpy(buf, p, dir);
			buf[dir] = '/';
			memcpy(buf + dir + (dir > 0), file, len + 1);
			exec_file(buf, argv);
			if (errno == EACCES)
				seen_eacces = 1;
			else if (errno != ENOENT && errno != ENOTDIR)
				return;
		}
		if (!*z)
			break;
	}
	errno = seen_eacces ? EACCES : ENOENT;
}
