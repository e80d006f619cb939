/* SPDX-License-Identifier: MIT */
/* test_hook.c - a hook server of our own: drain timeouts reported, a hook that
 * stops answering never hangs the program; HIPSVM_VERBOSE. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "pl_run.h"

/* ---- a hook server of our own: drain timeouts, a hook that stops answering ---- */

enum fake_mode { FAKE_TIMEOUT, FAKE_SILENT, FAKE_SLOW };
static enum fake_mode fake_mode;
static int fake_listen = -1;
static char fake_path[108];
static char last_clear[512];	/* the last clear request the server saw */
static int clears;		/* and how many it saw */

static void fake_answer(int fd, const char *line)
{
	const char *rep = "err EINVAL unknown\n";

	if (!strncmp(line, "version", 7))
		rep = "ok version 1 hipsvm-hook\n";
	else if (!strncmp(line, "set", 3))
		rep = "ok set 0=0x10 1=0x10 2=0x10 3=0x10\n";
	else if (!strncmp(line, "drain", 5) && fake_mode == FAKE_SLOW) {
		/* late, but well within the drain's own deadline */
		struct timespec ts = { .tv_sec = 0, .tv_nsec = 400 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		rep = "ok drain 0=ok 1=ok 2=ok 3=ok\n";
	} else if (!strncmp(line, "drain", 5))
		rep = fake_mode == FAKE_SILENT ? NULL :
		      "ok drain 0=timeout 1=ok 2=ok 3=ok\n";
	else if (!strncmp(line, "clear", 5)) {
		snprintf(last_clear, sizeof(last_clear), "%s", line);
		__atomic_add_fetch(&clears, 1, __ATOMIC_RELAXED);
		rep = "ok clear 0=cleared 1=cleared 2=cleared 3=cleared\n";
	}
	else if (!strncmp(line, "stats", 5))
		rep = "ok stats g0.faults_raised=7 g0.faults_dropped=2\n";
	if (rep && send(fd, rep, strlen(rep), MSG_NOSIGNAL) < 0)
		return;
}

static void *fake_server(void *arg)
{
	struct pollfd p[32];
	int n = 1, i;

	(void)arg;
	p[0].fd = fake_listen;
	p[0].events = POLLIN;
	for (;;) {
		if (poll(p, (nfds_t)n, -1) < 0)
			continue;
		if ((p[0].revents & POLLIN) && n < 32) {
			p[n].fd = accept(fake_listen, NULL, NULL);
			p[n].events = POLLIN;
			if (p[n].fd >= 0)
				n++;
		}
		for (i = 1; i < n; i++) {
			char buf[512];
			ssize_t k;

			if (!(p[i].revents & (POLLIN | POLLHUP)))
				continue;
			k = read(p[i].fd, buf, sizeof(buf) - 1);
			if (k <= 0) {
				close(p[i].fd);
				p[i] = p[--n];
				i--;
				continue;
			}
			buf[k] = '\0';
			fake_answer(p[i].fd, buf);	/* one request at a time per connection */
		}
	}
	return NULL;
}

static void fake_start(enum fake_mode mode)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	pthread_t t;

	fake_mode = mode;
	snprintf(fake_path, sizeof(fake_path), "/tmp/hipsvm-fakehook.%d.sock", getpid());
	unlink(fake_path);
	strcpy(sa.sun_path, fake_path);
	fake_listen = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert(fake_listen >= 0);
	cr_assert_eq(bind(fake_listen, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(listen(fake_listen, 16), 0);
	pthread_create(&t, NULL, fake_server, NULL);
	pthread_detach(t);
}

Test(hook, drain_timeout_is_reported)
{
	static char hookenv[160];
	const char *argv[] = { prog("pl_target"), "partial", NULL };
	const char *env[] = { hookenv, NULL };

	fake_start(FAKE_TIMEOUT);
	snprintf(hookenv, sizeof(hookenv), "HIPSVM_HOOK=unix:%s", fake_path);
	run(&R, RT_SIM, true, argv, env);
	unlink(fake_path);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.err, "drain of GPU 0 timed out"), "%s", R.err);
	cr_expect(strstr(R.report, "\"state\":\"connected\""), "%s", R.report);
	cr_expect(strstr(R.report, fake_path), "%s", R.report);
	cr_expect_geq(jnum(R.report, DEV(0), "drain_timeouts"), 2, "%s", R.report);
	cr_expect_eq(jnum(R.report, DEV(1), "drain_timeouts"), 0, "%s", R.report);
	cr_expect_geq(jnum(R.report, DEV(0), "checkpoints_set"), 2, "%s", R.report);
	cr_expect_eq(jnum(R.report, DEV(0), "raised"), 7, "%s", R.report);
	cr_expect_eq(jnum(R.report, DEV(0), "dropped"), 2, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "uncoordinated"), 0, "%s", R.report);
	/* GPU 0 timed out: its checkpoint stays (stale faults may still be in
	 * its ring), the others are cleared with the values set. */
	cr_expect_str_eq(last_clear, "clear 1=0x10,2=0x10,3=0x10\n");
}

Test(hook, a_thread_cancelled_in_a_drain_finishes_its_munmap)
{
	static char hookenv[160];
	const char *argv[] = { prog("pl_target"), "cancel", NULL };
	const char *env[] = { hookenv, NULL };

	fake_start(FAKE_SLOW);
	snprintf(hookenv, sizeof(hookenv), "HIPSVM_HOOK=unix:%s", fake_path);
	run(&R, RT_SIM, true, argv, env);
	unlink(fake_path);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.out, "cancelled munmap returned 0"), "%s%s", R.out, R.err);
	/* every checkpoint set was cleared: the cancelled thread's too */
	cr_expect_geq(jnum(R.report, SEC("unmaps"), "coordinated"), 2, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "uncoordinated"), 0, "%s", R.report);
	cr_expect_geq(__atomic_load_n(&clears, __ATOMIC_RELAXED), 2, "%d clears", clears);
}

Test(hook, silent_hook_never_hangs)
{
	static char hookenv[160];
	const char *argv[] = { prog("pl_target"), "partial", NULL };
	const char *env[] = { hookenv, "HIPSVM_DRAIN_TIMEOUT_MS=1", NULL };
	time_t t0 = time(NULL);

	fake_start(FAKE_SILENT);
	snprintf(hookenv, sizeof(hookenv), "HIPSVM_HOOK=unix:%s", fake_path);
	run(&R, RT_SIM, true, argv, env);
	unlink(fake_path);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect_lt(time(NULL) - t0, 60);
	cr_expect(strstr(R.err, "checkpoint hook request failed"), "%s", R.err);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "coordinated"), 0, "%s", R.report);
	cr_expect_geq(jnum(R.report, SEC("unmaps"), "uncoordinated"), 3, "%s", R.report);
	cr_expect_eq(jnum(R.report, SEC("unmaps"), "live_svm_unmapped"), 2, "%s", R.report);
}

Test(hook, verbose_prints_the_option_table)
{
	const char *argv[] = { prog("pl_target"), "internal", NULL };
	const char *env[] = { "HIPSVM_VERBOSE=yes", "HIPSVM_POLICY=map-all", NULL };

	run(&R, RT_SIM, true, argv, env);
	cr_assert_eq(R.code, 0, "%s%s", R.out, R.err);
	cr_expect(strstr(R.err, "HIPSVM_DRAIN_TIMEOUT_MS="), "%s", R.err);
	cr_expect(strstr(R.err, "policy map-all"), "%s", R.err);
}
