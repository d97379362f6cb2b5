/*
 * mount-tree.c - the one way the launcher binds a host path: a detached
 * clone of its mount tree (open_tree), its flags set (mount_setattr), then
 * moved onto a mount point opened without following a link (move_mount).
 * Used by --namespaces (namespace.c) and --private-mounts (private-mounts.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock-run.h"

/*
 * A detached copy of SRC's mount tree (PATH in messages) with SET set and
 * CLEAR cleared, recursively or not; -1 with errno ENOENT if SRC is absent.
 * Why AT_SYMLINK_NOFOLLOW and, with O, the identity check: the bind shows
 * what the host resolved, never a link or a directory swapped into its
 * place since (identity.c). ST, when not NULL, gets what the tree is (with O).
 */
int clone_tree(const struct options *o, const char *src, const char *path, __u64 set, __u64 clear, int recursive, struct stat *st)
{
	struct mount_attr_v0 attr = { .attr_set = set, .attr_clr = clear };
	struct stat seen;
	int tree = (int)syscall(SYS_open_tree, AT_FDCWD, src,
				OPEN_TREE_CLONE_ | O_CLOEXEC | AT_SYMLINK_NOFOLLOW | (recursive ? AT_RECURSIVE_ : 0));

	if (tree < 0 && errno == ENOENT)
		return -1;
	if (tree < 0)
		fail("cannot bind %s: %s", path, strerror(errno));
	if (o)
		check_identity(o, path, tree, st ? st : &seen);
	if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE_ : 0), &attr, sizeof(attr)))
		fail("cannot set the mount flags of %s: %s", path, strerror(errno));
	return tree;
}

/* Attach TREE at DST (PATH in messages), opened without following a link: the mount lands on the inode reached here. */
void attach_tree(int tree, const char *dst, const char *path)
{
	int at = (int)syscall(SYS_openat, AT_FDCWD, dst, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (at < 0 || fstat(at, &st))
		fail("cannot bind %s: %s", path, strerror(errno));
	if (S_ISLNK(st.st_mode))
		fail("cannot bind %s: its mount point is a symbolic link now", path);
	if (syscall(SYS_move_mount, tree, "", at, "", MOVE_MOUNT_F_EMPTY_PATH_ | MOVE_MOUNT_T_EMPTY_PATH_))
		fail("cannot bind %s: %s", path, strerror(errno));
	close(at);
	close(tree);
}
