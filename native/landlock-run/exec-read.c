/*
 * exec-read.c - what an exec stopped by --exec-notify asks for, read from the
 * stopped process: its memory, a NUL-terminated string in it, and the real
 * path of the program it names (resolved from the process's root, cwd or the
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
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "landlock-run.h"

#ifndef SYS_openat2
#define SYS_openat2 437 /* Linux 5.6, the same number on every architecture */
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef PIDFD_GET_MNT_NAMESPACE
#define PIDFD_GET_MNT_NAMESPACE _IO(0xFF, 3) /* Linux 6.11 */
#endif

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
 * The command's root, kept from the first exec the listener sees: the
 * launcher's own exec of the command, before anything of the command runs.
 * An absolute path of a process whose root is still that one is resolved
 * from it, with no procfs lookup of a pid the supervisor has not seen (what
 * most of a notification cost: /proc/PID/root 15-30 us, and the same again
 * when the process exits and its procfs entries are flushed). Still that
 * one: the same mount namespace (a pidfd's PIDFD_GET_MNT_NAMESPACE, Linux
 * 6.11; without it, /proc/PID/root every time) and no chroot or pivot_root
 * since (the exec filter stops both and exec_root_moved() says so for the
 * rest of the call: a process may chroot in a user namespace of its own).
 */
static int kept_root = -1;
static struct stat kept_namespace;
static int root_moved;

static int mount_namespace(pid_t pid, struct stat *st)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), ns, ok;

	if (pidfd < 0)
		return -1;
	ns = ioctl(pidfd, PIDFD_GET_MNT_NAMESPACE, 0);
	close(pidfd);
	if (ns < 0)
		return -1;
	ok = fstat(ns, st);
	close(ns);
	return ok;
}

void exec_root_keep(pid_t pid)
{
	char where[64];

	if (kept_root >= 0 || root_moved)
		return;
	snprintf(where, sizeof(where), "/proc/%d/root", (int)pid);
	kept_root = open(where, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (kept_root >= 0 && mount_namespace(pid, &kept_namespace)) {
		close(kept_root);
		kept_root = -1;
	}
}

void exec_root_moved(void)
{
	root_moved = 1;
}

/* The directory an absolute path of pid starts from: the kept root when it is still pid's, else /proc/PID/root (to close). */
static int root_of(pid_t pid, int *to_close)
{
	char where[64];
	struct stat ns;

	*to_close = -1;
	if (kept_root >= 0 && !root_moved && mount_namespace(pid, &ns) == 0 && ns.st_dev == kept_namespace.st_dev &&
	    ns.st_ino == kept_namespace.st_ino)
		return kept_root;
	snprintf(where, sizeof(where), "/proc/%d/root", (int)pid);
	*to_close = open(where, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return *to_close;
}

static int open_beneath(int base, const char *path, __u64 resolve)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = resolve };

	return (int)syscall(SYS_openat2, base, path, &how, sizeof(how));
}

static int on_procfs(int fd)
{
	struct statfs fs;

	return fstatfs(fd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
}

/* No empty, `.` or `..` component: the path names its file as a real path would. */
static int plain(const char *path)
{
	const char *at = path;

	while (*at) {
		const char *end = strchr(at + 1, '/');
		size_t len = end ? (size_t)(end - at) : strlen(at);

		/* each piece is "/name" */
		if (len == 1 || (len == 2 && at[1] == '.') || (len == 3 && at[1] == '.' && at[2] == '.'))
			return 0;
		at += len;
	}
	return 1;
}

static int same_file(int a, int b)
{
	struct stat x, y;

	return fstat(a, &x) == 0 && fstat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/*
 * After a lookup failed with ENOENT or ENOTDIR: whether the path (from
 * `base`, `root` for an absolute symlink) is missing for the process too, or
 * went through procfs, where a name like /proc/self means the supervisor when
 * it looks and the process when the kernel does (so that it is missing for
 * the supervisor says nothing of what the process runs). Walked one
 * component at a time, each symlink read and followed by hand (at most 40,
 * as the kernel), the directory reached checked for procfs before each step.
 * 1: missing for the process as well; 0: not known.
 */
static int surely_missing(int base, int root, const char *path)
{
	char rest[PATH_MAX * 2], link[PATH_MAX];
	int dir = dup(base), links = 0, answer = 0;
	char *at = rest;

	if (dir < 0 || strlen(path) >= sizeof(rest) / 2)
		goto out;
	strcpy(rest, path);
	for (;;) {
		char *end, name[NAME_MAX + 1];
		size_t len;
		int next;
		ssize_t n;

		if (on_procfs(dir))
			goto out;
		/* an absolute path (the one given, or a symlink's target) starts again at the root */
		if (at == rest && *at == '/') {
			close(dir);
			dir = dup(root);
			if (dir < 0)
				goto out;
		}
		while (*at == '/')
			at++;
		if (!*at) {
			answer = 0; /* it resolved after all: nothing is missing */
			goto out;
		}
		end = strchr(at, '/');
		len = end ? (size_t)(end - at) : strlen(at);
		if (len > NAME_MAX)
			goto out;
		memcpy(name, at, len);
		name[len] = '\0';
		at += len;
		/* Why: `..` stops at the process's root, as for the kernel */
		if (!strcmp(name, "..") && same_file(dir, root))
			continue;
		next = open_beneath(dir, name, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		if (next < 0 && errno == ELOOP) {
			/* a symlink: its target takes its place, the rest of the path after it */
			n = readlinkat(dir, name, link, sizeof(link) - 1);
			if (n <= 0 || ++links > 40 || (size_t)n + strlen(at) + 1 >= sizeof(rest))
				goto out;
			link[n] = '\0';
			memmove(rest + n, at, strlen(at) + 1);
			memcpy(rest, link, (size_t)n);
			at = rest;
			continue;
		}
		if (next < 0) {
			answer = errno == ENOENT || errno == ENOTDIR;
			goto out;
		}
		close(dir);
		dir = next;
	}
out:
	if (dir >= 0)
		close(dir);
	return answer;
}

/*
 * The program the kernel would run, as a real path: `path` taken from the
 * process's root, working directory or dirfd (the kernel follows
 * /proc/PID/{root,cwd,fd/N} into the process's own mount namespace; an
 * absolute path from the kept root when it is the process's), opened with
 * openat2 and read back. Empty when it is missing for the process too (the exec will
 * fail). And its "#!" line, when it is a script (`interp`, without the "#!";
 * empty otherwise): the kernel runs the interpreter with no exec of its own.
 *
 * Returns -1 when the program cannot be known: the path goes through a
 * magic link (/proc/self/fd/N, /dev/fd/N, /proc/PID/root/...) or a name
 * procfs answers by who asks (/proc/self is the supervisor when it looks),
 * openat2 is refused, or the lookup fails otherwise than by a missing name.
 * Such an exec is refused (fail closed): its program could be anything.
 */
int exec_real_path(pid_t pid, int dirfd, const char *path, int empty_path, char *out, size_t room, char *interp, size_t interp_room)
{
	/* Why 256 bytes: what the kernel reads of a script to find its interpreter (BINPRM_BUF_SIZE) */
	char where[64], link[64], head[257];
	struct stat st;
	ssize_t n;
	int fd, file, base, base_close = -1, root_close = -1, root, answer = 0, direct = 0;
	__u64 in_root = path[0] == '/' ? RESOLVE_IN_ROOT : 0;

	out[0] = '\0';
	interp[0] = '\0';
	if (strlen(path) >= PATH_MAX)
		return 0; /* the kernel refuses it too (ENAMETOOLONG) */
	if (!*path && !empty_path)
		return 0; /* ENOENT for the kernel too */
	if (empty_path && !*path) {
		/* the process's own fd, through its magic link: the file the kernel takes */
		snprintf(where, sizeof(where), "/proc/%d/fd/%d", (int)pid, dirfd);
		fd = open(where, O_PATH | O_CLOEXEC);
		if (fd < 0)
			return errno == EBADF || errno == ENOENT ? 0 : -1;
	} else {
		if (path[0] == '/') {
			base = root_of(pid, &base_close);
		} else {
			snprintf(where, sizeof(where), dirfd == AT_FDCWD ? "/proc/%d/cwd" : "/proc/%d/fd/%d", (int)pid, dirfd);
			base = base_close = open(where, O_PATH | O_CLOEXEC);
		}
		if (base < 0)
			return -1;
		/*
		 * First with no symlink followed at all: a name reached that way
		 * is the same for the process and for us (procfs's /proc/self is a
		 * symlink, and so is every magic link), so a missing one is missing
		 * for the process too: one lookup for a shell trying each PATH entry.
		 */
		fd = open_beneath(base, path, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | in_root);
		if (fd >= 0) {
			direct = 1;
		} else if (errno == ELOOP) {
			/*
			 * A symlink on the way. Why RESOLVE_NO_MAGICLINKS: /proc/self/fd/3
			 * opened here would be the supervisor's fd 3, not the process's.
			 * Why RESOLVE_IN_ROOT for an absolute path: its absolute symlinks
			 * start at the process's root.
			 */
			fd = open_beneath(base, path, RESOLVE_NO_MAGICLINKS | in_root);
			if (fd < 0 && (errno == ENOENT || errno == ENOTDIR)) {
				root = path[0] == '/' ? base : root_of(pid, &root_close);
				answer = root >= 0 && surely_missing(base, root, path) ? 0 : -1;
				goto done;
			}
		}
		if (fd < 0) {
			/* missing, or EACCES: the kernel refuses the exec too; anything else (ELOOP: a magic link) is not known */
			answer = errno == ENOENT || errno == ENOTDIR || errno == EACCES ? 0 : -1;
			goto done;
		}
		if (on_procfs(fd)) {
			close(fd);
			answer = -1;
			goto done;
		}
	}
	/* Why no readlink for a plain absolute path reached with no symlink: it is its own real path, as the process names it */
	if (direct && path[0] == '/' && plain(path) && strlen(path) < room) {
		strcpy(out, path);
	} else {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, out, room - 1);
		out[n > 0 ? n : 0] = '\0';
	}
	/*
	 * Why O_PATH first: the supervisor runs outside the command's Landlock
	 * domain, so it opens for reading only what fstat shows is a regular file
	 * (a device or FIFO the exec names is never opened). Why O_PATH kept when
	 * the reopen fails: a program the supervisor may not read (mode 0711)
	 * still runs, and its real path is still a name a rule can meet.
	 */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
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
done:
	if (base_close >= 0)
		close(base_close);
	if (root_close >= 0)
		close(root_close);
	return answer;
}
