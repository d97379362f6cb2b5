/*
 * hide.c - --hide PATH (with --namespaces): cover a denied path in the new
 * root before Landlock goes on, so neither its contents nor its names
 * show: an empty tmpfs over a directory, the host's /dev/null over
 * anything else (nodev: it cannot even be opened), as the bwrap profile's
 * --tmpfs and --ro-bind /dev/null do. A --mount-ro after it, beneath a
 * hidden directory, shows that one path again; so the tmpfs is writable
 * while the binds are made (their mount points are created in it) and
 * sealed read-only once they are all in place.
 * See docs/decisions/2026-12-01-launcher-namespaces.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock-run.h"

/* The new mount API's fsopen side (Linux 5.2); the rest is in landlock-run.h. */
#define FSOPEN_CLOEXEC 0x00000001
#define FSCONFIG_SET_STRING 1
#define FSCONFIG_CMD_CREATE 6
#define FSMOUNT_CLOEXEC 0x00000001

/* A fresh, empty tmpfs, detached; its mount fd. */
static int empty_tmpfs(const char *path)
{
	int fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	int mnt;

	if (fs < 0 || syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", "0755", 0) ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		fail("cannot make a tmpfs to hide %s: %s", path, strerror(errno));
	mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
			   MOUNT_ATTR_NOSUID_ | MOUNT_ATTR_NODEV_ | MOUNT_ATTR_NOEXEC_);
	if (mnt < 0)
		fail("cannot make a tmpfs to hide %s: %s", path, strerror(errno));
	close(fs);
	return mnt;
}

/* A read-only clone of the host's /dev/null (OLD_NULL), detached; its mount fd. */
static int null_file(const char *path, const char *old_null)
{
	struct mount_attr_v0 attr = { .attr_set = MOUNT_ATTR_RDONLY_ | MOUNT_ATTR_NOSUID_ |
					     MOUNT_ATTR_NODEV_ | MOUNT_ATTR_NOEXEC_ };
	int tree = (int)syscall(SYS_open_tree, AT_FDCWD, old_null, OPEN_TREE_CLONE_ | O_CLOEXEC);

	if (tree < 0 || syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)))
		fail("cannot make /dev/null to hide %s: %s", path, strerror(errno));
	return tree;
}

int hide_path(const char *path, const char *dst, const char *old_null)
{
	struct stat st;
	int at, mnt;

	/* Why O_NOFOLLOW and mounting on the fd: the mount lands on the very
	 * inode checked here; a symlink swapped in meanwhile cannot redirect it. */
	at = (int)syscall(SYS_openat, AT_FDCWD, dst, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (at < 0 && errno == ENOENT)
		return -1; /* not in the new root: nothing to see, nothing to cover */
	if (at < 0 || fstat(at, &st))
		fail("cannot hide %s: %s", path, strerror(errno));
	/* Why refuse: covering a link would hide the link, not what it names;
	 * the caller hides the real path (fail closed, never a silent leak). */
	if (S_ISLNK(st.st_mode))
		fail("cannot hide %s: it is a symbolic link (hide the path it names)", path);
	mnt = S_ISDIR(st.st_mode) ? empty_tmpfs(path) : null_file(path, old_null);
	if (syscall(SYS_move_mount, mnt, "", at, "", MOVE_MOUNT_F_EMPTY_PATH_ | MOVE_MOUNT_T_EMPTY_PATH_))
		fail("cannot hide %s: %s", path, strerror(errno));
	close(at);
	if (!S_ISDIR(st.st_mode)) {
		close(mnt);
		return -1;
	}
	return mnt;
}

void seal_hidden(const int *mounts, int n)
{
	struct mount_attr_v0 attr = { .attr_set = MOUNT_ATTR_RDONLY_ };
	int i;

	for (i = 0; i < n; i++) {
		if (mounts[i] < 0)
			continue;
		/* Why not recursive: the paths shown again beneath are read-only binds of their own. */
		if (syscall(SYS_mount_setattr, mounts[i], "", AT_EMPTY_PATH, &attr, sizeof(attr)))
			fail("cannot make a hiding tmpfs read-only: %s", strerror(errno));
		close(mounts[i]);
	}
}
