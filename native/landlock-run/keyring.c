/*
 * keyring.c - the command's own session keyring. The caller's session
 * keyring (and, without a user namespace, root's user keyring) holds
 * credentials other programs put there; a command must neither read them
 * nor leave a key behind for the next program that searches the keyring.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/keyctl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock-run.h"

void join_fresh_session_keyring(void)
{
	/* Why a fresh anonymous keyring and not just the seccomp refusal:
	 * the filter stops the command's own keyctl()s, and this makes sure
	 * that whatever the kernel searches on its behalf (request_key from
	 * a filesystem, say) starts from an empty session keyring that dies
	 * with the call. */
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) >= 0)
		return;
	/* Why ENOSYS is fine: a kernel without keys has no keyring to leak. */
	if (errno == ENOSYS)
		return;
	fail("cannot join a fresh session keyring: %s", strerror(errno));
}
