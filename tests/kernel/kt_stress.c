/* SPDX-License-Identifier: MIT */
/*
 * kt_stress.c - several processes set, drain and clear at once while faults
 * are injected at full rate; no fault at or before a checkpoint may ever be
 * handled as live.
 *
 *   kt_stress [rounds [procs]]     (defaults 200 and 3)
 *
 * Every process opens the hook, starts two injector threads per GPU that
 * push "now" faults for its own PASID as fast as the rings take them, and
 * loops: set all GPUs, drain them, clear each GPU with the value its set
 * recorded. Two things are checked:
 *  - a drain that answers ok has waited for every fault that was in a ring
 *    when it started: the faults this process had injected before it sent
 *    the drain have all been filtered (or lost by a full ih_soft, counted
 *    per process as "lost") by the time the reply comes. A drain that
 *    returns early (the defect: with the CAM, ih_soft's checkpoint taken
 *    before ih0 was drained) leaves them queued, and after the clear they
 *    are handled as live faults on whatever the range has become;
 *  - the process's "stale" counter (faults handled at or before the last
 *    checkpoint it recorded) stays 0.
 *
 * Meanwhile the parent pauses and resumes every GPU's handler every few
 * milliseconds (as kt_conc does), so that faults pile up in the rings and a
 * drain often starts with many of them still on their way: with the CAM,
 * ih0's handler keeps passing them on to ih_soft while the filtering work is
 * paused, and ih_soft is then worked off in passes of 32.
 *
 * Printed per process: rounds whose drain returned early and the faults it
 * left behind; the module's load (retry_cam, ngpus) and the number of CPUs
 * decide how much of a race there is to lose.
 */
#include "ktest.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_PROCS 8
#define INJ_PER_GPU 2
#define TIME_CAP_S 60.0

static int stop;
static unsigned ngpus;
static unsigned long injected_done;	/* this process's, replies received */

struct injector {
	pthread_t t;
	unsigned gpu;
	unsigned long ok, full, errors;
};

static void *inject_loop(void *arg)
{
	struct injector *in = arg;
	struct hipsvm_reply r;
	int fd = kt_open();
	unsigned long i = 0;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		kt_reqf(fd, &r, "inject %u now 0x%llx", in->gpu,
			0x7a0000000000ull + (unsigned long long)(i++ & 0xffff) * 4096);
		if (r.status == 0) {
			in->ok++;
			__atomic_fetch_add(&injected_done, 1, __ATOMIC_RELEASE);
		} else if (r.status == -ENOSPC) {
			in->full++;	/* a GPU retries a retry fault: so do we */
			usleep(50);
		} else {
			in->errors++;
		}
	}
	close(fd);
	return NULL;
}

/* One process: returns through kt_done(), checks prefixed with its name. */
static int proc_main(unsigned id, int rounds)
{
	struct injector in[HIPSVM_MAX_GPUS * INJ_PER_GPU];
	unsigned nin = ngpus * INJ_PER_GPU, i, g;
	unsigned long injected = 0, errors = 0;
	int fd = kt_open(), k, early = 0, bad_req = 0, timeouts = 0, done_rounds;
	uint64_t stale = 0, processed = 0, lost = 0, left = 0, cp[HIPSVM_MAX_GPUS];
	uint64_t early_srv, left_srv;
	bool have[HIPSVM_MAX_GPUS];
	struct hipsvm_reply r;
	char req[256];
	double t0 = kt_now();

	memset(in, 0, sizeof(in));
	for (i = 0; i < nin; i++) {
		in[i].gpu = i % ngpus;
		pthread_create(&in[i].t, NULL, inject_loop, &in[i]);
	}
	usleep(20 * 1000);	/* let the rings fill */
	for (k = 0; k < rounds && kt_now() - t0 < TIME_CAP_S; k++) {
		unsigned long before;
		int n;

		kt_reqp(fd, "set all", &r);
		bad_req += r.status != 0;
		for (g = 0; g < ngpus; g++) {
			char key[8];
			const char *v;

			snprintf(key, sizeof(key), "%u", g);
			v = hipsvm_reply_get(&r, key);
			have[g] = v && hipsvm_proto_u64(v, strlen(v), &cp[g]) == 0;
		}
		before = __atomic_load_n(&injected_done, __ATOMIC_ACQUIRE);
		kt_reqp(fd, "drain all 5000", &r);
		bad_req += r.status != 0;
		for (i = 0; i < r.ntok; i++)
			timeouts += strcmp(r.tok[i].val, "ok") != 0;
		kt_reqp(fd, "stats", &r);
		processed = kt_num(&r, "handled", 0) + kt_num(&r, "dropped", 0);
		lost = kt_num(&r, "lost", 0);
		if (processed + lost < before) {
			early++;
			left += before - processed - lost;
		}
		n = snprintf(req, sizeof(req), "clear ");
		for (g = 0; g < ngpus; g++)
			if (have[g])
				n += snprintf(req + n, sizeof(req) - (size_t)n, "%s%u=0x%llx",
					      n > 6 ? "," : "", g, (unsigned long long)cp[g]);
		if (n > 6) {
			kt_reqp(fd, req, &r);
			bad_req += r.status != 0;
		}
		usleep(1000);	/* spread the rounds over the pauses */
	}
	done_rounds = k;
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nin; i++) {
		pthread_join(in[i].t, NULL);
		injected += in[i].ok;
		errors += in[i].errors;
	}
	/* Everything injected reaches the filter; then look at "stale" once
	 * more: a late one would show here. */
	for (k = 0; k < 1000; k++) {
		kt_reqp(fd, "stats", &r);
		processed = kt_num(&r, "handled", 0) + kt_num(&r, "dropped", 0);
		lost = kt_num(&r, "lost", 0);
		if (processed + lost >= injected)
			break;
		usleep(10 * 1000);
	}
	stale = kt_num(&r, "stale", 0);
	early_srv = kt_num(&r, "drains_early", 0);
	left_srv = kt_num(&r, "drain_left", 0);
	kt_note("process %u: %d rounds in %.1f s, %lu faults injected, handled %llu, dropped %llu, "
		"lost %llu, stale %llu", id, done_rounds, kt_now() - t0, injected,
		(unsigned long long)kt_num(&r, "handled", 0),
		(unsigned long long)kt_num(&r, "dropped", 0), (unsigned long long)lost,
		(unsigned long long)stale);
	printf("HIPSVM-STRESS proc=%u rounds=%d early_drains=%d faults_left_queued=%llu "
	       "server_early_drains=%llu server_faults_left=%llu stale=%llu\n", id, done_rounds,
	       early, (unsigned long long)left, (unsigned long long)early_srv,
	       (unsigned long long)left_srv, (unsigned long long)stale);
	kt_check(done_rounds >= rounds / 4, "process %u: %d rounds ran", id, done_rounds);
	kt_check(errors == 0 && bad_req == 0, "process %u: every request answered ok", id);
	kt_check(processed + lost == injected,
		 "process %u: every fault filtered or lost (%llu + %llu of %lu)", id,
		 (unsigned long long)processed, (unsigned long long)lost, injected);
	kt_check(timeouts == 0, "process %u: no drain timed out (%d did)", id, timeouts);
	kt_check(early == 0,
		 "process %u: every drain waited for the faults queued before it (%d of %d "
		 "returned early, leaving %llu)", id, early, done_rounds, (unsigned long long)left);
	kt_check(early_srv == 0,
		 "process %u: no drain answered ok with faults before its first checkpoint still "
		 "queued (%llu did, leaving %llu)", id, (unsigned long long)early_srv,
		 (unsigned long long)left_srv);
	kt_check(stale == 0, "process %u: no fault at or before a checkpoint handled as live (%llu)",
		 id, (unsigned long long)stale);
	close(fd);
	return kt_done();
}

static int pausing;
static unsigned pauses, pause_errors;

/* Every other pause holds ih0's interrupt handler back too, so that a drain
 * may start with faults still in ih0, on their way to ih_soft. */
static void *pause_loop(void *arg)
{
	uint64_t all = ngpus >= 64 ? ~0ull : (1ull << ngpus) - 1;
	char line[48];
	unsigned k = 0;

	(void)arg;
	while (__atomic_load_n(&pausing, __ATOMIC_RELAXED)) {
		snprintf(line, sizeof(line), "0x%llx%s\n", (unsigned long long)all,
			 k++ & 1 ? " ih0" : "");
		pause_errors += kt_write_file(KT_DIR "/pause", line) != 0;
		pauses++;
		usleep(3000);
		kt_pause(0);
		usleep(1000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t pauser;
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	unsigned procs = argc > 2 ? (unsigned)atoi(argv[2]) : 3, i, passed = 0;
	pid_t pid[MAX_PROCS];
	struct hipsvm_reply r;
	int fd = kt_open();

	kt_reqp(fd, "gpus", &r);
	ngpus = (unsigned)kt_num(&r, "n", 0);
	close(fd);
	if (procs > MAX_PROCS)
		procs = MAX_PROCS;
	kt_note("%u processes x %d rounds on %u GPUs, retry_cam=%llu, %ld CPUs", procs, rounds,
		ngpus, (unsigned long long)kt_module_stat("gpu0.retry_cam"),
		sysconf(_SC_NPROCESSORS_ONLN));
	fflush(stdout);
	for (i = 0; i < procs; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			char name[16];

			snprintf(name, sizeof(name), "proc%u", i);
			kt_child(name);
			_exit(proc_main(i, rounds));
		}
	}
	__atomic_store_n(&pausing, 1, __ATOMIC_RELAXED);
	pthread_create(&pauser, NULL, pause_loop, NULL);
	for (i = 0; i < procs; i++) {
		int status = 0;

		waitpid(pid[i], &status, 0);
		passed += WIFEXITED(status) && WEXITSTATUS(status) == 0;
	}
	__atomic_store_n(&pausing, 0, __ATOMIC_RELAXED);
	pthread_join(pauser, NULL);
	kt_note("the handlers were paused %u times (%u failed)", pauses, pause_errors);
	kt_check(pause_errors == 0, "every pause was taken");
	kt_check(passed == procs, "%u of %u processes passed", passed, procs);
	return kt_done();
}
