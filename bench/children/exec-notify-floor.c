/*
 * The floor under permissions.exec_check_us: fork + execve(/bin/true) + wait, N times, with no
 * seccomp filter, and under a filter that stops every execve for a listener (a thread of another
 * process, as the launcher's supervisor is) that answers CONTINUE at once, without and with
 * SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP; and the same pair (no filter, the sync wake-up) in the shape
 * permissions.exec_check_us is measured in: /bin/sh running a loop of execs of /bin/true. Prints one
 * JSON line per round: µs per exec of each.
 * Built and run by bench/permissions-exec.js (cc -O2 -pthread).
 */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP 1
#endif

static int execs = 2000;
static int shell; /* the loop run by /bin/sh instead of here */

static void die(const char *what) {
  perror(what);
  exit(1);
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* µs per fork + exec + wait of /bin/true: by the calling process, or by a shell it starts */
static double loop(void) {
  char *argv[] = { "/bin/true", NULL };
  char *envp[] = { NULL };
  double start = now_us();
  if (shell) {
    char script[160];
    snprintf(script, sizeof script, "i=0; while [ $i -lt %d ]; do /bin/true; i=$((i+1)); done", execs);
    char *sh[] = { "/bin/sh", "-c", script, NULL };
    pid_t pid = fork();
    if (pid < 0) die("fork");
    if (pid == 0) {
      execve(sh[0], sh, envp);
      _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) die("the shell's loop");
    return (now_us() - start) / execs;
  }
  for (int i = 0; i < execs; i++) {
    pid_t pid = fork();
    if (pid < 0) die("fork");
    if (pid == 0) {
      execve(argv[0], argv, envp);
      _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) die("the exec");
  }
  return (now_us() - start) / execs;
}

static int stop_execs(void) {
  struct sock_filter filter[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execve, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = { .len = sizeof filter / sizeof filter[0], .filter = filter };
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) die("PR_SET_NO_NEW_PRIVS");
  int fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
  if (fd < 0) die("seccomp");
  return fd;
}

struct listener {
  int fd;
  int sync;
};

static void *answer(void *arg) {
  struct listener *l = arg;
  if (l->sync && ioctl(l->fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, (__u64)SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) < 0) die("SET_FLAGS");
  for (;;) {
    struct seccomp_notif req;
    struct seccomp_notif_resp resp;
    memset(&req, 0, sizeof req);
    if (ioctl(l->fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) return NULL;
    memset(&resp, 0, sizeof resp);
    resp.id = req.id;
    resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    ioctl(l->fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
  }
}

static void send_fd(int sock, int fd) {
  char control[CMSG_SPACE(sizeof(int))] = { 0 };
  struct iovec io = { "f", 1 };
  struct msghdr msg = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control };
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
  if (sendmsg(sock, &msg, 0) < 0) die("sendmsg");
}

static int receive_fd(int sock) {
  char control[CMSG_SPACE(sizeof(int))];
  char byte;
  struct iovec io = { &byte, 1 };
  struct msghdr msg = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control };
  if (recvmsg(sock, &msg, 0) <= 0 || !CMSG_FIRSTHDR(&msg)) die("recvmsg");
  int fd;
  memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof(int));
  return fd;
}

/* the loop in a child: under a filter whose listener is a thread here (mode 1, 2), or none (mode 0) */
static double in_child(int mode) {
  int sock[2], result[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sock) < 0 || pipe(result) < 0) die("socketpair");
  pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    if (mode) {
      int fd = stop_execs();
      send_fd(sock[1], fd);
      close(fd);
      char go;
      if (read(sock[1], &go, 1) != 1) _exit(1);
    }
    double us = loop();
    if (write(result[1], &us, sizeof us) != sizeof us) _exit(1);
    _exit(0);
  }
  pthread_t thread;
  struct listener l = { -1, mode == 2 };
  if (mode) {
    l.fd = receive_fd(sock[0]);
    if (pthread_create(&thread, NULL, answer, &l) != 0) die("pthread_create");
    if (write(sock[0], "g", 1) != 1) die("write");
  }
  double us;
  if (read(result[0], &us, sizeof us) != sizeof us) die("the loop's result");
  waitpid(pid, NULL, 0);
  if (mode) {
    close(l.fd); /* the listener's RECV fails: the thread ends */
    pthread_join(thread, NULL);
  }
  close(sock[0]);
  close(sock[1]);
  close(result[0]);
  close(result[1]);
  return us;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 5;
  if (argc > 2) execs = atoi(argv[2]);
  for (int r = 0; r < rounds; r++) {
    shell = 0;
    double bare = in_child(0), stopped = in_child(1), synced = in_child(2);
    shell = 1;
    double shell_bare = in_child(0), shell_synced = in_child(2);
    printf("{\"bare\":%.2f,\"stopped\":%.2f,\"synced\":%.2f,\"shellBare\":%.2f,\"shellSynced\":%.2f}\n", bare, stopped, synced, shell_bare, shell_synced);
    fflush(stdout);
  }
  return 0;
}
