/*
 * landlock-run.h - what the launcher's files share: the launcher's exit
 * status, Landlock constants newer than the installed headers, the parsed
 * options, and the prototype of every step main() takes.
 */
#ifndef LANDLOCK_RUN_H
#define LANDLOCK_RUN_H

#include <limits.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <linux/types.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

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

/* One --mount-rw / --mount-ro bind or --hide (namespace.c), in command-line order. */
enum mount_kind { MOUNT_RW, MOUNT_RO, MOUNT_HIDE };
struct mount_spec {
	const char *path;
	enum mount_kind kind;
};

/* One --inode PATH DEV:INO (identity.c). */
struct inode_spec {
	const char *path;
	uint64_t dev, ino;
};

/* The parsed command line (args.c). */
struct options {
	/* --namespaces or --private-mounts, and their binds (--mount-dev, --mount-proc: private only) */
	int namespaces, private_mounts, mount_dev, mount_proc, mount_tmp, mounts_in_place;
	struct mount_spec *mounts;
	int n_mounts;
	/* --chdir: the working directory inside (default: the caller's) */
	const char *chdir;
	const char **ro, **rw;
	int n_ro, n_rw;
	/* --inode: what the host resolved paths to, checked where we open them by name */
	struct inode_spec *inodes;
	int n_inodes;
	/* the command's whole environment, NULL-terminated (--env) */
	char **env;
	int n_env;
	/* --limit values by resource (limits.c's table order); 0: not set */
	rlim_t limit[5];
	int no_net, probe, no_supervisor;
	/* --slot: the command comes on fd 3, read just before exec (slot.c) */
	int slot;
	long min_abi;
	/* --net-proxy PORT (0: not set) and --net-forward PATH (net.c) */
	long net_proxy;
	const char *net_forward;
	/* --exec-notify PATH: the host's socket deciding each exec (exec-notify.c) */
	const char *exec_notify;
	/* --exec-program NAME: the only programs the host is asked about (none given: every exec) */
	const char **exec_programs;
	int n_exec_programs;
	const char **exec_matches;
	int n_exec_matches;
	char **command;
};

/* What main() hands the cloned child (supervise.c). */
struct child_args {
	const struct options *o;
	/* -1 with --namespaces: the child builds it inside its new root */
	int ruleset;
	int abi;
	uid_t uid;
	gid_t gid;
	/* with --namespaces: a pidfd of the supervisor, to check it is alive */
	int supervisor_fd;
	pid_t supervisor;
	const sigset_t *caller_mask;
};

/* args.c: the command line, and the one way out before exec */
void fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void parse_args(int argc, char **argv, struct options *o);

/* identity.c: --inode, and the check of what a path opened by name (O_NOFOLLOW) is */
struct stat;
void parse_inode(struct options *o, const char *path, const char *value);
void check_identity(const struct options *o, const char *path, int fd, struct stat *st);

/* fds.c: the caller's file descriptors */
void close_inherited_fds(unsigned int first);
void ensure_stdio_open(void);

/* caps.c: capabilities, the bounding set and securebits */
void read_caps(struct __user_cap_data_struct d[2]);
int any_cap(const struct __user_cap_data_struct d[2]);
void drop_capabilities(void);
void verify_no_capabilities(int dropped_bounding_set);

/* ruleset.c: the Landlock ABI, handled rights, rules and scoping */
int landlock_abi(void);
struct ruleset_attr handled_for_abi(int abi, int no_net);
int build_ruleset(const struct options *o, int abi);

/* probe.c: --probe */
int probe(void);

/* limits.c: resource limits */
void parse_limit(struct options *o, const char *arg);
void apply_limits(const struct options *o);

/* keyring.c: the command's own session keyring */
void join_fresh_session_keyring(void);

/* exec.c: execvp() as glibc has it, /bin/sh retry included */
void exec_command_line(char *const argv[]);

/* namespace.c: --namespaces, the command's own namespaces and root */
int namespace_flags(const struct options *o);
void enter_namespaces(const struct options *o, uid_t uid, gid_t gid);
pid_t start_namespace_command(void);
void mount_point(const char *dst, int dir);

/* private-mounts.c: --private-mounts, the binds and covers in a private copy of our own mount namespace */
void private_mounts(const struct options *o);
int private_mounts_work(void);

/*
 * The new mount API (Linux 5.2 / 5.12), from <linux/mount.h>, which clashes
 * with <sys/mount.h>: the uapi values under names of our own.
 */
#define OPEN_TREE_CLONE_ 1
#define AT_RECURSIVE_ 0x8000
#define MOVE_MOUNT_F_EMPTY_PATH_ 0x00000004
#define MOVE_MOUNT_T_EMPTY_PATH_ 0x00000040
#define MOUNT_ATTR_RDONLY_ 0x00000001
#define MOUNT_ATTR_NOSUID_ 0x00000002
#define MOUNT_ATTR_NODEV_ 0x00000004
#define MOUNT_ATTR_NOEXEC_ 0x00000008
struct mount_attr_v0 {
	__u64 attr_set, attr_clr, propagation, userns_fd;
};

/* mount-tree.c: a host path's mount tree cloned detached, and attached where it belongs */
int clone_tree(const struct options *o, const char *src, const char *path, __u64 set, __u64 clear, int recursive, struct stat *st);
void attach_tree(int tree, const char *dst, const char *path);

/* hide.c: --hide, a denied path covered (in the new root, or here with --private-mounts) */
int hide_path(const char *path, const char *dst, const char *old_null);
void seal_hidden(const int *mounts, int n);

/* terminal.c: the command's own process group, no controlling terminal */
void leave_terminal(void);

/* net.c: network by domain, through the host's proxy */
enum { NET_OPEN, NET_OFF, NET_PROXY };
int parse_net_arg(struct options *o, char **argv, int *i);
void check_net_options(const struct options *o, int abi);
int net_mode(const struct options *o);
void add_net_rules(int ruleset, const struct options *o, int abi);
void start_forwarder(const struct options *o);

/* seccomp.c: the BPF filter, installed in the child (net: NET_OPEN, NET_OFF or NET_PROXY) */
void install_filter(int net);

/* exec-notify.c: --exec-notify, every exec decided by the host (seccomp user notification) */
/* exec-match.c: what an exec of a listed program must hold to be asked about */
int exec_match_check(const char *match);
void exec_match_use(const char **matches, int n);
int exec_match_known(const char *name);
int exec_match_may_meet(const char *name, const char *const *strings, int n);
void exec_notify_start(const struct options *o);
void exec_notify_cloned(void);
void exec_notify_install(void);
void exec_handoff_open(void);
int exec_handoff_receive(void);
int exec_notify_works(void);
/* exec-read.c: reading the process an exec notification stopped */
long exec_read_pointers(pid_t pid, unsigned long addr, unsigned long *out, size_t max);
long exec_read_string(pid_t pid, unsigned long addr, char *out, size_t room);
int exec_real_path(pid_t pid, int dirfd, const char *path, int empty_path, char *out, size_t room, char *interp, size_t interp_room);
/* what one exec request carries at most: beyond it the argv is sent truncated */
#define EXEC_MAX_ARGS 4096
/* exec-interp.c: the "#!" interpreters the kernel runs for a script, each by name and real path */
#define MAX_INTERPRETERS 5
struct interp_chain {
	int n;
	char line[MAX_INTERPRETERS][256];
	char name[MAX_INTERPRETERS][256];
	/* the optional argument after the name ("" when none) */
	char arg[MAX_INTERPRETERS][256];
	char real[MAX_INTERPRETERS][PATH_MAX];
	char next[256];
};
int exec_interpreters(pid_t pid, const char *first_line, struct interp_chain *chain);
/* exec-loader.c: the program a dynamic loader is given, for the exec (level -1) and each interpreter that is a loader */
struct loaded_set {
	int n;
	int level[1 + MAX_INTERPRETERS];
	char real[1 + MAX_INTERPRETERS][PATH_MAX];
};
int exec_is_loader(const char *path);
int exec_loader_program(const char *const *words, int n);
/* -1 when a loaded file cannot be known (the exec is refused) */
int exec_find_loaded(pid_t pid, const char *path, const char *real, char **args, unsigned argc, const struct interp_chain *chain, struct loaded_set *out);
/* exec-names.c: whether the host must see an exec */
void exec_names_use(const char **programs, int n);
int exec_names_given(void);
int exec_host_decides(const char *path, const char *real, const struct interp_chain *chain, const struct loaded_set *loaded, char **args, unsigned argc, int truncated);
/* exec-host.c: the socket to the host; exec_host_ask -1: not sent (the caller refuses) */
void exec_host_connect(const char *path);
int exec_host_fd(void);
int exec_host_ask(int listener, const void *frame, size_t len, __u64 id, int awaited);
void exec_host_answers(int listener);
/* exec-notify.c: the answer to one stopped exec (0: it goes on) */
void exec_respond(int listener, __u64 id, int err);
void exec_root_keep(pid_t pid);
void exec_root_moved(void);

/* slot.c: --slot, the command read from fd 3 once everything else is in place */
#define SLOT_FD 3
#define SLOT_MAX_BYTES (1 << 20)
#define SLOT_MAX_ARGS (1 << 17)
int slot_asked(int argc, char **argv);
void slot_check_fd(void);
char **slot_read_command(void);

/* supervise.c: the child, signal forwarding, killing and reaping */
extern pid_t command_pid;
pid_t start_command(struct child_args *args);
void exec_confined(const struct child_args *args) __attribute__((noreturn));
int supervise(void);

#endif
