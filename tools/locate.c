/* SPDX-License-Identifier: MIT */
/*
 * locate.c - find the shim and the simulated runtime.
 *
 * Order: the tool-only overrides HIPSVM_SHIM_PATH / HIPSVM_SIM_DIR (read here
 * with getenv on purpose: they are not shim options, the shim never sees
 * them), then the build tree next to this executable (<build>/tools/hipsvm ->
 * <build>/preload, <build>/sim), then the install paths meson compiled in.
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

/* <build> when this executable lives in <build>/tools, else "". */
static void build_root(char *buf, size_t cap)
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
	*slash = '\0';			/* <build>/tools */
	slash = strrchr(exe, '/');
	if (!slash || strcmp(slash + 1, "tools") != 0)
		return;
	*slash = '\0';			/* <build> */
	if ((size_t)snprintf(buf, cap, "%s", exe[0] ? exe : "/") >= cap)
		buf[0] = '\0';
}

static bool file_ok(const char *path)
{
	return access(path, R_OK) == 0;
}

unsigned tool_locate(struct tool_paths *p)
{
	char root[PATH_MAX], cand[PATH_MAX + 64];
	const char *env;
	unsigned found = 0;

	memset(p, 0, sizeof(*p));
	build_root(root, sizeof(root));

	env = getenv("HIPSVM_SHIM_PATH");
	if (env && *env) {
		snprintf(p->shim, sizeof(p->shim), "%s", env);
		p->shim_from = "HIPSVM_SHIM_PATH";
		if (file_ok(p->shim))
			found |= 1;
	} else {
		if (root[0] && (size_t)snprintf(cand, sizeof(cand), "%s/preload/libhipsvm.so", root) < sizeof(p->shim) &&
		    file_ok(cand)) {
			memcpy(p->shim, cand, strlen(cand) + 1);
			p->shim_from = "build tree";
			found |= 1;
		} else {
			snprintf(p->shim, sizeof(p->shim), "%s/libhipsvm.so", HIPSVM_INSTALL_LIBDIR);
			p->shim_from = "installed";
			if (file_ok(p->shim))
				found |= 1;
		}
	}

	env = getenv("HIPSVM_SIM_DIR");
	if (env && *env) {
		snprintf(p->simdir, sizeof(p->simdir), "%s", env);
		p->sim_from = "HIPSVM_SIM_DIR";
	} else {
		if (root[0] && (size_t)snprintf(cand, sizeof(cand), "%s/sim/" SIM_LIB, root) < sizeof(p->simdir) &&
		    file_ok(cand)) {
			cand[strlen(root) + 4] = '\0';		/* <root>/sim */
			memcpy(p->simdir, cand, strlen(cand) + 1);
			p->sim_from = "build tree";
		} else {
			snprintf(p->simdir, sizeof(p->simdir), "%s", HIPSVM_INSTALL_SIMDIR);
			p->sim_from = "installed";
		}
	}
	snprintf(cand, sizeof(cand), "%s/" SIM_LIB, p->simdir);
	if (file_ok(cand))
		found |= 2;
	return found;
}

void tool_locate_explain(FILE *f)
{
	char root[PATH_MAX];

	build_root(root, sizeof(root));
	fputs("  looked for the shim in: $HIPSVM_SHIM_PATH", f);
	if (root[0])
		fprintf(f, ", %s/preload/libhipsvm.so", root);
	fprintf(f, ", %s/libhipsvm.so\n", HIPSVM_INSTALL_LIBDIR);
	fputs("  looked for the simulator in: $HIPSVM_SIM_DIR", f);
	if (root[0])
		fprintf(f, ", %s/sim", root);
	fprintf(f, ", %s\n", HIPSVM_INSTALL_SIMDIR);
}
