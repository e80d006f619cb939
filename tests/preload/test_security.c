/* SPDX-License-Identifier: MIT */
/*
 * test_security.c - the shim and the simulator against a hostile user or a
 * careless environment, end to end (docs/security.md): a squatter on the
 * simulator's socket name, a hook path that names a file, links planted
 * where the trace goes, a file where the simulator's socket goes, a hook
 * server that drips its replies, a main thread that calls pthread_exit, a
 * value too long, a setuid program run by another user.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <grp.h>
#include <time.h>
#include <unistd.h>

#include "../unit/hostile_srv.h"
#include "pl_run.h"

static char scratch[64];

static const char *tmpdir(void)
{
	snprintf(scratch, sizeof(scratch), "/tmp/hipsvm-sec-XXXXXX");
	cr_assert(mkdtemp(scratch));
	pl_remove_at_exit(scratch);
	return scratch;
}

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void get(const char *path, char *buf, size_t cap)
{
	buf[0] = '\0';
	read_file(path, buf, cap);
}

/* ---- a squatter on @hipsvm-sim.<pid>, bound before the program starts ---- */

static struct hostile squatter;
static int squatter_uid;
static char squatter_why[96];
static int squatter_ok;

static void squat(int pid)
{
	char name[64];

	snprintf(name, sizeof(name), "hipsvm-sim.%d", pid);
	squatter_ok = hostile_start(&squatter, name, squatter_uid, squatter_why,
				    sizeof(squatter_why)) == 0;
}

static void run_squatted(int uid)
{
	const char *argv[] = { prog("pl_target"), "partial", NULL };
	long bytes;

	squatter_uid = uid;
	pl_before_exec = squat;
	run(&R, RT_SIM, true, argv, NULL);
	pl_before_exec = NULL;
	cr_assert(squatter_ok, "%s", squatter_why);
	bytes = hostile_stop(&squatter);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect_eq(bytes, 0, "the squatter was sent %ld bytes", bytes);
	/* the simulator could not take its name: it says so */
	cr_expect(strstr(R.err, "Address already in use"), "%s", R.err);
	cr_expect(strstr(R.report, "\"state\":\"error\""), "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "coordinated"), 0, "%s", R.report);
	cr_expect_geq(jnum(R.report, SEC("unmaps"), "uncoordinated"), 2, "%s", R.report);
}

Test(security, another_user_on_the_simulators_name_is_refused)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to run the squatter as uid %d", HOSTILE_NOBODY);
	run_squatted(HOSTILE_NOBODY);
	cr_expect(strstr(R.err, "is served by uid 65534"), "%s", R.err);
	cr_expect_eq(count_lines(R.err, "HIPSVM_HOOK: "), 1, "one line: %s", R.err);
}

Test(security, another_process_on_the_simulators_name_is_refused)
{
	run_squatted(-1);
	cr_expect(strstr(R.err, "should be this process's simulator but is served by pid"), "%s",
		  R.err);
}

/* ---- the simulator's server serves only its own user ---- */

Test(security, the_simulators_server_refuses_another_user)
{
	const char *argv[] = { prog("pl_target"), "stranger", NULL };

	if (geteuid() != 0)
		cr_skip_test("needs root to connect as uid %d", HOSTILE_NOBODY);
	run(&R, RT_SIM, false, argv, NULL);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.out, "stranger exit 0 reply err EPERM not the owner"), "%s", R.out);
}

/* ---- HIPSVM_HOOK naming a file ---- */

Test(security, a_hook_path_naming_a_file_leaves_it_alone)
{
	static char hookenv[128];
	const char *argv[] = { prog("pl_target"), "partial", NULL };
	const char *env[] = { hookenv, NULL };
	char path[96], buf[64];

	snprintf(path, sizeof(path), "%s/config", tmpdir());
	put(path, "precious data\n");
	snprintf(hookenv, sizeof(hookenv), "HIPSVM_HOOK=%s", path);
	run(&R, RT_SIM, true, argv, env);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	get(path, buf, sizeof(buf));
	cr_expect_str_eq(buf, "precious data\n");
	cr_expect(strstr(R.err, "is neither the hipsvm module's debugfs file nor a socket"), "%s",
		  R.err);
	cr_expect(strstr(R.report, "\"state\":\"error\""), "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "coordinated"), 0, "%s", R.report);
}

/* ---- a link planted where the trace goes ---- */

Test(security, a_link_where_the_trace_goes_is_not_followed)
{
	static char traceenv[128];
	const char *argv[] = { prog("pl_target"), "partial", NULL };
	const char *env[] = { traceenv, NULL };
	char target[96], link[96], buf[64];
	const char *d = tmpdir();

	snprintf(target, sizeof(target), "%s/victim", d);
	snprintf(link, sizeof(link), "%s/trace.jsonl", d);
	put(target, "precious\n");
	cr_assert_eq(symlink(target, link), 0);
	snprintf(traceenv, sizeof(traceenv), "HIPSVM_TRACE=%s", link);
	run(&R, RT_SIM, true, argv, env);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	get(target, buf, sizeof(buf));
	cr_expect_str_eq(buf, "precious\n");
	cr_expect(strstr(R.err, "is a symbolic link: not followed; no trace"), "%s", R.err);
}

/* ---- HIPSVM_SIM_SOCKET=path ---- */

Test(security, a_file_where_the_simulators_socket_goes_is_left_alone)
{
	static char sockenv[128];
	const char *argv[] = { prog("pl_target"), "partial", NULL };
	const char *env[] = { sockenv, NULL };
	char path[96], buf[64];

	snprintf(path, sizeof(path), "%s/notes.txt", tmpdir());
	put(path, "precious\n");
	snprintf(sockenv, sizeof(sockenv), "HIPSVM_SIM_SOCKET=%s", path);
	run(&R, RT_SIM, true, argv, env);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	get(path, buf, sizeof(buf));
	cr_expect_str_eq(buf, "precious\n");
	cr_expect(strstr(R.err, "a file that is not a socket is there; left alone"), "%s", R.err);
}

Test(security, a_stale_socket_is_replaced_and_auto_finds_the_simulator_there)
{
	static char sockenv[128];
	const char *argv[] = { prog("pl_target"), "partial", NULL };
	const char *env[] = { sockenv, NULL };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char path[96], want[224];
	struct stat st;
	int fd;

	/* a socket left by a process that died: bound, nobody listening */
	snprintf(path, sizeof(path), "%s/sim.sock", tmpdir());
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
	snprintf(sockenv, sizeof(sockenv), "HIPSVM_SIM_SOCKET=%s", path);
	run(&R, RT_SIM, true, argv, env);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect_eq(stat(path, &st), 0);
	cr_expect(S_ISSOCK(st.st_mode));
	snprintf(want, sizeof(want), "\"path\":\"unix:%s\",\"state\":\"connected\"", path);
	cr_expect(strstr(R.report, want), "%s in %s", want, R.report);
	cr_expect_geq(jnum(R.report, SEC("unmaps"), "coordinated"), 2, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "uncoordinated"), 0, "%s", R.report);
}

/* ---- a hook server that drips its reply ---- */

static int drip_listen = -1;
static char drip_path[108];

static void *drip_conn(void *arg)
{
	int fd = (int)(intptr_t)arg, i;
	char buf[512];

	for (;;) {
		ssize_t k = read(fd, buf, sizeof(buf) - 1);

		if (k <= 0)
			break;
		buf[k] = '\0';
		if (!strncmp(buf, "version", 7)) {
			(void)!write(fd, "ok version 1 hipsvm-hook\n", 25);
		} else if (!strncmp(buf, "set", 3)) {
			(void)!write(fd, "ok set 0=0x10 1=0x10 2=0x10 3=0x10\n", 35);
		} else if (!strncmp(buf, "drain", 5)) {
			/* a byte every 200 ms, no newline, for 20 s */
			for (i = 0; i < 100; i++) {
				struct timespec ts = { 0, 200 * 1000 * 1000 };

				if (send(fd, "o", 1, MSG_NOSIGNAL) != 1)
					break;
				nanosleep(&ts, NULL);
			}
			break;
		} else {
			(void)!write(fd, "ok stats\n", 9);
		}
	}
	close(fd);
	return NULL;
}

static void *drip_server(void *arg)
{
	(void)arg;
	for (;;) {
		int fd = accept(drip_listen, NULL, NULL);
		pthread_t t;

		if (fd < 0)
			break;
		pthread_create(&t, NULL, drip_conn, (void *)(intptr_t)fd);
		pthread_detach(t);
	}
	return NULL;
}

Test(security, a_dripping_hook_holds_each_unmap_to_its_bound)
{
	static char hookenv[160];
	const char *argv[] = { prog("pl_target"), "partial", NULL };
	const char *env[] = { hookenv, "HIPSVM_DRAIN_TIMEOUT_MS=100", NULL };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timespec t0, t1;
	pthread_t t;
	double s;
	uint64_t unmaps;

	snprintf(drip_path, sizeof(drip_path), "%s/drip.sock", tmpdir());
	strcpy(sa.sun_path, drip_path);
	drip_listen = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_eq(bind(drip_listen, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(listen(drip_listen, 16), 0);
	pthread_create(&t, NULL, drip_server, NULL);
	pthread_detach(t);
	snprintf(hookenv, sizeof(hookenv), "HIPSVM_HOOK=unix:%s", drip_path);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	run(&R, RT_SIM, true, argv, env);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	unmaps = jnum(R.report, SEC("unmaps"), "tracked");
	cr_assert(unmaps >= 2 && unmaps < 10, "%s", R.report);
	/* each unmap waits at most the drain timeout plus 2 s for its drain;
	 * 1.5 s of slack for the whole run on a loaded machine */
	cr_expect_lt(s, (double)unmaps * 2.1 + 1.5, "%.1f s for %llu unmaps", s,
		     (unsigned long long)unmaps);
	cr_expect(strstr(R.err, "checkpoint hook request failed (ETIMEDOUT)"), "%s", R.err);
	cr_log_info("%llu unmaps against a dripping hook: %.2f s", (unsigned long long)unmaps, s);
}

/* ---- main calls pthread_exit while the runtime's threads live on ---- */

Test(security, sigterm_ends_a_program_whose_main_thread_exited)
{
	const char *argv[] = { prog("pl_target"), "pexit", NULL };

	run(&R, RT_SIM, false, argv, NULL);
	cr_expect_eq(R.code, 128 + 15, "without the shim: %d (137: SIGTERM stayed pending)%s",
		     R.code, R.err);
	run(&R, RT_SIM, true, argv, NULL);
	cr_expect_eq(R.code, 128 + 15, "with the shim: %d (137: SIGTERM stayed pending)%s",
		     R.code, R.err);
	cr_expect(strstr(R.out, "hipMalloc 0"), "%s", R.out);
}

/* ---- a value too long ---- */

Test(security, a_value_too_long_is_named_as_such)
{
	static char polenv[400];
	const char *argv[] = { prog("pl_target"), "internal", NULL };
	const char *env[] = { polenv, NULL };

	memcpy(polenv, "HIPSVM_POLICY=", 14);
	memset(polenv + 14, 'a', 300);
	polenv[314] = '\0';
	run(&R, RT_SIM, true, argv, env);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.err, "longer than 255 bytes; using the default value \"default\""), "%s",
		  R.err);
	cr_expect(!strstr(R.err, "(EIO)"), "%s", R.err);
}

/* ---- secure execution: a setuid-root program run by nobody ---- */

/* Runs path as uid/gid 65534 with env, stdout+stderr into out. The exit
 * status. */
static int run_as_nobody(const char *path, char *const *env, char *out, size_t cap)
{
	int pfd[2], st = 0;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	cr_assert_eq(pipe(pfd), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char *argv[] = { (char *)path, NULL };

		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
			_exit(120);
		execve(path, argv, env);
		_exit(121);
	}
	close(pfd[1]);
	while (n + 1 < cap && (r = read(pfd[0], out + n, cap - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	close(pfd[0]);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

Test(security, a_setuid_program_ignores_every_hipsvm_variable)
{
	char d[64], root[96], secret[128], trace[128], sock[128], exe[128], rep[256], trc[256],
		sck[256], ctl[128], out[16384], buf[256], cmd[512];
	char *env[] = { rep, trc, sck, "HIPSVM_VERBOSE=1", "HIPSVM_POLICY=map-all", NULL };
	struct stat st;
	int code;

	if (geteuid() != 0)
		cr_skip_test("needs root: installs a setuid-root program and runs it as nobody");
	snprintf(d, sizeof(d), "%s", tmpdir());
	cr_assert_eq(chmod(d, 0755), 0);
	snprintf(root, sizeof(root), "%s/root-only", d);
	cr_assert_eq(mkdir(root, 0700), 0);
	snprintf(secret, sizeof(secret), "%s/secret", root);
	snprintf(trace, sizeof(trace), "%s/trace.jsonl", root);
	snprintf(sock, sizeof(sock), "%s/sock", root);
	put(secret, "root only\n");
	cr_assert_eq(chmod(secret, 0600), 0);
	snprintf(exe, sizeof(exe), "%s/suid", d);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", prog("pl_suid"), exe);
	cr_assert_eq(system(cmd), 0);
	snprintf(rep, sizeof(rep), "HIPSVM_REPORT=%s", secret);
	snprintf(trc, sizeof(trc), "HIPSVM_TRACE=%s", trace);
	snprintf(sck, sizeof(sck), "HIPSVM_SIM_SOCKET=%s", sock);

	/* The control: the same program, not setuid, as nobody, with names it
	 * may write: the variables are obeyed (the test can see them work). */
	snprintf(ctl, sizeof(ctl), "%s/ctl.json", d);
	cr_assert_eq(chmod(d, 0777), 0);
	snprintf(rep, sizeof(rep), "HIPSVM_REPORT=%s", ctl);
	snprintf(trc, sizeof(trc), "HIPSVM_TRACE=%s/ctl.jsonl", d);
	snprintf(sck, sizeof(sck), "HIPSVM_SIM_SOCKET=%s/ctl.sock", d);
	cr_assert_eq(chmod(exe, 0755), 0);
	code = run_as_nobody(exe, env, out, sizeof(out));
	cr_assert_eq(code, 0, "control run: %s", out);
	cr_assert_eq(stat(ctl, &st), 0, "the control run wrote its report: %s", out);
	cr_expect(strstr(out, "secure 0"), "%s", out);
	cr_assert_eq(chmod(d, 0755), 0);

	/* setuid root, run by nobody, told to write into the root-only dir */
	snprintf(rep, sizeof(rep), "HIPSVM_REPORT=%s", secret);
	snprintf(trc, sizeof(trc), "HIPSVM_TRACE=%s", trace);
	snprintf(sck, sizeof(sck), "HIPSVM_SIM_SOCKET=%s", sock);
	cr_assert_eq(chown(exe, 0, 0), 0);
	cr_assert_eq(chmod(exe, 04755), 0);
	code = run_as_nobody(exe, env, out, sizeof(out));
	cr_assert_eq(code, 0, "%s", out);
	cr_expect(strstr(out, "secure 1"), "the kernel set AT_SECURE: %s", out);
	get(secret, buf, sizeof(buf));
	cr_expect_str_eq(buf, "root only\n", "HIPSVM_REPORT replaced a root-only file: %s", out);
	cr_expect_neq(stat(trace, &st), 0, "HIPSVM_TRACE created a root-owned file");
	cr_expect_neq(lstat(sock, &st), 0, "the simulator bound HIPSVM_SIM_SOCKET in a root-only directory");
	cr_expect_eq(count_lines(out, "secure-execution mode"), 2,
		     "once for the shim, once for the simulator: %s", out);
	cr_expect(!strstr(out, "HIPSVM_POLICY="), "HIPSVM_VERBOSE was not obeyed either: %s", out);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	cr_expect_eq(system(cmd), 0);
}

/* HIPSVM_SIM_SOCKET=@: an autobound abstract name; the simulator reports the
 * name the kernel chose and the shim's auto hook is served there. */
Test(security, an_autobound_simulator_socket_is_found_by_auto)
{
	const char *argv[] = { prog("pl_target"), "partial", NULL };
	const char *env[] = { "HIPSVM_SIM_SOCKET=@", NULL };

	run(&R, RT_SIM, true, argv, env);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.report, "\"state\":\"connected\""), "%s\n%s", R.report, R.err);
	cr_expect(!strstr(R.report, "\"path\":\"@\","), "the name is the one bound: %s", R.report);
	cr_expect_geq(jnum(R.report, SEC("unmaps"), "coordinated"), 2, "%s", R.report);
}
