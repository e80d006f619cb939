/* SPDX-License-Identifier: MIT */
/*
 * locate.c - find the shim and the simulated runtime.
 *
 * Order: the tool-only overrides HIPSVM_SHIM_PATH / HIPSVM_SIM_DIR (read here
 * with getenv on purpose: they are not shim options, the shim never sees
 * them), then the build tree next to this executable (<build>/tools/hipsvm ->
 * <build>/preload, <build>/sim), then the install this executable is part
 * of (<prefix>/bin/hipsvm -> <prefix>/<libdir>, wherever the prefix was
 * moved), then the install paths meson compiled in.
 * Looking next to the executable first lets a build tree be used without
 * installing, and never picks up a stale installed copy by accident.
 */
#include "cli.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef HIPSVM_INSTALL_LIBDIR
#define HIPSVM_INSTALL_LIBDIR "/usr/local/lib"
#endif
#ifndef HIPSVM_INSTALL_SIMDIR
#define HIPSVM_INSTALL_SIMDIR HIPSVM_INSTALL_LIBDIR "/hipsvm/sim"
#endif

#define SIM_LIB "libamdhip64.so.5"

#ifndef HIPSVM_REL_LIBDIR
#define HIPSVM_REL_LIBDIR ""
#endif

/* The directory of this executable, or "". */
static void exe_dir(char *buf, size_t cap)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	buf[0] = '\0';
	if (n <= 0)
		return;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return;
	*slash = '\0';
	if ((size_t)snprintf(buf, cap, "%s", exe[0] ? exe : "/") >= cap)
		buf[0] = '\0';
}

/* <build> when this executable lives in <build>/tools, else "". */
static void build_root(char *buf, size_t cap)
{
	char *slash;

	exe_dir(buf, cap);
	slash = strrchr(buf, '/');
	if (!buf[0] || !slash || strcmp(slash + 1, "tools") != 0) {
		buf[0] = '\0';
		return;
	}
	*slash = '\0';
	if (!buf[0])
		strcpy(buf, "/");
}

/* The libdir of the install this executable is part of (<bindir>/<rel>),
 * canonical, or "" when it is not in one (or meson had absolute dirs). */
static void rel_libdir(char *buf, size_t cap)
{
	char dir[PATH_MAX], cand[PATH_MAX + 300], real[PATH_MAX];

	buf[0] = '\0';
	if (!HIPSVM_REL_LIBDIR[0])
		return;
	exe_dir(dir, sizeof(dir));
	if (!dir[0])
		return;
	snprintf(cand, sizeof(cand), "%s/%s", dir, HIPSVM_REL_LIBDIR);
	if (realpath(cand, real) && strlen(real) < cap)
		memcpy(buf, real, strlen(real) + 1);
}

static bool file_ok(const char *path)
{
	return access(path, R_OK) == 0;
}

/* dir/name into out when that file is readable. */
static bool try_file(char *out, size_t cap, const char *dir, const char *name)
{
	char cand[PATH_MAX + 300];

	if (!dir[0] || (size_t)snprintf(cand, sizeof(cand), "%s/%s", dir, name) >= cap ||
	    !file_ok(cand))
		return false;
	memcpy(out, cand, strlen(cand) + 1);
	return true;
}

unsigned tool_locate(struct tool_paths *p)
{
	char root[PATH_MAX], rel[PATH_MAX], cand[PATH_MAX + 64], relsim[PATH_MAX + 16];
	const char *env;
	unsigned found = 0;

	memset(p, 0, sizeof(*p));
	build_root(root, sizeof(root));
	rel_libdir(rel, sizeof(rel));

	env = getenv("HIPSVM_SHIM_PATH");
	if (env && *env) {
		snprintf(p->shim, sizeof(p->shim), "%s", env);
		p->shim_from = "HIPSVM_SHIM_PATH";
		if (file_ok(p->shim))
			found |= 1;
	} else if (root[0] && snprintf(cand, sizeof(cand), "%s/preload", root) > 0 &&
		   try_file(p->shim, sizeof(p->shim), cand, "libhipsvm.so")) {
		p->shim_from = "build tree";
		found |= 1;
	} else if (try_file(p->shim, sizeof(p->shim), rel, "libhipsvm.so.0") ||
		   try_file(p->shim, sizeof(p->shim), rel, "libhipsvm.so")) {
		p->shim_from = "installed, next to hipsvm";
		found |= 1;
	} else if (try_file(p->shim, sizeof(p->shim), HIPSVM_INSTALL_LIBDIR, "libhipsvm.so.0")) {
		p->shim_from = "installed";
		found |= 1;
	} else {
		snprintf(p->shim, sizeof(p->shim), "%s/libhipsvm.so", HIPSVM_INSTALL_LIBDIR);
		p->shim_from = "installed";
		if (file_ok(p->shim))
			found |= 1;
	}

	env = getenv("HIPSVM_SIM_DIR");
	snprintf(relsim, sizeof(relsim), "%s%s", rel, rel[0] ? "/hipsvm/sim" : "");
	if (env && *env) {
		snprintf(p->simdir, sizeof(p->simdir), "%s", env);
		p->sim_from = "HIPSVM_SIM_DIR";
	} else if (root[0] && snprintf(cand, sizeof(cand), "%s/sim", root) > 0 &&
		   try_file(p->simdir, sizeof(p->simdir), cand, SIM_LIB)) {
		/* try_file fitted dir/SIM_LIB in: the directory fits too. */
		snprintf(p->simdir, sizeof(p->simdir), "%.*s", (int)sizeof(p->simdir) - 1, cand);
		p->sim_from = "build tree";
	} else if (try_file(p->simdir, sizeof(p->simdir), relsim, SIM_LIB)) {
		snprintf(p->simdir, sizeof(p->simdir), "%.*s", (int)sizeof(p->simdir) - 1, relsim);
		p->sim_from = "installed, next to hipsvm";
	} else {
		snprintf(p->simdir, sizeof(p->simdir), "%s", HIPSVM_INSTALL_SIMDIR);
		p->sim_from = "installed";
	}
	snprintf(cand, sizeof(cand), "%s/" SIM_LIB, p->simdir);
	if (file_ok(cand))
		found |= 2;
	return found;
}

void tool_locate_explain(FILE *f)
{
	char root[PATH_MAX], rel[PATH_MAX];

	build_root(root, sizeof(root));
	rel_libdir(rel, sizeof(rel));
	fputs("  looked for the shim in: $HIPSVM_SHIM_PATH", f);
	if (root[0])
		fprintf(f, ", %s/preload/libhipsvm.so", root);
	if (rel[0])
		fprintf(f, ", %s/libhipsvm.so.0", rel);
	fprintf(f, ", %s/libhipsvm.so\n", HIPSVM_INSTALL_LIBDIR);
	fputs("  looked for the simulator in: $HIPSVM_SIM_DIR", f);
	if (root[0])
		fprintf(f, ", %s/sim", root);
	if (rel[0])
		fprintf(f, ", %s/hipsvm/sim", rel);
	fprintf(f, ", %s\n", HIPSVM_INSTALL_SIMDIR);
}
