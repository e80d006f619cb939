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
#include "shim/options.h"
#include "shim/outname.h"
#include "shim/policy.h"
#include "simcore/sim_options.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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
"  -f, --follow            children the program executes keep the shim\n"
"                          (HIPSVM_INHERIT=1); a report for each that used HIP\n"
"  -e, --env NAME=VALUE    set a variable for the program (repeatable), e.g.\n"
"                          --env HIPSVM_DRAIN_TIMEOUT_MS=50\n"
"Output:\n"
"  -q, --quiet             no report on stderr and no simulator notes (the exit\n"
"                          code still passes through)\n"
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
"\n"
"  -o, --output FILE       the text report into FILE instead of stderr\n";

enum { OPT_SIM = 256, OPT_NOSIM, OPT_SIMMEM, OPT_HOOK, OPT_FROM };

/*
 * A run's events start with the run: the shim appends to the events file
 * (the program's children write into it too), so a file left by an earlier
 * run with the same name would be read back as part of this one (a trace
 * two hours long). Called in the child between fork and exec, where the
 * program's pid is already ours and nothing writes yet: an existing regular
 * file of ours of that name is emptied; a link, a FIFO, a device or another
 * user's file is left alone (the shim refuses those itself, and run says so
 * after the run: trace_written).
 */
static void run_trace_fresh(const char *name, char *const *envp)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	if (hipsvm_outname(name, getpid(), envp, path, sizeof(path)))
		return;
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
		(void)ftruncate(fd, 0);
	close(fd);
}

/* run's options; trace takes the same, with -o its trace and --from. */
static const struct option run_longs[] = {
	{ "sim", no_argument, NULL, OPT_SIM },
	{ "no-sim", no_argument, NULL, OPT_NOSIM },
	{ "real", no_argument, NULL, OPT_NOSIM },
	{ "gpus", required_argument, NULL, 'g' },
	{ "sim-mem", required_argument, NULL, OPT_SIMMEM },
	{ "policy", required_argument, NULL, 'p' },
	{ "hook", required_argument, NULL, OPT_HOOK },
	{ "report", required_argument, NULL, 'r' },
	{ "trace", required_argument, NULL, 't' },
	{ "follow", no_argument, NULL, 'f' },
	{ "env", required_argument, NULL, 'e' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ "from", required_argument, NULL, OPT_FROM },	/* trace only: last */
	{ NULL, 0, NULL, 0 },
};
#define N_RUN_LONGS (sizeof(run_longs) / sizeof(run_longs[0]))

static int add_env(const char *cmd, struct run_opts *o, const char *val)
{
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
	return 0;
}

int run_parse_args(const char *cmd, struct run_opts *o, int argc, char **argv, struct run_args *x)
{
	/* run has no --from: its table stops before that last entry. */
	static struct option run_only[N_RUN_LONGS];
	bool trace = strcmp(cmd, "trace") == 0;
	struct hipsvm_sim_options scratch;
	int c, rc;

	memcpy(run_only, run_longs, sizeof(run_only));
	run_only[N_RUN_LONGS - 2] = (struct option){ NULL, 0, NULL, 0 };
	hipsvm_sim_options_defaults(&scratch);
	optind = 0;
	while ((c = tool_getopt(cmd, argc, argv, "g:p:r:t:fe:qvo:h", trace ? run_longs : run_only)) != -1) {
		const char *val = optarg;

		switch (c) {
		case OPT_SIM: o->sim = 1; break;
		case OPT_NOSIM: o->sim = 0; break;
		case 'g':
			if (hipsvm_sim_options_set(&scratch, HIPSVM_SIM_O_GPUS, val) != 0)
				return usage_err(cmd, "--gpus '%s': expected a number from 1 to 64", val);
			o->gpus = val;
			break;
		case OPT_SIMMEM:
			if (hipsvm_sim_options_set(&scratch, HIPSVM_SIM_O_MEM, val) != 0)
				return usage_err(cmd, "--sim-mem '%s': expected a size from 1M to 1T, e.g. 64M", val);
			o->sim_mem = val;
			break;
		case 'p': {
			struct hipsvm_policy pol;
			char bad[64] = "";

			if (!*val || hipsvm_policy_parse(val, &pol, bad, sizeof(bad)) != 0)
				return usage_err(cmd, "--policy '%s': bad item '%s' (default, managed-local, "
						 "oversubscribe, map-all, quota=SIZE; docs/routing.md)", val, bad);
			o->policy = val;
			break;
		}
		case OPT_HOOK: o->hook = val; break;
		case 'r': o->report = val; break;
		case 't': o->trace = val; break;
		case 'f': o->follow = true; break;
		case 'e':
			rc = add_env(cmd, o, val);
			if (rc)
				return rc;
			break;
		case 'q': o->quiet = true; break;
		case 'v': o->verbose = true; break;
		case 'o':
			if (!*val)
				return usage_err(cmd, "-o needs a file name");
			x->output = val;
			break;
		case OPT_FROM: x->from = val; break;
		case 'h':
			x->help = true;
			return 0;
		default:
			return EXIT_USAGE;	/* said by tool_getopt */
		}
	}
	x->first = optind;
	return -1;
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

/* run --trace FILE: the shim appends to FILE from its start, and refuses
 * (with a line of its own) a link, a FIFO or another user's file; when
 * nothing usable is there after the run, the trace asked for was lost. */
static bool trace_written(const char *events, const char *asked)
{
	struct stat st;

	if (!events[0]) {
		tool_err("%s: name too long: the trace was not written", asked);
		return false;
	}
	if (lstat(events, &st) != 0) {
		tool_err("%s: %s: the trace was not written", events, errno == ENOENT ?
			 "no such file (does its directory exist? did the program load the shim?)" :
			 strerror(errno));
		return false;
	}
	if (S_ISLNK(st.st_mode) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		tool_err("%s: %s: the trace was not written", events, S_ISLNK(st.st_mode) ?
			 "a symbolic link (not followed)" : !S_ISREG(st.st_mode) ?
			 "not a regular file" : "belongs to another user");
		return false;
	}
	return true;
}

static volatile sig_atomic_t child_pid;

static void forward(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

/* Shell-like status; prints how the program ended when it did not exit 0.
 * With events (a traced run), the fault counters are sampled meanwhile. */
static int wait_child(pid_t pid, const char *prog, int *raw, const char *events, const char *hook)
{
	int st, sig;

	while ((events ? run_wait_sampling(pid, &st, events, hook, RUN_SAMPLE_MS) :
		waitpid(pid, &st, 0)) < 0) {
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

int run_program(struct run_opts *o, bool want_events)
{
	char exe[PATH_MAX], tmpl[PATH_MAX];
	const char *tmp = getenv("TMPDIR"), *prog, *user_report = NULL;
	struct sigaction ign = { 0 }, fwd = { 0 }, old_int, old_quit, old_term, old_hup;
	struct tool_paths tp;
	struct run_env e = { 0 };
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
	if (run_env_build(o, &tp, sim, want_events, &e, &user_report) != 0) {
		tool_err("out of memory");
		code = 125;
		goto out;
	}
	o->report = user_report;
	if (o->verbose) {
		tool_err("runtime: %s", sim ? "simulated" : "ROCm (system libamdhip64)");
		tool_err("LD_PRELOAD=%s", run_env_get(e.v, "LD_PRELOAD"));
		if (sim)
			tool_err("LD_LIBRARY_PATH=%s", run_env_get(e.v, "LD_LIBRARY_PATH"));
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
		/* Our stdout carries something else (a trace): the program's
		 * output must not mix into it. */
		if (o->stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(125);
		if (o->trace)
			run_trace_fresh(o->trace, e.v);
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
	if (o->trace || want_events) {
		if (hipsvm_outname(o->trace ? o->trace : "", pid, e.v, o->events, sizeof(o->events)) ||
		    !o->trace)
			if ((size_t)snprintf(o->events, sizeof(o->events), "%s/events.%d.jsonl", o->workdir, pid) >=
			    sizeof(o->events))
				o->events[0] = '\0';
	}
	code = wait_child(pid, prog, &raw, n == 0 && o->events[0] ? o->events : NULL,
			  run_env_get(e.v, "HIPSVM_HOOK"));

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
	o->unsaved = run_show_reports(o, prog, code, raw);
	if (o->trace && !trace_written(o->events, o->trace))
		o->unsaved++;
	/* Output lost is a failure even when the program succeeded. */
	if (o->unsaved && code == 0)
		code = 1;
out:
	run_env_free(&e, o);
	return code;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { .sim = -1 };
	struct run_args x = { 0 };
	struct tool_out text;
	int code;

	code = run_parse_args("run", &o, argc, argv, &x);
	if (code >= 0 || x.help) {
		if (x.help) {
			fputs(run_help, stdout);
			fputs(run_opts_help, stdout);
			fputs("\nExample: hipsvm run --gpus 2 --report out.json -- ./multi_gpu_host\n", stdout);
		}
		free(o.env);
		return x.help ? 0 : code;
	}
	if (x.first >= argc) {
		free(o.env);
		return usage_err("run", "no program given: hipsvm run [OPTIONS] -- PROGRAM [ARGS...]");
	}
	/* Its temporary file is made before the program runs (a place that
	 * cannot take the report is said before anything runs); the target
	 * itself is replaced only when the whole report is written. */
	if (x.output) {
		if (tool_out_open(&text, x.output, NULL, "the text report", ": nothing was run")) {
			free(o.env);
			return 1;
		}
		o.text_out = text.f;
	}
	o.argv = argv + x.first;
	code = run_program(&o, false);
	if (o.trace && o.events[0] && !o.quiet && access(o.events, F_OK) == 0)
		tool_err("raw trace events saved to %s (convert: hipsvm trace --from %s -o trace.json)",
			 o.events, o.events);
	if (o.text_out && tool_out_close(&text, true) && code == 0)
		code = 1;
	run_cleanup(&o);
	free(o.env);
	return code;
}
