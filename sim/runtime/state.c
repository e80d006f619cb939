/* SPDX-License-Identifier: MIT */
/*
 * state.c - process-wide state: options, GPUs, contexts, and the one-time
 * initialisation that a fork child must be able to run again.
 *
 * pthread_once cannot be re-armed in a fork child (a once that ran in the
 * parent never runs again in the child), so initialisation is a
 * flag plus a mutex that the atfork child handler resets. Threads do not
 * survive fork: the child starts its own handlers and hook server, under a
 * socket name with its own pid, over fresh state. The parent's state is
 * abandoned in the child, not freed: its locks may have been held by threads
 * that no longer exist. The allocation map alone is freed (memmap.c's abandon step,
 * when no thread held its lock at the fork), so that the child's leak check
 * has nothing to say about it.
 */
#include "runtime/state.h"
#include "shared/ring.h"
#include "runtime/visible.h"
#include "runtime/step.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern char **environ;

struct sim_state sim;

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
int sim_inited;		/* acquire/release; read inline by sim_init (state.h) */
static int atfork_registered;
static __thread int cur_dev;

/* The steps that the subsystems registered (runtime/step.h). */
extern const struct sim_step __start_sim_steps[], __stop_sim_steps[];

void sim_warn(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	fprintf(stderr, "hipsvm-sim: %s\n", buf);
}

int sim_current_device(void)
{
	return cur_dev;
}

void sim_set_current_device(int dev)
{
	cur_dev = dev;
}

static void atfork_child(void)
{
	/* Only what the parent's runtime had set up; sim_init runs again
	 * (and memsets sim) on the child's first call. */
	const struct sim_step *st;

	if (__atomic_load_n(&sim_inited, __ATOMIC_ACQUIRE))
		for (st = __start_sim_steps; st < __stop_sim_steps; st++)
			if (st->abandon)
				st->abandon();
	pthread_mutex_init(&init_lock, NULL);
	/* read before the child's init too: its exit unloads code objects,
	 * which must not take the parent's mappings for its own */
	sim.pid = (int)getpid();
	__atomic_store_n(&sim_inited, 0, __ATOMIC_RELEASE);
}

static void report_option_errors(const struct hipsvm_opt_error *errs, int n, unsigned max)
{
	static int reported;	/* once per process image, not again in a child */
	int i;

	if (reported++)
		return;
	for (i = 0; i < n && (unsigned)i < max; i++) {
		const struct hipsvm_option_desc *d = hipsvm_sim_option_desc(errs[i].id);

		if (errs[i].err == -EPERM)
			sim_warn("HIPSVM_%s and every other HIPSVM_SIM_ variable ignored: this program "
				 "runs in secure-execution mode (setuid, setgid or capabilities); the "
				 "defaults are in force", errs[i].value);
		else if (errs[i].id == HIPSVM_SIM_O_COUNT || !d)
			sim_warn("unknown variable HIPSVM_%s ignored", errs[i].value);
		else
			sim_warn("bad value \"%s\" for HIPSVM_%s (%s): default \"%s\" used",
				 errs[i].value, d->name, hipsvm_sim_option_why(errs[i].id, errs[i].err),
				 d->def);
	}
}

static uint32_t ring_size_option(void)
{
	uint64_t v = sim.opt.num[HIPSVM_SIM_O_RING_SIZE];
	uint64_t p = HIPSVM_RING_MIN_BYTES;

	if (v > (UINT64_C(1) << 30))
		v = UINT64_C(1) << 30;
	while (p * 2 <= v)
		p *= 2;
	if (p != v)
		sim_warn("HIPSVM_SIM_RING_SIZE=%llu is not a power of two of at least %u: %llu used",
			 (unsigned long long)v, HIPSVM_RING_MIN_BYTES, (unsigned long long)p);
	return (uint32_t)p;
}

/*
 * ROCr sets the process's XNACK mode from HSA_XNACK: "1" on, "0" off, any
 * other value (or none) leaves the driver's default, which here is
 * HIPSVM_SIM_XNACK (on unless set to 0). An MI250 runs xnack+ code objects
 * only in XNACK mode, and only then are its page faults retried.
 */
static bool xnack_mode(void)
{
	char **e;

	for (e = environ; e && *e; e++) {
		if (!strcmp(*e, "HSA_XNACK=1"))
			return true;
		if (!strcmp(*e, "HSA_XNACK=0"))
			return false;
	}
	return sim.opt.num[HIPSVM_SIM_O_XNACK] != 0;
}

static void do_init(void)
{
	struct hipsvm_opt_error errs[16];
	struct hipsvm_devinfo info[HIPSVM_MAX_GPUS];
	const struct sim_step *st;
	uint64_t fgs;
	unsigned i, rank;
	int n;

	memset(&sim, 0, sizeof(sim));
	n = hipsvm_sim_options_load(&sim.opt, environ, errs, 16);
	if (n > 0)
		report_option_errors(errs, n, 16);
	sim.nphys = (unsigned)sim.opt.num[HIPSVM_SIM_O_GPUS];
	if (sim.nphys < 1)
		sim.nphys = 1;
	if (sim.nphys > HIPSVM_MAX_GPUS)
		sim.nphys = HIPSVM_MAX_GPUS;
	sim.ngpu = sim_visible_devices(sim.nphys, sim.phys);
	sim.xnack = xnack_mode();
	snprintf(sim.target, sizeof(sim.target), "gfx90a:sramecc+:xnack%c", sim.xnack ? '+' : '-');
	sim.retry_cam = sim.opt.num[HIPSVM_SIM_O_RETRY_CAM] != 0;
	sim.apu = sim.opt.num[HIPSVM_SIM_O_APU] != 0;
	sim.ts_start = sim.opt.num[HIPSVM_SIM_O_TS_START] & HIPSVM_TS_MASK;
	sim.quiet = sim.opt.num[HIPSVM_SIM_O_QUIET] != 0;
	sim.pid = (int)getpid();	/* a system call: read once, not per launch */
	sim.ring_size = ring_size_option();
	fgs = sim.opt.num[HIPSVM_SIM_O_FGS_MASK];

	memset(info, 0, sizeof(info));
	for (i = 0; i < sim.ngpu; i++) {
		info[i].svm_capable = true;
		info[i].atomics = true;
		info[i].fine_grained_system = (fgs >> sim.phys[i]) & 1;
		info[i].custom_host_alloc = false;
	}
	hipsvm_ctxset_init(&sim.ctx, sim.ngpu, info);

	pthread_rwlock_init(&sim.map_lock, NULL);
	pthread_rwlock_init(&sim.vm_probe_lock, NULL);
	pthread_mutex_init(&sim.mem_lock, NULL);
	for (st = __start_sim_steps; st < __stop_sim_steps; st++)
		if (st->reset)
			st->reset();
	for (rank = 0; rank <= SIM_START_LAST; rank++)
		for (st = __start_sim_steps; st < __stop_sim_steps; st++)
			if (st->start && st->rank == rank)
				st->start();
}

void sim_init_once(void)
{
	pthread_mutex_lock(&init_lock);
	if (!__atomic_load_n(&sim_inited, __ATOMIC_RELAXED)) {
		if (!atfork_registered) {
			pthread_atfork(NULL, NULL, atfork_child);
			atfork_registered = 1;
		}
		do_init();
		__atomic_store_n(&sim_inited, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&init_lock);
}
