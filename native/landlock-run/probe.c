/*
 * probe.c - --probe: what this kernel enforces, as one JSON line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock-run.h"

static void print_names(const char *key, __u64 mask, const char *const *names, int n)
{
	int i, first = 1;

	printf(",\"%s\":[", key);
	for (i = 0; i < n; i++) {
		if (mask & (1ULL << i)) {
			printf("%s\"%s\"", first ? "" : ",", names[i]);
			first = 0;
		}
	}
	printf("]");
}

static void print_limits(int abi)
{
	/* Ids are documented in docs/decisions/2026-11-30-landlock-launcher.md. */
	printf(",\"limits\":[");
	if (abi < 9)
		printf("\"pathname-unix-connect\",");
	if (abi < 6)
		printf("\"no-signal-scoping\",\"no-abstract-unix-scoping\",");
	if (abi < 4)
		printf("\"no-tcp-rules\",");
	printf("\"udp-raw-seccomp-only\",\"metadata-changes\",\"preexisting-hardlinks\","
	       "\"no-deny-beneath-rw\",\"stdio-inherited\",\"launcher-sigkill\"]");
}

int probe(void)
{
	static const char *const fs[] = {
		"execute", "write_file", "read_file", "read_dir", "remove_dir",
		"remove_file", "make_char", "make_dir", "make_reg", "make_sock",
		"make_fifo", "make_block", "make_sym", "refer", "truncate",
		"ioctl_dev", "resolve_unix",
	};
	static const char *const net[] = { "bind_tcp", "connect_tcp" };
	static const char *const scope[] = { "abstract_unix_socket", "signal" };
	int abi = landlock_abi();
	long errata;
	struct ruleset_attr a;

	if (abi < 1)
		fail("Landlock is unavailable: %s", strerror(errno));
	errata = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_ERRATA);
	a = handled_for_abi(abi, 1);
	printf("{\"abi\":%d,\"errata\":%ld", abi, errata < 0 ? 0 : errata);
	print_names("handled_fs", a.handled_access_fs, fs, 17);
	print_names("handled_net", a.handled_access_net, net, 2);
	print_names("scoped", a.scoped, scope, 2);
	printf(",\"seccomp\":%s",
	       syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0,
		       &(__u32){ SECCOMP_RET_ERRNO }) == 0 ? "true" : "false");
	printf(",\"exec_notify\":%s", exec_notify_works() ? "true" : "false");
	print_limits(abi);
	/* Last: it leaves this process in a private mount namespace of its own. */
	printf(",\"private_mounts\":%s", private_mounts_work() ? "true" : "false");
	printf("}\n");
	return fflush(stdout) == 0 ? 0 : LAUNCHER_ERROR;
}
