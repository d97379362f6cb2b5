/*
 * exec-notify.c - --exec-notify PATH: every execve/execveat of the command
 * and its descendants is stopped by the kernel (seccomp user notification)
 * and decided by the host before it happens.
 *
 * The supervisor connects to the host's unix socket PATH before the command
 * exists and starts one thread. The command installs a second seccomp filter
 * (exec-handoff.c),
 * with SECCOMP_FILTER_FLAG_NEW_LISTENER, that answers SECCOMP_RET_USER_NOTIF
 * for execve and execveat only, and hands the listener to that thread over
 * a socketpair (SCM_RIGHTS) before its own exec. For each notification the
 * thread reads the path and argv from the process's memory (exec-read.c),
 * checks the notification is still live (SECCOMP_IOCTL_NOTIF_ID_VALID: the
 * pid was not reused while we read), resolves the program's real path, and
 * sends it all to the host; the host's answer (allow, or an errno) goes back with
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE or that error. Requests and answers are
 * matched by the notification's id, so an exec waiting for a person's
 * approval does not hold up the execs of other processes.
 *
 * The host's socket is exec-host.c; which execs it must see, exec-names.c.
 * With --exec-program NAME..., only an exec one of whose names (argv[0], the
 * path given, the real path, a script's interpreter; each as it is or by its base name) is listed is
 * sent to the host; the others continue here, with no round trip. With
 * --exec-match, an exec of a listed program whose strings cannot meet any of
 * the host's rules about it continues here too (exec-match.c).
 *
 * Fail closed: a notification the thread cannot read, or that comes after the
 * host's socket is gone, fails with EACCES, and so do those the host was
 * asked about and had not answered when its socket went. An exec whose argv is exactly
 * the launcher's own command (what the host already decided as the command's
 * text) continues without a round trip.
 *
 * What this cannot see: an allowed exec's argv and path live in the
 * process's memory, and another thread of that process may rewrite them
 * after we read them and before the kernel does (the documented limit of
 * user notification for allow decisions). A denied exec never happens.
 *
 * Wire format (little-endian, both ways framed by a u32 byte count):
 *   request: u64 id, u32 pid, u32 flags (1: argv truncated; 2: the program
 *            cannot be known, and the exec is already refused: a record only), u32 argc,
 *            then NUL-terminated: path as given, real path ("" if unknown),
 *            the "#!" lines of a script and of each interpreter that is a
 *            script too (without "#!", newline-separated; "" otherwise), the
 *            real paths of the interpreters those lines name (the same way),
 *            argv[0..argc), and for each dynamic loader among them (the
 *            exec's program: level -1; an interpreter: its level) "LEVEL\tREAL"
 *            with the real path of the program it loads, newline-separated
 *   answer:  u64 id, u32 errno (0: allow)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock-run.h"
#include "exec-timing.h"

#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE (1UL << 0) /* Linux 5.5 */
#endif
#ifndef SECCOMP_IOCTL_NOTIF_ID_VALID
#define SECCOMP_IOCTL_NOTIF_ID_VALID SECCOMP_IOW(2, __u64)
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64) /* Linux 6.6 */
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/* What one request may carry: beyond it the argv is sent truncated (flag 1). */
#define MAX_ARGS EXEC_MAX_ARGS
#define MAX_REQUEST (256 * 1024)
#define FLAG_TRUNCATED 1u
#define FLAG_UNRESOLVED 2u

static char *const *own_command;
static struct interp_chain chain;
static struct loaded_set loaded;

static int same_as_own_command(char *const *args, unsigned argc)
{
	unsigned i;

	for (i = 0; i < argc && own_command[i]; i++)
		if (strcmp(args[i], own_command[i]))
			return 0;
	return i == argc && !own_command[i];
}

void exec_respond(int listener, __u64 id, int err)
{
	struct seccomp_notif_resp resp;

	memset(&resp, 0, sizeof(resp));
	resp.id = id;
	if (err) {
		resp.error = -err;
	} else {
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	}
	/* ENOENT: the process died meanwhile; nothing to answer */
	ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/* Appends "LEVEL\tREAL" for each loaded program, newline-separated and NUL-terminated. */
static int put_loaded(char *buf, size_t *used)
{
	int i;

	for (i = 0; i < loaded.n; i++) {
		int len = snprintf(buf + *used, MAX_REQUEST - *used, "%s%d\t%s", i ? "\n" : "", loaded.level[i], loaded.real[i]);

		if (len < 0 || (size_t)len + 1 >= MAX_REQUEST - *used)
			return -1;
		*used += (size_t)len;
	}
	if (*used + 1 > MAX_REQUEST)
		return -1;
	buf[(*used)++] = '\0';
	return 0;
}

/* Appends the chain's lines, then its real paths, each list newline-separated and NUL-terminated; -1 when it does not fit. */
static int put_chain(char *buf, size_t *used, const struct interp_chain *chain)
{
	int pass, level;

	for (pass = 0; pass < 2; pass++) {
		for (level = 0; level < chain->n; level++) {
			const char *s = pass ? chain->real[level] : chain->line[level];
			size_t len = strlen(s);

			if (*used + len + 2 > MAX_REQUEST)
				return -1;
			memcpy(buf + *used, s, len);
			*used += len;
			buf[(*used)++] = level + 1 < chain->n ? '\n' : '\0';
		}
		if (!chain->n) {
			if (*used + 1 > MAX_REQUEST)
				return -1;
			buf[(*used)++] = '\0';
		}
	}
	return 0;
}

/*
 * One notification: read it, send the request to the host (or answer it
 * here: our own command, or EACCES when it cannot be read or sent).
 */
static void take(int listener, struct seccomp_notif *req, char *buf, char **args)
{
	const struct seccomp_data *d = &req->data;
	int execveat = d->nr == __NR_execveat;
	unsigned long path_at = d->args[execveat ? 1 : 0], argv_at = d->args[execveat ? 2 : 1];
	int dirfd = execveat ? (int)d->args[0] : AT_FDCWD;
	int empty_path = execveat && (d->args[4] & AT_EMPTY_PATH);
	char real[PATH_MAX], interp[256];
	unsigned long ptrs[64];
	size_t used = 24, header = 24, have = 0, next = 0;
	__u32 flags = 0, argc = 0, len;
	pid_t pid = (pid_t)req->pid;
	static int seen_one;
	long n;

	if (d->nr == __NR_chroot || d->nr == __NR_pivot_root) {
		/* from now on no root is taken for the command's: each exec's is looked up (exec-read.c) */
		exec_root_moved();
		exec_respond(listener, req->id, 0);
		return;
	}
	/* Why the first: the launcher's own exec of the command, before anything of the command runs */
	if (!seen_one++)
		exec_root_keep(pid);
	n = exec_read_string(pid, path_at, buf + used, MAX_REQUEST - used);
	if (n < 0)
		goto refuse;
	used += (size_t)n + 1;
	TIMING_STEP(STEP_PATH);
	if (exec_real_path(pid, dirfd, buf + header, empty_path, real, sizeof(real), interp, sizeof(interp)) < 0)
		flags |= FLAG_UNRESOLVED;
	/* Why each level: `#!/w/i` with i a script of its own, or a symlink to rm, runs what its line names */
	if (exec_interpreters(pid, interp, &chain) < 0)
		flags |= FLAG_UNRESOLVED;
	n = (long)strlen(real);
	if ((size_t)n + 1 > MAX_REQUEST - used)
		goto refuse;
	memcpy(buf + used, real, (size_t)n + 1);
	used += (size_t)n + 1;
	if (put_chain(buf, &used, &chain) < 0)
		goto refuse;
	TIMING_STEP(STEP_REAL);
	for (; argv_at; argc++) {
		unsigned long ptr;

		if (next == have) {
			n = exec_read_pointers(pid, argv_at + argc * sizeof(ptr), ptrs, sizeof(ptrs) / sizeof(ptrs[0]));
			if (n < 0)
				goto refuse;
			have = (size_t)n;
			next = 0;
		}
		ptr = ptrs[next++];
		if (!ptr)
			break;
		if (argc == MAX_ARGS) {
			flags |= FLAG_TRUNCATED;
			break;
		}
		n = exec_read_string(pid, ptr, buf + used, MAX_REQUEST - used);
		if (n == -2) {
			flags |= FLAG_TRUNCATED;
			break;
		}
		if (n < 0)
			goto refuse;
		args[argc] = buf + used;
		used += (size_t)n + 1;
	}
	/* Why: a dynamic loader runs the file its argv names with no exec of its own */
	if (exec_find_loaded(pid, buf + header, real, args, argc, &chain, &loaded) < 0)
		flags |= FLAG_UNRESOLVED;
	if (put_loaded(buf, &used) < 0)
		goto refuse;
	TIMING_STEP(STEP_ARGV);
	/* Why after reading: the pid may have died and been reused while we read another process's memory */
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id))
		return;
	TIMING_STEP(STEP_VALID);
	/* Why the path too: argv is the caller's to choose; execve("/usr/bin/python3", <our argv>) is not our command */
	if (!flags && same_as_own_command(args, argc) && !strcmp(buf + header, own_command[0])) {
		exec_respond(listener, req->id, 0);
		return;
	}
	/* Why here: an exec no rule names (most of them), or whose words no rule about it could meet, costs no round trip to the host */
	if (!(flags & FLAG_UNRESOLVED) && exec_names_given() && !exec_host_decides(buf + header, real, &chain, &loaded, args, argc, (flags & FLAG_TRUNCATED) != 0)) {
		TIMING_STEP(STEP_DECIDE);
		exec_respond(listener, req->id, 0);
		TIMING_MARK(0);
		return;
	}
	TIMING_STEP(STEP_DECIDE);
	len = (__u32)(used - 4);
	memcpy(buf, &len, 4);
	memcpy(buf + 4, &req->id, 8);
	memcpy(buf + 12, &(__u32){ (__u32)req->pid }, 4);
	memcpy(buf + 16, &flags, 4);
	memcpy(buf + 20, &argc, 4);
	/* Why no answer awaited then: whatever the host says, a program we cannot know does not run */
	if (exec_host_ask(listener, buf, used, req->id, !(flags & FLAG_UNRESOLVED)) == 0 && !(flags & FLAG_UNRESOLVED))
		return;
refuse:
	exec_respond(listener, req->id, EACCES);
}

static void *notify_thread(void *unused)
{
	static char buf[MAX_REQUEST];
	static char *args[MAX_ARGS + 1];
	struct seccomp_notif_sizes sizes;
	struct seccomp_notif *req;
	int listener;

	(void)unused;
	listener = exec_handoff_receive();
	if (listener < 0)
		return NULL; /* the command failed before its exec; nothing to decide */
	/*
	 * Why: a stopped exec wakes this thread on the exec's own CPU, and our
	 * answer wakes the exec on ours, each side about to sleep: a hand-off,
	 * instead of two wake-ups that wait for the other CPU (on a busy machine,
	 * most of what a notification cost). Only the speed depends on it: an
	 * older kernel refuses the flag (EINVAL) and everything else is the same.
	 */
	ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	/* Why the kernel's size: a newer kernel's struct may be longer than our header's */
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes))
		sizes.seccomp_notif = sizeof(*req);
	req = calloc(1, sizes.seccomp_notif > sizeof(*req) ? sizes.seccomp_notif : sizeof(*req));
	if (!req)
		return NULL;
	for (;;) {
		int host = exec_host_fd();
		struct pollfd p[2] = { { listener, POLLIN, 0 }, { host, POLLIN, 0 } };

		if (poll(p, host >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents & POLLIN) {
			memset(req, 0, sizes.seccomp_notif > sizeof(*req) ? sizes.seccomp_notif : sizeof(*req));
			if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) == 0) {
				TIMING_MARK(1);
				take(listener, req, buf, args);
			}
		} else if (p[0].revents & (POLLHUP | POLLERR)) {
			break; /* every process under the filter is gone */
		}
		if (host >= 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR)))
			exec_host_answers(listener);
	}
	return NULL;
}

/* In the supervisor, before the command exists: the host's socket, the handoff, the thread. */
void exec_notify_start(const struct options *o)
{
	pthread_attr_t attr;
	pthread_t thread;

	exec_host_connect(o->exec_notify);
	exec_handoff_open();
	own_command = o->command;
	TIMING_REPORT_AT_EXIT();
	exec_names_use(o->exec_programs, o->n_exec_programs);
	exec_match_use(o->exec_matches, o->n_exec_matches);
	/* Why a thread: the command execs (and waits on us) while main() is still in clone(CLONE_VFORK) */
	if (pthread_attr_init(&attr) || pthread_attr_setstacksize(&attr, 64 * 1024) ||
	    pthread_create(&thread, &attr, notify_thread, NULL))
		fail("--exec-notify: cannot start the notification thread");
	pthread_attr_destroy(&attr);
}
