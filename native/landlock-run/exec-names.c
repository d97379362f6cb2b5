/*
 * exec-names.c - which stopped execs the host must see (--exec-program,
 * --exec-match): an exec is asked about when one of its names — the path
 * given, its real path, argv[0], each "#!" interpreter by name and real path,
 * the file a dynamic loader loads — is a program the host listed, as it is
 * or by its base name, and the exec's strings may meet one of the host's
 * rules about that program (exec-match.c). Every other exec goes on with no
 * round trip. No program listed: every exec is asked.
 */
#define _GNU_SOURCE
#include <string.h>

#include "landlock-run.h"

static const char **programs;
static int n_programs;
/* an exec's strings, for exec-match.c: path, real path, the #! lines and their real paths, argv, the loaded files */
static const char *hay[EXEC_MAX_ARGS + 3 + 3 * MAX_INTERPRETERS];

void exec_names_use(const char **list, int n)
{
	programs = list;
	n_programs = n;
}

int exec_names_given(void)
{
	return n_programs > 0;
}

static int listed(const char *name)
{
	int i;

	for (i = 0; i < n_programs; i++)
		if (!strcmp(name, programs[i]))
			return 1;
	return 0;
}

/*
 * Whether the host must see an exec that has this name: the name as it is or
 * its base name (trailing slashes ignored, as the host's matcher reads it) is
 * listed, and the exec's strings may meet a rule about it.
 */
static int asks(const char *name, const char *const *strings, int n, int truncated)
{
	const char *slash = strchr(name, '/');
	char base[256];
	size_t end = strlen(name), start;

	if (listed(name) && (truncated || !exec_match_known(name) || exec_match_may_meet(name, strings, n)))
		return 1;
	if (!slash)
		return 0;
	while (end && name[end - 1] == '/')
		end--;
	for (start = end; start && name[start - 1] != '/'; start--)
		;
	/* Why ask: no listed name is this long, but a rule's words are not ours to bound */
	if (end - start >= sizeof(base))
		return 1;
	memcpy(base, name + start, end - start);
	base[end - start] = '\0';
	return listed(base) && (truncated || !exec_match_known(base) || exec_match_may_meet(base, strings, n));
}

int exec_host_decides(const char *path, const char *real, const struct interp_chain *chain, const struct loaded_set *loaded, char **args, unsigned argc, int truncated)
{
	unsigned i;
	int n = 0, level;

	hay[n++] = path;
	hay[n++] = real;
	for (level = 0; level < chain->n; level++) {
		hay[n++] = chain->line[level];
		hay[n++] = chain->real[level];
	}
	for (i = 0; i < argc; i++)
		hay[n++] = args[i];
	for (level = 0; level < loaded->n; level++)
		hay[n++] = loaded->real[level];
	if (asks(path, hay, n, truncated) || asks(real, hay, n, truncated) || (argc && asks(args[0], hay, n, truncated)))
		return 1;
	for (level = 0; level < chain->n; level++)
		if (asks(chain->name[level], hay, n, truncated) || asks(chain->real[level], hay, n, truncated))
			return 1;
	for (level = 0; level < loaded->n; level++)
		if (asks(loaded->real[level], hay, n, truncated))
			return 1;
	return 0;
}
