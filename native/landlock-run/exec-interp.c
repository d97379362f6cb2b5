/*
 * exec-interp.c - the interpreters the kernel runs for an exec of a script:
 * a "#!" line names one, which may be a script itself (the kernel follows up
 * to five), each opened with no exec of its own. Each is taken from its line
 * as binfmt_script takes it (after spaces and tabs, up to a space, a tab or
 * the end) and looked up as the process would (exec-read.c), so that a rule
 * meets it by the name on the line and by its real path: `#!/w/myrm` with
 * myrm a symlink to /bin/rm runs rm.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "landlock-run.h"

/* The interpreter's name on a "#!" line (without "#!"), as the kernel reads it; 0 when there is none. */
static size_t interpreter_name(const char *line, char *out, size_t room)
{
	size_t start = strspn(line, " \t"), len = strcspn(line + start, " \t");

	if (!len || len >= room)
		return 0;
	memcpy(out, line + start, len);
	out[len] = '\0';
	return len;
}

int exec_interpreters(pid_t pid, const char *first_line, struct interp_chain *chain)
{
	const char *line = first_line;

	chain->n = 0;
	while (*line && chain->n < MAX_INTERPRETERS) {
		int i = chain->n;

		/* Why a copy: the lookup below reads the next level's line over `next` */
		snprintf(chain->line[i], sizeof(chain->line[i]), "%s", line);
		if (!interpreter_name(chain->line[i], chain->name[i], sizeof(chain->name[i])))
			break; /* no interpreter on the line: the kernel refuses the exec (ENOEXEC) */
		chain->n++;
		if (exec_real_path(pid, AT_FDCWD, chain->name[i], 0, chain->real[i], sizeof(chain->real[i]), chain->next, sizeof(chain->next)) < 0)
			return -1;
		/* Why: the request separates the levels with newlines */
		if (strchr(chain->real[i], '\n'))
			return -1;
		line = chain->next;
	}
	return 0;
}
