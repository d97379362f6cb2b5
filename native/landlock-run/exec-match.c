/*
 * exec-match.c - --exec-match 'NAME ITEM...': what an exec of the listed
 * program NAME must hold for one of the host's rules to meet it, so that the
 * launcher answers the others itself, with no round trip.
 *
 * Each --exec-match is one way a rule can meet NAME's execs; its items are
 * what the exec's strings (argv, the path given, the real path, a script's
 * "#!" line) must hold: sPIECE inside one of them, fLETTER inside a cluster
 * of short flags in one of them (see flag_in). An exec that fails one item of every list given for a
 * name cannot meet any rule about it. A listed name with no --exec-match is
 * asked about at each exec. The host derives the items from its rules so
 * that they are necessary for a match, never sufficient: this file only
 * ever spares the host an exec its rules could not have refused.
 */
#define _GNU_SOURCE
#include <string.h>

#include "landlock-run.h"

static const char **matches;
static int n_matches;

/* 0 when MATCH is 'NAME ITEM...' with each ITEM sPIECE or fLETTER (an alphanumeric letter) */
int exec_match_check(const char *match)
{
	const char *p = strchr(match, ' ');

	if (!match[0] || match[0] == ' ')
		return -1;
	while (p) {
		const char *item = p + 1, *end = strchr(item, ' ');
		size_t len = end ? (size_t)(end - item) : strlen(item);

		if (len < 2 || (item[0] != 's' && item[0] != 'f'))
			return -1;
		if (item[0] == 'f' && (len != 2 || !((item[1] >= 'a' && item[1] <= 'z') || (item[1] >= 'A' && item[1] <= 'Z') || (item[1] >= '0' && item[1] <= '9'))))
			return -1;
		p = end;
	}
	return 0;
}

void exec_match_use(const char **list, int n)
{
	matches = list;
	n_matches = n;
}

/* Whether MATCH is a list for NAME: its first word is NAME. */
static const char *items_for(const char *match, const char *name)
{
	size_t len = strlen(name);

	if (strncmp(match, name, len) || (match[len] != ' ' && match[len]))
		return NULL;
	return match + len;
}

/* Whether the host gave any list for NAME (else each of its execs is asked). */
int exec_match_known(const char *name)
{
	int i;

	for (i = 0; i < n_matches; i++)
		if (items_for(matches[i], name))
			return 1;
	return 0;
}

static int flag_char(char c)
{
	return c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/*
 * Whether S holds a cluster of short flags with LETTER: a run of letters,
 * digits and '-' that starts with '-' where no such character comes before
 * it (an argument "-rf", a program's base name "/x/-rf", a "#!" word).
 */
static int flag_in(const char *s, char letter)
{
	const char *p = s;

	while ((p = strchr(p, '-'))) {
		const char *q = p;

		if (p > s && flag_char(p[-1])) {
			p++;
			continue;
		}
		for (; flag_char(*q); q++)
			if (*q == letter)
				return 1;
		p = q;
	}
	return 0;
}

static int holds(const char *item, size_t len, const char *const *strings, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		const char *s = strings[i];

		if (item[0] == 'f' ? flag_in(s, item[1]) : memmem(s, strlen(s), item + 1, len - 1) != NULL)
			return 1;
	}
	return 0;
}

/* Whether the exec's STRINGS hold every item of one of NAME's lists. */
int exec_match_may_meet(const char *name, const char *const *strings, int n)
{
	int i;

	for (i = 0; i < n_matches; i++) {
		const char *p = items_for(matches[i], name);
		int all = 1;

		if (!p)
			continue;
		while (all && *p == ' ') {
			const char *item = p + 1, *end = strchr(item, ' ');
			size_t len = end ? (size_t)(end - item) : strlen(item);

			all = holds(item, len, strings, n);
			p = item + len;
		}
		if (all)
			return 1;
	}
	return 0;
}
