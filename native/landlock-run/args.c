/*
 * args.c - the command line (flags, usage) and fail(), the launcher's one
 * way out before exec.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "landlock-run.h"

/* The one way out before exec: one line on stderr, status 125. */
void fail(const char *fmt, ...)
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
	fputs("usage: landlock-run [--ro PATH]... [--rw PATH]... [--env NAME=VALUE]... [--env-from NAME]... [--limit NAME=N]..."
	      " [--no-net | --net-proxy PORT [--net-forward PATH]] [--min-abi N] -- COMMAND [ARGS...]\n"
	      "       landlock-run --probe\n"
	      "\n"
	      "  --ro PATH     allow reading and executing beneath PATH\n"
	      "  --rw PATH     allow every access beneath PATH except creating devices\n"
	      "  --env N=V     set N=V in the command's environment; the command gets\n"
	      "                these and nothing else (none: an empty environment)\n"
	      "  --env-from N  set N in the command's environment to its value in ours\n"
	      "                (a secret kept out of argv, which every process can read)\n"
	      "  --limit R=N   set resource R's soft and hard limit to N (clamped to the\n"
	      "                current hard limit): nproc, as (bytes), fsize (bytes),\n"
	      "                cpu (seconds), nofile\n"
	      "  --no-net      deny TCP (Landlock) and every non-unix socket (seccomp);\n"
	      "                also deny connect(), bind(), listen() and unix datagram sockets\n"
	      "  --net-proxy PORT  TCP connect() only to PORT (Landlock ABI 4), no bind or\n"
	      "                listen, only TCP sockets (no UDP, raw or unix sockets but\n"
	      "                socketpair), no TCP Fast Open: the host's proxy is all it reaches\n"
	      "  --net-forward PATH  (in a network namespace, with --net-proxy) listen on\n"
	      "                127.0.0.1:PORT and relay each connection to unix socket PATH\n"
	      "  --min-abi N   fail unless the kernel offers Landlock ABI N or newer\n"
	      "  --namespaces  run the command in its own user, mount, PID and IPC\n"
	      "                namespaces (network too with --no-net): a read-only view\n"
	      "                of the host, a private /tmp, a fresh /proc, a minimal /dev\n"
	      "  --mount-rw PATH, --mount-ro PATH  bind the host's PATH there, writable\n"
	      "                or read-only, in order (with --namespaces; --mount-ro also\n"
	      "                with --private-mounts)\n"
	      "  --hide PATH   cover PATH, in order with the binds (with --namespaces\n"
	      "                or --private-mounts): an empty read-only tmpfs over a\n"
	      "                directory, /dev/null over\n"
	      "                anything else; a later --mount-ro beneath it shows that path again\n"
	      "  --private-mounts  make the --hide and --mount-ro mounts (and --mount-dev)\n"
	      "                in a private copy of our own mount namespace, no new root;\n"
	      "                needs CAP_SYS_ADMIN there (root, or bwrap --cap-add), which\n"
	      "                is dropped with every other capability right after\n"
	      "  --mount-dev   (with --private-mounts) a tmpfs over /dev with null, zero,\n"
	      "                full, random, urandom, tty, a new devpts, shm and fd links\n"
	      "  --mount-proc  (with --private-mounts) a fresh proc over /proc, its sys,\n"
	      "                sysrq-trigger, irq and bus bound read-only\n"
	      "  --mount-tmp   (with --private-mounts) an empty tmpfs over /tmp, made\n"
	      "                after every --mount-ro is cloned (one beneath /tmp shows\n"
	      "                that path again); then the working directory is entered\n"
	      "                again by its path, as the new mounts show it\n"
	      "  --mounts-in-place  (with --private-mounts and --no-supervisor) mount in\n"
	      "                the namespace we were started in, not a copy: refused\n"
	      "                unless it belongs to our user namespace and we are PID 2\n"
	      "                under PID 1 (bwrap's fresh namespaces)\n"
	      "  --chdir DIR   the working directory inside (with --namespaces;\n"
	      "                default: the caller's)\n"
	      "  --inode PATH DEV:INO  PATH must be that inode (st_dev:st_ino, decimal)\n"
	      "                wherever it is opened by name: a --ro/--rw rule, a\n"
	      "                --mount-rw/--mount-ro source, --chdir; every such open\n"
	      "                refuses a symbolic link\n"
	      "  --no-supervisor  become the command instead of supervising it; only\n"
	      "                as the first process of a PID namespace whose init ends\n"
	      "                it with the command (PID 2, parent PID 1), as in bwrap\n"
	      "  --slot        build everything, then read the command from fd 3 (a\n"
	      "                pipe or socket: each argument NUL-terminated, up to EOF)\n"
	      "                just before exec, instead of taking it after '--'\n"
	      "  --exec-notify PATH  stop every execve/execveat of the command and its\n"
	      "                descendants (seccomp user notification) and let the host\n"
	      "                listening on unix socket PATH allow or refuse it\n"
	      "  --exec-program NAME  (with --exec-notify) ask the host only about execs\n"
	      "                whose argv[0], path or real path is NAME or has base name\n"
	      "                NAME; the others go on unasked (default: ask about every exec)\n"
	      "  --exec-match 'NAME ITEM...'  (with --exec-program NAME) ask about an\n"
	      "                exec of NAME only when its strings (argv, path, real path,\n"
	      "                #! line) hold every ITEM of one such list: sPIECE inside\n"
	      "                one of them, fLETTER in a cluster of short flags (-xyz)\n"
	      "  --probe       print what this kernel enforces as one JSON line\n"
	      "\n"
	      "Always: no capabilities, no_new_privs, and a seccomp filter refusing\n"
	      "setuid/setgid modes (chmod, creation), chown, openat2, io_uring and the\n"
	      "keyring calls (a fresh, empty session keyring is joined first).\n"
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

void parse_args(int argc, char **argv, struct options *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->ro = calloc((size_t)argc, sizeof(*o->ro));
	o->rw = calloc((size_t)argc, sizeof(*o->rw));
	o->env = calloc((size_t)argc, sizeof(*o->env));
	o->mounts = calloc((size_t)argc, sizeof(*o->mounts));
	o->inodes = calloc((size_t)argc, sizeof(*o->inodes));
	o->exec_programs = calloc((size_t)argc, sizeof(*o->exec_programs));
	o->exec_matches = calloc((size_t)argc, sizeof(*o->exec_matches));
	if (!o->ro || !o->rw || !o->env || !o->mounts || !o->inodes || !o->exec_programs || !o->exec_matches)
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
		} else if (!strcmp(a, "--slot")) {
			o->slot = 1;
		} else if (!strcmp(a, "--no-supervisor")) {
			o->no_supervisor = 1;
		} else if (!strcmp(a, "--namespaces")) {
			o->namespaces = 1;
		} else if (!strcmp(a, "--private-mounts")) {
			o->private_mounts = 1;
		} else if (!strcmp(a, "--mount-dev")) {
			o->mount_dev = 1;
		} else if (!strcmp(a, "--mount-proc")) {
			o->mount_proc = 1;
		} else if (!strcmp(a, "--mount-tmp")) {
			o->mount_tmp = 1;
		} else if (!strcmp(a, "--mounts-in-place")) {
			o->mounts_in_place = 1;
		} else if (!strcmp(a, "--chdir")) {
			if (!argv[i + 1] || argv[i + 1][0] != '/')
				fail("--chdir wants an absolute path, got '%s'", argv[i + 1] ? argv[i + 1] : "");
			o->chdir = argv[++i];
		} else if (!strcmp(a, "--mount-rw") || !strcmp(a, "--mount-ro") || !strcmp(a, "--hide")) {
			const char *value = argv[++i];

			/* Why absolute: the bind names the same path on the host and inside. */
			if (!value || value[0] != '/')
				fail("%s wants an absolute path, got '%s'", a, value ? value : "");
			o->mounts[o->n_mounts++] = (struct mount_spec){
				value, !strcmp(a, "--hide") ? MOUNT_HIDE : !strcmp(a, "--mount-ro") ? MOUNT_RO : MOUNT_RW
			};
		} else if (!strcmp(a, "--exec-notify")) {
			if (!argv[i + 1] || argv[i + 1][0] != '/')
				fail("--exec-notify wants the absolute path of a unix socket, got '%s'", argv[i + 1] ? argv[i + 1] : "");
			o->exec_notify = argv[++i];
		} else if (!strcmp(a, "--exec-program")) {
			if (!argv[i + 1] || !argv[i + 1][0])
				fail("--exec-program wants a program name");
			o->exec_programs[o->n_exec_programs++] = argv[++i];
		} else if (!strcmp(a, "--exec-match")) {
			if (!argv[i + 1] || exec_match_check(argv[i + 1]))
				fail("--exec-match wants 'NAME ITEM...' (ITEM sPIECE or fLETTER), got '%s'", argv[i + 1] ? argv[i + 1] : "");
			o->exec_matches[o->n_exec_matches++] = argv[++i];
		} else if (!strcmp(a, "--inode")) {
			const char *path = argv[++i];

			parse_inode(o, path, path ? argv[++i] : NULL);
		} else if (parse_net_arg(o, argv, &i)) {
			continue;
		} else if (!strcmp(a, "--limit")) {
			if (!argv[i + 1])
				fail("--limit needs an argument");
			parse_limit(o, argv[++i]);
		} else if (!strcmp(a, "--env")) {
			char *value = argv[++i];

			/* Why: a value without '=' is no variable; execve would pass it on
			 * and programs would read it in ways nobody chose. */
			if (!value || !strchr(value, '=') || value[0] == '=')
				fail("--env wants NAME=VALUE, got '%s'", value ? value : "");
			o->env[o->n_env++] = value;
		} else if (!strcmp(a, "--env-from")) {
			const char *name = argv[++i];
			const char *value = name ? getenv(name) : NULL;
			char *entry;

			if (!name || !*name || strchr(name, '='))
				fail("--env-from wants a variable name, got '%s'", name ? name : "");
			/* Why fail: the caller meant the command to have it (a proxy
			 * credential); running without it is not what was asked. */
			if (!value)
				fail("--env-from %s: not set in the launcher's environment", name);
			if (asprintf(&entry, "%s=%s", name, value) < 0)
				fail("--env-from %s: out of memory", name);
			o->env[o->n_env++] = entry;
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
	/* Why refuse one: with --slot the command comes on fd 3, and an argv here would be ignored */
	if (o->slot && o->command && o->command[0])
		fail("--slot takes the command on fd 3, not after '--'");
	if (!o->probe && !o->slot && (!o->command || !o->command[0]))
		fail("no command given after '--'");
	/* Why: exec rules name the command the supervisor was started with (exec-notify.c) */
	if (o->slot && (o->exec_notify || o->probe))
		fail("--slot excludes --exec-notify and --probe");
	/* Why refuse: a bind asked for without namespaces would silently not exist. */
	if (o->n_mounts && !o->namespaces && !o->private_mounts)
		fail("--mount-rw, --mount-ro and --hide need --namespaces or --private-mounts");
	if (o->chdir && !o->namespaces)
		fail("--chdir needs --namespaces");
	if (o->namespaces && (o->no_supervisor || o->private_mounts))
		fail("--namespaces excludes --no-supervisor and --private-mounts");
	if ((o->mount_dev || o->mount_proc || o->mount_tmp || o->mounts_in_place) && !o->private_mounts)
		fail("--mount-dev, --mount-proc, --mount-tmp and --mounts-in-place need --private-mounts (--namespaces makes its own)");
	/* Why: the supervisor is what answers each exec */
	if (o->n_exec_programs && !o->exec_notify)
		fail("--exec-program needs --exec-notify");
	if (o->n_exec_matches && !o->n_exec_programs)
		fail("--exec-match needs --exec-program");
	if (o->exec_notify && o->no_supervisor)
		fail("--exec-notify needs the supervisor (it excludes --no-supervisor)");
	if (o->mounts_in_place && !o->no_supervisor)
		fail("--mounts-in-place needs --no-supervisor (a mount namespace made for this command alone, as bwrap's)");
	/* Why no writable bind here: nothing needs one, and a writable bind of
	 * a host path is more than hiding (bwrap and --namespaces make those). */
	for (i = 0; o->private_mounts && i < o->n_mounts; i++)
		if (o->mounts[i].kind == MOUNT_RW)
			fail("--mount-rw needs --namespaces");
}
