/* SPDX-License-Identifier: MIT */
/*
 * kt_procs.c - per-process state of the hook: two processes keep independent
 * checkpoints, counters and PASIDs; a descriptor inherited across fork()
 * refuses the child (EPERM); state lives while any file of the process is
 * open and is freed with the last one; a fault for a PASID nobody owns is
 * counted and ignored.
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
	return kt_done();
}
