/* SPDX-License-Identifier: MIT */
/*
 * shim.c - the shim's process state: start-up, fork, the device count, the
 * hook and each thread's connection to it, the report.
 *
 * A hook connection carries one request at a time, so every thread has its
 * own (thread-local), opened on first use and closed when the thread exits
 * (a pthread key destructor). Every open descriptor is also listed in a
 * fixed table, so that a fork child can close the ones it inherited: the
 * child must never talk on its parent's connection.
 */
#include "shim/shim.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "shim/outname.h"
#include "shim/report.h"
#include "shim/trace.h"

extern char **environ;

__thread struct hipsvm_tls hipsvm_tls __attribute__((tls_model("initial-exec")));

#define MAX_CONN 1024

static int conn_fd[MAX_CONN];	/* 0: free slot; else fd + 1 */
static pthread_key_t conn_key;
static pthread_once_t conn_key_once = PTHREAD_ONCE_INIT;
static bool conn_key_ok;

static void conn_forget(int fd)
{
	unsigned i;

	for (i = 0; i < MAX_CONN; i++) {
		int want = fd + 1;

		if (__atomic_compare_exchange_n(&conn_fd[i], &want, 0, false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return;
	}
}

static void conn_remember(int fd)
{
	unsigned i;

	for (i = 0; i < MAX_CONN; i++) {
		int zero = 0;

		if (__atomic_compare_exchange_n(&conn_fd[i], &zero, fd + 1, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			return;
	}
}

static void conn_thread_exit(void *arg)
{
	struct hipsvm_tls *t = arg;

	if (t && t->open && t->hook.fd >= 0) {
		conn_forget(t->hook.fd);
		hipsvm_hook_close(&t->hook);
	}
	if (t)
		t->open = false;
}

static void conn_key_make(void)
{
	conn_key_ok = pthread_key_create(&conn_key, conn_thread_exit) == 0;
}

/* Read once at start: the launcher's variables are there from exec, and a
 * program that changes its environment later does not move its report to
 * another rank. What does not fit stays "" (the report is then less
 * helpful, never wrong). */
static void launch_info(struct hipsvm_shim *s)
{
	if (hipsvm_outname("%h", 0, environ, s->host, sizeof(s->host)))
		s->host[0] = '\0';
	if (hipsvm_outname("%r", 0, environ, s->rank, sizeof(s->rank)) ||
	    strcmp(s->rank, "norank") == 0)
		s->rank[0] = '\0';
	if (hipsvm_outname("%e{ROCR_VISIBLE_DEVICES}", 0, environ, s->rocr_visible,
			   sizeof(s->rocr_visible)))
		s->rocr_visible[0] = '\0';
	if (hipsvm_outname("%e{HIP_VISIBLE_DEVICES}", 0, environ, s->hip_visible,
			   sizeof(s->hip_visible)))
		s->hip_visible[0] = '\0';
}

int hipsvm_shim_init(struct hipsvm_shim *s, const struct hipsvm_policy *p, const char *hook_opt,
		     uint32_t drain_timeout_ms, int trace_fd, int pid)
{
	struct hipsvm_registry *reg;
	int err;

	err = hipsvm_reg_create(&reg);
	if (err)
		return err;
	memset(s, 0, sizeof(*s));
	s->reg = reg;
	s->svm_bits = hipsvm_reg_svm_bits(reg);
	s->policy = *p;
	hipsvm_policy_format(p, s->policy_text, sizeof(s->policy_text));
	strncpy(s->hook_opt, hook_opt ? hook_opt : "auto", sizeof(s->hook_opt) - 1);
	s->drain_timeout_ms = drain_timeout_ms;
	s->trace_fd = trace_fd;
	s->plain = !p->quota_mask && !p->managed_local && !p->map_all && !p->oversubscribe &&
		   trace_fd < 0;
	s->pid = pid;
	s->gen = 1;
	s->start_ns = hipsvm_now_ns();
	s->runtime = "unknown";
	launch_info(s);
	hipsvm_vmm_init(&s->vmm);
	pthread_once(&conn_key_once, conn_key_make);
	return 0;
}

void hipsvm_shim_atfork_child(struct hipsvm_shim *s, int pid)
{
	struct hipsvm_registry *reg;
	unsigned i;

	/* Only this thread exists now; the connections of the others (and
	 * this thread's own) are the parent's. Close them, do not use them. */
	for (i = 0; i < MAX_CONN; i++) {
		int v = __atomic_exchange_n(&conn_fd[i], 0, __ATOMIC_RELAXED);

		if (v)
			close(v - 1);
	}
	hipsvm_tls.open = false;
	hipsvm_tls.busy = false;
	hipsvm_tls.hook.fd = -1;
	__atomic_add_fetch(&s->gen, 1, __ATOMIC_RELEASE);
	s->pid = pid;
	s->start_ns = hipsvm_now_ns();
	__atomic_store_n(&s->hook_state, HIPSVM_HOOK_UNRESOLVED, __ATOMIC_RELEASE);
	s->hook_path[0] = '\0';
	s->hook_version = 0;
	__atomic_store_n(&s->ndev, 0, __ATOMIC_RELAXED);
	hipsvm_stats_reset(&s->stats);
	memset(&s->quota, 0, sizeof(s->quota));
	/* The parent's registry may be mid-write by a thread that does not
	 * exist here: start a new one (the old one is left behind; one per
	 * fork). The child's HIP state is its own. */
	if (hipsvm_reg_create(&reg) == 0) {
		__atomic_store_n(&s->reg, reg, __ATOMIC_RELEASE);
		__atomic_store_n(&s->svm_bits, hipsvm_reg_svm_bits(reg), __ATOMIC_RELEASE);
	} else
		hipsvm_reg_atfork_child(s->reg);
	/* The parent's device allocations are not the child's. */
	if (__atomic_load_n(&s->devmap, __ATOMIC_ACQUIRE))
		hipsvm_devmap_destroy(&s->devmap_store);
	__atomic_store_n(&s->devmap, NULL, __ATOMIC_RELEASE);
	__atomic_store_n(&s->devmap_state, 0, __ATOMIC_RELEASE);
	/* the parent's pools and mappings are not the child's either (and
	 * its lock may have been held by a thread that is gone) */
	hipsvm_vmm_init(&s->vmm);
}

/* The first generation: 2^16 slots of 32 bytes, 2 MiB, touched where used
 * (a 4 KiB page per entry until about 512 entries: a bigger first one
 * cost every program its pages, the simulator's timed pair +3.9 us with
 * 2^19 in small pages); the second 2^21 (64 MiB, shim_devmap.h), mapped
 * past 32K live, so that a million live take 2 generations. 16
 * generations hold about 2^34 live device allocations before a program
 * goes on in the registry. */
#define DEVMAP_LOG2 16
#define DEVMAP_GENS 16

struct hipsvm_devmap *hipsvm_shim_devmap_make(struct hipsvm_shim *s)
{
	struct hipsvm_devmap *dm = __atomic_load_n(&s->devmap, __ATOMIC_ACQUIRE);
	int zero = 0;

	if (dm)
		return dm;
	if (!__atomic_compare_exchange_n(&s->devmap_state, &zero, 1, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return NULL;
	if (hipsvm_devmap_create(&s->devmap_store, DEVMAP_LOG2, DEVMAP_GENS)) {
		__atomic_store_n(&s->devmap_state, 3, __ATOMIC_RELEASE);
		return NULL;
	}
	__atomic_store_n(&s->devmap, &s->devmap_store, __ATOMIC_RELEASE);
	__atomic_store_n(&s->devmap_state, 2, __ATOMIC_RELEASE);
	return &s->devmap_store;
}

int hipsvm_shim_ndev_ask(struct hipsvm_shim *s)
{
	int n = __atomic_load_n(&s->ndev, __ATOMIC_ACQUIRE);

	if (n > 0)
		return n;
	if (!s->ops.get_device_count || s->ops.get_device_count(&n) != HIPSVM_HIP_SUCCESS ||
	    n <= 0)
		return 0;
	if (n > HIPSVM_MAX_GPUS)
		n = HIPSVM_MAX_GPUS;
	__atomic_store_n(&s->ndev, n, __ATOMIC_RELEASE);
	return n;
}

uint64_t hipsvm_shim_ctx_gpus(struct hipsvm_shim *s, int ctx)
{
	int n;

	if (ctx >= 0)
		return ctx < HIPSVM_MAX_GPUS ? UINT64_C(1) << ctx : 0;
	n = __atomic_load_n(&s->ndev, __ATOMIC_ACQUIRE);
	if (n <= 0)
		n = (int)__atomic_load_n(&s->stats.max_dev_seen, __ATOMIC_RELAXED);
	if (n <= 0)
		return 1;
	return n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
}

static int conn_open(struct hipsvm_shim *s, struct hipsvm_tls *t, const char *path)
{
	int err;

	hipsvm_hook_init(&t->hook);
	t->hook.reply_timeout_ms = s->drain_timeout_ms + HIPSVM_HOOK_MARGIN_MS;
	t->hook.server_pid = __atomic_load_n(&s->hook_server_pid, __ATOMIC_ACQUIRE);
	err = hipsvm_hook_open(&t->hook, path);
	if (err)
		return err;
	t->open = true;
	t->gen = __atomic_load_n(&s->gen, __ATOMIC_ACQUIRE);
	conn_remember(t->hook.fd);
	if (conn_key_ok)
		pthread_setspecific(conn_key, t);
	return 0;
}

/* Only the thread that wins the claim writes the path: the others, which
 * resolved the same answer at the same time, leave it alone (a data race on
 * hook_path otherwise), and wait the few stores it takes to publish. */
static void publish(struct hipsvm_shim *s, const char *path, uint32_t ver, int state,
		    const struct hipsvm_hook *h)
{
	int want = HIPSVM_HOOK_UNRESOLVED;

	if (!__atomic_compare_exchange_n(&s->hook_state, &want, HIPSVM_HOOK_PUBLISHING, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&s->hook_state, __ATOMIC_ACQUIRE) == HIPSVM_HOOK_PUBLISHING)
			;
		return;
	}
	memcpy(s->hook_path, path, HIPSVM_HOOK_PATH_MAX);
	s->hook_version = ver;
	s->hook_peer_pid = h->peer_pid;
	s->hook_peer_uid = h->peer_uid;
	__atomic_store_n(&s->hook_state, state, __ATOMIC_RELEASE);
}

void hipsvm_shim_hook_resolve_now(struct hipsvm_shim *s)
{
	struct hipsvm_tls *t = &hipsvm_tls;
	char path[HIPSVM_HOOK_PATH_MAX];
	const char *sim;
	int want = HIPSVM_HOOK_UNRESOLVED, err, ver, server_pid = 0;

	/* every allocation comes by here: once resolved, nothing more (the
	 * simulator's query below is a symbol lookup, and a miss is not
	 * cached) */
	if (__atomic_load_n(&s->hook_state, __ATOMIC_ACQUIRE) != HIPSVM_HOOK_UNRESOLVED)
		return;
	sim = s->ops.sim_socket ? s->ops.sim_socket() : NULL;
	err = hipsvm_hook_resolve(s->hook_opt, s->pid, sim, path, sizeof(path), &server_pid);
	if (err) {
		__atomic_compare_exchange_n(&s->hook_state, &want, HIPSVM_HOOK_NONE, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
		return;
	}
	/* Another thread may resolve at the same time: both find the same
	 * answer; the first to publish wins. */
	__atomic_store_n(&s->hook_server_pid, server_pid, __ATOMIC_RELEASE);
	if (!t->open || t->gen != __atomic_load_n(&s->gen, __ATOMIC_ACQUIRE)) {
		t->open = false;
		err = conn_open(s, t, path);
	} else {
		err = 0;
	}
	if (!err && t->busy)
		err = -EBUSY;	/* this thread is mid-request (cannot happen outside a handler) */
	if (!err) {
		/* A signal handler's unmap must not talk on this connection
		 * while the version request is in flight. */
		t->busy = true;
		ver = hipsvm_hook_version(&t->hook);
		t->busy = false;
	} else {
		ver = err;
	}
	if (ver < 0) {
		if (t->open) {
			conn_forget(t->hook.fd);
			hipsvm_hook_close(&t->hook);
			t->open = false;
		}
		publish(s, path, 0, HIPSVM_HOOK_ERROR, &t->hook);
		/* Named but unusable (not the module's file, another user's or
		 * another process's server, ...): say so now, not only at the
		 * first unmap that goes uncoordinated. */
		if (s->notify)
			s->notify(HIPSVM_EV_HOOK_REFUSED, ver);
		return;
	}
	publish(s, path, (uint32_t)ver, HIPSVM_HOOK_CONNECTED, &t->hook);
}

struct hipsvm_hook *hipsvm_shim_conn(struct hipsvm_shim *s)
{
	struct hipsvm_tls *t = &hipsvm_tls;

	if (__atomic_load_n(&s->hook_state, __ATOMIC_ACQUIRE) != HIPSVM_HOOK_CONNECTED)
		return NULL;
	if (t->open && t->gen == __atomic_load_n(&s->gen, __ATOMIC_ACQUIRE) && t->hook.fd >= 0)
		return &t->hook;
	t->open = false;
	if (conn_open(s, t, s->hook_path))
		return NULL;
	return &t->hook;
}

/* A transport error closes the client's descriptor: forget it too. */
void hipsvm_shim_conn_check(struct hipsvm_tls *t, int fd_before)
{
	if (t->open && t->hook.fd < 0) {
		conn_forget(fd_before);
		t->open = false;
	}
}

void hipsvm_shim_refresh_faults(struct hipsvm_shim *s)
{
	static struct hipsvm_reply r;	/* large; the report is not reentrant */
	struct hipsvm_tls *t = &hipsvm_tls;
	struct hipsvm_hook *h;
	int fd, n, i;

	if (t->busy)
		return;
	h = hipsvm_shim_conn(s);
	if (!h)
		return;
	fd = h->fd;
	t->busy = true;
	n = (int)hipsvm_report_ndev(&s->stats, (unsigned)__atomic_load_n(&s->ndev,
									 __ATOMIC_RELAXED));
	/* A few GPUs per request: one reply cannot hold every GPU's counters. */
	for (i = 0; i < (n ? n : 1); i += HIPSVM_HOOK_STATS_GPUS) {
		uint64_t gpus = 0;
		int g;

		for (g = i; g < n && g < i + HIPSVM_HOOK_STATS_GPUS; g++)
			gpus |= UINT64_C(1) << g;
		if (hipsvm_hook_stats(h, gpus, &r) != 0 || r.status != 0)
			break;
		hipsvm_report_apply_faults(&s->stats, &r);
	}
	hipsvm_shim_conn_check(t, fd);
	t->busy = false;
	for (i = 0; i < n && s->trace_fd >= 0; i++) {
		const struct hipsvm_dev_stats *d = &s->stats.dev[i];
		struct hipsvm_tfield f[] = {
			HIPSVM_TF_U("dev", i),
			HIPSVM_TF_U("raised", hipsvm_stats_get(&d->faults_raised)),
			HIPSVM_TF_U("handled", hipsvm_stats_get(&d->faults_handled)),
			HIPSVM_TF_U("dropped", hipsvm_stats_get(&d->faults_dropped)),
			HIPSVM_TF_U("real", hipsvm_stats_get(&d->faults_real)),
		};

		hipsvm_trace_emit(s->trace_fd, "faults", f, 5);
	}
}

int hipsvm_shim_report(struct hipsvm_shim *s, char *buf, size_t cap)
{
	static const char *const states[] = {
		[HIPSVM_HOOK_UNRESOLVED] = "none",
		[HIPSVM_HOOK_CONNECTED] = "connected",
		[HIPSVM_HOOK_NONE] = "none",
		[HIPSVM_HOOK_ERROR] = "error",
	};
	int st = __atomic_load_n(&s->hook_state, __ATOMIC_ACQUIRE);
	struct hipsvm_report_meta m = {
		.pid = s->pid,
		.program = s->program,
		.host = s->host,
		.rank = s->rank,
		.rocr_visible = s->rocr_visible,
		.hip_visible = s->hip_visible,
		.duration_ns = hipsvm_now_ns() - s->start_ns,
		.runtime = s->runtime,
		.policy = s->policy_text,
		.hook_path = st == HIPSVM_HOOK_CONNECTED || st == HIPSVM_HOOK_ERROR ?
			     s->hook_path : "",
		.hook_state = states[st & 3],
		.hook_version = st == HIPSVM_HOOK_CONNECTED ? s->hook_version : 0,
		.ndev = (unsigned)__atomic_load_n(&s->ndev, __ATOMIC_RELAXED),
		.pol = &s->policy,
		.trace_lost = hipsvm_trace_lost(NULL),
	};

	return hipsvm_report_format(&s->stats, &m, buf, cap);
}
