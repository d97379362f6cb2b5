/*
 * landlock-run - confine one command with Landlock, supervise it, and leave
 * nothing running when it returns.
 *
 *   landlock-run [--ro PATH]... [--rw PATH]... [--no-net] [--min-abi N] -- COMMAND [ARGS...]
 *   landlock-run --probe
 *
 * Exit status: the command's own; 128+N when a signal N killed it; 126/127
 * when it could not be executed (like a shell); 125 for any launcher error,
 * in which case the command never ran.
 *
 * Order of operations (each step is explained where it happens):
 *   close inherited fds -> drop capabilities -> no_new_privs -> build the
 *   ruleset -> subreaper -> clone -> [child] setsid, landlock_restrict_self,
 *   seccomp (always; network rules with --no-net), execvp -> [parent]
 *   supervise, kill and reap every descendant, exit with the command's
 *   status.
 *
 * Nothing here reads an environment variable. The only place the
 * environment matters is execvp's PATH lookup of COMMAND itself.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <linux/securebits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LAUNCHER_ERROR 125

/*
 * Debian 12 ships uapi headers from Linux 6.1 (Landlock ABI 2), while the
 * kernels we run on are newer. The values below are the kernel's uapi
 * values; each is only defined when the installed header lacks it.
 */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13) /* ABI 2 */
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#endif
#ifndef LANDLOCK_ACCESS_FS_RESOLVE_UNIX
#define LANDLOCK_ACCESS_FS_RESOLVE_UNIX (1ULL << 16) /* ABI 9, Linux 7.1 */
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0) /* ABI 4 */
#endif
#ifndef LANDLOCK_ACCESS_NET_CONNECT_TCP
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1) /* ABI 4 */
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1) /* ABI 6 */
#endif
#ifndef LANDLOCK_CREATE_RULESET_ERRATA
#define LANDLOCK_CREATE_RULESET_ERRATA (1U << 1)
#endif

/*
 * Our own copy of the ABI 6 ruleset attribute: the old header's struct
 * stops after handled_access_fs. Passing the longer struct to an older
 * kernel is fine as long as the fields it does not know are zero, which
 * handled_for_abi() guarantees.
 */
struct ruleset_attr {
	__u64 handled_access_fs;
	__u64 handled_access_net;
	__u64 scoped;
};

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

/* How long a forwarded SIGTERM/SIGINT/SIGHUP/SIGQUIT may take to work. */
#define GRACE_MS 1000

struct options {
	const char **ro, **rw;
	int n_ro, n_rw;
	int no_net, probe;
	long min_abi;
	char **command;
};

static pid_t command_pid;

static void fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* The one way out before exec: one line on stderr, status 125. */
static void fail(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n = snprintf(line, sizeof(line), "landlock-run: ");

	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	dprintf(STDERR_FILENO, "%s\n", line);
	_exit(LAUNCHER_ERROR);
}

static void usage(FILE *out)
{
	fputs("usage: landlock-run [--ro PATH]... [--rw PATH]... [--no-net] [--min-abi N]"
	      " -- COMMAND [ARGS...]\n"
	      "       landlock-run --probe\n"
	      "\n"
	      "  --ro PATH     allow reading and executing beneath PATH\n"
	      "  --rw PATH     allow every access beneath PATH except creating devices\n"
	      "  --no-net      deny TCP (Landlock) and every non-unix socket (seccomp);\n"
	      "                also deny connect(), bind(), listen() and unix datagram sockets\n"
	      "  --min-abi N   fail unless the kernel offers Landlock ABI N or newer\n"
	      "  --probe       print what this kernel enforces as one JSON line\n"
	      "\n"
	      "Always: no capabilities, no_new_privs, and a seccomp filter refusing\n"
	      "setuid/setgid modes (chmod, creation), chown, openat2 and io_uring.\n"
	      "\n"
	      "Exit status: the command's; 128+N if signal N killed it; 126/127 if it\n"
	      "could not be executed; 125 if the launcher failed (the command never ran).\n",
	      out);
}

static long parse_abi(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 1000)
		fail("--min-abi wants a positive integer, got '%s'", s);
	return v;
}

static void parse_args(int argc, char **argv, struct options *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->ro = calloc((size_t)argc, sizeof(*o->ro));
	o->rw = calloc((size_t)argc, sizeof(*o->rw));
	if (!o->ro || !o->rw)
		fail("out of memory");
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			o->command = &argv[i + 1];
			break;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--probe")) {
			o->probe = 1;
		} else if (!strcmp(a, "--no-net")) {
			o->no_net = 1;
		} else if (!strcmp(a, "--ro") || !strcmp(a, "--rw") || !strcmp(a, "--min-abi")) {
			const char *value = argv[++i];

			if (!value)
				fail("%s needs an argument", a);
			if (!strcmp(a, "--min-abi"))
				o->min_abi = parse_abi(value);
			else if (!strcmp(a, "--ro"))
				o->ro[o->n_ro++] = value;
			else
				o->rw[o->n_rw++] = value;
		} else {
			/* Why: a typo must not silently drop a restriction. */
			fail("unknown argument '%s' (see --help)", a);
		}
	}
	if (!o->probe && (!o->command || !o->command[0]))
		fail("no command given after '--'");
}

/*
 * Why first: an inherited writable fd bypasses every path rule, so no fd of
 * the caller may survive into the command. Rule fds opened later are
 * O_CLOEXEC and the ruleset fd is closed explicitly.
 */
static void close_inherited_fds(void)
{
	DIR *d;
	struct dirent *e;

	if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0)
		return;
	d = opendir("/proc/self/fd");
	if (!d)
		fail("cannot close inherited file descriptors: %s", strerror(errno));
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);

		if (fd > 2 && fd != dirfd(d))
			close(fd);
	}
	closedir(d);
}

/*
 * Why: if the caller left 0-2 closed, the next open() would take that slot
 * and the command would read or write our file as its stdio.
 */
static void ensure_stdio_open(void)
{
	int fd;

	for (fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", O_RDWR) != fd)
			fail("cannot open /dev/null for fd %d", fd);
}

static int landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);

	return abi < 0 ? -1 : (int)abi;
}

/* Shrink every mask to what this ABI knows; the kernel rejects the rest. */
static struct ruleset_attr handled_for_abi(int abi, int no_net)
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

static void print_names(const char *key, __u64 mask, const char *const *names, int n)
{
	int i, first = 1;

	printf(",\"%s\":[", key);
	for (i = 0; i < n; i++) {
		if (mask & (1ULL << i)) {
			printf("%s\"%s\"", first ? "" : ",", names[i]);
			first = 0;
		}
	}
	printf("]");
}

static void print_limits(int abi)
{
	/* Ids are documented in docs/decisions/2026-11-30-landlock-launcher.md. */
	printf(",\"limits\":[");
	if (abi < 9)
		printf("\"pathname-unix-connect\",");
	if (abi < 6)
		printf("\"no-signal-scoping\",\"no-abstract-unix-scoping\",");
	if (abi < 4)
		printf("\"no-tcp-rules\",");
	printf("\"udp-raw-seccomp-only\",\"metadata-changes\",\"preexisting-hardlinks\","
	       "\"no-deny-beneath-rw\",\"stdio-inherited\",\"launcher-sigkill\"]");
}

static int probe(void)
{
	static const char *const fs[] = {
		"execute", "write_file", "read_file", "read_dir", "remove_dir",
		"remove_file", "make_char", "make_dir", "make_reg", "make_sock",
		"make_fifo", "make_block", "make_sym", "refer", "truncate",
		"ioctl_dev", "resolve_unix",
	};
	static const char *const net[] = { "bind_tcp", "connect_tcp" };
	static const char *const scope[] = { "abstract_unix_socket", "signal" };
	int abi = landlock_abi();
	long errata;
	struct ruleset_attr a;

	if (abi < 1)
		fail("Landlock is unavailable: %s", strerror(errno));
	errata = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_ERRATA);
	a = handled_for_abi(abi, 1);
	printf("{\"abi\":%d,\"errata\":%ld", abi, errata < 0 ? 0 : errata);
	print_names("handled_fs", a.handled_access_fs, fs, 17);
	print_names("handled_net", a.handled_access_net, net, 2);
	print_names("scoped", a.scoped, scope, 2);
	printf(",\"seccomp\":%s",
	       syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0,
		       &(__u32){ SECCOMP_RET_ERRNO }) == 0 ? "true" : "false");
	print_limits(abi);
	printf("}\n");
	return fflush(stdout) == 0 ? 0 : LAUNCHER_ERROR;
}

static int last_cap(void)
{
	static int last = -1;
	FILE *f;

	if (last >= 0)
		return last;
	f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	if (f) {
		if (fscanf(f, "%d", &last) != 1)
			last = -1;
		fclose(f);
	}
	/* Why: without /proc, ask the kernel; it answers EINVAL past the end. */
	if (last < 0)
		for (last = 0; prctl(PR_CAPBSET_READ, last + 1, 0, 0, 0) >= 0; last++)
			;
	return last;
}

static void read_caps(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };

	if (syscall(SYS_capget, &h, d))
		fail("capget: %s", strerror(errno));
}

static int any_cap(const struct __user_cap_data_struct d[2])
{
	return (d[0].effective | d[0].permitted | d[0].inheritable |
		d[1].effective | d[1].permitted | d[1].inheritable) != 0;
}

#define LOCKED_SECUREBITS                                                     \
	(SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |      \
	 SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |            \
	 SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)

/*
 * Why: a root caller's command with capabilities can mknod a block device
 * and write the raw disk, kill any host process, or remount. Landlock
 * does not stop any of that; only dropping every capability does.
 */
static void drop_capabilities(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2], zero[2];
	int cap, last = last_cap();

	read_caps(d);
	memset(zero, 0, sizeof(zero));
	if (any_cap(d)) {
		/* Why: both steps below need CAP_SETPCAP; without it we
		 * cannot empty the bounding set, so refuse to run. */
		if (!(d[0].permitted & (1U << CAP_SETPCAP)))
			fail("process has capabilities but not CAP_SETPCAP to drop them");
		d[0].effective = d[0].permitted;
		d[1].effective = d[1].permitted;
		if (syscall(SYS_capset, &h, d))
			fail("capset: %s", strerror(errno));
		/* Why: uid 0 must not regain capabilities on exec, and the
		 * setting is locked so the command cannot undo it. */
		if (prctl(PR_SET_SECUREBITS, LOCKED_SECUREBITS, 0, 0, 0))
			fail("PR_SET_SECUREBITS: %s", strerror(errno));
		for (cap = 0; cap <= last; cap++)
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL)
				fail("PR_CAPBSET_DROP %d: %s", cap, strerror(errno));
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))
		fail("clearing ambient capabilities: %s", strerror(errno));
	if (syscall(SYS_capset, &h, zero))
		fail("capset: %s", strerror(errno));
}

/* Why: trust the kernel's answer, not our own bookkeeping. */
static void verify_no_capabilities(int dropped_bounding_set)
{
	struct __user_cap_data_struct d[2];
	int cap, last = last_cap();

	read_caps(d);
	if (any_cap(d))
		fail("capabilities remain after dropping them");
	/* No ambient check: the kernel keeps ambient a subset of permitted
	 * and inheritable, and capget has just shown both empty. */
	for (cap = 0; dropped_bounding_set && cap <= last; cap++)
		if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) != 0)
			fail("capability %d remains in the bounding set", cap);
	if (dropped_bounding_set &&
	    (prctl(PR_GET_SECUREBITS, 0, 0, 0, 0) & LOCKED_SECUREBITS) != LOCKED_SECUREBITS)
		fail("securebits were not locked");
}

static void add_path_rule(int ruleset, const char *flag, const char *path,
			  __u64 access, __u64 handled)
{
	struct landlock_path_beneath_attr rule = { 0 };
	struct stat st;

	/* Why O_PATH: the rule names this exact inode, opened by us once;
	 * O_CLOEXEC: it must never reach the command. */
	rule.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (rule.parent_fd < 0)
		fail("cannot open %s %s: %s", flag, path, strerror(errno));
	if (fstat(rule.parent_fd, &st))
		fail("cannot stat %s %s: %s", flag, path, strerror(errno));
	rule.allowed_access = access & handled;
	/* Why: directory rights on a file are an error for the kernel. */
	if (!S_ISDIR(st.st_mode))
		rule.allowed_access &= ACCESS_FILE;
	if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0))
		fail("cannot add rule for %s %s: %s", flag, path, strerror(errno));
	close(rule.parent_fd);
}

static int build_ruleset(const struct options *o, int abi)
{
	struct ruleset_attr attr = handled_for_abi(abi, o->no_net);
	int i, fd;

	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0)
		fail("cannot create a Landlock ruleset: %s", strerror(errno));
	for (i = 0; i < o->n_ro; i++)
		add_path_rule(fd, "--ro", o->ro[i], ACCESS_RO, attr.handled_access_fs);
	for (i = 0; i < o->n_rw; i++)
		add_path_rule(fd, "--rw", o->rw[i], ~ACCESS_NEVER_GRANTED,
			      attr.handled_access_fs);
	/* Why no net rule: --no-net means no TCP port at all. */
	return fd;
}

#define SC_ARG_LO(n) (offsetof(struct seccomp_data, args[n]))
#define SC_ARG_HI(n) (offsetof(struct seccomp_data, args[n]) + 4)
#define SC_LOAD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define SC_JUMP(op, k, t, f) BPF_JUMP(BPF_JMP | (op) | BPF_K, (k), (t), (f))
#define SC_RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define SC_ERRNO(e) SC_RET(SECCOMP_RET_ERRNO | (e))
#define X32_SYSCALL_BIT 0x40000000U

#if defined(__x86_64__)
#define SECCOMP_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SECCOMP_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "landlock-run: add this architecture's AUDIT_ARCH_* for the seccomp filter"
#endif
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "landlock-run: SC_ARG_LO/SC_ARG_HI assume a little-endian seccomp_data"
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452 /* Linux 6.6; one number on every architecture */
#endif
#ifndef __O_TMPFILE
#define __O_TMPFILE 020000000
#endif
#define SUID_SGID (S_ISUID | S_ISGID)

/* What a filter rule does with its syscall. */
enum verdict {
	DENY,        /* always refused with .err */
	MODE_BITS,   /* refused when argument .a has the setuid or setgid bit */
	CREATE_MODE, /* refused when flags .a create (O_CREAT, O_TMPFILE) with mode .b setuid/setgid */
	UNIX_SOCKET, /* allowed only for AF_UNIX stream or seqpacket (domain .a, type .b) */
	NO_DEST,     /* allowed only with a NULL destination pointer in argument .a */
};

struct rule {
	unsigned nr;
	enum verdict verdict;
	unsigned char a, b;
	unsigned err;
};

/*
 * Why, always on: Landlock does not restrict chmod or chown, so a root
 * command without capabilities could still chmod 4755 any root-owned
 * binary, in or outside the rules, and plant a setuid-root file for every
 * local user (bwrap's read-only mounts do not cover the writable roots
 * either). Setting the setuid or setgid bit needs no capability on a file
 * you own; only this filter refuses it, at chmod and at creation. Modes
 * and flags are plain syscall arguments, so BPF can read them. chown is
 * refused outright: without capabilities it can only move a file between
 * the caller's own groups, which nothing in a sandbox needs. openat2()
 * and io_uring carry modes (and sockets) where seccomp cannot see them,
 * a struct and a shared ring, so they report ENOSYS and callers fall back
 * to the syscalls filtered here.
 */
static const struct rule metadata_rules[] = {
#ifdef __NR_chmod
	{ __NR_chmod, MODE_BITS, 1, 0, 0 },
#endif
	{ __NR_fchmod, MODE_BITS, 1, 0, 0 },
	{ __NR_fchmodat, MODE_BITS, 2, 0, 0 },
	{ __NR_fchmodat2, MODE_BITS, 2, 0, 0 },
#ifdef __NR_creat
	{ __NR_creat, MODE_BITS, 1, 0, 0 },
#endif
#ifdef __NR_open
	{ __NR_open, CREATE_MODE, 1, 2, 0 },
#endif
	{ __NR_openat, CREATE_MODE, 2, 3, 0 },
#ifdef __NR_mknod
	{ __NR_mknod, MODE_BITS, 1, 0, 0 },
#endif
	{ __NR_mknodat, MODE_BITS, 2, 0, 0 },
#ifdef __NR_chown
	{ __NR_chown, DENY, 0, 0, EPERM },
	{ __NR_lchown, DENY, 0, 0, EPERM },
#endif
	{ __NR_fchown, DENY, 0, 0, EPERM },
	{ __NR_fchownat, DENY, 0, 0, EPERM },
	{ __NR_openat2, DENY, 0, 0, ENOSYS },
	{ __NR_io_uring_setup, DENY, 0, 0, ENOSYS },
	{ __NR_io_uring_enter, DENY, 0, 0, ENOSYS },
	{ __NR_io_uring_register, DENY, 0, 0, ENOSYS },
};

/*
 * Why, with --no-net: Landlock has no UDP, raw or netlink socket control,
 * and below ABI 9 none for pathname unix sockets. The only sockets the
 * command may create are unix stream/seqpacket sockets, which cannot
 * carry a destination address (a unix datagram socket can sendmsg() to
 * any pathname socket through msg_name, which seccomp cannot read). It may
 * not connect() at all: seccomp cannot read the sockaddr behind the
 * pointer, so refusing every connect() is the only way to keep
 * /run/docker.sock and abstract host sockets out of reach.
 */
static const struct rule net_rules[] = {
	{ __NR_socket, UNIX_SOCKET, 0, 1, EACCES },
	{ __NR_socketpair, UNIX_SOCKET, 0, 1, EACCES },
	{ __NR_connect, DENY, 0, 0, EACCES },
	{ __NR_sendto, NO_DEST, 4, 0, EACCES },
	/* Why: nothing inside can connect to a listening socket, so the only
	 * use of one is for host programs to connect in: a command could
	 * squat an abstract name a host client expects (abstract names are
	 * per network namespace, and Landlock scoping restricts connect, not
	 * bind) or plant a socket file in the workspace. listen() on an
	 * unbound socket would bind it to an abstract name too. */
	{ __NR_bind, DENY, 0, 0, EACCES },
	{ __NR_listen, DENY, 0, 0, EACCES },
};

#define MAX_RULES 32
#define MAX_INSNS 256

struct program {
	struct sock_filter insn[MAX_INSNS];
	unsigned len;
};

static unsigned emit(struct program *p, struct sock_filter insn)
{
	if (p->len >= MAX_INSNS)
		fail("seccomp filter too long");
	p->insn[p->len] = insn;
	return p->len++;
}

/* Point a placeholder's false branch at the next instruction to emit. */
static void patch_false(struct program *p, unsigned at)
{
	unsigned skip = p->len - at - 1;

	if (skip > 255)
		fail("seccomp jump too long");
	p->insn[at].jf = (__u8)skip;
}

/* The checks for one matched syscall; every path ends in a return. */
static void emit_body(struct program *p, const struct rule *r)
{
	switch (r->verdict) {
	case DENY:
		emit(p, (struct sock_filter)SC_ERRNO(r->err));
		return;
	case CREATE_MODE:
		emit(p, (struct sock_filter)SC_LOAD(SC_ARG_LO(r->a)));
		emit(p, (struct sock_filter)SC_JUMP(BPF_JSET, O_CREAT | __O_TMPFILE, 0, 3));
		emit(p, (struct sock_filter)SC_LOAD(SC_ARG_LO(r->b)));
		break;
	case MODE_BITS:
		emit(p, (struct sock_filter)SC_LOAD(SC_ARG_LO(r->a)));
		break;
	case UNIX_SOCKET:
		/* domain and type are ints: the kernel reads the low word */
		emit(p, (struct sock_filter)SC_LOAD(SC_ARG_LO(r->a)));
		emit(p, (struct sock_filter)SC_JUMP(BPF_JEQ, AF_UNIX, 0, 4));
		emit(p, (struct sock_filter)SC_LOAD(SC_ARG_LO(r->b)));
		emit(p, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf));
		emit(p, (struct sock_filter)SC_JUMP(BPF_JEQ, SOCK_STREAM, 2, 0));
		emit(p, (struct sock_filter)SC_JUMP(BPF_JEQ, SOCK_SEQPACKET, 1, 0));
		emit(p, (struct sock_filter)SC_ERRNO(r->err));
		emit(p, (struct sock_filter)SC_RET(SECCOMP_RET_ALLOW));
		return;
	case NO_DEST:
		/* a full pointer: both words must be zero */
		emit(p, (struct sock_filter)SC_LOAD(SC_ARG_LO(r->a)));
		emit(p, (struct sock_filter)SC_JUMP(BPF_JEQ, 0, 0, 3));
		emit(p, (struct sock_filter)SC_LOAD(SC_ARG_HI(r->a)));
		emit(p, (struct sock_filter)SC_JUMP(BPF_JEQ, 0, 0, 1));
		emit(p, (struct sock_filter)SC_RET(SECCOMP_RET_ALLOW));
		emit(p, (struct sock_filter)SC_ERRNO(r->err));
		return;
	}
	/* MODE_BITS and CREATE_MODE end with the mode in the accumulator */
	emit(p, (struct sock_filter)SC_JUMP(BPF_JSET, SUID_SGID, 0, 1));
	emit(p, (struct sock_filter)SC_ERRNO(EPERM));
	emit(p, (struct sock_filter)SC_RET(SECCOMP_RET_ALLOW));
}

/*
 * A binary search over the sorted syscall numbers, with the number in the
 * accumulator. Why not a flat list of comparisons: when a filter is
 * attached the kernel runs it once per syscall number to precompute which
 * calls are always allowed, so attaching costs (syscalls x comparisons
 * before a verdict); a flat list of 20 rules measured ~120 us here.
 */
static void emit_tree(struct program *p, const struct rule *r, unsigned lo, unsigned hi)
{
	unsigned i, at;

	if (hi - lo <= 3) {
		for (i = lo; i < hi; i++) {
			at = emit(p, (struct sock_filter)SC_JUMP(BPF_JEQ, r[i].nr, 0, 0));
			emit_body(p, &r[i]);
			patch_false(p, at);
		}
		emit(p, (struct sock_filter)SC_RET(SECCOMP_RET_ALLOW));
		return;
	}
	at = emit(p, (struct sock_filter)SC_JUMP(BPF_JGE, r[(lo + hi) / 2].nr, 0, 0));
	emit_tree(p, r, (lo + hi) / 2, hi);
	patch_false(p, at);
	emit_tree(p, r, lo, (lo + hi) / 2);
}

static int by_nr(const void *a, const void *b)
{
	unsigned x = ((const struct rule *)a)->nr, y = ((const struct rule *)b)->nr;

	return x < y ? -1 : x > y;
}

static void build_filter(struct program *p, int no_net)
{
	struct rule rules[MAX_RULES];
	size_t i, n = sizeof(metadata_rules) / sizeof(metadata_rules[0]);

	memcpy(rules, metadata_rules, sizeof(metadata_rules));
	if (no_net) {
		memcpy(rules + n, net_rules, sizeof(net_rules));
		n += sizeof(net_rules) / sizeof(net_rules[0]);
	}
	qsort(rules, n, sizeof(rules[0]), by_nr);
	for (i = 1; i < n; i++)
		if (rules[i].nr == rules[i - 1].nr)
			fail("seccomp rule for syscall %u listed twice", rules[i].nr);
	p->len = 0;
	emit(p, (struct sock_filter)SC_LOAD(offsetof(struct seccomp_data, arch)));
	/* Why: a 32-bit int 0x80 entry has other numbers for chmod, chown
	 * and socketcall; the only safe answer is to kill. */
	emit(p, (struct sock_filter)SC_JUMP(BPF_JEQ, SECCOMP_AUDIT_ARCH, 1, 0));
	emit(p, (struct sock_filter)SC_RET(SECCOMP_RET_KILL_PROCESS));
	emit(p, (struct sock_filter)SC_LOAD(offsetof(struct seccomp_data, nr)));
	/* Why: x32 syscalls reach the same code through other numbers. */
	emit(p, (struct sock_filter)SC_JUMP(BPF_JGE, X32_SYSCALL_BIT, 0, 1));
	emit(p, (struct sock_filter)SC_ERRNO(ENOSYS));
	emit_tree(p, rules, 0, (unsigned)n);
}

/* One filter for both concerns: attaching is the expensive part. */
static void install_filter(int no_net)
{
	static struct program prog;
	struct sock_fprog fprog;

	build_filter(&prog, no_net);
	fprog.len = (unsigned short)prog.len;
	fprog.filter = prog.insn;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog))
		fail("cannot install the seccomp filter: %s", strerror(errno));
}

/* Signals that end the call: forwarded first, then everything is killed. */
static int terminating(int sig)
{
	return sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT;
}

/* What the supervisor waits for; every other signal stays blocked. */
static void supervised_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGQUIT);
	sigaddset(set, SIGUSR1);
	sigaddset(set, SIGUSR2);
	sigaddset(set, SIGWINCH);
}

/* Runs in the cloned child; never returns. */
static void exec_command(const struct options *o, int ruleset, pid_t supervisor,
			 const sigset_t *caller_mask)
{
	/* Why: if the supervisor is SIGKILLed, the command goes with it. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) || getppid() != supervisor)
		fail("supervisor is gone before exec");
	/* Why a new session: no controlling terminal means no TIOCSTI
	 * keystroke injection into the caller's shell and no job-control
	 * signals to its terminal; the new group is where we forward signals. */
	if (setsid() < 0)
		fail("setsid: %s", strerror(errno));
	/* Why restrict here and not in the supervisor: the command lands in a
	 * domain the supervisor is outside of, so scoping and Landlock's
	 * ptrace rule keep the command from killing or tracing its supervisor. */
	if (syscall(SYS_landlock_restrict_self, ruleset, 0))
		fail("landlock_restrict_self: %s", strerror(errno));
	close(ruleset);
	install_filter(o->no_net);
	if (sigprocmask(SIG_SETMASK, caller_mask, NULL))
		fail("sigprocmask: %s", strerror(errno));
	execvp(o->command[0], o->command);
	/* Like a shell: 127 when there is nothing to run, 126 otherwise. */
	dprintf(STDERR_FILENO, "landlock-run: cannot execute %s: %s\n", o->command[0],
		strerror(errno));
	_exit(errno == ENOENT || errno == ENOTDIR ? 127 : 126);
}

struct child_args {
	const struct options *o;
	int ruleset;
	pid_t supervisor;
	const sigset_t *caller_mask;
};

static int child_main(void *arg)
{
	const struct child_args *c = arg;

	exec_command(c->o, c->ruleset, c->supervisor, c->caller_mask);
	return LAUNCHER_ERROR;
}

/*
 * Why clone(CLONE_VM | CLONE_VFORK) and not fork(): the child only sets
 * up its own restrictions and execs, so copying the address space is
 * wasted work on every call; we are suspended until it has exec'd or
 * exited, so sharing memory with it is safe. Every restriction it applies
 * (session, Landlock domain, seccomp filter, signal mask) is per task.
 */
static pid_t start_command(struct child_args *args)
{
	size_t argc = 0, size;
	char *stack;

	while (args->o->command[argc])
		argc++;
	/* Why sized by argc: when the command is a script without "#!",
	 * execvp() retries it with /bin/sh and builds the new argv on the
	 * stack, one pointer per argument (up to ARG_MAX of them). */
	size = 256 * 1024 + (argc + 2) * sizeof(char *);
	size = (size + 4095) & ~(size_t)4095;
	stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		fail("cannot map the child's stack: %s", strerror(errno));
	return clone(child_main, stack + size, CLONE_VM | CLONE_VFORK | SIGCHLD, args);
}

/* Parent pid from /proc/PID/stat; comm may hold spaces and ')'. */
static pid_t stat_ppid(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || strlen(p) < 5)
		return -1;
	return (pid_t)strtol(p + 4, NULL, 10); /* ") S ppid" */
}

/*
 * SIGKILL every direct child. Why only children: their pids cannot be
 * reused while we have not reaped them, so kill() can never hit a
 * stranger; grandchildren become our children (we are their subreaper)
 * as soon as their parent dies, and the next round gets them.
 */
static int kill_children(void)
{
	pid_t self = getpid();
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		pid_t pid = (pid_t)atoi(e->d_name);

		if (isdigit((unsigned char)e->d_name[0]) && stat_ppid(pid) == self) {
			kill(pid, SIGKILL);
			n++;
		}
	}
	closedir(d);
	return n;
}

static void note_exit(pid_t pid, int status, int *cmd_status)
{
	if (pid == command_pid && (WIFEXITED(status) || WIFSIGNALED(status))) {
		*cmd_status = status;
		command_pid = 0;
	}
}

/*
 * Why: nothing may outlive the call, including a setsid/daemonized
 * grandchild. Kill and reap until the kernel says we have no child left.
 */
static void kill_all_descendants(int *cmd_status)
{
	int status;
	pid_t pid;

	for (;;) {
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
			note_exit(pid, status, cmd_status);
		if (pid < 0 && errno == ECHILD)
			return;
		if (kill_children() < 0 && command_pid > 0)
			kill(command_pid, SIGKILL);
		pid = waitpid(-1, &status, 0);
		if (pid > 0)
			note_exit(pid, status, cmd_status);
	}
}

static void forward(int sig)
{
	/* The child may not have called setsid() yet: then its group is ours. */
	if (kill(-command_pid, sig) && errno == ESRCH)
		kill(command_pid, sig);
}

/*
 * Wait for the command, forwarding signals to its group. After a
 * terminating signal the command has GRACE_MS to exit; then, or as soon
 * as it exits, every descendant is killed and reaped.
 */
static int supervise(void)
{
	sigset_t set;
	siginfo_t si;
	struct timespec grace = { GRACE_MS / 1000, (GRACE_MS % 1000) * 1000000L };
	int sig, status, cmd_status = -1, ending = 0;
	pid_t pid;

	supervised_signals(&set);
	while (command_pid > 0) {
		sig = ending ? sigtimedwait(&set, &si, &grace) : sigwaitinfo(&set, &si);
		if (sig == SIGCHLD) {
			while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
				note_exit(pid, status, &cmd_status);
		} else if (sig > 0 && !(ending && terminating(sig))) {
			forward(sig);
			ending = ending || terminating(sig);
		} else if (sig < 0 && errno == EAGAIN) {
			break; /* the grace period is over */
		}
	}
	kill_all_descendants(&cmd_status);
	if (cmd_status == -1)
		return LAUNCHER_ERROR;
	if (WIFSIGNALED(cmd_status))
		return 128 + WTERMSIG(cmd_status);
	return WEXITSTATUS(cmd_status);
}

int main(int argc, char **argv)
{
	struct options o;
	sigset_t caller_mask, set;
	pid_t caller = getppid(), self = getpid();
	int abi, ruleset, had_caps;
	struct __user_cap_data_struct caps[2];
	struct child_args args;

	close_inherited_fds();
	ensure_stdio_open();
	parse_args(argc, argv, &o);
	if (o.probe)
		return probe();
	abi = landlock_abi();
	if (abi < 1)
		fail("Landlock is unavailable: %s", strerror(errno));
	if (abi < o.min_abi)
		fail("Landlock ABI %d is older than --min-abi %ld", abi, o.min_abi);

	/* Why SIGTERM and not SIGKILL: if our caller dies we still get to
	 * kill and reap the command's descendants before exiting. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) || getppid() != caller)
		fail("caller is gone");
	/* Why: an ignored SIGCHLD inherited from the caller would auto-reap
	 * children and blind the supervisor. */
	signal(SIGCHLD, SIG_DFL);

	read_caps(caps);
	had_caps = any_cap(caps);
	drop_capabilities();
	verify_no_capabilities(had_caps);
	/* Why: required by landlock_restrict_self and seccomp without
	 * CAP_SYS_ADMIN, and it neuters setuid/file-capability binaries. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		fail("PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
	ruleset = build_ruleset(&o, abi);

	/* Why: orphaned descendants (setsid, double fork) reparent to us
	 * instead of init, so we can find and kill them... */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		fail("PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
	/* ...by walking /proc, so refuse to start a command we could not reap. */
	if (access("/proc/self/stat", R_OK))
		fail("cannot supervise without /proc: %s", strerror(errno));
	/* Why block everything: a stray signal must not kill the supervisor
	 * and orphan the command; the ones we handle are taken synchronously. */
	sigfillset(&set);
	if (sigprocmask(SIG_BLOCK, &set, &caller_mask))
		fail("sigprocmask: %s", strerror(errno));

	args = (struct child_args){ &o, ruleset, self, &caller_mask };
	command_pid = start_command(&args);
	if (command_pid < 0)
		fail("clone: %s", strerror(errno));
	close(ruleset);
	return supervise();
}
