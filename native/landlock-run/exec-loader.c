/*
 * exec-loader.c - the dynamic loader's program: `ld.so ./foo x` maps the
 * file ./foo names and runs it in the loader's own process, with no exec the
 * filter could stop. So when the program of an exec (or an interpreter the
 * kernel runs for a script) is a loader, the word it will load is found as
 * glibc's rtld finds it (its options skipped, the first other word) and
 * looked up as the process would: `ln -s /bin/rm foo; ld.so ./foo x` runs
 * rm, and is asked about as rm.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>

#include "landlock-run.h"

static int name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '+' || c == '-';
}

/* A loader's base name: ld[64][-X].so[.N...] (ld-linux-x86-64.so.2, ld-musl-x86_64.so.1, ld-2.31.so, ld.so, ld64.so.2). */
int exec_is_loader(const char *path)
{
	const char *end = path + strlen(path), *base, *p;

	while (end > path && end[-1] == '/')
		end--;
	for (base = end; base > path && base[-1] != '/'; base--)
		;
	/* the version's numbers after ".so" */
	for (;;) {
		const char *q = end;

		while (q > base && q[-1] >= '0' && q[-1] <= '9')
			q--;
		if (q == end || q == base || q[-1] != '.')
			break;
		end = q - 1;
	}
	if (end - base < 5 || strncmp(end - 3, ".so", 3) || strncmp(base, "ld", 2))
		return 0;
	p = base + 2;
	if (end - 3 - p >= 2 && !strncmp(p, "64", 2))
		p += 2;
	if (p == end - 3)
		return 1;
	if (*p != '-' || p + 1 == end - 3)
		return 0;
	for (p++; p < end - 3; p++)
		if (!name_char(*p))
			return 0;
	return 1;
}

static const char *const flag_options[] = { "--list", "--verify", "--inhibit-cache", "--list-tunables", "--list-diagnostics", "--help", "--version", NULL };
static const char *const value_options[] = { "--library-path", "--inhibit-rpath", "--audit", "--preload", "--argv0", "--glibc-hwcaps-prepend", "--glibc-hwcaps-mask", NULL };

static int one_of(const char *word, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(word, *list))
			return 1;
	return 0;
}

/* The index of the word a loader run with WORDS loads (its options skipped), or -1 when there is none. */
int exec_loader_program(const char *const *words, int n)
{
	int i = 1;

	while (i < n) {
		if (one_of(words[i], flag_options))
			i++;
		else if (one_of(words[i], value_options) && i + 1 < n)
			i += 2;
		else if (!strcmp(words[i], "--"))
			return i + 1 < n ? i + 1 : -1;
		else
			break;
	}
	return i < n ? i : -1;
}

static const char *words[EXEC_MAX_ARGS + 2 * MAX_INTERPRETERS + 2];

/* One loader's argv: resolve the word it loads (as the process would open it). -1: it cannot be known. */
static int load_one(pid_t pid, int level, const char *const *w, int n, struct loaded_set *out)
{
	char ignored[256];
	int at = exec_loader_program(w, n);

	if (at < 0)
		return 0;
	out->level[out->n] = level;
	if (exec_real_path(pid, AT_FDCWD, w[at], 0, out->real[out->n], sizeof(out->real[out->n]), ignored, sizeof(ignored)) < 0 ||
	    strchr(out->real[out->n], '\n') || strchr(out->real[out->n], '\t'))
		return -1;
	out->n++;
	return 0;
}

int exec_find_loaded(pid_t pid, const char *path, const char *real, char **args, unsigned argc, const struct interp_chain *chain, struct loaded_set *out)
{
	int level;

	out->n = 0;
	if ((exec_is_loader(path) || exec_is_loader(real) || (argc && exec_is_loader(args[0]))) && load_one(pid, -1, (const char *const *)args, (int)argc, out) < 0)
		return -1;
	for (level = 0; level < chain->n; level++) {
		int n = 0, i;
		unsigned a;

		if (!exec_is_loader(chain->name[level]) && !exec_is_loader(chain->real[level]))
			continue;
		/* the argv the kernel builds for this interpreter: its name and argument, the previous one's, ..., the script, its arguments */
		for (i = level; i >= 0; i--) {
			words[n++] = chain->name[i];
			if (chain->arg[i][0])
				words[n++] = chain->arg[i];
		}
		words[n++] = path;
		for (a = 1; a < argc; a++)
			words[n++] = args[a];
		if (load_one(pid, level, words, n, out) < 0)
			return -1;
	}
	return 0;
}
