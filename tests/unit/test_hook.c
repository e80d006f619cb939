/* SPDX-License-Identifier: MIT */
/* The hook client against a small in-test server that speaks proto.h. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "shared/checkpoint.h"
#include "shim/hook.h"
#include "shim/testing.h"

/* The server: answers set with a checkpoint per GPU (none for GPU 1), drain
 * with ok/timeout/nodev per GPU index modulo 3, and records every request. */
struct server {
	int lfd;
	char name[64];
	pthread_t thr;
	int mode;		/* 0 normal, 1 close after accept, 2 never answer */
	char last[4][HIPSVM_PROTO_MAX_REQ + 1];
	int nreq;
};

static void answer(struct server *s, int fd, const char *line, size_t len)
{
	static const char *const drain_words[] = { "ok", "timeout", "nodev" };
	char out[HIPSVM_PROTO_MAX_REPLY];
	struct hipsvm_cmd c;
	struct hipsvm_out o;
	unsigned g;
	int n;

	if (s->nreq < 4) {
		memcpy(s->last[s->nreq], line, len);
		s->last[s->nreq][len] = '\0';
	}
	s->nreq++;
	if (hipsvm_proto_parse(line, len, &c)) {
		n = hipsvm_proto_error(out, sizeof(out), -EINVAL, "bad request");
		cr_assert_gt(write(fd, out, (size_t)n), 0);
		return;
	}
	hipsvm_out_init(&o, out, sizeof(out));
	hipsvm_out_str(&o, "ok ");
	hipsvm_out_str(&o, hipsvm_op_name(c.op));
	switch (c.op) {
	case HIPSVM_OP_VERSION:
		hipsvm_out_str(&o, " 1 hipsvm-hook");
		break;
	case HIPSVM_OP_GPUS:
		hipsvm_out_kv(&o, "n", 4);
		break;
	case HIPSVM_OP_SET:
		for (g = 0; g < 4; g++)
			if (c.gpus >> g & 1) {
				hipsvm_out_str(&o, " ");
				hipsvm_out_u64(&o, g);
				hipsvm_out_str(&o, g == 1 ? "=none" : "=");
				if (g != 1)
					hipsvm_out_hex(&o, 0x1000 + g);
			}
		break;
	case HIPSVM_OP_DRAIN:
		for (g = 0; g < 4; g++)
			if (c.gpus >> g & 1)
				hipsvm_out_gpu_word(&o, g, drain_words[g % 3]);
		break;
	case HIPSVM_OP_CLEAR:
		for (g = 0; g < 4; g++)
			if (c.gpus >> g & 1)
				hipsvm_out_gpu_word(&o, g, "cleared");
		break;
	case HIPSVM_OP_DRAINCLEAR:
		/* drain as above; a GPU given a value whose drain passed: GPU 0
		 * cleared, GPU 3 kept (another value by now) */
		for (g = 0; g < 4; g++) {
			if (!(c.gpus >> g & 1))
				continue;
			hipsvm_out_gpu_word(&o, g, drain_words[g % 3]);
			if (c.has_value >> g & 1 && g % 3 == 0)
				hipsvm_out_str(&o, g == 0 ? "/cleared" : "/kept");
		}
		break;
	case HIPSVM_OP_STATS:
		hipsvm_out_kv(&o, "sets", 3);
		hipsvm_out_kv(&o, "g0.faults_handled", 42);
		break;
	default:
		n = hipsvm_proto_error(out, sizeof(out), -ENOSYS, "not here");
		cr_assert_gt(write(fd, out, (size_t)n), 0);
		return;
	}
	n = hipsvm_out_end(&o);
	cr_assert_gt(n, 0);
	cr_assert_eq(write(fd, out, (size_t)n), n);
}

static void *serve(void *arg)
{
	struct server *s = arg;
	int fd = accept(s->lfd, NULL, NULL);
	char buf[1024];
	size_t have = 0;

	if (fd < 0)
		return NULL;
	if (s->mode == 1) {
		close(fd);
		return NULL;
	}
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - have);
		char *nl;

		if (n <= 0)
			break;
		have += (size_t)n;
		while ((nl = memchr(buf, '\n', have))) {
			size_t len = (size_t)(nl - buf) + 1;

			if (s->mode != 2)
				answer(s, fd, buf, len);
			memmove(buf, buf + len, have - len);
			have -= len;
		}
	}
	close(fd);
	return NULL;
}

static void start(struct server *s, int mode)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n;

	memset(s, 0, sizeof(*s));
	s->mode = mode;
	snprintf(s->name, sizeof(s->name), "@hipsvm-test-hook.%d.%d", getpid(), mode);
	n = strlen(s->name + 1);
	memcpy(sa.sun_path + 1, s->name + 1, n);
	s->lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	cr_assert_geq(s->lfd, 0);
	cr_assert_eq(bind(s->lfd, (struct sockaddr *)&sa,
			  (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)), 0);
	cr_assert_eq(listen(s->lfd, 4), 0);
	cr_assert_eq(pthread_create(&s->thr, NULL, serve, s), 0);
}

static void stop(struct server *s)
{
	shutdown(s->lfd, SHUT_RDWR);
	close(s->lfd);
}

Test(hook, workflow_over_a_socket)
{
	static struct server s;	/* the server thread may outlive the test body */
	struct hipsvm_hook h;
	uint64_t cp[HIPSVM_MAX_GPUS] = { 0 }, mask = 0;
	int res[HIPSVM_MAX_GPUS];
	struct hipsvm_reply r;

	start(&s, 0);
	hipsvm_hook_init(&h);
	cr_assert_eq(hipsvm_hook_open(&h, s.name), 0);
	cr_assert_eq(hipsvm_hook_version(&h), 1);
	cr_assert_eq(hipsvm_hook_gpus(&h), 4);
	cr_assert_eq(hipsvm_hook_set(&h, 0x7, 0x7f0000000000ull, 8192, cp, &mask), 0);
	cr_assert_eq(mask, 0x5, "GPU 1 had empty rings");
	cr_assert_eq(cp[0], 0x1000);
	cr_assert_eq(cp[2], 0x1002);
	cr_assert_str_eq(s.last[2], "set 0,1,2 0x7f0000000000 8192\n");
	cr_assert_eq(hipsvm_hook_drain(&h, 0x7, 250, res), 0);
	cr_assert_eq(res[0], 0);
	cr_assert_eq(res[1], -ETIME);
	cr_assert_eq(res[2], -ENODEV);
	cr_assert_eq(hipsvm_hook_clear(&h, 0x7, cp, mask), 0);
	cr_assert_eq(hipsvm_hook_stats(&h, 0x300, &r), 0);
	cr_assert_str_eq(hipsvm_reply_get(&r, "g0.faults_handled"), "42");
	hipsvm_hook_close(&h);
	pthread_join(s.thr, NULL);
	cr_assert_eq(s.nreq, 6);
	stop(&s);
}

Test(hook, clear_sends_expected_values)
{
	static struct server s;	/* the server thread may outlive the test body */
	struct hipsvm_hook h;
	uint64_t cp[HIPSVM_MAX_GPUS] = { 0 };

	start(&s, 0);
	hipsvm_hook_init(&h);
	cr_assert_eq(hipsvm_hook_open(&h, s.name), 0);
	cp[0] = 0x1234;
	cp[3] = 0xabc;
	cr_assert_eq(hipsvm_hook_clear(&h, 0xb, cp, 0x9), 0);
	hipsvm_hook_close(&h);
	pthread_join(s.thr, NULL);
	cr_assert_str_eq(s.last[0], "clear 0=0x1234,1,3=0xabc\n");
	stop(&s);
}

Test(hook, drainclear_one_request)
{
	static struct server s;	/* the server thread may outlive the test body */
	struct hipsvm_hook h;
	uint64_t cp[HIPSVM_MAX_GPUS] = { 0 }, cleared = 77;
	int res[HIPSVM_MAX_GPUS];

	start(&s, 0);
	hipsvm_hook_init(&h);
	cr_assert_eq(hipsvm_hook_open(&h, s.name), 0);
	cp[0] = 0x1234;
	cp[1] = 0x55;
	cp[3] = 0xabc;
	cr_assert_eq(hipsvm_hook_drainclear(&h, 0xf, 700000, cp, 0xb, res, &cleared), 0);
	cr_assert_str_eq(s.last[0], "drainclear 0=0x1234,1=0x55,2,3=0xabc 600000\n",
			 "values for the GPUs set, the timeout capped at the protocol's maximum");
	cr_assert_eq(res[0], 0);
	cr_assert_eq(res[1], -ETIME);
	cr_assert_eq(res[2], -ENODEV);
	cr_assert_eq(res[3], 0, "\"ok/kept\" is a drain that passed");
	cr_assert_eq(cleared, 0x1, "only GPU 0 answered cleared");
	hipsvm_hook_close(&h);
	pthread_join(s.thr, NULL);
	stop(&s);
}

Test(hook, server_errors_are_statuses)
{
	static struct server s;	/* the server thread may outlive the test body */
	struct hipsvm_hook h;
	struct hipsvm_cmd c = { .op = HIPSVM_OP_LOG };
	struct hipsvm_reply r;

	start(&s, 0);
	hipsvm_hook_init(&h);
	cr_assert_eq(hipsvm_hook_open(&h, s.name), 0);
	cr_assert_eq(hipsvm_hook_call(&h, &c, &r), 0);
	cr_assert_eq(r.status, -ENOSYS);
	cr_assert_str_eq(r.detail, "not here");
	cr_assert_geq(h.fd, 0, "a server error keeps the connection");
	hipsvm_hook_close(&h);
	pthread_join(s.thr, NULL);
	stop(&s);
}

Test(hook, a_server_that_goes_away_is_a_transport_error_not_a_signal)
{
	static struct server s;	/* the server thread may outlive the test body */
	struct hipsvm_hook h;
	uint64_t cp[HIPSVM_MAX_GPUS], mask;

	start(&s, 1);
	hipsvm_hook_init(&h);
	cr_assert_eq(hipsvm_hook_open(&h, s.name), 0);
	pthread_join(s.thr, NULL);
	/* The write may succeed or hit EPIPE; SIGPIPE must not kill us. */
	cr_assert_lt(hipsvm_hook_set(&h, 1, 0, 0, cp, &mask), 0);
	cr_assert_eq(h.fd, -1, "closed after a transport error");
	cr_assert_eq(hipsvm_hook_version(&h), -ENOTCONN);
	stop(&s);
}

Test(hook, a_silent_server_times_out)
{
	static struct server s;	/* the server thread may outlive the test body */
	struct hipsvm_hook h;

	start(&s, 2);
	hipsvm_hook_init(&h);
	h.reply_timeout_ms = 100;
	cr_assert_eq(hipsvm_hook_open(&h, s.name), 0);
	cr_assert_eq(hipsvm_hook_version(&h), -ETIMEDOUT);
	stop(&s);
}

Test(hook, resolve)
{
	char out[HIPSVM_HOOK_PATH_MAX];
	static struct server s;	/* the server thread may outlive the test body */
	int spid = -1;

	cr_assert_eq(hipsvm_hook_resolve("none", 1, NULL, out, sizeof(out), &spid), -ENOENT);
	cr_assert_eq(hipsvm_hook_resolve("", 1, NULL, out, sizeof(out), &spid), -ENOENT);
	cr_assert_eq(hipsvm_hook_resolve("unix:/tmp/h.%p", 42, NULL, out, sizeof(out), &spid), 0);
	cr_assert_str_eq(out, "unix:/tmp/h.42");
	cr_assert_eq(spid, 0, "a socket of the user's choosing: any process of ours");
	/* the simulator's own names must be served by this very process */
	cr_assert_eq(hipsvm_hook_resolve("@hipsvm-sim.%p", 42, NULL, out, sizeof(out), &spid), 0);
	cr_assert_eq(spid, 42);
	cr_assert_eq(hipsvm_hook_resolve("unix:/tmp/s.%p", 42, "/tmp/s.42", out, sizeof(out),
					 &spid), 0);
	cr_assert_eq(spid, 42);
	if (access(HIPSVM_HOOK_DEBUGFS, W_OK) == 0)
		return;	/* a machine with the module loaded answers differently */
	/* auto: nothing listening for a made-up pid */
	cr_assert_eq(hipsvm_hook_resolve("auto", 999999999, NULL, out, sizeof(out), &spid), -ENOENT);
	/* auto finds the simulator's socket name of this pid */
	start(&s, 1);
	{
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		char name[64];
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		size_t n;

		snprintf(name, sizeof(name), "hipsvm-sim.%d", getpid());
		n = strlen(name);
		memcpy(sa.sun_path + 1, name, n);
		cr_assert_eq(bind(fd, (struct sockaddr *)&sa,
				  (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)), 0);
		cr_assert_eq(listen(fd, 1), 0);
		cr_assert_eq(hipsvm_hook_resolve("auto", getpid(), NULL, out, sizeof(out), &spid), 0);
		cr_assert_eq(spid, getpid());
		cr_assert_str_eq(out + 1, name);
		cr_assert_eq(out[0], '@');
		close(fd);
	}
	stop(&s);
}

Test(hook, bad_paths)
{
	struct hipsvm_hook h;

	hipsvm_hook_init(&h);
	cr_assert_eq(hipsvm_hook_open(&h, ""), -EINVAL);
	cr_assert_eq(hipsvm_hook_open(&h, "tcp:1.2.3.4"), -EINVAL);
	cr_assert_eq(hipsvm_hook_open(&h, "@"), -ENAMETOOLONG);
	cr_assert_lt(hipsvm_hook_open(&h, "/nonexistent/hook"), 0);
	cr_assert_lt(hipsvm_hook_open(&h, "@hipsvm-nobody-listens-here"), 0);
	cr_assert_eq(h.fd, -1);
}
