/* SPDX-License-Identifier: MIT */
/* pl_run.c - see pl_run.h. */

#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pl_run.h"

const char *bdir(void)
{
	const char *b = getenv("HIPSVM_TEST_BUILDDIR");

	cr_assert(b, "HIPSVM_TEST_BUILDDIR not set (run through meson test)");
	return b;
}

void read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	buf[0] = '\0';
	if (fd < 0)
		return;
	while (got < (ssize_t)cap - 1 && (n = read(fd, buf + got, cap - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = '\0';
	close(fd);
}

char *prog(const char *name)
{
	static char path[8][512];
	static int k;
	char *p = path[k++ % 8];

	snprintf(p, 512, "%s/tests/preload/%s", bdir(), name);
	return p;
}

char *shim(void)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/preload/libhipsvm.so", bdir());
	return path;
}

const char *preload_prefix(void)
{
	const char *p = getenv("HIPSVM_TEST_PRELOAD_PREFIX");

	return p ? p : "";
}

const char *preload_rest(void)
{
	static char rest[512];
	size_t n;

	snprintf(rest, sizeof(rest), "%s", preload_prefix());
	n = strlen(rest);
	while (n && (rest[n - 1] == ':' || rest[n - 1] == ' '))
		rest[--n] = '\0';
	return rest;
}

void (*pl_before_exec)(int pid);

/* The scratch folders of this test process's runs, removed when it exits
 * (a test reads its run's folder after run() returns, so not sooner):
 * thousands of them were left in /tmp otherwise. HIPSVM_TEST_KEEP keeps
 * them for a look. Only what mkdtemp made is removed, entry by entry, never
 * through a link. */
static char made[32][128];
static unsigned nmade;

/* dirfd's entries, and a folder's below it (test_security makes one level;
 * at most 4 are followed), never through a link: unlinkat removes a link
 * itself, and a folder is opened with O_NOFOLLOW. */
static void rm_entries(int fd, unsigned depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;

	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		int sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(fd, e->d_name, 0) == 0 || errno != EISDIR || depth == 4)
			continue;
		sub = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			rm_entries(sub, depth + 1);
		unlinkat(fd, e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

static void rm_scratch(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return;
	rm_entries(fd, 1);
	rmdir(dir);
}

static void rm_made(void)
{
	while (nmade)
		rm_scratch(made[--nmade]);
}

void pl_remove_at_exit(const char *dir)
{
	if (getenv("HIPSVM_TEST_KEEP"))
		return;
	if (!nmade)
		atexit(rm_made);
	if (nmade == sizeof(made) / sizeof(made[0])) {
		/* the oldest run's folder: no test reads that far back */
		rm_scratch(made[0]);
		memmove(made[0], made[1], sizeof(made) - sizeof(made[0]));
		nmade--;
	}
	snprintf(made[nmade++], sizeof(made[0]), "%s", dir);
}

/* Runs argv with only the environment given here (plus extra), stdout and
 * stderr to files, at most 120 s. */
void run(struct res *r, enum rt rt, bool preload, const char *const *argv,
		const char *const *extra)
{
	char ldlib[512], ldpre[1024], report[256], *envp[32];
	static char sanenv[4][512];
	const char *prefix;
	int n = 0, i, st = 0, waited = 0, gate[2];
	pid_t pid;

	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "/tmp/hipsvm-preload-XXXXXX");
	cr_assert(mkdtemp(r->dir), "mkdtemp");
	pl_remove_at_exit(r->dir);
	envp[n++] = "PATH=/usr/bin:/bin";
	envp[n++] = "LC_ALL=C";
	envp[n++] = "HIPSVM_SIM_QUIET=1";
	if (rt == RT_SIM)
		snprintf(ldlib, sizeof(ldlib), "LD_LIBRARY_PATH=%s/sim:%s/tests/preload", bdir(),
			 bdir());
	else if (rt == RT_FAKE)
		snprintf(ldlib, sizeof(ldlib), "LD_LIBRARY_PATH=%s/tests/preload/fake:%s/tests/preload",
			 bdir(), bdir());
	else
		snprintf(ldlib, sizeof(ldlib), "LD_LIBRARY_PATH=%s/tests/preload", bdir());
	envp[n++] = ldlib;
	snprintf(report, sizeof(report), "HIPSVM_REPORT=%s/report.%%p.json", r->dir);
	envp[n++] = report;
	/* A sanitizer run (scripts/test-sanitizers, docs/hardening.md) puts
	 * its runtime first in every LD_PRELOAD we build, and its options
	 * through. */
	prefix = preload_prefix();
	for (i = 0; i < 4; i++) {
		static const char *const san[] = { "ASAN_OPTIONS", "UBSAN_OPTIONS", "TSAN_OPTIONS",
						   "LSAN_OPTIONS" };
		const char *v = getenv(san[i]);

		if (v) {
			snprintf(sanenv[i], sizeof(sanenv[i]), "%s=%s", san[i], v);
			envp[n++] = sanenv[i];
		}
	}
	if (preload) {
		snprintf(ldpre, sizeof(ldpre), "LD_PRELOAD=%s%s", prefix, shim());
		envp[n++] = ldpre;
	} else if (*prefix) {
		/* Without the shim too: an uninstrumented program (hipcc's)
		 * that loads the instrumented simulator without the runtime
		 * first dies of SIGSEGV at start-up. "rt.so:" -> "rt.so". */
		snprintf(ldpre, sizeof(ldpre), "LD_PRELOAD=%s", preload_rest());
		envp[n++] = ldpre;
	}
	for (i = 0; extra && extra[i] && n < 30; i++) {
		if (!strncmp(extra[i], "LD_PRELOAD=", 11)) {
			/* "LD_PRELOAD=+lib": after the shim */
			if (extra[i][11] == '+' && preload) {
				snprintf(ldpre, sizeof(ldpre), "LD_PRELOAD=%s%s %s", prefix, shim(),
					 extra[i] + 12);
				continue;
			}
		}
		envp[n++] = (char *)extra[i];
	}
	envp[n] = NULL;
	cr_assert_eq(pipe(gate), 0);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		char path[256], c;
		int fd;

		/* Held until the parent has done what pl_before_exec does
		 * with our pid (a server bound to a name made of it). */
		close(gate[1]);
		if (read(gate[0], &c, 1) < 0)
			_exit(125);
		close(gate[0]);
		snprintf(path, sizeof(path), "%s/out", r->dir);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		snprintf(path, sizeof(path), "%s/err", r->dir);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		if (chdir(r->dir))
			_exit(126);
		execve(argv[0], (char *const *)argv, envp);
		_exit(127);
	}
	close(gate[0]);
	if (pl_before_exec)
		pl_before_exec(pid);
	cr_assert_eq(write(gate[1], "g", 1), 1);
	close(gate[1]);
	while (waitpid(pid, &st, WNOHANG) == 0) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (++waited > 12000) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			cr_assert_fail("%s timed out", argv[0]);
		}
		nanosleep(&ts, NULL);
	}
	r->pid = pid;
	r->code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/out", r->dir);
		read_file(path, r->out, sizeof(r->out));
		snprintf(path, sizeof(path), "%s/err", r->dir);
		read_file(path, r->err, sizeof(r->err));
		snprintf(path, sizeof(path), "%s/report.%d.json", r->dir, pid);
		read_file(path, r->report, sizeof(r->report));
	}
}

/* The number after "key": that follows anchor in doc; UINT64_MAX if absent. */
uint64_t jnum(const char *doc, const char *anchor, const char *key)
{
	char k[96];
	const char *a = anchor ? strstr(doc, anchor) : doc, *p;

	if (!a)
		return UINT64_MAX;
	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(a, k);
	if (!p)
		return UINT64_MAX;
	return strtoull(p + strlen(k), NULL, 10);
}


unsigned count_lines(const char *s, const char *needle)
{
	unsigned n = 0;

	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

void same_run(enum rt rt, const char *const *argv, const char *const *extra)
{
	static struct res a, b;

	run(&a, rt, false, argv, extra);
	run(&b, rt, true, argv, extra);
	cr_expect_eq(a.code, b.code, "%s %s: exit %d without the shim, %d with", argv[0],
		     argv[1] ? argv[1] : "", a.code, b.code);
	cr_expect_str_eq(a.out, b.out, "%s %s: stdout differs", argv[0], argv[1] ? argv[1] : "");
	cr_expect_str_eq(a.err, b.err, "%s %s: stderr differs", argv[0], argv[1] ? argv[1] : "");
}

struct res R;
