/* SPDX-License-Identifier: MIT */
/*
 * The hook client against what it must not trust (docs/security.md): paths
 * that are not the module's file, servers of another user or another
 * process, and servers that stall, drip, lie, hang up or flood. Each hostile
 * server case has the bound its request must hold, measured.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "shim/hook.h"
#include "hostile_srv.h"

static uint64_t ms_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* ---- paths that are not a hook: refused, never opened for writing ---- */

Test(hook_hostile, a_regular_file_is_refused_and_left_as_it_was)
{
	char dir[] = "/tmp/hipsvm-hookfile-XXXXXX", path[64], buf[32] = { 0 };
	struct hipsvm_hook h;
	struct stat before, after;
	int fd;

	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/victim", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_eq(write(fd, "precious\n", 9), 9);
	close(fd);
	cr_assert_eq(stat(path, &before), 0);
	hipsvm_hook_init(&h);
	cr_assert_eq(hipsvm_hook_open(&h, path), -EMEDIUMTYPE);
	cr_assert_eq(h.fd, -1);
	cr_assert_eq(stat(path, &after), 0);
	fd = open(path, O_RDONLY);
	cr_assert_eq(read(fd, buf, sizeof(buf) - 1), 9);
	close(fd);
	cr_assert_str_eq(buf, "precious\n");
	/* not even opened for writing: the change time would move on a
	 * truncation, and an open for writing would show in inotify */
	cr_assert_eq(after.st_ctim.tv_sec, before.st_ctim.tv_sec);
	cr_assert_eq(after.st_ctim.tv_nsec, before.st_ctim.tv_nsec);
	unlink(path);
	rmdir(dir);
}

Test(hook_hostile, a_fifo_or_a_device_is_refused_without_blocking)
{
	char dir[] = "/tmp/hipsvm-hookfifo-XXXXXX", path[64];
	struct hipsvm_hook h;
	uint64_t t0 = ms_now();

	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	hipsvm_hook_init(&h);
	/* an open for writing would block here for ever: no reader */
	cr_assert_eq(hipsvm_hook_open(&h, path), -EMEDIUMTYPE);
	cr_assert_eq(hipsvm_hook_open(&h, "/dev/null"), -EMEDIUMTYPE);
	cr_assert_eq(hipsvm_hook_open(&h, "/tmp"), -EMEDIUMTYPE);
	cr_assert_lt(ms_now() - t0, 1000);
	unlink(path);
	rmdir(dir);
}

Test(hook_hostile, a_socket_path_is_spoken_to_as_a_socket)
{
	char path[64];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct hipsvm_hook h;
	int lfd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(path, sizeof(path), "/tmp/hipsvm-hooksock.%d", getpid());
	unlink(path);
	strcpy(sa.sun_path, path);
	cr_assert_eq(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(listen(lfd, 1), 0);
	hipsvm_hook_init(&h);
	cr_assert_eq(hipsvm_hook_open(&h, path), 0, "a socket named by its path");
	cr_assert_eq(h.is_file, false);
	cr_assert_eq(h.peer_pid, getpid());
	hipsvm_hook_close(&h);
	close(lfd);
	unlink(path);
}

/* ---- who serves a socket ---- */

Test(hook_hostile, a_server_of_another_user_is_refused_before_anything_is_sent)
{
	struct hostile srv;
	struct hipsvm_hook h;
	char name[64], at[80], why[96];

	if (geteuid() != 0)
		cr_skip_test("needs root to run a server as uid %d", HOSTILE_NOBODY);
	snprintf(name, sizeof(name), "hipsvm-test-hostile.%d", getpid());
	snprintf(at, sizeof(at), "@%s", name);
	cr_assert_eq(hostile_start(&srv, name, HOSTILE_NOBODY, why, sizeof(why)), 0, "%s", why);
	hipsvm_hook_init(&h);
	cr_expect_eq(hipsvm_hook_open(&h, at), -EACCES);
	cr_expect_eq(h.peer_uid, (uint32_t)HOSTILE_NOBODY);
	cr_expect_eq(h.peer_pid, srv.pid);
	cr_expect_eq(h.fd, -1);
	cr_expect_eq(hostile_stop(&srv), 0, "the stranger was sent nothing");
}

Test(hook_hostile, the_simulators_name_served_by_another_process_is_refused)
{
	struct hostile srv;
	struct hipsvm_hook h;
	char name[64], at[80], why[96];

	snprintf(name, sizeof(name), "hipsvm-sim.%d", getpid());
	snprintf(at, sizeof(at), "@%s", name);
	/* our own user, but not this process: a process of ours may serve a
	 * hook the user names, never the one meant to be our simulator */
	cr_assert_eq(hostile_start(&srv, name, -1, why, sizeof(why)), 0, "%s", why);
	hipsvm_hook_init(&h);
	h.server_pid = getpid();
	cr_expect_eq(hipsvm_hook_open(&h, at), -EPERM);
	cr_expect_eq(h.peer_pid, srv.pid);
	hipsvm_hook_init(&h);
	cr_expect_eq(hipsvm_hook_open(&h, at), 0, "the same server, named by the user");
	hipsvm_hook_close(&h);
	cr_expect_eq(hostile_stop(&srv), 0);
}

Test(hook_hostile, auto_names_the_squatter_so_that_the_open_refuses_it)
{
	struct hostile srv;
	struct hipsvm_hook h;
	char name[64], out[HIPSVM_HOOK_PATH_MAX], why[96];
	int spid = 0;

	if (access(HIPSVM_HOOK_DEBUGFS, W_OK) == 0)
		cr_skip_test("the module is loaded: auto picks it");
	if (geteuid() != 0)
		cr_skip_test("needs root to run a server as uid %d", HOSTILE_NOBODY);
	snprintf(name, sizeof(name), "hipsvm-sim.%d", getpid());
	cr_assert_eq(hostile_start(&srv, name, HOSTILE_NOBODY, why, sizeof(why)), 0, "%s", why);
	cr_expect_eq(hipsvm_hook_resolve("auto", getpid(), NULL, out, sizeof(out), &spid), 0);
	cr_expect_eq(out[0], '@');
	cr_expect_str_eq(out + 1, name);
	cr_expect_eq(spid, getpid());
	hipsvm_hook_init(&h);
	h.server_pid = spid;
	cr_expect_eq(hipsvm_hook_open(&h, out), -EACCES);
	cr_expect_eq(hostile_stop(&srv), 0);
}

Test(hook_hostile, auto_finds_the_simulator_where_it_says_it_listens)
{
	char path[64], hint[80], out[HIPSVM_HOOK_PATH_MAX];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int lfd = socket(AF_UNIX, SOCK_STREAM, 0), spid = 0;

	if (access(HIPSVM_HOOK_DEBUGFS, W_OK) == 0)
		cr_skip_test("the module is loaded: auto picks it");
	snprintf(path, sizeof(path), "/tmp/hipsvm-simsock.%d", getpid());
	unlink(path);
	strcpy(sa.sun_path, path);
	cr_assert_eq(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(listen(lfd, 1), 0);
	cr_expect_eq(hipsvm_hook_resolve("auto", getpid(), path, out, sizeof(out), &spid), 0);
	snprintf(hint, sizeof(hint), "unix:%s", path);
	cr_expect_str_eq(out, hint);
	cr_expect_eq(spid, getpid());
	/* and without the hint, the default name, where nobody listens */
	cr_expect_eq(hipsvm_hook_resolve("auto", getpid(), NULL, out, sizeof(out), &spid), -ENOENT);
	close(lfd);
	unlink(path);
}

/* ---- servers that misbehave: each request within its bound ---- */

enum misbehave { NEVER, DRIP, GARBAGE, HANGUP, FLOOD_BYTES, FLOOD_LINES, SLOW_LATE };

struct hcase {
	const char *name;
	enum misbehave mode;
	bool drain;		/* a drain (else a version request) */
	int err;		/* what the call returns; ANY_ERR: some -errno (a reply that
				 * does not parse: the parser's word for it) */
	unsigned min_ms, max_ms;	/* elapsed, measured */
};

/* reply_timeout_ms 300; a drain of 100 ms gets 100 + HIPSVM_HOOK_MARGIN_MS */
#define REPLY_MS 300
#define DRAIN_MS 100
#define DRAIN_BOUND (DRAIN_MS + HIPSVM_HOOK_MARGIN_MS)
#define SLACK 400
#define ANY_ERR 1

static const struct hcase cases[] = {
	{ "never answers a version", NEVER, false, -ETIMEDOUT, REPLY_MS - 20, REPLY_MS + SLACK },
	{ "never answers a drain", NEVER, true, -ETIMEDOUT, DRAIN_BOUND - 20, DRAIN_BOUND + SLACK },
	{ "drips a version, no newline", DRIP, false, -ETIMEDOUT, REPLY_MS - 20, REPLY_MS + SLACK },
	{ "drips a drain, no newline", DRIP, true, -ETIMEDOUT, DRAIN_BOUND - 20,
	  DRAIN_BOUND + SLACK },
	{ "answers garbage", GARBAGE, true, ANY_ERR, 0, SLACK },
	{ "closes mid-drain", HANGUP, true, -ECONNRESET, 0, SLACK },
	{ "floods bytes without a newline", FLOOD_BYTES, true, -E2BIG, 0, SLACK },
	{ "floods whole lines", FLOOD_LINES, true, -EPROTO, 0, SLACK },
	{ "answers a drain just after its bound", SLOW_LATE, true, -ETIMEDOUT,
	  DRAIN_BOUND - 20, DRAIN_BOUND + SLACK },
};

struct bad_server {
	int lfd;
	enum misbehave mode;
	volatile bool stop;
};

static void pause_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static void *bad_serve(void *arg)
{
	struct bad_server *s = arg;
	char buf[512], flood[4096];
	int fd = accept(s->lfd, NULL, NULL);
	unsigned i;

	if (fd < 0)
		return NULL;
	if (read(fd, buf, sizeof(buf)) <= 0)
		goto out;
	switch (s->mode) {
	case NEVER:
		while (!s->stop && read(fd, buf, sizeof(buf)) > 0)
			;
		break;
	case DRIP:
		/* a byte every 50 ms, for longer than any bound */
		for (i = 0; i < 200 && !s->stop; i++) {
			if (send(fd, "o", 1, MSG_NOSIGNAL) != 1)
				break;
			pause_ms(50);
		}
		break;
	case GARBAGE:
		(void)!send(fd, "\x01\x02 ok drain 0==\n", 16, MSG_NOSIGNAL);
		pause_ms(200);
		break;
	case HANGUP:
		(void)!send(fd, "ok drain 0=", 11, MSG_NOSIGNAL);
		break;
	case FLOOD_BYTES:
		memset(flood, 'x', sizeof(flood));
		for (i = 0; i < 256 && !s->stop; i++)
			if (send(fd, flood, sizeof(flood), MSG_NOSIGNAL) < 0)
				break;
		break;
	case FLOOD_LINES:
		/* whole lines, many to a send: the first read holds more than
		 * one reply, a server out of step with its client */
		for (i = 0; i + 14 <= sizeof(flood); i += 14)
			memcpy(flood + i, "ok drain 0=ok\n", 14);
		for (i = 0; i < 64 && !s->stop; i++)
			if (send(fd, flood, sizeof(flood) / 14 * 14, MSG_NOSIGNAL) < 0)
				break;
		break;
	case SLOW_LATE:
		pause_ms(DRAIN_BOUND + 300);
		(void)!send(fd, "ok drain 0=ok\n", 14, MSG_NOSIGNAL);
		break;
	}
out:
	close(fd);
	return NULL;
}

Test(hook_hostile, misbehaving_servers_hold_their_bounds)
{
	size_t k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct hcase *c = &cases[k];
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		struct bad_server s = { .mode = c->mode };
		int res[HIPSVM_MAX_GPUS];
		struct hipsvm_hook h;
		char name[64];
		pthread_t thr;
		uint64_t t0, dt;
		size_t n;
		int rc;

		snprintf(name, sizeof(name), "@hipsvm-test-bad.%d.%zu", getpid(), k);
		n = strlen(name + 1);
		memcpy(sa.sun_path + 1, name + 1, n);
		s.lfd = socket(AF_UNIX, SOCK_STREAM, 0);
		cr_assert_eq(bind(s.lfd, (struct sockaddr *)&sa,
				  (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)), 0);
		cr_assert_eq(listen(s.lfd, 1), 0);
		cr_assert_eq(pthread_create(&thr, NULL, bad_serve, &s), 0);
		hipsvm_hook_init(&h);
		h.reply_timeout_ms = REPLY_MS;
		cr_assert_eq(hipsvm_hook_open(&h, name), 0);
		t0 = ms_now();
		rc = c->drain ? hipsvm_hook_drain(&h, 1, DRAIN_MS, res) : hipsvm_hook_version(&h);
		dt = ms_now() - t0;
		if (c->err == ANY_ERR)
			cr_expect_lt(rc, 0, "%s: %d, not an error", c->name, rc);
		else
			cr_expect_eq(rc, c->err, "%s: %d, not %d", c->name, rc, c->err);
		cr_expect(dt >= c->min_ms && dt <= c->max_ms, "%s: %llu ms, bound %u..%u ms", c->name,
			  (unsigned long long)dt, c->min_ms, c->max_ms);
		cr_expect_eq(h.fd, -1, "%s: the connection is closed", c->name);
		cr_log_info("%-40s %5llu ms (bound %u ms)", c->name, (unsigned long long)dt,
			    c->max_ms);
		s.stop = true;
		hipsvm_hook_close(&h);
		pthread_join(thr, NULL);
		close(s.lfd);
	}
}
