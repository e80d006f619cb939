/* SPDX-License-Identifier: MIT */
/*
 * kt_conc.c - concurrent injectors while set / drain / clear run.
 *
 * Two processes (this one on GPUs 0-1, a forked child on GPUs 2-3), each with
 * four injector threads that have their own open of the hook file, push
 * "now" faults as fast as the rings take them, while the main thread of each
 * process loops set / drain / clear with a range. At the end every injected
 * fault has been filtered exactly once (handled + dropped == injected), no
 * drain timed out, and no request failed. While the parent runs, a thread
 * pauses and resumes every GPU's handler every few milliseconds, so that sets
 * find faults waiting in the rings and the filter has something to drop.
 */
#include "ktest.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define INJECTORS 4
#define PER_THREAD 300
#define ROUNDS 40

static int finished;	/* injector threads done, in this process */

struct injector {
	pthread_t t;
	unsigned gpu;
	unsigned ok, full, errors;
};

static void *inject_loop(void *arg)
{
	struct injector *in = arg;
	struct hipsvm_reply r;
	int fd = kt_open(), i;

	for (i = 0; i < PER_THREAD;) {
		kt_reqf(fd, &r, "inject %u now 0x%llx %s", in->gpu,
			0x7c0000000000ull + (unsigned long long)i * 4096, i & 1 ? "w" : "r");
		if (r.status == 0) {
			in->ok++;
			i++;
		} else if (r.status == -ENOSPC) {
			in->full++;	/* a GPU retries a retry fault: so do we */
			usleep(200);
		} else {
			in->errors++;
			i++;
		}
	}
	close(fd);
	__atomic_add_fetch(&finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int pausing;

static void *pause_loop(void *arg)
{
	(void)arg;
	while (__atomic_load_n(&pausing, __ATOMIC_RELAXED)) {
		kt_pause(0xf);
		usleep(3000);
		kt_pause(0);
		usleep(1000);
	}
	return NULL;
}

static void run(unsigned g0, const char *who)
{
	struct injector in[INJECTORS];
	struct hipsvm_reply r;
	unsigned i, bad_drains = 0, bad_req = 0, full = 0, errors = 0, ok = 0;
	uint64_t done = 0;
	int fd = kt_open(), k, rounds;

	memset(in, 0, sizeof(in));
	for (i = 0; i < INJECTORS; i++) {
		in[i].gpu = g0 + (i & 1);
		pthread_create(&in[i].t, NULL, inject_loop, &in[i]);
	}
	/* At least ROUNDS rounds, and on until every injector is done. */
	for (k = 0; k < ROUNDS || __atomic_load_n(&finished, __ATOMIC_ACQUIRE) < INJECTORS; k++) {
		kt_reqf(fd, &r, "set %u-%u 0x7c0000000000 %d", g0, g0 + 1, PER_THREAD * 4096);
		bad_req += r.status != 0;
		kt_reqf(fd, &r, "drain %u-%u 5000", g0, g0 + 1);
		bad_req += r.status != 0;
		for (i = 0; i < r.ntok; i++)
			bad_drains += strcmp(r.tok[i].val, "ok") != 0;
		kt_reqf(fd, &r, "clear %u-%u", g0, g0 + 1);
		bad_req += r.status != 0;
	}
	rounds = k;
	for (i = 0; i < INJECTORS; i++) {
		pthread_join(in[i].t, NULL);
		full += in[i].full;
		errors += in[i].errors;
		ok += in[i].ok;
	}
	kt_reqf(fd, &r, "drain %u-%u 5000", g0, g0 + 1);
	for (k = 0; k < 500; k++) {
		kt_reqp(fd, "stats", &r);
		done = kt_num(&r, "handled", 0) + kt_num(&r, "dropped", 0);
		if (done >= ok)
			break;
		usleep(10 * 1000);
	}
	kt_note("%s: %d rounds, injected %u (ring full %u times), handled %llu, dropped %llu, "
		"sets %llu", who, rounds, ok, full, (unsigned long long)kt_num(&r, "handled", 0),
		(unsigned long long)kt_num(&r, "dropped", 0),
		(unsigned long long)kt_num(&r, "sets", 0));
	kt_check(errors == 0, "%s: no injection failed other than ring full", who);
	kt_check(ok == INJECTORS * PER_THREAD && kt_num(&r, "injected", 0) == ok,
		 "%s: %u faults injected", who, ok);
	kt_check(done == ok, "%s: every fault filtered exactly once (%llu of %u)", who,
		 (unsigned long long)done, ok);
	kt_check(bad_req == 0, "%s: every set/drain/clear answered ok", who);
	kt_check(bad_drains == 0, "%s: no drain timed out (%u did)", who, bad_drains);
	close(fd);
}

int main(void)
{
	pthread_t pauser;
	pid_t child;
	int status = 0;

	fflush(stdout);
	child = fork();
	if (child == 0) {
		kt_child("child");
		run(2, "child");
		_exit(kt_done());
	}
	__atomic_store_n(&pausing, 1, __ATOMIC_RELAXED);
	pthread_create(&pauser, NULL, pause_loop, NULL);
	run(0, "parent");
	__atomic_store_n(&pausing, 0, __ATOMIC_RELAXED);
	pthread_join(pauser, NULL);
	waitpid(child, &status, 0);
	kt_check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child process passed");
	return kt_done();
}
