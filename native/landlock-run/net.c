/*
 * net.c - network by domain. The host runs a proxy that decides which
 * names the command may reach; the launcher makes that proxy the only
 * thing the command can connect to:
 *
 *   --net-proxy PORT   TCP connect() only to PORT (a Landlock ABI 4 port
 *                      rule), no TCP bind, and the seccomp filter's proxy
 *                      table: only TCP sockets (no UDP, raw, netlink or
 *                      unix sockets beyond socketpair), no TCP Fast Open.
 *   --net-forward PATH inside a network namespace (bwrap --unshare-net),
 *                      listen on 127.0.0.1:PORT and relay every connection
 *                      to the unix socket PATH the host's proxy listens on.
 *                      The relay is a process of its own, forked before the
 *                      command's Landlock domain and filter: a child the
 *                      supervisor kills with everything else, or, with
 *                      --no-supervisor (PID 2 of bwrap's PID namespace), a
 *                      grandchild handed to the namespace's init, so the
 *                      command never has it as a child to wait for; the
 *                      namespace ends with the command and takes it along.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "landlock-run.h"

#ifndef LANDLOCK_RULE_NET_PORT
#define LANDLOCK_RULE_NET_PORT 2 /* ABI 4 */
#endif

/* The ABI 4 rule; our own copy, as the installed header predates it. */
struct net_port_attr {
	__u64 allowed_access;
	__u64 port;
};

/* How many relayed connections at once; more wait in the listen backlog. */
#define MAX_PAIRS 64
#define RELAY_BUF 16384

/* One direction of a relayed connection. */
struct half {
	char buf[RELAY_BUF];
	size_t len, off;
	int eof;
};

struct pair {
	int inside, host; /* the command's TCP connection, the proxy's unix socket */
	struct half up, down; /* inside -> host, host -> inside */
};

static long parse_port(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = s ? strtol(s, &end, 10) : 0;
	if (!s || errno || end == s || *end || v < 1 || v > 65535)
		fail("--net-proxy wants a TCP port (1-65535), got '%s'", s ? s : "");
	return v;
}

int parse_net_arg(struct options *o, char **argv, int *i)
{
	const char *a = argv[*i];

	if (!strcmp(a, "--net-proxy")) {
		o->net_proxy = parse_port(argv[++*i]);
		return 1;
	}
	if (!strcmp(a, "--net-forward")) {
		const char *path = argv[++*i];

		if (!path || path[0] != '/' || strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
			fail("--net-forward wants an absolute unix socket path shorter than %zu bytes, got '%s'",
			     sizeof(((struct sockaddr_un *)0)->sun_path), path ? path : "");
		o->net_forward = path;
		return 1;
	}
	return 0;
}

void check_net_options(const struct options *o, int abi)
{
	if (o->net_proxy && o->no_net)
		fail("--net-proxy and --no-net exclude each other");
	if (o->net_forward && !o->net_proxy)
		fail("--net-forward needs --net-proxy PORT (the port it listens on)");
	/* Why: without TCP rules the command could connect anywhere. Inside
	 * a network namespace (--net-forward) only loopback exists, and
	 * nothing but the relay listens there, so the namespace is enough. */
	if (o->net_proxy && !o->net_forward && abi < 4)
		fail("--net-proxy needs Landlock ABI 4 (TCP rules), this kernel has %d", abi);
}

int net_mode(const struct options *o)
{
	return o->no_net ? NET_OFF : o->net_proxy ? NET_PROXY : NET_OPEN;
}

void add_net_rules(int ruleset, const struct options *o, int abi)
{
	struct net_port_attr rule = { LANDLOCK_ACCESS_NET_CONNECT_TCP, (__u64)o->net_proxy };

	/* Why no bind rule: handled without a rule, every TCP bind is denied. */
	if (!o->net_proxy || abi < 4)
		return;
	if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_NET_PORT, &rule, 0))
		fail("cannot add the TCP rule for --net-proxy %ld: %s", o->net_proxy, strerror(errno));
}

static int connect_host(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	memcpy(addr.sun_path, path, strlen(path) + 1);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Move what one direction can move now; -1 once the pair is done with. */
static int pump(struct half *h, int from, int to, short rev_from, short rev_to)
{
	ssize_t n;

	if (h->len == 0 && !h->eof && (rev_from & (POLLIN | POLLHUP | POLLERR))) {
		n = read(from, h->buf, sizeof(h->buf));
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
		if (n == 0) {
			h->eof = 1;
			shutdown(to, SHUT_WR);
		} else if (n > 0) {
			h->len = (size_t)n;
			h->off = 0;
		}
	}
	if (h->len > 0 && (rev_to & (POLLOUT | POLLERR))) {
		n = write(to, h->buf + h->off, h->len);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
		if (n > 0) {
			h->off += (size_t)n;
			h->len -= (size_t)n;
		}
	}
	return 0;
}

static void close_pair(struct pair **p)
{
	close((*p)->inside);
	close((*p)->host);
	free(*p);
	*p = NULL;
}

static void accept_one(int listener, const char *path, struct pair **slot)
{
	int in = accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK), host;

	if (in < 0)
		return;
	/* Why close on failure: a proxy that is down must look like a
	 * refused connection to the command, never like an open one. */
	host = connect_host(path);
	if (host < 0 || !(*slot = calloc(1, sizeof(**slot)))) {
		struct linger reset = { 1, 0 };

		if (host >= 0)
			close(host);
		/* a reset, not a clean end: the command sees an error, never an empty answer */
		setsockopt(in, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
		close(in);
		return;
	}
	fcntl(host, F_SETFL, O_NONBLOCK);
	(*slot)->inside = in;
	(*slot)->host = host;
}

static void relay(int listener, const char *path)
{
	static struct pair *pairs[MAX_PAIRS];
	struct pollfd pfd[1 + 2 * MAX_PAIRS];
	int i, n, free_slot;

	for (;;) {
		n = 1;
		free_slot = -1;
		for (i = 0; i < MAX_PAIRS; i++) {
			struct pair *p = pairs[i];

			if (!p) {
				if (free_slot < 0)
					free_slot = i;
				continue;
			}
			pfd[n].fd = p->inside;
			pfd[n++].events = (short)((!p->up.len && !p->up.eof ? POLLIN : 0) | (p->down.len ? POLLOUT : 0));
			pfd[n].fd = p->host;
			pfd[n++].events = (short)((!p->down.len && !p->down.eof ? POLLIN : 0) | (p->up.len ? POLLOUT : 0));
		}
		/* Why -1 when full: the backlog keeps the next ones waiting. */
		pfd[0].fd = free_slot >= 0 ? listener : -1;
		pfd[0].events = POLLIN;
		if (poll(pfd, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(LAUNCHER_ERROR);
		}
		n = 1;
		for (i = 0; i < MAX_PAIRS; i++) {
			struct pair *p = pairs[i];
			short ri, rh;

			if (!p)
				continue;
			ri = pfd[n++].revents;
			rh = pfd[n++].revents;
			if (pump(&p->up, p->inside, p->host, ri, rh) || pump(&p->down, p->host, p->inside, rh, ri) ||
			    (p->up.eof && p->down.eof && !p->up.len && !p->down.len))
				close_pair(&pairs[i]);
		}
		if (free_slot >= 0 && (pfd[0].revents & POLLIN))
			accept_one(listener, path, &pairs[free_slot]);
	}
}

void start_forwarder(const struct options *o)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t)o->net_proxy) };
	int fd, one = 1, null;
	pid_t pid;

	if (!o->net_forward)
		return;
	/* Why checked here too: a relay handed to an init that is not the
	 * namespace's own would outlive the call. */
	if (o->no_supervisor && (getpid() != 2 || getppid() != 1))
		fail("--net-forward with --no-supervisor needs to be PID 2 under the init of its own PID namespace");
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* Why CLOEXEC: the listening socket must not reach the command. */
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fail("--net-forward: socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* Why listen before the command starts: its first connect must find
	 * the port open (queued in the backlog until the relay accepts). */
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) || listen(fd, 128))
		fail("--net-forward: cannot listen on 127.0.0.1:%ld: %s", o->net_proxy, strerror(errno));
	pid = fork();
	if (pid < 0)
		fail("--net-forward: fork: %s", strerror(errno));
	if (pid > 0 && o->no_supervisor && waitpid(pid, NULL, 0) != pid)
		fail("--net-forward: waitpid: %s", strerror(errno));
	if (pid == 0 && o->no_supervisor) {
		/* the middle process: its child is reparented to the namespace's init */
		pid = fork();
		if (pid != 0)
			_exit(pid < 0 ? LAUNCHER_ERROR : 0);
	} else if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	}
	if (pid == 0) {
		/* Why: a write to a connection the command closed must not kill the relay. */
		signal(SIGPIPE, SIG_IGN);
		null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
		}
		relay(fd, o->net_forward);
	}
	close(fd);
}
