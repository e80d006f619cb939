/* SPDX-License-Identifier: MIT */
/*
 * run_sample.c - while a traced program runs, its GPU fault counters at a
 * fixed period, appended to its raw trace as "faults" lines (only the GPUs
 * whose counters moved), so that faults over time show between drains and
 * in a program that never unmaps. The counters come from the checkpoint
 * hook the shim uses: the simulator's socket inside the program (the server
 * must be that very process) or the kernel's debugfs file.
 */
#include "cli.h"
#include "shim/hook.h"
#include "shim/trace.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct sampler {
	struct hipsvm_hook h;
	bool open;
	int fd, ngpus;
	unsigned tries;
	uint64_t last[HIPSVM_MAX_GPUS][HIPSVM_TRACE_FAULT_KINDS];
};

/* The program's hook, once it listens: tried at every tick for the first
 * second, then at every tenth (a program without one, no HIP or no
 * simulator, costs a failed connect now and then). */
static void sampler_connect(struct sampler *s, pid_t pid, const char *hook)
{
	char path[HIPSVM_HOOK_PATH_MAX];
	int server_pid = 0;

	if (s->open || (s->tries++ >= 100 && s->tries % 10 != 0))
		return;
	if (hipsvm_hook_resolve(hook, (int)pid, NULL, path, sizeof(path), &server_pid) != 0)
		return;
	hipsvm_hook_init(&s->h);
	s->h.server_pid = server_pid;
	s->h.reply_timeout_ms = 1000;
	if (hipsvm_hook_open(&s->h, path) != 0)
		return;
	s->ngpus = hipsvm_hook_gpus(&s->h);
	if (s->ngpus <= 0) {
		hipsvm_hook_close(&s->h);
		return;
	}
	s->open = true;
}

static void sample(struct sampler *s, pid_t pid, const char *events, const char *hook)
{
	uint64_t gpus;

	/* The shim creates the file: until it has, there is nothing to add to
	 * (and an empty file would hide that the shim never loaded). */
	if (s->fd < 0) {
		if (access(events, F_OK) != 0)
			return;
		s->fd = hipsvm_trace_open(events);
		if (s->fd < 0)
			return;
	}
	sampler_connect(s, pid, hook);
	if (!s->open)
		return;
	gpus = s->ngpus >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << s->ngpus) - 1;
	if (hipsvm_trace_faults(s->fd, &s->h, gpus, s->last) != 0) {
		hipsvm_hook_close(&s->h);
		s->open = false;
	}
}

pid_t run_wait_sampling(pid_t pid, int *st, const char *events, const char *hook,
			unsigned period_ms)
{
	struct timespec ts = { period_ms / 1000, (long)(period_ms % 1000) * 1000000L };
	struct sampler s;
	pid_t r;

	memset(&s, 0, sizeof(s));
	memset(s.last, 0xff, sizeof(s.last));	/* the first sample is always written */
	s.fd = -1;
	for (;;) {
		r = waitpid(pid, st, WNOHANG);
		if (r != 0)
			break;
		sample(&s, pid, events, hook && *hook ? hook : "auto");
		nanosleep(&ts, NULL);
	}
	if (s.open)
		hipsvm_hook_close(&s.h);
	if (s.fd >= 0)
		close(s.fd);
	return r;
}
