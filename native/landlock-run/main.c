/*
 * landlock-run - confine one command with Landlock, supervise it, and leave
 * nothing running when it returns.
 *
 *   landlock-run [--ro PATH]... [--rw PATH]... [--env NAME=VALUE]... [--env-from NAME]... [--limit NAME=N]...
 *                [--no-net | --net-proxy PORT [--net-forward PATH]] [--min-abi N] -- COMMAND [ARGS...]
 *   landlock-run [OPTIONS]... --slot --      (the command then comes on fd 3)
 *   landlock-run --probe
 *
 * Exit status: the command's own; 128+N when a signal N killed it; 126/127
 * when it could not be executed (like a shell); 125 for any launcher error,
 * in which case the command never ran.
 *
 * Order of operations (each step is explained where it happens):
 *   close inherited fds -> [--private-mounts] the covers and binds in a
 *   private mount namespace -> drop capabilities -> no_new_privs -> build the
 *   ruleset -> subreaper -> clone -> [child] own process group without a
 *   controlling terminal, landlock_restrict_self,
 *   seccomp (always; network rules with --no-net), execvp -> [parent]
 *   supervise, kill and reap every descendant, exit with the command's
 *   status. The child also sets its --limit rlimits, joins a fresh session keyring before its
 *   filter, and execs with exactly the --env (and --env-from) entries as its environment.
 *
 * Nothing here reads an environment variable but those --env-from names
 * (copied as they are): the caller's environment is dropped, and execvp's
 * PATH lookup of COMMAND uses the --env PATH.
 *
 * This file holds the order; each step lives with its own concept:
 *   fds.c        inherited file descriptors and stdio
 *   args.c       the command line, usage, fail() (exit 125)
 *   caps.c       capabilities, bounding set, securebits
 *   ruleset.c    the Landlock ABI, handled rights, path rules, scoping
 *   probe.c      --probe
 *   limits.c     --limit: the command's rlimits
 *   keyring.c    the command's own session keyring
 *   terminal.c   the command's own process group, no controlling terminal
 *   namespace.c  --namespaces: the command's own namespaces and new root
 *   private-mounts.c  --private-mounts: covers and binds without a new root
 *   hide.c       --hide: a denied path covered by a mount
 *   exec.c       execvp() as glibc has it (PATH search, /bin/sh retry)
 *   net.c        --net-proxy/--net-forward: the host's proxy as the only way out
 *   seccomp.c    the seccomp rule tables and their BPF program
 *   exec-notify.c  --exec-notify: each exec stopped and decided by the host
 *   slot.c       --slot: the command read from fd 3 once everything is in place
 *   supervise.c  the cloned child, signal forwarding, killing and reaping
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "landlock-run.h"

int main(int argc, char **argv)
{
	struct options o;
	sigset_t caller_mask, set;
	pid_t caller = getppid(), self = getpid();
	int abi, ruleset, had_caps;
	struct __user_cap_data_struct caps[2];
	struct child_args args;

	close_inherited_fds(slot_asked(argc, argv) ? SLOT_FD + 1 : 3);
	ensure_stdio_open();
	parse_args(argc, argv, &o);
	if (o.slot)
		slot_check_fd();
	if (o.probe)
		return probe();
	abi = landlock_abi();
	if (abi < 1)
		fail("Landlock is unavailable: %s", strerror(errno));
	if (abi < o.min_abi)
		fail("Landlock ABI %d is older than --min-abi %ld", abi, o.min_abi);
	check_net_options(&o, abi);

	/* Why SIGTERM and not SIGKILL: if our caller dies we still get to
	 * kill and reap the command's descendants before exiting. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) || getppid() != caller)
		fail("caller is gone");
	/* Why: an ignored SIGCHLD inherited from the caller would auto-reap
	 * children and blind the supervisor. */
	signal(SIGCHLD, SIG_DFL);

	/* Why before the capabilities go: the mounts need CAP_SYS_ADMIN, and
	 * nothing after them may keep it (the command never sees it). */
	if (o.private_mounts)
		private_mounts(&o);
	read_caps(caps);
	had_caps = any_cap(caps);
	/* Why later with --namespaces: the kernel lets a new user namespace map
	 * uid 0 only if its creator held CAP_SETFCAP, so the supervisor drops
	 * everything right after the clone; the child has its own
	 * credentials by then, all of them in its new user namespace. */
	if (!o.namespaces) {
		drop_capabilities();
		verify_no_capabilities(had_caps);
	}
	/* Why: required by landlock_restrict_self and seccomp without
	 * CAP_SYS_ADMIN, and it neuters setuid/file-capability binaries. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		fail("PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
	/* Why in the child with --namespaces: the rules name inodes, and the
	 * new root's /tmp and /dev exist only once it is built. */
	ruleset = o.namespaces ? -1 : build_ruleset(&o, abi);
	/* --net-forward: the relay to the host's proxy, listening before the command starts */
	start_forwarder(&o);

	if (o.no_supervisor) {
		/* Why only as PID 2 under PID 1: then our parent is the init of a
		 * PID namespace made for this command (bwrap's reaper), which
		 * exits when we do, and the kernel kills whatever is left in the
		 * namespace: the supervisor's job is done without a second process
		 * (one clone and two wake-ups fewer per call). Anywhere else the
		 * flag is refused, never ignored. */
		if (self != 2 || caller != 1)
			fail("--no-supervisor needs to be PID 2 under the init of its own PID namespace (pid %d, parent %d)",
			     (int)self, (int)caller);
		sigprocmask(SIG_BLOCK, NULL, &caller_mask);
		args = (struct child_args){ &o, ruleset, abi, getuid(), getgid(), -1, caller, &caller_mask };
		exec_confined(&args);
	}

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

	/* --exec-notify: connected to the host, the thread waiting for the command's listener */
	if (o.exec_notify)
		exec_notify_start(&o);
	args = (struct child_args){ &o, ruleset, abi, getuid(), getgid(), -1, self, &caller_mask };
	command_pid = start_command(&args);
	if (command_pid < 0)
		fail("clone: %s", strerror(errno));
	if (o.exec_notify)
		exec_notify_cloned();
	if (o.namespaces) {
		drop_capabilities();
		verify_no_capabilities(had_caps);
	}
	if (ruleset >= 0)
		close(ruleset);
	/* Why: the command's copy is its own (closed before its exec); ours is not needed */
	if (o.slot)
		close(SLOT_FD);
	return supervise();
}
