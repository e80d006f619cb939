/* SPDX-License-Identifier: MIT */
/*
 * kt_proto.c - protocol conformance of /sys/kernel/debug/hipsvm/hook: every
 * command, malformed and oversize requests (EINVAL, state unchanged), the
 * reply read back with read() and pread(). Run in the QEMU guest with the
 * module loaded with ngpus=4.
 */
#include "ktest.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct hipsvm_reply r;
static char buf[HIPSVM_PROTO_MAX_REPLY + 1];

static void test_version_gpus(int fd)
{
	int w = kt_req(fd, "version", buf, sizeof(buf));

	kt_check(w == 8, "version: write returns the request length (%d)", w);
	kt_check(!strcmp(buf, "ok version 2 hipsvm-hook\n"), "version reply: %s", buf);
	kt_reqp(fd, "gpus", &r);
	kt_check(r.status == 0 && !strcmp(r.op, "gpus") && kt_num(&r, "n", 0) == 4,
		 "gpus: n=4 (got %llu)", (unsigned long long)kt_num(&r, "n", 0));
}

static void test_stats(int fd)
{
	kt_reqp(fd, "stats", &r);
	kt_check(r.status == 0 && !strcmp(r.op, "stats"), "stats: ok");
	kt_check(kt_num(&r, "tgid", 0) == (uint64_t)getpid(), "stats: tgid is ours");
	kt_check(kt_num(&r, "pasid", 0) > 0 && kt_num(&r, "pasid", 0) <= 0xffff,
		 "stats: pasid in 1..65535");
	kt_check(kt_num(&r, "gpus", 0) == 4 && hipsvm_reply_get(&r, "cp3") &&
		 !hipsvm_reply_get(&r, "cp4"), "stats: one checkpoint per GPU");
	kt_check(!hipsvm_reply_get(&r, "g0.faults_handled"), "stats: no per-GPU counters unasked");
	kt_reqp(fd, "stats 1-2", &r);
	kt_check(r.status == 0 && hipsvm_reply_get(&r, "cp1") && hipsvm_reply_get(&r, "cp2") &&
		 !hipsvm_reply_get(&r, "cp0") && !hipsvm_reply_get(&r, "cp3") &&
		 hipsvm_reply_get(&r, "g1.faults_handled") && hipsvm_reply_get(&r, "g2.faults_dropped") &&
		 kt_num(&r, "gpus", 0) == 4, "stats 1-2: the sums, and GPUs 1 and 2 alone");
	kt_reqp(fd, "stats 7", &r);
	kt_check(r.status == 0 && !hipsvm_reply_get(&r, "cp7"), "stats 7: no such GPU, nothing listed");
}

static void test_set_drain_clear(int fd)
{
	kt_reqp(fd, "set all", &r);
	kt_check(r.status == 0 && r.ntok == 4 && !strcmp(kt_word(&r, "0"), "none") &&
		 !strcmp(kt_word(&r, "3"), "none"), "set all on empty rings: every GPU none");
	kt_reqp(fd, "set 0,2 0x7f0000000000 8192", &r);
	kt_check(r.status == 0 && r.ntok == 2 && hipsvm_reply_get(&r, "0") &&
		 hipsvm_reply_get(&r, "2"), "set 0,2 with a range");
	kt_reqp(fd, "set 1-3", &r);
	kt_check(r.status == 0 && r.ntok == 3 && !hipsvm_reply_get(&r, "0"), "set 1-3");
	kt_reqp(fd, "drain all", &r);
	kt_check(r.status == 0 && r.ntok == 4 && !strcmp(kt_word(&r, "0"), "ok") &&
		 !strcmp(kt_word(&r, "3"), "ok"), "drain all: ok");
	kt_reqp(fd, "drain 1 0", &r);
	kt_check(r.status == 0 && !strcmp(kt_word(&r, "1"), "ok"), "drain 1 0 (poll): ok");
	kt_reqp(fd, "drain 2 250", &r);
	kt_check(r.status == 0 && !strcmp(kt_word(&r, "2"), "ok"), "drain 2 250: ok");
	kt_reqp(fd, "clear all", &r);
	kt_check(r.status == 0 && r.ntok == 4 && !strcmp(kt_word(&r, "1"), "kept"),
		 "clear all without checkpoints: kept");
	kt_reqp(fd, "clear 0=0x1234,1", &r);
	kt_check(r.status == 0 && r.ntok == 2 && !strcmp(kt_word(&r, "0"), "kept"),
		 "clear 0=0x1234,1: kept");
}

static void test_inject_ring(int fd)
{
	uint64_t ts1, ts2;

	kt_reqp(fd, "inject 3 now 0x7f0000001000", &r);
	ts1 = kt_num(&r, "3", 0);
	kt_check(r.status == 0 && !strcmp(r.op, "inject") && ts1 != 0, "inject now: ok 3=0x%llx",
		 (unsigned long long)ts1);
	kt_reqp(fd, "inject 3 now 0x7f0000002000 w", &r);
	ts2 = kt_num(&r, "3", 0);
	kt_check(r.status == 0 && ts2 == ts1 + 1, "inject now again: the clock moved by one");
	kt_reqp(fd, "inject 3 0x100000 0x7f0000003000 r", &r);
	kt_check(r.status == 0 && kt_num(&r, "3", 0) == 0x100000, "inject with a chosen ts");
	kt_reqp(fd, "inject 3 now 0x1000", &r);
	kt_check(r.status == 0 && kt_num(&r, "3", 0) == 0x100001,
		 "a chosen ts after the clock moves the clock past it");
	kt_reqp(fd, "drain 3", &r);
	kt_check(r.status == 0 && !strcmp(kt_word(&r, "3"), "ok"), "drain after injections");

	kt_reqp(fd, "ring 2 ih1 off", &r);
	kt_check(r.status == 0 && !strcmp(r.op, "ring"), "ring 2 ih1 off: ok ring");
	kt_reqp(fd, "drain 2", &r);
	kt_check(r.status == 0 && !strcmp(kt_word(&r, "2"), "nodev"), "drain on a disabled ring: nodev");
	kt_reqp(fd, "inject 2 now 0x1000", &r);
	kt_check(r.status == -ENODEV, "inject into a disabled ring: err ENODEV");
	kt_reqp(fd, "ring 2 ih1 on", &r);
	kt_check(r.status == 0, "ring 2 ih1 on");
	kt_reqp(fd, "drain 2", &r);
	kt_check(r.status == 0 && !strcmp(kt_word(&r, "2"), "ok"), "drain after re-enabling: ok");
	kt_reqp(fd, "ring 1 ih0 off", &r);
	kt_check(r.status == 0, "ring 1 ih0 off");
	kt_reqp(fd, "ring 1 soft off", &r);
	kt_check(r.status == 0, "ring 1 soft off");
	kt_reqp(fd, "drain 1", &r);
	kt_check(!strcmp(kt_word(&r, "1"), "ok"), "without the CAM a drain waits on ih1 only");
	kt_reqp(fd, "ring 1 ih0 on", &r);
	kt_reqp(fd, "ring 1 soft on", &r);
}

static void test_log(int fd)
{
	struct kt_event ev[64];
	int n = kt_log(fd, ev, 64), i, sets = 0, drains = 0, clears = 0, faults = 0;

	kt_check(n > 0, "log: %d events", n);
	for (i = 0; i < n; i++) {
		sets += !strcmp(ev[i].op, "set");
		drains += !strcmp(ev[i].op, "drain");
		clears += !strcmp(ev[i].op, "clear");
		faults += !strcmp(ev[i].op, "handled") || !strcmp(ev[i].op, "dropped");
		if (i && ev[i].seq <= ev[i - 1].seq)
			break;
	}
	kt_check(i == n, "log: sequence numbers increase");
	kt_check(sets >= 9 && drains >= 8 && clears >= 6 && faults == 4,
		 "log: sets %d drains %d clears %d faults %d", sets, drains, clears, faults);
	kt_check(n > 0 && !strcmp(ev[0].op, "set") && !strcmp(ev[0].x, "none"),
		 "log: first event is the set on empty rings (%s:%s)", n ? ev[0].op : "",
		 n ? ev[0].x : "");
}

/* drainclear: one request for drain then clear; a GPU is cleared when
 * given a value and its drain passed, and only if the value is still that. */
static void test_drainclear(int fd)
{
	struct kt_event ev[64];
	uint64_t ts;
	char req[96];
	int n, i, d = -1, c = -1;

	kt_pause(0x2);
	kt_reqp(fd, "inject 1 now 0x7c0000001000", &r);
	ts = kt_num(&r, "1", 0);
	kt_reqp(fd, "set 0-1", &r);
	kt_check(r.status == 0 && kt_num(&r, "1", 0) == ts && !strcmp(kt_word(&r, "0"), "none"),
		 "set 0-1: 1=0x%llx 0=none", (unsigned long long)ts);
	snprintf(req, sizeof(req), "drainclear 0,1=0x%llx 50", (unsigned long long)ts);
	kt_reqp(fd, req, &r);
	kt_check(r.status == 0 && !strcmp(kt_word(&r, "0"), "ok") &&
		 !strcmp(kt_word(&r, "1"), "timeout"),
		 "drainclear while the handler is held back: 0=ok 1=timeout (%s)", kt_word(&r, "1"));
	kt_reqp(fd, "stats 1", &r);
	kt_check(kt_num(&r, "cp1", 0) == ts, "a GPU whose drain timed out keeps its checkpoint");
	kt_pause(0);
	snprintf(req, sizeof(req), "drainclear 0,1=0x%llx,2=0x%llx", (unsigned long long)ts,
		 (unsigned long long)ts);
	kt_reqp(fd, req, &r);
	kt_check(r.status == 0 && !strcmp(kt_word(&r, "0"), "ok") &&
		 !strcmp(kt_word(&r, "1"), "ok/cleared") && !strcmp(kt_word(&r, "2"), "ok/kept"),
		 "drainclear: 0=ok 1=ok/cleared 2=ok/kept (%s %s %s)", kt_word(&r, "0"),
		 kt_word(&r, "1"), kt_word(&r, "2"));
	kt_reqp(fd, "stats 1", &r);
	kt_check(kt_num(&r, "cp1", 1) == 0, "cleared");
	kt_reqp(fd, "drainclear 3,7=5", &r);
	kt_check(r.status == 0 && !strcmp(kt_word(&r, "3"), "ok") &&
		 !strcmp(kt_word(&r, "7"), "nodev"), "drainclear of an absent GPU: 7=nodev");
	n = kt_log(fd, ev, 64);
	for (i = 0; i < n; i++) {
		if (ev[i].gpu != 1)
			continue;
		if (!strcmp(ev[i].op, "drain"))
			d = i;
		if (!strcmp(ev[i].op, "clear"))
			c = i;
	}
	kt_check(d >= 0 && c > d && !strcmp(ev[c].x, "cleared"),
		 "log: GPU 1's drain, then its clear (cleared)");
}

static volatile sig_atomic_t got_alarm;

static void on_alarm(int sig)
{
	(void)sig;
	got_alarm = 1;
}

struct drain_arg {
	int fd;
	double took;
};

static void *long_drain(void *arg)
{
	struct drain_arg *a = arg;
	char out[256];
	double t0 = kt_now();

	kt_req(a->fd, "drain 2 3000", out, sizeof(out));
	a->took = kt_now() - t0;
	return NULL;
}

/* A read() that waits for the file's lock while a drain holds it can be
 * interrupted by a signal; and a pwrite() at any offset answers at 0. */
static void test_interruptible(int fd)
{
	struct sigaction sa;
	struct drain_arg a = { fd, 0 };
	pthread_t t;
	ssize_t rd;
	double t0, dt;
	int e;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART */
	sigaction(SIGALRM, &sa, NULL);
	kt_pause(0x4);
	kt_reqp(fd, "inject 2 now 0x7c0000002000", &r);
	pthread_create(&t, NULL, long_drain, &a);
	usleep(200 * 1000);		/* the drain holds the file's lock */
	alarm(1);
	t0 = kt_now();
	rd = read(fd, buf, sizeof(buf));
	e = errno;
	dt = kt_now() - t0;
	kt_check(rd < 0 && e == EINTR && got_alarm && dt < 2.5,
		 "read() waiting behind a drain ends with EINTR on a signal (%zd, errno %d, "
		 "%.2f s)", rd, e, dt);
	kt_pause(0);
	pthread_join(t, NULL);
	kt_check(a.took < 2.9, "the drain itself ended when the handler resumed (%.2f s)", a.took);
	kt_check(pwrite(fd, "version", 7, 100) == 7, "pwrite at offset 100");
	rd = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[rd > 0 ? rd : 0] = '\0';
	kt_check(!strcmp(buf, "ok version 2 hipsvm-hook\n"), "its reply at offset 0: %s", buf);
}

/* A GPU that does not exist is not a malformed request. */
static void test_absent_gpu(int fd)
{
	kt_reqp(fd, "set 0,5", &r);
	kt_check(r.status == 0 && !strcmp(kt_word(&r, "0"), "none") &&
		 !strcmp(kt_word(&r, "5"), "nodev"), "set 0,5: 5=nodev");
	kt_reqp(fd, "drain 3-4 100", &r);
	kt_check(r.status == 0 && !strcmp(kt_word(&r, "3"), "ok") &&
		 !strcmp(kt_word(&r, "4"), "nodev"), "drain 3-4: 4=nodev");
	kt_reqp(fd, "clear 63", &r);
	kt_check(r.status == 0 && !strcmp(kt_word(&r, "63"), "nodev"), "clear 63: 63=nodev");
	kt_reqp(fd, "inject 9 now 0x1000", &r);
	kt_check(r.status == -ENODEV, "inject on GPU 9: err ENODEV");
	kt_reqp(fd, "ring 4 ih1 on", &r);
	kt_check(r.status == -ENODEV, "ring on GPU 4: err ENODEV");
}

/* Every malformed request: write() fails with EINVAL, the reply is
 * "err EINVAL ...", and the state (stats, log) is unchanged. */
static void test_malformed(int fd)
{
	static const char *const bad[] = {
		"", " ", "bogus", "VERSION", "version extra", "gpus 1", "set", "set 99",
		"set 0 0x1000", "set 0 0x1000 0", "set 0 1 2 3",
		"set 0,,1", "set ,0", "set 0,", "set 1-0", "set 0=5", "set -1", "set 0x",
		"set 0 0xffffffffffffffff 2", "set 0 18446744073709551616 1",
		"drain", "drain 0 abc", "drain 0 600001", "drain 0 1 2", 
		"clear", "clear 0=0x1000000000000", "clear 0=", "clear 0 1", 
		"stats now", "log 1", "inject", "inject 0 now", 
		"inject 0 later 0x1000", "inject 0 now 0x1000 x", "inject 0 0x1000000000000 0",
		"inject 0 now 0x1000000000000", "ring 0 ih2 on", "ring 0 ih1 maybe",
		"ring 0 ih1", "set\t0\x01", "set 0\n\n", "set 0\nset 1",
		"set \xc3\xa9",
	};
	char before[HIPSVM_PROTO_MAX_REPLY + 1], after[HIPSVM_PROTO_MAX_REPLY + 1];
	char lbefore[HIPSVM_PROTO_MAX_REPLY + 1], lafter[HIPSVM_PROTO_MAX_REPLY + 1];
	unsigned i, ok_count = 0;

	kt_req(fd, "stats", before, sizeof(before));
	kt_req(fd, "log", lbefore, sizeof(lbefore));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t n = strlen(bad[i]);
		ssize_t w = write(fd, bad[i], n);
		int e = errno;
		ssize_t rd = pread(fd, buf, sizeof(buf) - 1, 0);

		buf[rd > 0 ? rd : 0] = '\0';
		if (w == -1 && e == EINVAL && !strncmp(buf, "err EINVAL", 10))
			ok_count++;
		else
			kt_note("malformed \"%s\": write %zd errno %d reply %s", bad[i], w, e, buf);
	}
	kt_check(ok_count == sizeof(bad) / sizeof(bad[0]),
		 "%u/%zu malformed requests answered EINVAL and err EINVAL", ok_count,
		 sizeof(bad) / sizeof(bad[0]));
	kt_req(fd, "stats", after, sizeof(after));
	kt_req(fd, "log", lafter, sizeof(lafter));
	kt_check(!strcmp(before, after), "state unchanged by malformed requests (stats)");
	kt_check(!strcmp(lbefore, lafter), "state unchanged by malformed requests (log)");
}

static void test_oversize(int fd)
{
	char big[4096];
	ssize_t w;
	int e;

	memset(big, ' ', sizeof(big));
	memcpy(big, "version", 7);
	big[HIPSVM_PROTO_MAX_REQ - 1] = '\n';
	w = write(fd, big, HIPSVM_PROTO_MAX_REQ);
	kt_check(w == HIPSVM_PROTO_MAX_REQ, "a request of exactly %d bytes is accepted (%zd)",
		 HIPSVM_PROTO_MAX_REQ, w);
	big[HIPSVM_PROTO_MAX_REQ - 1] = ' ';
	big[HIPSVM_PROTO_MAX_REQ] = '\n';
	w = write(fd, big, HIPSVM_PROTO_MAX_REQ + 1);
	e = errno;
	kt_check(w == -1 && e == EINVAL, "%d bytes: EINVAL", HIPSVM_PROTO_MAX_REQ + 1);
	w = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[w > 0 ? w : 0] = '\0';
	kt_check(!strncmp(buf, "err EINVAL", 10), "oversize reply: %s", buf);
	w = write(fd, big, sizeof(big));
	e = errno;
	kt_check(w == -1 && e == EINVAL, "4096 bytes: EINVAL");
	w = write(fd, big, 0);
	kt_check(w == -1 && errno == EINVAL, "empty write: EINVAL");
}

static void test_read_modes(int fd)
{
	char small[8], whole[256];
	size_t got = 0;
	ssize_t n;

	n = write(fd, "version\n", 8);
	kt_check(n == 8, "write version");
	/* read() in small pieces from the rewound position */
	while ((n = read(fd, small, sizeof(small))) > 0 && got + (size_t)n < sizeof(whole)) {
		memcpy(whole + got, small, (size_t)n);
		got += (size_t)n;
	}
	whole[got] = '\0';
	kt_check(!strcmp(whole, "ok version 2 hipsvm-hook\n"), "read() in 8-byte pieces: %s", whole);
	kt_check(read(fd, small, sizeof(small)) == 0, "read() at the end returns 0");
	n = write(fd, "gpus", 4);
	n = read(fd, whole, sizeof(whole) - 1);
	whole[n > 0 ? n : 0] = '\0';
	kt_check(!strcmp(whole, "ok gpus n=4\n"), "a write rewinds for read(): %s", whole);
	n = pread(fd, whole, sizeof(whole) - 1, 3);
	whole[n > 0 ? n : 0] = '\0';
	kt_check(!strcmp(whole, "gpus n=4\n"), "pread at offset 3");
}

int main(void)
{
	int fd = kt_open();
	int fd2;

	test_version_gpus(fd);
	test_stats(fd);
	test_set_drain_clear(fd);
	test_inject_ring(fd);
	test_log(fd);
	test_drainclear(fd);
	test_interruptible(fd);
	test_absent_gpu(fd);
	test_malformed(fd);
	test_oversize(fd);
	test_read_modes(fd);

	/* A second open of the same process shares its state. */
	fd2 = kt_open();
	kt_reqp(fd, "stats", &r);
	{
		uint64_t pasid = kt_num(&r, "pasid", 0), sets = kt_num(&r, "sets", 0);

		kt_reqp(fd2, "stats", &r);
		kt_check(kt_num(&r, "pasid", 1) == pasid && kt_num(&r, "sets", 1) == sets,
			 "a second open of the same process shares its state");
	}
	kt_req(fd2, "version", buf, sizeof(buf));
	kt_reqp(fd, "gpus", &r);
	kt_check(r.status == 0 && !strcmp(r.op, "gpus"), "replies are per open file");
	close(fd2);
	close(fd);
	return kt_done();
}
