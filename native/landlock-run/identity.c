/*
 * identity.c - --inode PATH DEV:INO: what the host resolved PATH to when it
 * built this command line (its device and inode number, as stat(2) gives
 * them), checked wherever the launcher opens PATH by name: a --ro/--rw
 * rule, a --mount-rw/--mount-ro source, the --chdir directory.
 *
 * Why: between the host's realpath and our open, whoever can write PATH's
 * parent (a concurrent confined call whose writable root holds it) can
 * swap PATH for a symlink, or rename another directory into its place;
 * a rule or bind by name would then grant or show that instead. Every
 * such open is O_NOFOLLOW (a link is refused, never followed), and where
 * the host named the inode, the inode it reached must be that one: a
 * swap of any component on the way shows as another inode. Fail closed.
 * See docs/decisions/2026-12-02-protected-ancestors.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "landlock-run.h"

static int parse_u64(const char *s, const char *end, uint64_t *out)
{
	char *stop;

	if (s == end || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoull(s, &stop, 10);
	return errno || stop != end ? -1 : 0;
}

void parse_inode(struct options *o, const char *path, const char *value)
{
	const char *colon = value ? strchr(value, ':') : NULL;
	struct inode_spec *spec = &o->inodes[o->n_inodes];

	if (!path || path[0] != '/')
		fail("--inode wants an absolute path, got '%s'", path ? path : "");
	if (!colon || parse_u64(value, colon, &spec->dev) || parse_u64(colon + 1, colon + strlen(colon), &spec->ino))
		fail("--inode %s wants DEV:INO (decimal numbers), got '%s'", path, value ? value : "");
	spec->path = path;
	o->n_inodes++;
}

void check_identity(const struct options *o, const char *path, int fd, struct stat *st)
{
	int i;

	if (fstat(fd, st))
		fail("cannot check %s: %s", path, strerror(errno));
	/* Why refuse: an O_NOFOLLOW open of a link is the link itself, and a
	 * rule or bind on it would not be on what the host meant. */
	if (S_ISLNK(st->st_mode))
		fail("%s is a symbolic link now: refused (it may have been swapped since it was resolved)", path);
	for (i = 0; i < o->n_inodes; i++) {
		if (strcmp(o->inodes[i].path, path))
			continue;
		if ((uint64_t)st->st_dev != o->inodes[i].dev || (uint64_t)st->st_ino != o->inodes[i].ino)
			fail("%s is not the directory the host resolved (inode %" PRIu64 ":%" PRIu64 ", now %" PRIu64 ":%" PRIu64 "): "
			     "it was replaced since; refused",
			     path, o->inodes[i].dev, o->inodes[i].ino, (uint64_t)st->st_dev, (uint64_t)st->st_ino);
	}
}
