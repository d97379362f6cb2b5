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

/* The interpreter's name and optional argument on a "#!" line (without "#!"), as the kernel reads them; 0 when there is no name. */
static size_t interpreter_name(const char *line, char *out, size_t room, char *arg, size_t arg_room)
{
	size_t start = strspn(line, " \t"), len = strcspn(line + start, " \t"), from, to;

	if (!len || len >= room)
		return 0;
	memcpy(out, line + start, len);
	out[len] = '\0';
	from = start + len + strspn(line + start + len, " \t");
	for (to = strlen(line); to > from && (line[to - 1] == ' ' || line[to - 1] == '\t'); to--)
		;
	if (to - from >= arg_room)
		return 0;
	memmove(arg, line + from, to - from);
	arg[to - from] = '\0';
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
		if (!interpreter_name(chain->line[i], chain->name[i], sizeof(chain->name[i]), chain->arg[i], sizeof(chain->arg[i])))
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
