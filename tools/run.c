/* SPDX-License-Identifier: MIT */
/*
 * run.c - hipsvm run: a program under the shim, then its report.
 *
 * The shim always writes its JSON report into a private temporary directory
 * (HIPSVM_REPORT=<tmp>/report.%p.json): the %p keeps a forked child that
 * still has the shim from overwriting the parent's report, and we know the
 * pid we exec'd, so we read exactly the report of the program we ran.
 */
#include "cli.h"
#include "options.h"
#include "policy.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

const char run_opts_help[] =
"Runtime (without /dev/kfd the simulator is used):\n"
"      --sim               use the simulated runtime even when a GPU is present\n"
"      --no-sim            use the real ROCm runtime (libamdhip64 from the system)\n"
"  -g, --gpus N            simulated GPUs, 1..64 (HIPSVM_SIM_GPUS; default 4)\n"
"      --sim-mem SIZE      device memory per simulated GPU, e.g. 64M (HIPSVM_SIM_MEM)\n"
"Shim:\n"
"  -p, --policy P          routing policy (HIPSVM_POLICY; see docs/routing.md)\n"
"      --hook PATH         checkpoint hook: auto | none | debugfs path | unix:PATH | @NAME\n"
"  -r, --report FILE.json  also save the JSON report there (%p = pid)\n"
"  -t, --trace FILE        save the raw trace events (JSON lines) there (%p = pid)\n"
"  -e, --env NAME=VALUE    set a variable for the program (repeatable), e.g.\n"
"                          --env HIPSVM_DRAIN_TIMEOUT_MS=50\n"
"Output:\n"
"  -q, --quiet             no report on stderr (the exit code still passes through)\n"
"  -v, --verbose           show the environment the program gets\n";

static const char run_help[] =
"Usage: hipsvm run [OPTIONS] [--] PROGRAM [ARGS...]\n"
"\n"
"Runs PROGRAM with the shim preloaded (LD_PRELOAD=libhipsvm.so) and prints a\n"
"short report on stderr when it ends: contexts, devices, live and peak bytes,\n"
"GPU page faults raised/handled/dropped, checkpoints, drains and their\n"
"latency, timeouts, and unmaps of live GPU-visible (SVM) memory.\n"
"The exit status is PROGRAM's own (128+N when signal N killed it; 127 when it\n"
"is not found, 126 when it cannot be executed, 125 when hipsvm cannot start it).\n"
"\n";

static const char *const tool_only[] = { "HIPSVM_SHIM_PATH=", "HIPSVM_SIM_DIR=", NULL };

int run_parse_opt(const char *cmd, struct run_opts *o, int argc, char **argv, int *i)
{
	static const struct {
		const char *s, *l;
		int what;
	} tab[] = {
		{ NULL, "--sim", 1 }, { NULL, "--no-sim", 2 }, { NULL, "--real", 2 },
		{ "-g", "--gpus", 3 }, { NULL, "--sim-mem", 4 }, { "-p", "--policy", 5 },
		{ NULL, "--hook", 6 }, { "-r", "--report", 7 }, { "-t", "--trace", 8 },
		{ "-e", "--env", 9 }, { "-q", "--quiet", 10 }, { "-v", "--verbose", 11 },
	};
	const char *a = argv[*i], *val = NULL, *eq;
	struct hipsvm_options scratch;
	size_t k, alen;
	int what = 0;

	eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
	alen = eq ? (size_t)(eq - a) : strlen(a);
	for (k = 0; k < sizeof(tab) / sizeof(tab[0]); k++) {
		if ((tab[k].s && strcmp(a, tab[k].s) == 0) ||
		    (strlen(tab[k].l) == alen && strncmp(a, tab[k].l, alen) == 0)) {
			what = tab[k].what;
			break;
		}
	}
	if (!what)
		return 1;
	if (what >= 3 && what <= 9) {
		if (eq) {
			val = eq + 1;
		} else if (*i + 1 < argc) {
			val = argv[++*i];
		} else {
			return usage_err(cmd, "option '%s' needs a value", a);
		}
	} else if (eq) {
		return usage_err(cmd, "option '%.*s' takes no value", (int)alen, a);
	}
	hipsvm_options_defaults(&scratch);
	switch (what) {
	case 1: o->sim = 1; break;
	case 2: o->sim = 0; break;
	case 3:
		if (hipsvm_options_set(&scratch, HIPSVM_O_SIM_GPUS, val) != 0)
			return usage_err(cmd, "--gpus '%s': expected a number from 1 to 64", val);
		o->gpus = val;
		break;
	case 4:
		if (hipsvm_options_set(&scratch, HIPSVM_O_SIM_MEM, val) != 0)
			return usage_err(cmd, "--sim-mem '%s': expected a size from 1M to 1T, e.g. 64M", val);
		o->sim_mem = val;
		break;
	case 5: {
		struct hipsvm_policy pol;
		char bad[64] = "";

		if (!*val || hipsvm_policy_parse(val, &pol, bad, sizeof(bad)) != 0)
			return usage_err(cmd, "--policy '%s': bad item '%s' (default, managed-local, "
					 "oversubscribe, map-all, quota=SIZE; docs/routing.md)", val, bad);
		o->policy = val;
		break;
	}
	case 6: o->hook = val; break;
	case 7: o->report = val; break;
	case 8: o->trace = val; break;
	case 9: {
		const char **ne;

		if (!strchr(val, '=') || val[0] == '=')
			return usage_err(cmd, "--env '%s': expected NAME=VALUE", val);
		ne = realloc(o->env, (o->n_env + 1) * sizeof(*ne));
		if (!ne) {
			tool_err("out of memory");
			return 1;
		}
		o->env = ne;
		o->env[o->n_env++] = val;
		break;
	}
	case 10: o->quiet = true; break;
	case 11: o->verbose = true; break;
	}
	(*i)++;
	return 0;
}

/* PATH search as execvp does it, so that "not found" can be told apart from
 * "not executable" before forking. 0, or EXIT_NOTFOUND / EXIT_NOEXEC. */
static int resolve(const char *prog, char *out, size_t cap)
{
	const char *path, *p;
	struct stat st;
	bool saw_noexec = false;

	if (!*prog)
		return EXIT_NOTFOUND;
	if (strchr(prog, '/')) {
		if (stat(prog, &st) != 0) {
			tool_err("%s: %s", prog, strerror(errno));
			return errno == ENOENT || errno == ENOTDIR ? EXIT_NOTFOUND : EXIT_NOEXEC;
		}
		if (S_ISDIR(st.st_mode) || access(prog, X_OK) != 0) {
			tool_err("%s: %s", prog, S_ISDIR(st.st_mode) ? "is a directory" : "permission denied");
			return EXIT_NOEXEC;
		}
		snprintf(out, cap, "%s", prog);
		return 0;
	}
	path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p++) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if ((size_t)snprintf(out, cap, "%.*s%s%s", (int)n, p, n ? "/" : "", prog) < cap &&
		    stat(out, &st) == 0 && !S_ISDIR(st.st_mode)) {
			if (access(out, X_OK) == 0)
				return 0;
			saw_noexec = true;
		}
		if (!end)
			break;
		p = end;
	}
	if (saw_noexec) {
		tool_err("%s: permission denied", prog);
		return EXIT_NOEXEC;
	}
	tool_err("%s: command not found", prog);
	return EXIT_NOTFOUND;
}

struct envb {
	char **v;
	size_t n, cap;
};

static bool env_name_eq(const char *entry, const char *name_eq)
{
	size_t n = strcspn(name_eq, "=");

	return strncmp(entry, name_eq, n) == 0 && entry[n] == '=';
}

static void env_del(struct envb *e, const char *name_eq)
{
	size_t i, j = 0;

	for (i = 0; i < e->n; i++)
		if (!env_name_eq(e->v[i], name_eq))
			e->v[j++] = e->v[i];
	e->n = j;
}

/* Takes ownership of a malloc'd or static NAME=VALUE; replaces any earlier one. */
static int env_put(struct envb *e, char *kv)
{
	char **nv;

	env_del(e, kv);
	if (e->n + 2 > e->cap) {
		e->cap = e->cap ? e->cap * 2 : 64;
		nv = realloc(e->v, e->cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		e->v = nv;
	}
	e->v[e->n++] = kv;
	e->v[e->n] = NULL;
	return 0;
}

static char *kv(const char *name, const char *a, const char *sep, const char *b)
{
	char *s = NULL;

	if (asprintf(&s, "%s=%s%s%s", name, a, b && *b ? sep : "", b ? b : "") < 0)
		return NULL;
	return s;
}

static const char *env_get(char **env, const char *name)
{
	size_t n = strlen(name);

	for (; env && *env; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

static int copy_file(const char *from, const char *to)
{
	char *buf;
	size_t len;
	FILE *f;
	int err = json_slurp(from, &buf, &len);

	if (err)
		return err;
	f = fopen(to, "w");
	if (!f) {
		err = -errno;
		free(buf);
		return err;
	}
	if (fwrite(buf, 1, len, f) != len)
		err = -EIO;
	if (fclose(f) != 0 && !err)
		err = -errno;
	free(buf);
	return err;
}

static volatile sig_atomic_t child_pid;

static void forward(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

/* Shell-like status; prints how the program ended when it did not exit 0. */
static int wait_child(pid_t pid, const char *prog, int *raw)
{
	int st, sig;

	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			tool_err("waitpid: %s", strerror(errno));
			return 1;
		}
	}
	*raw = st;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	sig = WTERMSIG(st);
	tool_err("%s was killed by signal %d (SIG%s)%s", prog, sig, sig_name(sig),
		 WCOREDUMP(st) ? ", core dumped" : "");
	return 128 + sig;
}

static int count_other_reports(const char *dir, int pid)
{
	char mine[64];
	struct dirent *d;
	DIR *dp = opendir(dir);
	int n = 0;

	if (!dp)
		return 0;
	snprintf(mine, sizeof(mine), "report.%d.json", pid);
	while ((d = readdir(dp)))
		if (strncmp(d->d_name, "report.", 7) == 0 && strcmp(d->d_name, mine) != 0)
			n++;
	closedir(dp);
	return n;
}

static void show_report(struct run_opts *o, const char *prog, int code, int raw)
{
	char path[PATH_MAX + 64], dest[PATH_MAX], err[256];
	const char *user_report = o->report;
	struct json *r = NULL;
	char *buf = NULL;
	size_t len;
	int e, others;
	bool color = tool_color(stderr);

	snprintf(path, sizeof(path), "%s/report.%d.json", o->workdir, o->pid);
	e = json_slurp(path, &buf, &len);
	if (e == 0) {
		r = json_parse(buf, len, err, sizeof(err));
		if (!r)
			tool_err("the shim's report is not valid JSON (%s)", err);
	} else if (WIFSIGNALED(raw)) {
		tool_err("no report: %s was killed before the shim could write one", prog);
	} else {
		tool_err("no report from the shim: it did not load or saw no HIP runtime "
			 "(try 'hipsvm check %s')", prog);
	}
	if (r && !o->quiet) {
		fputc('\n', stderr);
		report_exit_line(stderr, prog, code, color);
		if (report_render(stderr, r, FMT_TEXT, color, err, sizeof(err)) != 0)
			tool_err("%s", err);
	}
	others = count_other_reports(o->workdir, o->pid);
	if (others && !o->quiet)
		tool_err("note: %d child process%s wrote a report too (use --report FILE.%%p.json to keep them)",
			 others, others == 1 ? "" : "es");
	if (user_report && *user_report && e == 0) {
		if (hipsvm_expand_path(user_report, o->pid, dest, sizeof(dest)) != 0) {
			tool_err("%s: path too long", user_report);
		} else if ((e = copy_file(path, dest)) != 0) {
			tool_err("cannot write the report to %s: %s", dest, strerror(-e));
		} else if (!o->quiet) {
			tool_err("report saved to %s", dest);
		}
	}
	json_free(r);
	free(buf);
}

void run_cleanup(struct run_opts *o)
{
	struct dirent *d;
	char p[PATH_MAX + 300];
	DIR *dp;

	if (!o->workdir[0])
		return;
	dp = opendir(o->workdir);
	if (dp) {
		while ((d = readdir(dp))) {
			if (d->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", o->workdir, d->d_name);
			unlink(p);
		}
		closedir(dp);
	}
	rmdir(o->workdir);
	o->workdir[0] = '\0';
}

static int build_env(struct run_opts *o, const struct tool_paths *tp, bool sim,
		     bool want_events, struct envb *e, const char **user_report)
{
	const char *old, *rep_env, *trace_env;
	char *s, **ep;
	size_t i;
	int err = 0;

	/* A report or trace path already in the environment is honoured like
	 * --report/--trace, since the shim's own path is taken over below. */
	rep_env = env_get(environ, "HIPSVM_REPORT");
	trace_env = env_get(environ, "HIPSVM_TRACE");
	*user_report = o->report ? o->report : (rep_env && *rep_env ? rep_env : NULL);
	if (!o->trace && trace_env && *trace_env)
		o->trace = trace_env;

	for (ep = environ; *ep; ep++) {
		const char *const *t;
		bool skip = false;

		for (t = tool_only; *t; t++)
			if (strncmp(*ep, *t, strlen(*t)) == 0)
				skip = true;
		if (!skip && (err = env_put(e, *ep)) != 0)
			return err;
	}
	old = env_get(environ, "LD_PRELOAD");
	if (!(s = kv("LD_PRELOAD", tp->shim, ":", old)) || env_put(e, s))
		return -ENOMEM;
	if (sim) {
		old = env_get(environ, "LD_LIBRARY_PATH");
		if (!(s = kv("LD_LIBRARY_PATH", tp->simdir, ":", old)) || env_put(e, s))
			return -ENOMEM;
	}
	if (asprintf(&s, "HIPSVM_REPORT=%s/report.%%p.json", o->workdir) < 0 || env_put(e, s))
		return -ENOMEM;
	if (o->trace) {
		if (!(s = kv("HIPSVM_TRACE", o->trace, "", NULL)) || env_put(e, s))
			return -ENOMEM;
	} else if (want_events) {
		if (asprintf(&s, "HIPSVM_TRACE=%s/events.%%p.jsonl", o->workdir) < 0 || env_put(e, s))
			return -ENOMEM;
	} else {
		env_del(e, "HIPSVM_TRACE=");
	}
	if (o->gpus && (!(s = kv("HIPSVM_SIM_GPUS", o->gpus, "", NULL)) || env_put(e, s)))
		return -ENOMEM;
	if (o->sim_mem && (!(s = kv("HIPSVM_SIM_MEM", o->sim_mem, "", NULL)) || env_put(e, s)))
		return -ENOMEM;
	if (o->policy && (!(s = kv("HIPSVM_POLICY", o->policy, "", NULL)) || env_put(e, s)))
		return -ENOMEM;
	if (o->hook && (!(s = kv("HIPSVM_HOOK", o->hook, "", NULL)) || env_put(e, s)))
		return -ENOMEM;
	for (i = 0; i < o->n_env; i++)
		if (env_put(e, (char *)o->env[i]))
			return -ENOMEM;
	return 0;
}

int run_program(struct run_opts *o, bool want_events)
{
	char exe[PATH_MAX], tmpl[PATH_MAX];
	const char *tmp = getenv("TMPDIR"), *prog, *user_report = NULL;
	struct sigaction ign = { 0 }, fwd = { 0 }, old_int, old_quit, old_term, old_hup;
	struct tool_paths tp;
	struct envb e = { 0 };
	unsigned found;
	int code, pfd[2], child_errno = 0, raw = 0;
	bool sim;
	pid_t pid;
	ssize_t n;

	if (!o->argv || !o->argv[0])
		return usage_err(want_events ? "trace" : "run", "no program given");
	prog = o->argv[0];
	code = resolve(prog, exe, sizeof(exe));
	if (code)
		return code;

	found = tool_locate(&tp);
	sim = o->sim == 1 || (o->sim == -1 && access("/dev/kfd", F_OK) != 0);
	if (!(found & 1)) {
		tool_err("cannot find the shim (%s)", tp.shim);
		tool_locate_explain(stderr);
		return 125;
	}
	if (sim && !(found & 2)) {
		tool_err("cannot find the simulated runtime (%s/libamdhip64.so.5)%s", tp.simdir,
			 o->sim == -1 ? "; there is no /dev/kfd, so it is needed (or pass --no-sim)" : "");
		tool_locate_explain(stderr);
		return 125;
	}
	if (strpbrk(tp.shim, " :")) {
		tool_err("the shim's path contains a space or ':', which LD_PRELOAD cannot carry: %s", tp.shim);
		return 125;
	}

	snprintf(tmpl, sizeof(tmpl), "%s/hipsvm.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpl)) {
		tool_err("cannot create a temporary directory in %s: %s", tmp && *tmp ? tmp : "/tmp",
			 strerror(errno));
		return 125;
	}
	snprintf(o->workdir, sizeof(o->workdir), "%s", tmpl);
	if (build_env(o, &tp, sim, want_events, &e, &user_report) != 0) {
		tool_err("out of memory");
		code = 125;
		goto out;
	}
	o->report = user_report;
	if (o->verbose) {
		tool_err("runtime: %s", sim ? "simulated" : "ROCm (system libamdhip64)");
		tool_err("LD_PRELOAD=%s", env_get(e.v, "LD_PRELOAD"));
		if (sim)
			tool_err("LD_LIBRARY_PATH=%s", env_get(e.v, "LD_LIBRARY_PATH"));
		for (size_t i = 0; i < e.n; i++)
			if (strncmp(e.v[i], "HIPSVM_", 7) == 0)
				tool_err("%s", e.v[i]);
		tool_err("exec %s", exe);
	}

	if (pipe2(pfd, O_CLOEXEC) != 0) {
		tool_err("pipe: %s", strerror(errno));
		code = 125;
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		tool_err("fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		code = 125;
		goto out;
	}
	if (pid == 0) {
		int err;

		close(pfd[0]);
		execve(exe, o->argv, e.v);
		err = errno;
		if (write(pfd[1], &err, sizeof(err)) < 0)
			_exit(EXIT_NOEXEC);
		_exit(err == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC);
	}
	close(pfd[1]);
	o->pid = pid;
	child_pid = pid;

	/* Like time(1): a Ctrl-C goes to the program (same process group); we
	 * stay to print what the shim saw. A kill aimed at us is passed on. */
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	fwd.sa_handler = forward;
	sigaction(SIGTERM, &fwd, &old_term);
	sigaction(SIGHUP, &fwd, &old_hup);

	do {
		n = read(pfd[0], &child_errno, sizeof(child_errno));
	} while (n < 0 && errno == EINTR);
	close(pfd[0]);
	code = wait_child(pid, prog, &raw);

	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	child_pid = 0;

	if (n == (ssize_t)sizeof(child_errno)) {
		tool_err("%s: cannot execute: %s", prog, strerror(child_errno));
		code = child_errno == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC;
		goto out;
	}
	if (o->trace || want_events) {
		if (hipsvm_expand_path(o->trace ? o->trace : "", pid, o->events, sizeof(o->events)) ||
		    !o->trace)
			if ((size_t)snprintf(o->events, sizeof(o->events), "%s/events.%d.jsonl", o->workdir, pid) >=
			    sizeof(o->events))
				o->events[0] = '\0';
	}
	show_report(o, prog, code, raw);
out:
	/* Only the strings made here are freed: the rest belong to environ/argv. */
	for (size_t i = 0; i < e.n; i++) {
		bool ours = true;

		for (char **ep = environ; *ep && ours; ep++)
			if (e.v[i] == *ep)
				ours = false;
		for (size_t k = 0; k < o->n_env && ours; k++)
			if (e.v[i] == o->env[k])
				ours = false;
		if (ours)
			free(e.v[i]);
	}
	free(e.v);
	return code;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { .sim = -1 };
	int i = 1, r, code;

	while (i < argc) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(run_help, stdout);
			fputs(run_opts_help, stdout);
			fputs("\nExample: hipsvm run --gpus 2 --report out.json -- ./multi_gpu_host\n", stdout);
			free(o.env);
			return 0;
		}
		if (argv[i][0] != '-')
			break;
		r = run_parse_opt("run", &o, argc, argv, &i);
		if (r == 1) {
			free(o.env);
			return usage_err("run", "unknown option '%s'", argv[i]);
		}
		if (r) {
			free(o.env);
			return r;
		}
	}
	if (i >= argc) {
		free(o.env);
		return usage_err("run", "no program given: hipsvm run [OPTIONS] -- PROGRAM [ARGS...]");
	}
	o.argv = argv + i;
	code = run_program(&o, false);
	if (o.trace && o.events[0] && !o.quiet && access(o.events, F_OK) == 0)
		tool_err("raw trace events saved to %s (convert: hipsvm trace --from %s -o trace.json)",
			 o.events, o.events);
	run_cleanup(&o);
	free(o.env);
	return code;
}
