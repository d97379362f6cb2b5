/*
 * ruleset.c - the Landlock ruleset: the kernel's ABI, the handled rights
 * and scopes it supports, and one path rule per --ro/--rw.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock-run.h"

#define ACCESS_FS_ABI1                                                        \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |         \
	 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |         \
	 LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |     \
	 LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |         \
	 LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |         \
	 LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |       \
	 LANDLOCK_ACCESS_FS_MAKE_SYM)

/* Rights that mean something on a non-directory (the kernel refuses others). */
#define ACCESS_FILE                                                           \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |         \
	 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |         \
	 LANDLOCK_ACCESS_FS_IOCTL_DEV | LANDLOCK_ACCESS_FS_RESOLVE_UNIX)

#define ACCESS_RO                                                             \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |          \
	 LANDLOCK_ACCESS_FS_READ_DIR)

/* Why: a writable root must never become a place to mint device nodes. */
#define ACCESS_NEVER_GRANTED                                                  \
	(LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK)

int landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);

	return abi < 0 ? -1 : (int)abi;
}

/* Shrink every mask to what this ABI knows; the kernel rejects the rest. */
struct ruleset_attr handled_for_abi(int abi, int no_net)
{
	struct ruleset_attr a = { .handled_access_fs = ACCESS_FS_ABI1 };

	if (abi >= 2)
		a.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		a.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		a.handled_access_fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	/* Why: from ABI 9 this is what keeps connect() off sockets such as
	 * /run/docker.sock outside the rw roots, network on or off. */
	if (abi >= 9)
		a.handled_access_fs |= LANDLOCK_ACCESS_FS_RESOLVE_UNIX;
	/* Why: handled with no rule at all = every TCP bind/connect denied. */
	if (no_net && abi >= 4)
		a.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP |
				       LANDLOCK_ACCESS_NET_CONNECT_TCP;
	/* Why: without scoping the command could signal any process of the
	 * same uid (every root process) and reach host abstract sockets. */
	if (abi >= 6)
		a.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
	return a;
}

static void close_fd_run(int first, int last)
{
	if (syscall(SYS_close_range, (unsigned)first, (unsigned)last, 0U))
		for (; first <= last; first++)
			close(first);
}

/* Returns the rule's fd, which the caller closes with the others. */
static int add_path_rule(const struct options *o, int ruleset, const char *flag, const char *path,
			 __u64 access, __u64 handled)
{
	struct landlock_path_beneath_attr rule = { 0 };
	struct stat st;

	/* Why O_PATH: the rule names this exact inode, opened by us once;
	 * O_NOFOLLOW and the identity check: the host resolved PATH, and a
	 * link (or another directory) swapped in since must not receive the
	 * rule (identity.c); O_CLOEXEC: it must never reach the command. Why
	 * the raw openat: musl's open() follows O_CLOEXEC with an
	 * fcntl(F_SETFD) for kernels that ignored the flag, one syscall more
	 * per rule. */
	rule.parent_fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (rule.parent_fd < 0)
		fail("cannot open %s %s: %s", flag, path, strerror(errno));
	check_identity(o, path, rule.parent_fd, &st);
	/* Why by the fstat: directory rights on a non-directory are refused
	 * by the kernel (EINVAL); the fstat the check needs says which. */
	rule.allowed_access = access & handled & (S_ISDIR(st.st_mode) ? ~0ULL : ACCESS_FILE);
	if (!syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0))
		return rule.parent_fd;
	fail("cannot add rule for %s %s: %s", flag, path, strerror(errno));
}

int build_ruleset(const struct options *o, int abi)
{
	/* Why net handled for --net-proxy too: its one port rule is the exception */
	struct ruleset_attr attr = handled_for_abi(abi, o->no_net || o->net_proxy);
	int i, fd, first = -1, last = -1;

	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0)
		fail("cannot create a Landlock ruleset: %s", strerror(errno));
	/* Why the rules' fds are closed a run at a time and not one by one:
	 * the kernel holds what it needs once a rule is added, and fds are
	 * handed out lowest first, so they form runs first..last (one run,
	 * unless something else holds an fd in between) that one
	 * close_range() each closes: a syscall per rule fewer. */
	for (i = 0; i < o->n_ro + o->n_rw; i++) {
		int rule = i < o->n_ro
			? add_path_rule(o, fd, "--ro", o->ro[i], ACCESS_RO, attr.handled_access_fs)
			: add_path_rule(o, fd, "--rw", o->rw[i - o->n_ro], ~ACCESS_NEVER_GRANTED,
					attr.handled_access_fs);

		if (first >= 0 && rule != last + 1) {
			close_fd_run(first, last);
			first = -1;
		}
		if (first < 0)
			first = rule;
		last = rule;
	}
	if (first >= 0)
		close_fd_run(first, last);
	/* Why no net rule with --no-net: it means no TCP port at all. */
	add_net_rules(fd, o, abi);
	return fd;
}
