/*
 * exec-handoff.c - the exec filter of --exec-notify and its listener's way
 * from the command to the supervisor's thread: the command installs the
 * filter (execve, execveat, and chroot/pivot_root, which would move the root
 * exec-read.c looks programs up from) with SECCOMP_FILTER_FLAG_NEW_LISTENER
 * and sends the listener over a socketpair (SCM_RIGHTS) before its own exec.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock-run.h"

/* [0]: the supervisor's end, [1]: the command's, which sends the listener */
static int handoff[2] = { -1, -1 };

/* In the supervisor, before the command exists. */
void exec_handoff_open(void)
{
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, handoff))
		fail("--exec-notify: socketpair: %s", strerror(errno));
}

/* In the supervisor's thread: the command's listener, or -1 when the command failed before sending it. */
int exec_handoff_receive(void)
{
	char control[CMSG_SPACE(sizeof(int))];
	char byte;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof(control) };
	struct cmsghdr *c;
	int fd = -1;

	if (recvmsg(handoff[0], &msg, MSG_CMSG_CLOEXEC) == 1) {
		c = CMSG_FIRSTHDR(&msg);
		if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(c), sizeof(fd));
	}
	close(handoff[0]);
	return fd;
}

/* In the supervisor, once the command is cloned: only the command keeps its end of the handoff. */
void exec_notify_cloned(void)
{
	close(handoff[1]);
}

/*
 * In the command, after the main filter and before its exec: the exec
 * filter, its listener sent to the supervisor's thread.
 */
void exec_notify_install(void)
{
	struct sock_filter insn[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execveat, 2, 0),
		/* a root that moves: exec-read.c stops taking the command's for every exec's */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_chroot, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pivot_root, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(insn) / sizeof(insn[0]), insn };
	char control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { "x", 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof(control) };
	struct cmsghdr *c;
	int listener;

	close(handoff[0]);
	/* Why: the supervisor reads our memory through /proc; a user namespace's setup made us non-dumpable */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		fail("--exec-notify: PR_SET_DUMPABLE: %s", strerror(errno));
	listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (listener < 0)
		fail("--exec-notify: cannot install the exec filter: %s", strerror(errno));
	memset(control, 0, sizeof(control));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &listener, sizeof(int));
	if (sendmsg(handoff[1], &msg, MSG_NOSIGNAL) != 1)
		fail("--exec-notify: cannot hand the listener to the supervisor: %s", strerror(errno));
	close(listener);
	close(handoff[1]);
}
