/* SPDX-License-Identifier: MIT */
/*
 * kt_procs.c - per-process state of the hook: two processes keep independent
 * checkpoints, counters and PASIDs; a descriptor inherited across fork()
 * refuses the child (EPERM); state lives while any file of the process is
 * open and is freed with the last one; a fault for a PASID nobody owns is
 * counted and ignored; the last close drains, and a PASID whose faults are
 * still queued is not given to the next process; state is keyed by the
 * address space, so a process that gets a dead one's pid (while a forked
 * child still holds that one's descriptor) starts fresh.
 */
#include "ktest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static struct hipsvm_reply r;

/* parent -> child and child -> parent, one byte at a time */
static int p2c[2], c2p[2];

static void sync_send(int fd)
{
	char c = 1;

	if (write(fd, &c, 1) != 1)
		exit(3);
}

static void sync_wait(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		exit(3);
}

static int child_main(int inherited)
{
	int fd, w, e;
	uint64_t ts;
	char buf[256];

	w = kt_req(inherited, "version", buf, sizeof(buf));
	e = w;
	kt_check(e == -EPERM, "child: the parent's descriptor answers EPERM (%d)", e);
	fd = kt_open();
	kt_reqp(fd, "stats", &r);
	printf("# child pasid %llu\n", (unsigned long long)kt_num(&r, "pasid", 0));
	kt_check(kt_num(&r, "tgid", 0) == (uint64_t)getpid(), "child: its own state");
	kt_check(kt_num(&r, "sets", 1) == 0 && kt_num(&r, "cp0", 1) == 0,
		 "child: a fresh state without the parent's checkpoint");
	sync_send(c2p[1]);		/* 1: child ready (parent paused GPU 0) */
	sync_wait(p2c[0]);		/* 2: parent injected its fault */
	kt_reqp(fd, "inject 0 now 0x7b0000001000", &r);
	ts = kt_num(&r, "0", 0);
	kt_check(r.status == 0, "child: injected 0x%llx", (unsigned long long)ts);
	if (write(c2p[1], &ts, sizeof(ts)) != sizeof(ts))
		exit(3);		/* 3: child's fault is in the ring */
	sync_wait(p2c[0]);		/* 4: parent set, resumed and drained */
	kt_reqp(fd, "stats", &r);
	kt_check(kt_num(&r, "handled", 0) == 1 && kt_num(&r, "dropped", 1) == 0,
		 "child: its fault was handled: the parent's checkpoint is not its own");
	kt_check(kt_num(&r, "cp0", 1) == 0, "child: still no checkpoint");
	close(fd);
	return kt_done();
}

/* The PASID of a process that closed with faults still queued is held until
 * they are gone: the next process gets another one, and the old faults are
 * counted as unknown_pasid, not against it. */
static void test_pasid_held_while_faults_queued(void)
{
	uint64_t pasid_a = 0, pasid_b, pasid_c, unknown, b_done;
	int p[2], fd, i, status = 0;
	double dt = 0;
	pid_t a;

	if (pipe(p))
		return;
	unknown = kt_module_stat("gpu0.unknown_pasid");
	kt_pause(0x1);
	fflush(stdout);
	a = fork();
	if (a == 0) {
		double t0;

		fd = kt_open();
		kt_reqp(fd, "stats", &r);
		pasid_a = kt_num(&r, "pasid", 0);
		kt_reqp(fd, "inject 0 now 0x7b0000002000", &r);
		t0 = kt_now();
		close(fd);		/* the last close: drains, bounded */
		dt = kt_now() - t0;
		if (write(p[1], &pasid_a, sizeof(pasid_a)) != sizeof(pasid_a) ||
		    write(p[1], &dt, sizeof(dt)) != sizeof(dt))
			_exit(3);
		_exit(r.status == 0 ? 0 : 1);
	}
	if (read(p[0], &pasid_a, sizeof(pasid_a)) != sizeof(pasid_a) ||
	    read(p[0], &dt, sizeof(dt)) != sizeof(dt))
		return;
	waitpid(a, &status, 0);
	kt_check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "process A injected a fault");
	kt_check(dt >= 0.9 && dt < 10.0, "A's last close waited for its queued fault, bounded (%.2f s)",
		 dt);
	kt_check(kt_module_stat("dying_processes") == 1, "A holds its PASID %llu while its fault is "
		 "queued", (unsigned long long)pasid_a);
	fd = kt_open();		/* B, in this process */
	kt_reqp(fd, "stats", &r);
	pasid_b = kt_num(&r, "pasid", 0);
	kt_check(pasid_b != pasid_a, "B does not get A's PASID (%llu, A's %llu)",
		 (unsigned long long)pasid_b, (unsigned long long)pasid_a);
	b_done = kt_num(&r, "handled", 0) + kt_num(&r, "dropped", 0);
	kt_pause(0);
	for (i = 0; i < 300 && kt_module_stat("dying_processes") != 0; i++)
		usleep(10 * 1000);
	kt_check(kt_module_stat("dying_processes") == 0, "A's PASID is given back once its fault is "
		 "gone");
	kt_check(kt_module_stat("gpu0.unknown_pasid") == unknown + 1,
		 "A's fault is counted as unknown_pasid");
	kt_reqp(fd, "stats", &r);
	kt_check(kt_num(&r, "handled", 0) + kt_num(&r, "dropped", 0) == b_done,
		 "and not filtered for B");
	close(fd);
	fd = kt_open();
	kt_reqp(fd, "stats", &r);
	pasid_c = kt_num(&r, "pasid", 0);
	kt_check(pasid_c <= pasid_a, "a PASID whose faults are gone is handed out again (%llu)",
		 (unsigned long long)pasid_c);
	close(fd);
	close(p[0]);
	close(p[1]);
}

/* A process whose pid is that of a dead process whose state a forked child
 * still holds (through the inherited descriptor) gets a state of its own.
 * The pid is reused on purpose through ns_last_pid. */
static void test_pid_reuse(void)
{
	int p2[2], hold[2], status = 0;
	uint64_t old_pasid = 0;
	pid_t a, n;
	FILE *f;

	if (pipe(p2) || pipe(hold))
		return;
	fflush(stdout);
	a = fork();
	if (a == 0) {
		int fd = kt_open();

		kt_reqp(fd, "stats", &r);
		old_pasid = kt_num(&r, "pasid", 0);
		kt_reqp(fd, "set 0", &r);
		if (fork() == 0) {	/* holds fd until told */
			char c;

			close(hold[1]);
			if (read(hold[0], &c, 1) < 0)
				_exit(1);
			_exit(0);
		}
		if (write(p2[1], &old_pasid, sizeof(old_pasid)) != sizeof(old_pasid))
			_exit(3);
		_exit(0);
	}
	close(hold[0]);
	if (read(p2[0], &old_pasid, sizeof(old_pasid)) != sizeof(old_pasid))
		return;
	waitpid(a, &status, 0);
	f = fopen("/proc/sys/kernel/ns_last_pid", "w");
	if (!f) {
		kt_note("no ns_last_pid: pid reuse not tested");
		close(hold[1]);
		return;
	}
	fprintf(f, "%d", a - 1);
	fclose(f);
	fflush(stdout);
	n = fork();
	if (n == 0) {
		int fd;

		if (getpid() != a)
			_exit(2);
		fd = kt_open();
		kt_reqp(fd, "stats", &r);
		_exit(kt_num(&r, "pasid", 0) != old_pasid && kt_num(&r, "sets", 1) == 0 ? 0 : 1);
	}
	waitpid(n, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 2) {
		kt_note("pid %d was not reused: not tested", a);
	} else {
		kt_check(n == a && WIFEXITED(status) && WEXITSTATUS(status) == 0,
			 "a new process with a dead one's pid %d gets a fresh state, not the one "
			 "its child still holds", a);
	}
	close(hold[1]);		/* the holder exits */
	close(p2[0]);
	close(p2[1]);
	while (wait(NULL) > 0)
		;
}

int main(void)
{
	int fd = kt_open(), fd2, status = 0;
	uint64_t pasid, ts_parent, ts_child, cp, procs;
	struct kt_event ev[64];
	pid_t child;
	int n;

	kt_reqp(fd, "stats", &r);
	pasid = kt_num(&r, "pasid", 0);
	procs = kt_module_stat("processes");
	kt_check(procs >= 1, "stats file: %llu process(es) with state", (unsigned long long)procs);

	if (pipe(p2c) || pipe(c2p))
		return 2;
	kt_pause(0x1);
	fflush(stdout);
	child = fork();
	if (child == 0) {
		close(p2c[1]);
		close(c2p[0]);
		kt_child("child");
		_exit(child_main(fd));
	}
	close(p2c[0]);
	close(c2p[1]);
	sync_wait(c2p[0]);
	kt_check(kt_module_stat("processes") == procs + 1, "stats file: the child has its own state");
	kt_reqp(fd, "inject 0 now 0x7b0000000000", &r);
	ts_parent = kt_num(&r, "0", 0);
	sync_send(p2c[1]);
	if (read(c2p[0], &ts_child, sizeof(ts_child)) != sizeof(ts_child))
		return 2;
	kt_reqp(fd, "set 0", &r);
	cp = kt_num(&r, "0", 0);
	kt_check(cp == ts_child, "the checkpoint is the last IV in the ring, the child's (0x%llx)",
		 (unsigned long long)cp);
	kt_pause(0);
	kt_reqp(fd, "drain 0", &r);
	kt_check(!strcmp(kt_word(&r, "0"), "ok"), "parent: drain ok");
	sync_send(p2c[1]);
	waitpid(child, &status, 0);
	kt_check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child passed");
	n = kt_log(fd, ev, 64);
	kt_check(kt_fault_outcome(ev, n, 0, ts_parent) &&
		 !strcmp(kt_fault_outcome(ev, n, 0, ts_parent), "dropped"),
		 "parent: its fault before its checkpoint was dropped");
	kt_check(!kt_fault_outcome(ev, n, 0, ts_child), "parent: the child's fault is not in its log");
	kt_check(kt_module_stat("processes") == procs, "the child's state was freed when it exited");

	/* A second open shares the state; closing one keeps it. */
	fd2 = kt_open();
	close(fd);
	kt_reqp(fd2, "stats", &r);
	kt_check(kt_num(&r, "pasid", 0) == pasid && kt_num(&r, "sets", 0) == 1,
		 "closing one of two files keeps the state");
	close(fd2);
	kt_check(kt_module_stat("processes") == procs - 1, "closing the last file frees the state");
	fd = kt_open();
	kt_reqp(fd, "stats", &r);
	kt_check(kt_num(&r, "sets", 1) == 0 && kt_num(&r, "cp0", 1) == 0,
		 "a new open starts from a fresh state");

	/* A fault for a PASID that no process owns. */
	{
		uint64_t unknown = kt_module_stat("gpu1.unknown_pasid");
		int i, err;

		err = kt_write_file(KT_DIR "/inject", "65000 1 now 0x1000 w\n");
		kt_check(err == 0, "inject file: a fault for PASID 65000 (%d)", err);
		for (i = 0; i < 200 && kt_module_stat("gpu1.unknown_pasid") == unknown; i++)
			usleep(10 * 1000);
		kt_check(kt_module_stat("gpu1.unknown_pasid") == unknown + 1,
			 "a fault for an unknown PASID is counted and ignored");
		err = kt_write_file(KT_DIR "/inject", "1 9 now 0x1000\n");
		kt_check(err == -ENODEV, "inject file: no such GPU is ENODEV");
		err = kt_write_file(KT_DIR "/inject", "70000 0 now 0x1000\n");
		kt_check(err == -EINVAL, "inject file: PASID beyond 16 bits is EINVAL");
	}
	close(fd);
	test_pasid_held_while_faults_queued();
	test_pid_reuse();
	return kt_done();
}
