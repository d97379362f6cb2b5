/*
 * seccomp.c - the one seccomp filter the command runs under: the rule
 * tables (metadata always, network with --no-net or --net-proxy) and the BPF program
 * generated from them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock-run.h"

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
	INET_STREAM, /* allowed only for AF_INET/AF_INET6 TCP (domain .a, type .b, protocol .b + 1) */
	NO_FASTOPEN, /* refused when flags .a carry MSG_FASTOPEN */
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
	/* Why: keyrings outlive the call and are shared with the user's
	 * other programs (the session keyring, root's user keyring): a
	 * command could read the keys stored there or plant one. Nothing in
	 * a sandboxed command needs them. */
	{ __NR_add_key, DENY, 0, 0, EPERM },
	{ __NR_keyctl, DENY, 0, 0, EPERM },
	{ __NR_request_key, DENY, 0, 0, EPERM },
};

/*
 * Why, with --no-net or --net-proxy: a socketpair() is connected at birth,
 * so only a unix stream/seqpacket one (no datagram socket that could
 * sendmsg() anywhere). sendto() with an address is refused: seccomp cannot
 * read the address behind the pointer. No bind() or listen(): nothing
 * inside may wait for connections from outside; a command could squat an
 * abstract name a host client expects (abstract names are per network
 * namespace, and Landlock scoping restricts connect, not bind) or plant a
 * socket file in the workspace, and listen() on an unbound socket binds
 * it (to an abstract name, or a port).
 */
static const struct rule confined_net_rules[] = {
	{ __NR_socketpair, UNIX_SOCKET, 0, 1, EACCES },
	{ __NR_sendto, NO_DEST, 4, 0, EACCES },
	{ __NR_bind, DENY, 0, 0, EACCES },
	{ __NR_listen, DENY, 0, 0, EACCES },
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
static const struct rule no_net_rules[] = {
	{ __NR_socket, UNIX_SOCKET, 0, 1, EACCES },
	{ __NR_connect, DENY, 0, 0, EACCES },
};

/*
 * Why, with --net-proxy: the command may reach the host's proxy, and only
 * it. Landlock's one TCP port rule decides where connect() goes, so the
 * only sockets are TCP ones (UDP, raw, netlink, SCTP and MPTCP carry no
 * Landlock rule; a DNS query would leave by UDP). No unix socket() at
 * all: connect() is allowed here, and below ABI 9 nothing would keep it
 * off /run/docker.sock. MSG_FASTOPEN would connect a TCP socket from
 * sendto()/sendmsg() without passing Landlock's connect hook.
 */
static const struct rule proxy_rules[] = {
	{ __NR_socket, INET_STREAM, 0, 1, EACCES },
	{ __NR_sendmsg, NO_FASTOPEN, 2, 0, EACCES },
	{ __NR_sendmmsg, NO_FASTOPEN, 3, 0, EACCES },
};

#define MAX_RULES 40
#define MAX_INSNS 256
/* Append a rule table to rules[n]. */
#define APPEND(rules, n, table)                                  \
	do {                                                     \
		memcpy((rules) + (n), (table), sizeof(table));   \
		(n) += sizeof(table) / sizeof((table)[0]);       \
	} while (0)
_Static_assert(sizeof(metadata_rules) + sizeof(confined_net_rules) + sizeof(no_net_rules) + sizeof(proxy_rules) <= MAX_RULES * sizeof(struct rule),
	       "rules[MAX_RULES] holds every table at once");

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
	case INET_STREAM:
		emit(p, (struct sock_filter)SC_LOAD(SC_ARG_LO(r->a)));
		emit(p, (struct sock_filter)SC_JUMP(BPF_JEQ, AF_INET, 1, 0));
		emit(p, (struct sock_filter)SC_JUMP(BPF_JEQ, AF_INET6, 0, 6));
		emit(p, (struct sock_filter)SC_LOAD(SC_ARG_LO(r->b)));
		emit(p, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf));
		emit(p, (struct sock_filter)SC_JUMP(BPF_JEQ, SOCK_STREAM, 0, 3));
		emit(p, (struct sock_filter)SC_LOAD(SC_ARG_LO(r->b + 1)));
		emit(p, (struct sock_filter)SC_JUMP(BPF_JEQ, 0, 2, 0));
		emit(p, (struct sock_filter)SC_JUMP(BPF_JEQ, IPPROTO_TCP, 1, 0));
		emit(p, (struct sock_filter)SC_ERRNO(r->err));
		emit(p, (struct sock_filter)SC_RET(SECCOMP_RET_ALLOW));
		return;
	case NO_FASTOPEN:
		emit(p, (struct sock_filter)SC_LOAD(SC_ARG_LO(r->a)));
		emit(p, (struct sock_filter)SC_JUMP(BPF_JSET, MSG_FASTOPEN, 0, 1));
		emit(p, (struct sock_filter)SC_ERRNO(r->err));
		emit(p, (struct sock_filter)SC_RET(SECCOMP_RET_ALLOW));
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

static void build_filter(struct program *p, int net)
{
	struct rule rules[MAX_RULES];
	size_t i, n = 0;

	APPEND(rules, n, metadata_rules);
	if (net == NET_OFF || net == NET_PROXY)
		APPEND(rules, n, confined_net_rules);
	if (net == NET_OFF)
		APPEND(rules, n, no_net_rules);
	else if (net == NET_PROXY)
		APPEND(rules, n, proxy_rules);
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
void install_filter(int net)
{
	static struct program prog;
	struct sock_fprog fprog;

	build_filter(&prog, net);
	fprog.len = (unsigned short)prog.len;
	fprog.filter = prog.insn;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog))
		fail("cannot install the seccomp filter: %s", strerror(errno));
}
