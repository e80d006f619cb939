/* SPDX-License-Identifier: MIT */
/*
 * test_exports.c - libhipsvm.so exports exactly the hooked functions of the
 * hook table and the public API: the version script (build/preload/libhipsvm.map,
 * made from the table by preload/gen-map.py), the table (preload/table.h)
 * and `nm -D --defined-only` agree.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

#define MAX_SYMS 128

struct set {
	unsigned n;
	char name[MAX_SYMS][64];
};

static bool has(const struct set *s, const char *name)
{
	unsigned i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->name[i], name))
			return true;
	return false;
}

static void add(struct set *s, const char *name)
{
	cr_assert_lt(s->n, MAX_SYMS);
	if (!has(s, name))
		snprintf(s->name[s->n++], sizeof(s->name[0]), "%s", name);
}

static void load_nm(struct set *s)
{
	char cmd[1024], line[512];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm -D --defined-only %s/preload/libhipsvm.so",
		 getenv("HIPSVM_TEST_BUILDDIR"));
	f = popen(cmd, "r");
	cr_assert(f);
	while (fgets(line, sizeof(line), f)) {
		char addr[64], type[8], name[256];

		if (sscanf(line, "%63s %7s %255s", addr, type, name) != 3)
			continue;
		if (type[0] == 'A')	/* version nodes */
			continue;
		add(s, name);
	}
	cr_assert_eq(pclose(f), 0, "nm failed");
}

static void load_map(struct set *s)
{
	char path[1024], line[512];
	bool global = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/preload/libhipsvm.map", getenv("HIPSVM_TEST_BUILDDIR"));
	f = fopen(path, "r");
	cr_assert(f, "%s", path);
	while (fgets(line, sizeof(line), f)) {
		char name[256];

		if (strstr(line, "global:")) {
			global = true;
			continue;
		}
		if (strstr(line, "local:"))
			global = false;
		if (global && sscanf(line, " %255[A-Za-z0-9_];", name) == 1)
			add(s, name);
	}
	fclose(f);
}

Test(exports, nm_matches_version_script)
{
	static struct set nm, map;
	unsigned i;

	load_nm(&nm);
	load_map(&map);
	cr_expect_gt(map.n, 20);
	for (i = 0; i < map.n; i++)
		cr_expect(has(&nm, map.name[i]), "%s is in the map but not exported", map.name[i]);
	for (i = 0; i < nm.n; i++)
		cr_expect(has(&map, nm.name[i]), "%s is exported but not in the map", nm.name[i]);
}

Test(exports, every_hooked_row_and_nothing_else)
{
	static struct set nm;
	unsigned hooked = 0, i;

	load_nm(&nm);
#define ROW(name, lib, hk, opt) \
	if (hk) { hooked++; cr_expect(has(&nm, #name), #name " is hooked but not exported"); } \
	else { cr_expect(!has(&nm, #name), #name " is exported but only used internally"); }
	HIPSVM_HOOK_ROWS(ROW)
#undef ROW
	for (i = 0; i < nm.n; i++)
		cr_expect(!strncmp(nm.name[i], "hipsvm_", 7) || !strncmp(nm.name[i], "hip", 3) ||
			  !strcmp(nm.name[i], "munmap") || !strcmp(nm.name[i], "mremap") ||
			  !strcmp(nm.name[i], "madvise") || !strncmp(nm.name[i], "mmap", 4) ||
			  !strcmp(nm.name[i], "shmdt"),
			  "unexpected export %s", nm.name[i]);
	/* the hooked rows plus the four public functions */
	cr_expect_eq(nm.n, hooked + 4, "%u exported, %u hooked", nm.n, hooked);
}

Test(exports, pinned_with_nodelete)
{
	char cmd[1024], line[512];
	bool nodelete = false;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -d %s/preload/libhipsvm.so",
		 getenv("HIPSVM_TEST_BUILDDIR"));
	f = popen(cmd, "r");
	cr_assert(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "FLAGS_1") && strstr(line, "NODELETE"))
			nodelete = true;
	pclose(f);
	cr_expect(nodelete, "libhipsvm.so is not linked with -z nodelete");
}
