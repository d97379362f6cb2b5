/*
 * exec-host.c - the supervisor's socket to the host that decides execs
 * (--exec-notify PATH): each request sent, the answers matched back by the
 * notification's id, and the requests still waiting (an exec held for a
 * person's approval among them). When the socket goes, or the host speaks out
 * of turn, every waiting exec is refused at once (it would be held until the
 * call's timeout otherwise), and every exec from then on is refused.
 * Wire format: exec-notify.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "landlock-run.h"
#include "exec-timing.h"

/* beyond this many requests waiting, an exec is refused rather than asked */
#define MAX_PENDING 1024

static int host = -1;
static __u64 pending[MAX_PENDING];
static int n_pending;

void exec_host_connect(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };

	if (strlen(path) >= sizeof(addr.sun_path))
		fail("--exec-notify: path too long: %s", path);
	strcpy(addr.sun_path, path);
	host = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (host < 0 || connect(host, (struct sockaddr *)&addr, sizeof(addr)))
		fail("--exec-notify %s: cannot connect: %s", path, strerror(errno));
}

int exec_host_fd(void)
{
	return host;
}

static void lose_host(int listener)
{
	int i;

	close(host);
	host = -1;
	for (i = 0; i < n_pending; i++)
		exec_respond(listener, pending[i], EACCES);
	n_pending = 0;
}

static int send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int exec_host_ask(int listener, const void *frame, size_t len, __u64 id, int awaited)
{
	if (host < 0 || (awaited && n_pending == MAX_PENDING))
		return -1;
	if (send_all(host, frame, len)) {
		lose_host(listener);
		return -1;
	}
	TIMING_HOST(id, 1);
	if (awaited)
		pending[n_pending++] = id;
	return 0;
}

/* An answered request is no longer waiting. */
static void settle(__u64 id)
{
	int i;

	for (i = 0; i < n_pending; i++)
		if (pending[i] == id) {
			pending[i] = pending[--n_pending];
			return;
		}
}

/* The host's answers: u32 length (12), u64 id, u32 errno. */
void exec_host_answers(int listener)
{
	static char in[4096];
	static size_t have;
	ssize_t n = recv(host, in + have, sizeof(in) - have, 0);
	size_t at = 0;

	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0) {
		lose_host(listener);
		return;
	}
	have += (size_t)n;
	while (have - at >= 16) {
		__u32 len, err;
		__u64 id;

		memcpy(&len, in + at, 4);
		if (len != 12) {
			lose_host(listener);
			return;
		}
		memcpy(&id, in + at + 4, 8);
		memcpy(&err, in + at + 12, 4);
		settle(id);
		exec_respond(listener, id, err ? (int)err : 0);
		TIMING_HOST(id, 0);
		at += 16;
	}
	memmove(in, in + at, have - at);
	have -= at;
}
