/*
 * namespace.c - --namespaces: the command's own user, mount, PID and IPC
 * namespaces (and network, with --no-net), with a new root of read-only
 * binds of the host, a private /tmp, a fresh /proc, a minimal /dev, and
 * the --mount-rw / --mount-ro binds and --hide covers (hide.c) in order, before Landlock and seccomp
 * go on top as without namespaces. For machines where user namespaces
 * work but no system bwrap is installed
 * (docs/decisions/2026-12-01-launcher-namespaces.md).
 *
 * Runs in the cloned child, which is PID 1 of the new PID namespace and
 * forks the command as PID 2 (start_namespace_command): when the command
 * exits, PID 1 exits with its status and the kernel kills everything left
 * in the namespace; when the supervisor dies, PR_SET_PDEATHSIG kills PID 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "landlock-run.h"

/* Where the host's root is while the new root is built (in the staging tmpfs). */
#define OLD "/oldroot"
#define NEW "/newroot"

/* The devices a command may need; every other host device stays out of sight. */
static const char *const devices[] = { "null", "zero", "full", "random", "urandom", "tty" };

int namespace_flags(const struct options *o)
{
	return CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
	       (o->no_net ? CLONE_NEWNET : 0);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = (ssize_t)strlen(text);

	if (fd < 0 || write(fd, text, (size_t)n) != n)
		fail("cannot write %s: %s", path, strerror(errno));
	close(fd);
}

/*
 * Why the same ids inside: files keep the owners they have on the host, and
 * the command is the caller's uid, never more (root's uid 0 inside has
 * capabilities only over the namespaces it owns, and drops them below).
 * Why setgroups deny: without a capability in the parent namespace, the
 * kernel maps gids only once setgroups() is off for good.
 */
static void map_ids(uid_t uid, gid_t gid)
{
	char line[64];

	snprintf(line, sizeof(line), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	write_file("/proc/self/uid_map", line);
	write_file("/proc/self/setgroups", "deny");
	snprintf(line, sizeof(line), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	write_file("/proc/self/gid_map", line);
}

static void do_mount(const char *src, const char *dst, const char *type, unsigned long flags,
		     const char *data)
{
	if (mount(src, dst, type, flags, data))
		fail("cannot mount %s on %s: %s", type ? type : src ? src : "(none)", dst, strerror(errno));
}

/* Make DST (a path in the new root, or here with --private-mounts) exist as a directory or an empty file. */
void mount_point(const char *dst, int dir)
{
	char path[PATH_MAX];
	struct stat st;
	char *p;
	int fd;

	if (!lstat(dst, &st))
		return;
	if (snprintf(path, sizeof(path), "%s", dst) >= (int)sizeof(path))
		fail("path too long: %s", dst);
	for (p = path + 1; (p = strchr(p, '/')); *p++ = '/') {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			fail("cannot make the mount point %s: %s", path, strerror(errno));
	}
	if (dir) {
		if (mkdir(path, 0755) && errno != EEXIST)
			fail("cannot make the mount point %s: %s", path, strerror(errno));
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		fail("cannot make the mount point %s: %s", path, strerror(errno));
	close(fd);
}

/*
 * The host's SRC (under OLD; PATH as the host named it), with all the mounts
 * beneath it, nosuid and nodev, read-only when asked; ST gets what it is.
 * Why open_tree/mount_setattr: one recursive, atomic attribute change for
 * the whole tree, where a MS_REMOUNT per submount would leave a window and
 * need /proc/self/mountinfo parsed.
 */
static int host_tree(const struct options *o, const char *src, const char *path, int read_only, struct stat *st)
{
	int tree = clone_tree(o, src, path, MOUNT_ATTR_NOSUID_ | MOUNT_ATTR_NODEV_ | (read_only ? MOUNT_ATTR_RDONLY_ : 0), 0, 1, st);

	if (tree < 0)
		fail("cannot bind %s: %s", path, strerror(errno));
	return tree;
}

static void join(char *out, const char *prefix, const char *path)
{
	if (path[0] != '/')
		fail("a mount path must be absolute: %s", path);
	if (snprintf(out, PATH_MAX, "%s%s", prefix, path) >= PATH_MAX)
		fail("path too long: %s", path);
}

/* A private /tmp, a fresh /proc, and a /dev of a few devices. */
static void system_mounts(void)
{
	char src[PATH_MAX], dst[PATH_MAX];
	size_t i;

	/* Why: other users' temporary files stay out of sight, and nothing the
	 * command leaves in /tmp survives it. */
	do_mount("tmpfs", NEW "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
	/* Why: the new PID namespace's processes only, not every host
	 * process's command line. */
	do_mount("proc", NEW "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	/* Why: the host's /dev holds raw disks that uid 0 may open. */
	do_mount("tmpfs", NEW "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755");
	for (i = 0; i < sizeof(devices) / sizeof(devices[0]); i++) {
		snprintf(src, sizeof(src), OLD "/dev/%s", devices[i]);
		snprintf(dst, sizeof(dst), NEW "/dev/%s", devices[i]);
		if (access(src, F_OK))
			continue;
		mount_point(dst, 0);
		do_mount(src, dst, NULL, MS_BIND, NULL);
	}
	if (mkdir(NEW "/dev/shm", 01777) || symlink("/proc/self/fd", NEW "/dev/fd") ||
	    symlink("/proc/self/fd/0", NEW "/dev/stdin") || symlink("/proc/self/fd/1", NEW "/dev/stdout") ||
	    symlink("/proc/self/fd/2", NEW "/dev/stderr"))
		fail("cannot populate /dev: %s", strerror(errno));
}

/*
 * PID 1 of the namespace: a process of ours, outside the command's Landlock
 * domain, that waits for the command (PID 2) and exits with its status,
 * which makes the kernel kill whatever is left in the namespace.
 * Why not the command as PID 1: the kernel drops every signal sent to a
 * namespace's init that has no handler for it, so a forwarded SIGTERM
 * would not reach a shell, and `kill $PPID` would be kill(0), the
 * command's own group; under an init of ours the command is an ordinary
 * process, and its parent is outside its domain (scoping refuses signals
 * and ptrace to it, as to the supervisor without namespaces).
 */
static void __attribute__((noreturn)) run_init(pid_t command)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct none[2];
	int status;
	pid_t pid;

	/* Why: it needs none of the namespace's capabilities to wait. */
	memset(none, 0, sizeof(none));
	syscall(SYS_capset, &h, none);
	for (;;) {
		pid = waitpid(-1, &status, 0);
		if (pid == command)
			_exit(WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status));
		if (pid < 0 && errno != EINTR)
			_exit(LAUNCHER_ERROR);
	}
}

pid_t start_namespace_command(void)
{
	pid_t pid = fork();

	if (pid < 0)
		fail("cannot start the command in its PID namespace: %s", strerror(errno));
	if (pid > 0)
		run_init(pid);
	/* Why: if our init goes (SIGKILLed from outside), the command goes too. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) || getppid() != 1)
		fail("the namespace's init is gone before exec");
	return 0;
}

void enter_namespaces(const struct options *o, uid_t uid, gid_t gid)
{
	char cwd[PATH_MAX], src[PATH_MAX], dst[PATH_MAX];
	struct stat root_st;
	int i, *hidden, root_tree, wd;

	if (!getcwd(cwd, sizeof(cwd)))
		fail("getcwd: %s", strerror(errno));
	map_ids(uid, gid);
	/* Why first: no mount below may propagate back to the host. */
	do_mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
	/* Why a staging tmpfs on /tmp, pivoted into: the host's root then sits
	 * at OLD with its /tmp uncovered (a workspace under /tmp stays
	 * reachable), and the new root is built beside it. */
	do_mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700");
	if (chdir("/tmp") || mkdir("newroot", 0755) || mkdir("oldroot", 0755) ||
	    syscall(SYS_pivot_root, ".", "oldroot") || chdir("/"))
		fail("cannot pivot into the staging root: %s", strerror(errno));
	/* Why the whole host read-only, nosuid, nodev: metadata outside the
	 * writable roots (chmod, utime, xattrs) cannot change, which Landlock
	 * alone cannot refuse. */
	root_tree = host_tree(o, OLD, "/", 1, &root_st);
	attach_tree(root_tree, NEW, "/");
	system_mounts();
	/* Why in order: a protected path inside a writable root is bound
	 * read-only after (over) the root, a denied path hidden after every
	 * bind that shows it, an allowed one inside it bound again after that. */
	hidden = calloc((size_t)o->n_mounts + 1, sizeof(*hidden));
	if (!hidden)
		fail("out of memory");
	for (i = 0; i < o->n_mounts; i++) {
		struct stat st;
		int tree;

		join(src, OLD, o->mounts[i].path);
		join(dst, NEW, o->mounts[i].path);
		hidden[i] = -1;
		if (o->mounts[i].kind == MOUNT_HIDE) {
			hidden[i] = hide_path(o->mounts[i].path, dst, OLD "/dev/null");
			continue;
		}
		tree = host_tree(o, src, o->mounts[i].path, o->mounts[i].kind == MOUNT_RO, &st);
		mount_point(dst, S_ISDIR(st.st_mode));
		attach_tree(tree, dst, o->mounts[i].path);
	}
	seal_hidden(hidden, o->n_mounts);
	free(hidden);
	/* Why detach the host's root: nothing of it may stay reachable. */
	if (umount2(OLD, MNT_DETACH))
		fail("cannot detach the host root: %s", strerror(errno));
	if (chdir(NEW) || syscall(SYS_pivot_root, ".", ".") || umount2(".", MNT_DETACH) || chdir("/"))
		fail("cannot pivot into the new root: %s", strerror(errno));
	/* Why refuse rather than start elsewhere: the command expects its
	 * working directory, and / would be a silent change. */
	/* Why by an O_NOFOLLOW fd, checked: the command starts in the directory the host resolved */
	wd = (int)syscall(SYS_openat, AT_FDCWD, o->chdir ? o->chdir : cwd, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	if (wd < 0)
		fail("the working directory %s is not in the new root: %s", o->chdir ? o->chdir : cwd,
		     strerror(errno));
	check_identity(o, o->chdir ? o->chdir : cwd, wd, &root_st);
	if (fchdir(wd))
		fail("cannot enter the working directory %s: %s", o->chdir ? o->chdir : cwd, strerror(errno));
	close(wd);
}
