/*
 * slot.c - --slot: the confinement built ahead of its command. The launcher
 * does everything it does without the flag (namespaces, mounts, covers,
 * Landlock, seccomp, limits, keyring, supervisor); only the command comes
 * later, read from fd 3 at the last step before exec. What fd 3 carries is
 * the command's argv and nothing else: each argument NUL-terminated, up to
 * EOF. The environment, the working directory and every restriction are the
 * ones on our own command line, fixed before the command was known, so what
 * arrives there cannot widen anything. EOF before a whole command, anything
 * malformed or too large: exit 125 without exec.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landlock-run.h"

/* Whether "--slot" is among our options (before "--"): then fd 3 survives the first close. */
int slot_asked(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--slot"))
			return 1;
	return 0;
}

/*
 * Why a pipe or a socket only: fd 3 is where the host writes the command; a
 * file or a device there is not what the host handed us. Why close-on-exec:
 * no command may inherit it (it is closed after the read as well).
 */
void slot_check_fd(void)
{
	struct stat st;

	if (fstat(SLOT_FD, &st))
		fail("--slot: fd %d is not open: %s", SLOT_FD, strerror(errno));
	if (!S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode))
		fail("--slot: fd %d is neither a pipe nor a socket", SLOT_FD);
	if (fcntl(SLOT_FD, F_SETFD, FD_CLOEXEC))
		fail("--slot: fd %d: %s", SLOT_FD, strerror(errno));
}

/*
 * Block until the host sends the command, and return its argv. Why mmap and
 * not malloc: without namespaces this runs in the child of a CLONE_VM clone,
 * whose memory is the suspended supervisor's; pages of its own leave the
 * supervisor's heap as it was.
 */
char **slot_read_command(void)
{
	char *buf, **argv;
	size_t len = 0, argc = 0, i, start;
	ssize_t n;

	buf = mmap(NULL, SLOT_MAX_BYTES + 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (buf == MAP_FAILED)
		fail("--slot: cannot map the command's buffer: %s", strerror(errno));
	for (;;) {
		n = read(SLOT_FD, buf + len, SLOT_MAX_BYTES + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fail("--slot: reading the command: %s", strerror(errno));
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > SLOT_MAX_BYTES)
			fail("--slot: the command is longer than %d bytes", SLOT_MAX_BYTES);
	}
	close(SLOT_FD);
	if (!len)
		fail("--slot: no command came (fd %d closed empty)", SLOT_FD);
	if (buf[len - 1] != '\0')
		fail("--slot: the command's last argument is not NUL-terminated");
	if (buf[0] == '\0')
		fail("--slot: the command's argv[0] is empty");
	for (i = 0; i < len; i++)
		argc += buf[i] == '\0';
	if (argc > SLOT_MAX_ARGS)
		fail("--slot: the command has more than %d arguments", SLOT_MAX_ARGS);
	argv = mmap(NULL, (argc + 1) * sizeof(char *), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (argv == MAP_FAILED)
		fail("--slot: cannot map the command's argv: %s", strerror(errno));
	for (i = 0, start = 0, argc = 0; i < len; i++) {
		if (buf[i] == '\0') {
			argv[argc++] = buf + start;
			start = i + 1;
		}
	}
	argv[argc] = NULL;
	return argv;
}
