/*
 * terminal.c - the command's place among the caller's processes: a process
 * group of its own, and no controlling terminal.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "landlock-run.h"

/*
 * Why: a command that shares the caller's controlling terminal can inject
 * keystrokes into the caller's shell with TIOCSTI (dev.tty.legacy_tiocsti
 * is 1 on many machines) and take the terminal's foreground; a group of
 * its own is where the supervisor forwards signals.
 *
 * Why not setsid(): a new session costs a new scheduler autogroup where
 * autogroups are enabled (the default on desktop and many server kernels),
 * measured at ~0.1 ms idle and 1-3 ms per call on a loaded machine, and it
 * makes the command a session leader, which may acquire a controlling
 * terminal by opening one. TIOCNOTTY from a process that is not a session
 * leader only drops that process's controlling terminal (no SIGHUP to
 * anyone); after it, the kernel refuses TIOCSTI and TIOCSPGRP on the
 * terminal (it is not ours), and not being a session leader, the command
 * cannot take any terminal as its controlling one again.
 */
void leave_terminal(void)
{
	int tty;

	if (setpgid(0, 0))
		fail("setpgid: %s", strerror(errno));
	/* Why O_NOCTTY: opening must never make a terminal ours. */
	tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (tty < 0) {
		/* Why these are fine: no controlling terminal (ENXIO), or no
		 * /dev/tty to reach one through (ENOENT, a minimal /dev). */
		if (errno == ENXIO || errno == ENOENT)
			return;
		fail("cannot open /dev/tty to leave it: %s", strerror(errno));
	}
	if (ioctl(tty, TIOCNOTTY) && errno != ENOTTY)
		fail("TIOCNOTTY: %s", strerror(errno));
	close(tty);
}
