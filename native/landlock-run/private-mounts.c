/*
 * private-mounts.c - --private-mounts: the --hide, --mount-ro, --mount-proc,
 * --mount-dev and --mount-tmp mounts made in a private copy of the launcher's own mount
 * namespace, without a new root, while the launcher still holds
 * CAP_SYS_ADMIN there; every capability is dropped right after (main.c),
 * before the ruleset, the filter and the exec.
 *
 * Used where a namespace or the capability is already at hand:
 *   - under bwrap, whose user namespace gives the launcher CAP_SYS_ADMIN
 *     (bwrap --cap-add) instead of bwrap making /proc, the minimal /dev and
 *     the read policy's covers itself: bwrap reads the whole mount table again
 *     after every bind (~0.4 ms each); a bind here is an open_tree, a
 *     mount_setattr and a move_mount;
 *   - on the host, for a root caller, instead of carving the denied paths
 *     out of the Landlock rules (/etc/shadow alone takes a rule for each of
 *     /etc's other ~136 entries, ~1 ms a call).
 * Nothing here propagates out: the copy is made private (MS_REC) first.
 * Under bwrap (--mounts-in-place) the mounts are made in bwrap's own fresh
 * namespace instead of a copy of it, made private the same way.
 * See docs/decisions/2026-12-01-private-mounts.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock-run.h"

/* <linux/nsfs.h>: the user namespace that owns a namespace */
#define NS_GET_USERNS_ _IO(0xb7, 0x1)
/* the initial user namespace's inode, fixed by the kernel (PROC_USER_INIT_INO) */
#define PROC_USER_INIT_INO_ 0xEFFFFFFDU

/* The devices of --mount-dev, as bwrap's --dev and --namespaces have them. */
static const char *const devices[] = { "null", "zero", "full", "random", "urandom", "tty" };
#define N_DEVICES (sizeof(devices) / sizeof(devices[0]))

static int has_sys_admin(void)
{
	struct __user_cap_data_struct d[2];

	read_caps(d);
	return (d[0].effective & (1U << CAP_SYS_ADMIN)) != 0;
}


static void link_or_fail(const char *target, const char *path)
{
	if (symlink(target, path))
		fail("cannot make %s: %s", path, strerror(errno));
}

/*
 * --mount-dev: a tmpfs over /dev holding the few devices a command may need
 * (bound from the /dev seen so far, nodev cleared on those binds alone), a
 * fresh devpts instance, /dev/shm and the /proc/self/fd links; every other
 * device (raw disks, which uid 0 may open) stays out of sight.
 */
static void minimal_dev(void)
{
	int trees[N_DEVICES];
	char path[64];
	size_t i;
	int fd;

	/* Why first: the tmpfs below covers the devices they are cloned from. */
	for (i = 0; i < N_DEVICES; i++) {
		snprintf(path, sizeof(path), "/dev/%s", devices[i]);
		trees[i] = clone_tree(NULL, path, path, MOUNT_ATTR_NOSUID_ | MOUNT_ATTR_NOEXEC_, MOUNT_ATTR_NODEV_ | MOUNT_ATTR_RDONLY_, 0, NULL);
	}
	if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755"))
		fail("cannot mount a tmpfs on /dev: %s", strerror(errno));
	for (i = 0; i < N_DEVICES; i++) {
		if (trees[i] < 0)
			continue;
		snprintf(path, sizeof(path), "/dev/%s", devices[i]);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
		if (fd < 0)
			fail("cannot make the mount point %s: %s", path, strerror(errno));
		close(fd);
		attach_tree(trees[i], path, path);
	}
	if (mkdir("/dev/shm", 01777) || chmod("/dev/shm", 01777) || mkdir("/dev/pts", 0755))
		fail("cannot populate /dev: %s", strerror(errno));
	/* Why a new instance: the host's ptys (other sessions' terminals) stay out of reach. */
	if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620"))
		fail("cannot mount devpts on /dev/pts: %s", strerror(errno));
	link_or_fail("pts/ptmx", "/dev/ptmx");
	link_or_fail("/proc/self/fd", "/dev/fd");
	link_or_fail("/proc/self/fd/0", "/dev/stdin");
	link_or_fail("/proc/self/fd/1", "/dev/stdout");
	link_or_fail("/proc/self/fd/2", "/dev/stderr");
}

/*
 * --mount-proc: a fresh proc over /proc, for the PID namespace we are in
 * (bwrap's: its init and the command), with the parts that write to the
 * kernel itself (sys, sysrq-trigger, irq, bus) bound read-only over it, as
 * bwrap's --proc has them: uid 0 owns /proc/irq/N/smp_affinity and the like,
 * which need no capability to write.
 */
static void fresh_proc(void)
{
	static const char *const kernel[] = { "sys", "sysrq-trigger", "irq", "bus" };
	char path[32];
	size_t i;
	int tree;

	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		fail("cannot mount proc on /proc: %s", strerror(errno));
	for (i = 0; i < sizeof(kernel) / sizeof(kernel[0]); i++) {
		snprintf(path, sizeof(path), "/proc/%s", kernel[i]);
		tree = clone_tree(NULL, path, path, MOUNT_ATTR_RDONLY_ | MOUNT_ATTR_NOSUID_ | MOUNT_ATTR_NODEV_ | MOUNT_ATTR_NOEXEC_, 0, 1, NULL);
		if (tree >= 0)
			attach_tree(tree, path, path);
	}
}

/*
 * --mount-tmp: an empty tmpfs over /tmp, as bwrap's --tmpfs /tmp, instead of
 * bwrap making it (each of bwrap's mounts is followed by a read of the whole
 * mount table); the workspace beneath it comes back as a --mount-ro, cloned
 * before this covers it.
 */
static void private_tmp(void)
{
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755"))
		fail("cannot mount a tmpfs on /tmp: %s", strerror(errno));
}

/*
 * Why again, by path: a directory entered before the mounts stays the inode
 * it was, beneath them; under the new /tmp its ".." would be the host's /tmp
 * the tmpfs hides. Entered again, it is the one the new mounts show (the
 * workspace's --mount-ro), or the call is refused.
 */
static void reenter_cwd(void)
{
	char cwd[PATH_MAX];

	if (!getcwd(cwd, sizeof(cwd)) || cwd[0] != '/')
		fail("cannot read the working directory: %s", strerror(errno));
	if (chdir(cwd))
		fail("the working directory %s is not in the view the mounts made: %s", cwd, strerror(errno));
}

/* The inode of a namespace file (with NS_GET_USERNS: of its owning user namespace); 0 if unreadable. */
static ino_t ns_inode(const char *path, int owner)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ns;

	if (fd < 0)
		return 0;
	ns = owner ? ioctl(fd, NS_GET_USERNS_) : fd;
	if (ns < 0 || fstat(ns, &st))
		st.st_ino = 0;
	if (ns >= 0 && ns != fd)
		close(ns);
	close(fd);
	return st.st_ino;
}

/*
 * --mounts-in-place: only in a mount namespace made for this command, as
 * bwrap makes it: we are PID 2 under the init of our own PID namespace
 * (checked again for --no-supervisor), our user namespace is not the
 * initial one, and the mount namespace belongs to it, so it was made inside
 * it, not inherited from the host or whoever started bwrap (`unshare --pid
 * --fork` alone passes the first test, not the others). Its other member is
 * bwrap's init, which only waits for us; no mount here reaches a namespace
 * outside (private, below).
 */
static int namespace_is_ours(void)
{
	ino_t owner = ns_inode("/proc/self/ns/mnt", 1), user = ns_inode("/proc/self/ns/user", 0);

	return getpid() == 2 && getppid() == 1 && user && user != PROC_USER_INIT_INO_ && owner == user;
}

static int private_namespace(const struct options *o)
{
	/* Why a copy of our own unless asked (and checked) otherwise: nothing
	 * here may change what any other process sees (the host's, or a
	 * namespace shared with other processes). Why not a copy inside
	 * bwrap: the namespace is already the command's own, and each
	 * namespace dropped at exit waits for an expedited RCU grace period
	 * before the caller learns the command is done (~0.1-3 ms a call).
	 * Why private before anything is mounted: a mount beneath a shared one
	 * would propagate to its peers. */
	if (o && o->mounts_in_place) {
		if (!namespace_is_ours())
			fail("--mounts-in-place: the mount namespace is not one made for this command "
			     "(PID %d, parent %d; it must belong to our user namespace, not the initial one, under our own PID 1)",
			     (int)getpid(), (int)getppid());
	} else if (unshare(CLONE_NEWNS)) {
		return -1;
	}
	return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ? -1 : 0;
}

void private_mounts(const struct options *o)
{
	int i, *trees, *hidden;

	if (!has_sys_admin())
		fail("--private-mounts needs CAP_SYS_ADMIN in the launcher's user namespace");
	if (private_namespace(o))
		fail("cannot make a private mount namespace: %s", strerror(errno));
	trees = calloc((size_t)o->n_mounts + 1, sizeof(*trees));
	hidden = calloc((size_t)o->n_mounts + 1, sizeof(*hidden));
	if (!trees || !hidden)
		fail("out of memory");
	/* Why every --mount-ro is cloned before anything is covered: it shows
	 * the path as it is now (an allowed file inside a hidden directory). */
	for (i = 0; i < o->n_mounts; i++) {
		trees[i] = hidden[i] = -1;
		if (o->mounts[i].kind != MOUNT_RO)
			continue;
		trees[i] = clone_tree(o, o->mounts[i].path, o->mounts[i].path, MOUNT_ATTR_RDONLY_ | MOUNT_ATTR_NOSUID_ | MOUNT_ATTR_NODEV_, 0, 1, NULL);
		if (trees[i] < 0)
			fail("cannot bind %s: %s", o->mounts[i].path, strerror(ENOENT));
	}
	if (o->mount_proc)
		fresh_proc();
	if (o->mount_dev)
		minimal_dev();
	if (o->mount_tmp)
		private_tmp();
	for (i = 0; i < o->n_mounts; i++) {
		struct stat st;

		if (o->mounts[i].kind == MOUNT_HIDE) {
			hidden[i] = hide_path(o->mounts[i].path, o->mounts[i].path, "/dev/null");
			continue;
		}
		if (fstat(trees[i], &st))
			fail("cannot bind %s: %s", o->mounts[i].path, strerror(errno));
		mount_point(o->mounts[i].path, S_ISDIR(st.st_mode));
		attach_tree(trees[i], o->mounts[i].path, o->mounts[i].path);
	}
	seal_hidden(hidden, o->n_mounts);
	free(trees);
	free(hidden);
	if (o->mount_tmp)
		reenter_cwd();
}

/* For --probe: whether --private-mounts would work here (tried in this process, which only prints and exits). */
int private_mounts_work(void)
{
	int tree;

	if (!has_sys_admin() || private_namespace(NULL))
		return 0;
	/* Why a real cover: a security module (AppArmor's container profile) may refuse mounts that unshare allowed. */
	tree = clone_tree(NULL, "/dev/null", "/dev/null", MOUNT_ATTR_RDONLY_ | MOUNT_ATTR_NOSUID_ | MOUNT_ATTR_NODEV_ | MOUNT_ATTR_NOEXEC_, 0, 0, NULL);
	if (tree < 0)
		return 0;
	return syscall(SYS_move_mount, tree, "", AT_FDCWD, "/dev/null", MOVE_MOUNT_F_EMPTY_PATH_) == 0;
}
