/* SPDX-License-Identifier: MIT */
/*
 * check.c - hipsvm check: can an LD_PRELOAD shim see this program's HIP calls?
 *
 * The answer depends on how the calls are bound, which the ELF file says:
 * the dynamic loader (PT_INTERP) honours LD_PRELOAD unless the program runs
 * in secure-execution mode (setuid, setgid, file capabilities); calls reach
 * the shim when they go through the PLT to a symbol the shim defines, so the
 * program (or one of the libraries it needs) must import the hooked
 * functions rather than define them itself (a statically linked runtime).
 * The libraries are searched roughly as ld.so does (RPATH, LD_LIBRARY_PATH,
 * RUNPATH, ld.so.conf, the default directories), without its cache.
 */
#include "cli.h"
#include "elfinfo.h"

#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static const char check_help[] =
"Usage: hipsvm check [-q] PROGRAM\n"
"\n"
"Reads PROGRAM (an ELF file; searched in PATH like a shell does) and the\n"
"libraries it needs, and says whether the shim can see its HIP calls when it\n"
"runs under 'hipsvm run': dynamic linking, libamdhip64 (directly or through\n"
"another library), which hooked functions are imported, RPATH/RUNPATH,\n"
"setuid/setgid or file capabilities (LD_PRELOAD ignored), a HIP runtime\n"
"linked in statically, and dlopen/hipGetProcAddress use.\n"
"\n"
"  -q, --quiet   print only the verdict line\n"
"\n"
"Exit status: 0 visible, 1 not visible or only partly visible, 2 error\n"
"(not found, not an ELF file, unreadable).\n";

#define MAX_OBJS 256

struct obj {
	char *name;		/* as NEEDED names it (the program: its path) */
	char path[PATH_MAX];
	int parent;		/* index of the object that needs it, -1 for the program */
	bool found;
	struct elfinfo ei;
};

struct check {
	struct obj objs[MAX_OBJS];
	size_t n;
	char **conf_dirs;
	size_t n_conf;
	bool quiet, color;
};

static bool is_runtime(const char *name)
{
	return strncmp(name, "libamdhip64.so", 14) == 0;
}

static FILE *open_regular(const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	FILE *f;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
		close(fd);
		return NULL;
	}
	return f;
}

static void load_conf(struct check *c, const char *file, int depth)
{
	char line[PATH_MAX], **nd;
	FILE *f;

	/* 'e' close-on-exec; opened by hand first so that a FIFO planted as
	 * an include never blocks and only a regular file is read. */
	if (depth > 4 || !(f = open_regular(file)))
		return;
	while (fgets(line, sizeof(line), f)) {
		char *s = line + strspn(line, " \t"), *e;

		e = s + strcspn(s, "#\n");
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		*e = '\0';
		if (!*s)
			continue;
		if (strncmp(s, "include", 7) == 0 && (s[7] == ' ' || s[7] == '\t')) {
			glob_t g;
			size_t i;

			s += 8;
			s += strspn(s, " \t");
			if (glob(s, 0, NULL, &g) == 0) {
				for (i = 0; i < g.gl_pathc; i++)
					load_conf(c, g.gl_pathv[i], depth + 1);
				globfree(&g);
			}
			continue;
		}
		nd = realloc(c->conf_dirs, (c->n_conf + 1) * sizeof(*nd));
		if (!nd)
			break;
		c->conf_dirs = nd;
		c->conf_dirs[c->n_conf] = strdup(s);
		if (c->conf_dirs[c->n_conf])
			c->n_conf++;
	}
	fclose(f);
}

/* Tries each directory of a ':'-separated list, $ORIGIN expanded. */
static bool try_dirs(const char *list, const char *origin, const char *name, const struct obj *like,
		     char *out, struct elfinfo *ei)
{
	const char *p = list;
	char msg[128];

	while (p && *p) {
		size_t n = strcspn(p, ":;");
		char dir[PATH_MAX], cand[PATH_MAX];

		if (n && n < sizeof(dir)) {
			memcpy(dir, p, n);
			dir[n] = '\0';
			int len;

			if (strncmp(dir, "$ORIGIN", 7) == 0 || strncmp(dir, "${ORIGIN}", 9) == 0) {
				const char *rest = dir + (dir[1] == '{' ? 9 : 7);

				len = snprintf(cand, sizeof(cand), "%s%s/%s", origin, rest, name);
			} else {
				len = snprintf(cand, sizeof(cand), "%s/%s", dir, name);
			}
			if (len > 0 && (size_t)len < sizeof(cand) && access(cand, R_OK) == 0 &&
			    elfinfo_read(cand, ei, msg, sizeof(msg)) == 0) {
				if (ei->elf_class == like->ei.elf_class && ei->machine == like->ei.machine) {
					snprintf(out, PATH_MAX, "%s", cand);
					return true;
				}
				elfinfo_free(ei);
			}
		}
		p += n;
		if (*p)
			p++;
	}
	return false;
}

static bool resolve_lib(struct check *c, const struct obj *from, const char *name, char *out,
			struct elfinfo *ei)
{
	static const char *const defaults = "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:"
		"/lib64:/usr/lib64:/lib:/usr/lib";
	const struct obj *exe = &c->objs[0];
	char origin[PATH_MAX], tmp[PATH_MAX], msg[128];
	size_t i;

	if (strchr(name, '/')) {
		snprintf(out, PATH_MAX, "%s", name);
		return elfinfo_read(name, ei, msg, sizeof(msg)) == 0;
	}
	snprintf(tmp, sizeof(tmp), "%s", from->path);
	snprintf(origin, sizeof(origin), "%s", dirname(tmp));
	if (!from->ei.runpath && from->ei.rpath && try_dirs(from->ei.rpath, origin, name, from, out, ei))
		return true;
	if (from != exe && !exe->ei.runpath && exe->ei.rpath) {
		snprintf(tmp, sizeof(tmp), "%s", exe->path);
		if (try_dirs(exe->ei.rpath, dirname(tmp), name, from, out, ei))
			return true;
	}
	if (try_dirs(getenv("LD_LIBRARY_PATH"), origin, name, from, out, ei))
		return true;
	if (from->ei.runpath && try_dirs(from->ei.runpath, origin, name, from, out, ei))
		return true;
	for (i = 0; i < c->n_conf; i++)
		if (try_dirs(c->conf_dirs[i], origin, name, from, out, ei))
			return true;
	return try_dirs(defaults, origin, name, from, out, ei);
}

/* Breadth first, as the loader orders them; each soname once. */
static void walk(struct check *c)
{
	size_t i, k, j;

	for (i = 0; i < c->n; i++) {
		struct obj *o = &c->objs[i];

		/* The runtime's own dependencies (HSA, comgr, LLVM) say nothing
		 * about whether the program's calls reach the shim. */
		if (!o->found || (i > 0 && is_runtime(o->name)))
			continue;
		for (k = 0; k < o->ei.n_needed && c->n < MAX_OBJS; k++) {
			const char *nm = o->ei.needed[k];
			struct obj *d;
			bool seen = false;

			for (j = 0; j < c->n && !seen; j++)
				seen = strcmp(c->objs[j].name, nm) == 0;
			if (seen)
				continue;
			d = &c->objs[c->n];
			memset(d, 0, sizeof(*d));
			d->name = strdup(nm);
			if (!d->name)
				return;
			d->parent = (int)i;
			d->found = resolve_lib(c, o, nm, d->path, &d->ei);
			c->n++;
		}
	}
}

static void mark(struct check *c, const char *tag, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void mark(struct check *c, const char *tag, const char *fmt, ...)
{
	char line[8192];
	const char *col = "";
	va_list ap;

	if (c->quiet)
		return;
	if (c->color)
		col = strcmp(tag, "ok") == 0 ? "\033[32m" : strcmp(tag, "no") == 0 ? "\033[31m" :
		      strcmp(tag, "warn") == 0 ? "\033[33m" : "\033[36m";
	printf("  %s%-6s%s ", col, tag, c->color ? "\033[0m" : "");
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* Names, RUNPATHs and paths come from the files: never raw. */
	printf("%s\n", tool_esc(line));
}

static void list_hooked(char *buf, size_t cap, uint32_t bits, int from, int to)
{
	size_t n = 0;
	int h;

	buf[0] = '\0';
	for (h = from; h < to; h++)
		if (bits & (1u << h))
			n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s%s", n ? ", " : "", hooked_names[h]);
}

static const char *chain(const struct check *c, size_t i, char *buf, size_t cap)
{
	size_t n = 0;
	int p = c->objs[i].parent;

	buf[0] = '\0';
	/* "via libfoo.so <- libbar.so": who pulled it in, nearest first */
	while (p > 0 && n < cap) {
		n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? " <- " : "via ", c->objs[p].name);
		p = c->objs[p].parent;
	}
	return buf;
}

static int verdict(struct check *c, int code, const char *text, ...) __attribute__((format(printf, 3, 4)));

static int verdict(struct check *c, int code, const char *text, ...)
{
	char line[8192];
	va_list ap;

	const char *word = code == 0 ? "VISIBLE" : code == 1 ? "NOT VISIBLE" : "PARTLY VISIBLE";
	const char *col = !c->color ? "" : code == 0 ? "\033[1;32m" : "\033[1;33m";

	printf("%sverdict: %s%s - ", col, word, c->color ? "\033[0m" : "");
	va_start(ap, text);
	vsnprintf(line, sizeof(line), text, ap);
	va_end(ap);
	printf("%s\n", tool_esc(line));
	return code == 0 ? 0 : 1;
}

/* code 0 visible, 1 not visible, 3 partly (exit status 1 too). */
static int judge(struct check *c, const char *prog)
{
	const struct obj *exe = &c->objs[0];
	uint32_t hip_imports = 0;
	bool runtime = false, runtime_direct = false, shim_linked = false;
	/* Only the program's own dlopen: every libc-based library imports it. */
	bool any_dlopen = exe->ei.imports_dlopen;
	char buf[1024], via[512];
	struct stat st;
	size_t i;
	int rt = -1;

	for (i = 0; i < c->n; i++) {
		const struct obj *o = &c->objs[i];

		if (is_runtime(o->name)) {
			runtime = true;
			runtime_direct |= o->parent == 0;
			if (rt < 0)
				rt = (int)i;
			continue;
		}
		if (strncmp(o->name, "libhipsvm.so", 12) == 0)
			shim_linked = true;
		if (o->found)
			hip_imports |= o->ei.imports;
	}

	if (exe->ei.soname && (is_runtime(exe->ei.soname) || strncmp(exe->ei.soname, "libhipsvm.so", 12) == 0)) {
		mark(c, "info", "this is %s itself, not a program", exe->ei.soname);
		return verdict(c, 1, "check the program that uses it instead");
	}
	if (!exe->ei.interp && !exe->ei.dynamic) {
		if (exe->ei.defines & ((1u << H_FIRST_LIBC) - 1)) {
			list_hooked(buf, sizeof(buf), exe->ei.defines, 0, H_FIRST_LIBC);
			mark(c, "no", "statically linked, with the HIP runtime inside (defines %s)", buf);
		} else {
			mark(c, "no", "statically linked: no dynamic loader, so LD_PRELOAD has no effect");
		}
		return verdict(c, 1, "statically linked; relink it dynamically against libamdhip64 (hipcc does by default)");
	}
	if (!exe->ei.interp)
		mark(c, "info", "no program interpreter: a shared library or a static-pie (LD_PRELOAD applies only to the process that loads it)");
	else
		mark(c, "ok", "dynamically linked (interpreter %s)", exe->ei.interp_path);

	if (stat(exe->path, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)) && (st.st_mode & 0111)) {
		mark(c, "no", "%s%s: the loader runs it in secure mode and ignores LD_PRELOAD paths",
		     st.st_mode & S_ISUID ? "setuid" : "", (st.st_mode & (S_ISUID | S_ISGID)) == (S_ISUID | S_ISGID) ? "/setgid" :
		     (st.st_mode & S_ISUID) ? "" : "setgid");
		return verdict(c, 1, "secure-execution mode (setuid/setgid): LD_PRELOAD is ignored");
	}
	if (getxattr(exe->path, "security.capability", NULL, 0) > 0) {
		mark(c, "no", "has file capabilities: the loader runs it in secure mode and ignores LD_PRELOAD paths");
		return verdict(c, 1, "secure-execution mode (file capabilities): LD_PRELOAD is ignored");
	}

	if (exe->ei.rpath)
		mark(c, "info", "RPATH %s (does not matter: the preloaded shim comes first)", exe->ei.rpath);
	if (exe->ei.runpath)
		mark(c, "info", "RUNPATH %s (does not matter: the preloaded shim comes first)", exe->ei.runpath);

	if (runtime && c->objs[rt].found)
		mark(c, "ok", "needs %s %s%s(%s)", c->objs[rt].name, runtime_direct ? "" : chain(c, (size_t)rt, via, sizeof(via)),
		     runtime_direct ? "" : " ", c->objs[rt].path);
	else if (runtime)
		mark(c, "warn", "needs %s %s, not found on this machine (it would not start here; hipsvm run uses the simulator's)",
		     c->objs[rt].name, chain(c, (size_t)rt, via, sizeof(via)));
	if (shim_linked)
		mark(c, "info", "linked with libhipsvm itself: hipsvm run's LD_PRELOAD is then not even needed");

	for (i = 0; i < c->n; i++)
		if (!c->objs[i].found && !is_runtime(c->objs[i].name))
			mark(c, "warn", "%s not found (its imports are not checked)", c->objs[i].name);

	list_hooked(buf, sizeof(buf), hip_imports, 0, H_FIRST_LIBC);
	if (hip_imports & ((1u << H_FIRST_LIBC) - 1)) {
		size_t users = 0;

		for (i = 0; i < c->n; i++)
			if (!is_runtime(c->objs[i].name) && (c->objs[i].ei.imports & ((1u << H_FIRST_LIBC) - 1)))
				users++;
		mark(c, "ok", "imports hooked HIP functions: %s%s", buf,
		     exe->ei.imports & ((1u << H_FIRST_LIBC) - 1) ? "" : " (from its libraries)");
		if (users > 1 || !(exe->ei.imports & ((1u << H_FIRST_LIBC) - 1)))
			for (i = 1; i < c->n; i++)
				if (!is_runtime(c->objs[i].name) && (c->objs[i].ei.imports & ((1u << H_FIRST_LIBC) - 1))) {
					list_hooked(buf, sizeof(buf), c->objs[i].ei.imports, 0, H_FIRST_LIBC);
					mark(c, "info", "  %s calls %s", c->objs[i].name, buf);
				}
	}
	list_hooked(buf, sizeof(buf), exe->ei.imports, H_FIRST_LIBC, H_COUNT);
	if (buf[0])
		mark(c, "info", "imports the unmap family: %s (seen by the shim's unmap hook)", buf);
	if (hip_imports & (1u << H_HIPGETPROCADDRESS))
		mark(c, "info", "imports hipGetProcAddress: the shim wraps it and hands out its own functions");
	if (any_dlopen)
		mark(c, "info", "imports dlopen: libraries it loads later are hooked too, but a function found with "
		     "dlsym(handle, \"hipMalloc\") on a handle bypasses the shim (docs/limits.md)");

	if (exe->ei.defines & ((1u << H_FIRST_LIBC) - 1)) {
		list_hooked(buf, sizeof(buf), exe->ei.defines, 0, H_FIRST_LIBC);
		if (!runtime) {
			mark(c, "no", "defines %s itself and does not need libamdhip64: a HIP runtime linked in statically", buf);
			return verdict(c, 1, "the HIP runtime is linked in statically; link libamdhip64 dynamically");
		}
		mark(c, "warn", "defines %s itself: its own calls to them never reach the shim", buf);
		return verdict(c, 3, "it defines some hooked functions itself; those calls are not seen");
	}
	if (!runtime) {
		if (any_dlopen) {
			mark(c, "warn", "does not need libamdhip64 but can dlopen libraries: HIP may come in at run time");
			return verdict(c, 3, "HIP is not linked; if it is loaded with dlopen, calls made through dlsym handles are not seen");
		}
		mark(c, "no", "does not need libamdhip64 and imports no HIP function: not a HIP program");
		return verdict(c, 1, "%s does not use HIP; there is nothing for the shim to see", prog);
	}
	if (!(hip_imports & ((1u << H_FIRST_LIBC) - 1))) {
		mark(c, "warn", "needs libamdhip64 but imports none of the hooked allocation functions");
		return verdict(c, 3, "no hooked HIP function is imported; allocations may come through pointers the shim cannot see");
	}
	return verdict(c, 0, "hipsvm run will see its HIP allocations and unmaps");
}

static const char *machine_name(int m)
{
	switch (m) {
	case 62: return "x86-64";
	case 3: return "i386";
	case 183: return "AArch64";
	case 224: return "AMDGPU";
	default: return "unknown machine";
	}
}

int cmd_check(int argc, char **argv)
{
	struct check *c;
	const char *prog = NULL;
	char msg[256], path[PATH_MAX];
	bool quiet = false;
	size_t i;
	int a, rc;

	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "-h") == 0 || strcmp(argv[a], "--help") == 0) {
			fputs(check_help, stdout);
			return 0;
		}
		if (strcmp(argv[a], "-q") == 0 || strcmp(argv[a], "--quiet") == 0)
			quiet = true;
		else if (strcmp(argv[a], "--") == 0 && a + 1 < argc && !prog)
			prog = argv[++a];
		else if (argv[a][0] == '-' && argv[a][1])
			return usage_err("check", "unknown option '%s'", argv[a]);
		else if (prog)
			return usage_err("check", "one program at a time ('%s' and '%s')", prog, argv[a]);
		else
			prog = argv[a];
	}
	if (!prog)
		return usage_err("check", "no program given");

	/* Like a shell: a bare name is looked up in PATH. */
	if (!strchr(prog, '/')) {
		const char *pp = getenv("PATH"), *p;
		bool hit = false;

		for (p = pp ? pp : ""; p && *p && !hit;) {
			size_t n = strcspn(p, ":");

			snprintf(path, sizeof(path), "%.*s/%s", (int)n, p, prog);
			hit = access(path, X_OK) == 0;
			p += n;
			if (*p)
				p++;
		}
		if (!hit) {
			if (access(prog, F_OK) == 0) {
				snprintf(path, sizeof(path), "./%s", prog);
			} else {
				tool_err("%s: command not found", prog);
				return EXIT_USAGE;
			}
		}
	} else {
		snprintf(path, sizeof(path), "%s", prog);
	}

	c = calloc(1, sizeof(*c));
	if (!c) {
		tool_err("out of memory");
		return EXIT_USAGE;
	}
	c->quiet = quiet;
	c->color = tool_color(stdout);
	c->objs[0].name = strdup(prog);
	c->objs[0].parent = -1;
	snprintf(c->objs[0].path, sizeof(c->objs[0].path), "%s", path);
	rc = c->objs[0].name ? elfinfo_read(path, &c->objs[0].ei, msg, sizeof(msg)) : -ENOMEM;
	if (rc) {
		tool_err("%s: %s", prog, rc == -ENOMEM ? "out of memory" : msg);
		free(c->objs[0].name);
		free(c);
		return EXIT_USAGE;
	}
	if (c->objs[0].ei.type != 2 && c->objs[0].ei.type != 3) {
		tool_err("%s: an ELF file but not a program or shared library (type %d)", prog, c->objs[0].ei.type);
		elfinfo_free(&c->objs[0].ei);
		free(c->objs[0].name);
		free(c);
		return EXIT_USAGE;
	}
	c->objs[0].found = true;
	c->n = 1;
	load_conf(c, "/etc/ld.so.conf", 0);
	walk(c);
	if (!quiet)
		printf("%s: ELF %d-bit %s %s%s\n", prog, c->objs[0].ei.elf_class, machine_name(c->objs[0].ei.machine),
		       c->objs[0].ei.type == 2 ? "executable" : c->objs[0].ei.pie || c->objs[0].ei.interp ? "executable (PIE)" : "shared object",
		       c->objs[0].ei.stripped ? ", stripped" : "");
	rc = judge(c, prog);
	for (i = 0; i < c->n; i++) {
		elfinfo_free(&c->objs[i].ei);
		free(c->objs[i].name);
	}
	for (i = 0; i < c->n_conf; i++)
		free(c->conf_dirs[i]);
	free(c->conf_dirs);
	free(c);
	return rc;
}
