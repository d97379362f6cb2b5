/*
 * supervise.c - start the command in a cloned child that confines itself,
 * forward signals to it, then kill and reap every descendant.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "landlock-run.h"

/* How long a forwarded SIGTERM/SIGINT/SIGHUP/SIGQUIT may take to work. */
#define GRACE_MS 1000

pid_t command_pid;

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

/* Why poll: a pidfd becomes readable once its process has exited, and
 * unlike kill(pid, 0) that works from inside a new PID namespace, where
 * our parent has no pid at all. */
static int supervisor_exited(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 0) != 0;
}

/* Runs in the cloned child; never returns. */
static void exec_command(const struct child_args *c)
{
	const struct options *o = c->o;
	int ruleset = c->ruleset;
	char **command = o->command;

	/* Why: if the supervisor is SIGKILLed, the command goes with it (and
	 * with --namespaces, as PID 1, everything in its PID namespace).
	 * There the parent is outside the namespace and reads as 0; it is
	 * suspended (CLONE_VFORK) until we exec, so it cannot have exited. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) ||
	    (o->namespaces ? supervisor_exited(c->supervisor_fd) : getppid() != c->supervisor))
		fail("supervisor is gone before exec");
	/* Why before the namespaces: the caller's /dev/tty is reachable here. */
	leave_terminal();
	if (o->namespaces) {
		close(c->supervisor_fd);
		enter_namespaces(o, c->uid, c->gid);
		start_namespace_command();
		/* Why again: a new user namespace starts with every capability
		 * in it (needed for the mounts above) and default securebits. */
		drop_capabilities();
		verify_no_capabilities(1);
		ruleset = build_ruleset(o, c->abi);
	}
	/* Why restrict here and not in the supervisor: the command lands in a
	 * domain the supervisor is outside of, so scoping and Landlock's
	 * ptrace rule keep the command from killing or tracing its supervisor. */
	if (syscall(SYS_landlock_restrict_self, ruleset, 0))
		fail("landlock_restrict_self: %s", strerror(errno));
	close(ruleset);
	apply_limits(o);
	join_fresh_session_keyring();
	install_filter(net_mode(o));
	if (o->exec_notify)
		exec_notify_install();
	/* --slot: every restriction is in place; only now the command is read
	 * (signals still blocked: the host ends an unused slot by closing fd 3
	 * or with SIGKILL) */
	if (o->slot)
		command = slot_read_command();
	if (sigprocmask(SIG_SETMASK, c->caller_mask, NULL))
		fail("sigprocmask: %s", strerror(errno));
	/* Why replace environ: the command gets exactly the --env entries,
	 * whatever environment our caller spawned us with (a host that runs
	 * the confined argv with its own secrets in the environment leaks
	 * none of them). execvp's PATH lookup then uses the policy's PATH.
	 * The supervisor shares this memory (CLONE_VM) but reads no
	 * environment variable after this point. */
	environ = o->env;
	exec_command_line(command);
	/* Like a shell: 127 when there is nothing to run, 126 otherwise. */
	dprintf(STDERR_FILENO, "landlock-run: cannot execute %s: %s\n", command[0],
		strerror(errno));
	_exit(errno == ENOENT || errno == ENOTDIR ? 127 : 126);
}

void exec_confined(const struct child_args *c)
{
	exec_command(c);
	_exit(LAUNCHER_ERROR);
}

static int child_main(void *arg)
{
	exec_confined(arg);
}

/*
 * Why clone(CLONE_VM | CLONE_VFORK) and not fork(): the child only sets
 * up its own restrictions and execs, so copying the address space is
 * wasted work on every call; we are suspended until it has exec'd or
 * exited, so sharing memory with it is safe. Every restriction it applies
 * (process group, Landlock domain, seccomp filter, signal mask) is per
 * task. With --namespaces the child stays, as PID 1 of its namespace,
 * for the whole call: there it is a plain fork (its own copy of memory)
 * so that we keep supervising meanwhile.
 */
pid_t start_command(struct child_args *args)
{
	size_t argc = 0, size;
	char *stack;
	pid_t pid;

	while (args->o->command[argc])
		argc++;
	/* Why the most a slot's command may have: it is only read in the child */
	if (args->o->slot)
		argc = SLOT_MAX_ARGS;
	/* Why sized by argc: when the command is a script without "#!",
	 * execvp() retries it with /bin/sh and builds the new argv on the
	 * stack, one pointer per argument (up to ARG_MAX of them). */
	size = 256 * 1024 + (argc + 2) * sizeof(char *);
	size = (size + 4095) & ~(size_t)4095;
	stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		fail("cannot map the child's stack: %s", strerror(errno));
	if (!args->o->namespaces)
		return clone(child_main, stack + size, CLONE_VM | CLONE_VFORK | SIGCHLD, args);
	args->supervisor_fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (args->supervisor_fd < 0)
		fail("pidfd_open: %s", strerror(errno));
	pid = clone(child_main, stack + size, SIGCHLD | namespace_flags(args->o), args);
	close(args->supervisor_fd);
	return pid;
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
	/* The child may not have called setpgid() yet: then its group is ours. */
	if (kill(-command_pid, sig) && errno == ESRCH)
		kill(command_pid, sig);
}

/*
 * Wait for the command, forwarding signals to its group. After a
 * terminating signal the command has GRACE_MS to exit; then, or as soon
 * as it exits, every descendant is killed and reaped.
 */
int supervise(void)
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
