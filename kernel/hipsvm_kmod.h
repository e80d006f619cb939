/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * hipsvm_kmod.h - internals of hipsvm.ko, the debugfs checkpoint hook.
 *
 * The module has three parts:
 *   vgpu.c  virtual GPUs standing in for amdgpu: three IH rings each, a clock,
 *           and an ordered workqueue that runs the shared ring handler;
 *   proc.c  per-process state (a checkpoint per GPU, counters, an event log),
 *           keyed by the opener's address space (mm) and found by PASID
 *           from the fault path;
 *   hook.c  /sys/kernel/debug/hipsvm/hook, the backend of src/shared/hooksrv.c.
 * The checkpoint logic and what each request means are not here: shared.c
 * compiles src/shared/ring.c, checkpoint.c, proto.c and hooksrv.c into the module
 * unchanged.
 */
#ifndef HIPSVM_KMOD_H
#define HIPSVM_KMOD_H

#include <linux/types.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/list.h>

#include "shared/checkpoint.h"
#include "shared/hooksrv.h"
#include "shared/proto.h"

/*
 * The module's virtual GPUs, fewer than the protocol's HIPSVM_MAX_GPUS: each
 * one costs an ordered workqueue (a kernel thread) and HIPSVM_NRINGS
 * physically contiguous ring buffers of up to 1 MiB, and every process that
 * opens the hook carries a checkpoint and a close-time drain per possible
 * GPU in one kzalloc'd struct hipsvm_proc. A quarter of the protocol's limit
 * keeps both small; a test never needs more than a handful.
 */
#define HIPSVM_KMOD_MAX_GPUS (HIPSVM_MAX_GPUS / 4)
#define HIPSVM_NRINGS 3
#define HIPSVM_LOG_LEN 64

/* Module parameters (main.c). */
extern unsigned int hipsvm_ngpus;
extern unsigned long hipsvm_clock_start;
extern unsigned int hipsvm_ring_bytes;
extern bool hipsvm_retry_cam;
extern bool hipsvm_apu;

struct hipsvm_vgpu {
	unsigned int idx;
	struct hipsvm_ring ring[HIPSVM_NRINGS];	/* by enum hipsvm_ring_id */
	u32 *buf[HIPSVM_NRINGS];
	struct hipsvm_gpu_irq irq;
	/* Drainers of any ring of this GPU sleep here; the handler's wake
	 * function wakes them after every pass. */
	wait_queue_head_t wq;
	/* Producers are serialised, as the hardware's single writer is: the
	 * ring's contract allows one producer at a time. Also guards clock. */
	spinlock_t prod_lock;
	u64 clock;			/* the next "now" timestamp */
	struct workqueue_struct *wqueue;	/* ordered: one consumer */
	struct work_struct work;
	bool paused;			/* debug: the handler leaves the rings alone */
	bool hold_ih0;			/* debug: and ih0's interrupt handler too */
	/* counters, bumped by the handler, read by the stats file */
	atomic64_t faults;
	atomic64_t unknown_pasid;
	atomic64_t not_fault;
	atomic64_t soft_lost;		/* retry faults ih_soft had no room for */
};

extern struct hipsvm_vgpu *hipsvm_vgpus;

int hipsvm_vgpu_init_all(void);
void hipsvm_vgpu_fini_all(void);
/* Push a retry fault IV; *ts is the timestamp used (now = the GPU's clock). */
int hipsvm_vgpu_inject(unsigned int gpu, bool now, u64 ts, u64 addr, bool write,
		       u16 pasid, u64 *used);
int hipsvm_vgpu_ring_enable(unsigned int gpu, enum hipsvm_ring_id id, bool on);
void hipsvm_vgpu_set_paused(unsigned int gpu, bool paused, bool ih0);
void hipsvm_vgpu_kick(unsigned int gpu);

/* Per-process state. */
enum hipsvm_ev {
	HIPSVM_EV_SET = 1,	/* x: checkpoint, or none */
	HIPSVM_EV_DRAIN,	/* word: ok/timeout/nodev/skipped/mapped/unmapped */
	HIPSVM_EV_CLEAR,	/* word: cleared/kept */
	HIPSVM_EV_HANDLED,	/* x: fault timestamp */
	HIPSVM_EV_DROPPED,	/* x: fault timestamp */
	HIPSVM_EV_RANGE,	/* x: start of the range a set names; gpu: its first */
};

struct hipsvm_event {
	u64 seq;
	u64 x;
	u8 op;
	u8 gpu;
	bool has_x;
	const char *word;	/* static string, or NULL */
};

struct hipsvm_proc {
	struct kref ref;	/* one for the open files, one per fault in flight */
	struct list_head node;	/* live: hipsvm_procs; draining: hipsvm_dying */
	/* The key: the opener's address space, pinned with mmgrab() so that
	 * its address cannot be another process's while we hold it (a tgid
	 * can: it is reused once the process is gone, while a forked child
	 * may still hold the descriptor). Never dereferenced. */
	struct mm_struct *mm;
	pid_t tgid;		/* of the first opener, for the log only */
	u32 pasid;
	unsigned int files;	/* open files, under hipsvm_procs_lock */
	bool dying;		/* no file left, faults still queued: not filtered */
	struct mutex set_lock;	/* serialises sets (checkpoint.h) */
	struct hipsvm_cp cp[HIPSVM_KMOD_MAX_GPUS];
	atomic64_t injected;
	atomic64_t lost;	/* this process's retry faults a full ih_soft lost */
	/* Commands of several threads run concurrently (a drain does not hold
	 * up an injection); this lock guards only the range and the log. */
	spinlock_t lock;
	/* range of the last "set <gpus> addr len", checked at drain time,
	 * forgotten at the next set or clear */
	bool has_range;
	u64 range_addr, range_len;
	unsigned int log_head;	/* next slot */
	unsigned int log_count;
	struct hipsvm_event log[HIPSVM_LOG_LEN];
	/* The drain at the last close: GPUs still to drain, and their state. */
	u64 closing;
	u64 begun;
	struct hipsvm_drain close_drain[HIPSVM_KMOD_MAX_GPUS];
};

/* Opens a file of the caller's process (its state is created on the first
 * open); ERR_PTR. */
struct hipsvm_proc *hipsvm_proc_open_current(void);
/* Closes one file. The last one drains every GPU (at most
 * HIPSVM_CLOSE_DRAIN_MS in all): the PASID is given back only once no fault
 * of the process is queued; until then the process is "dying", its faults
 * are counted as unknown_pasid, and a worker looks again every so often. */
void hipsvm_proc_close(struct hipsvm_proc *p);
#define HIPSVM_CLOSE_DRAIN_MS 1000
/* A live process by PASID, with a reference; NULL if none or dying. */
struct hipsvm_proc *hipsvm_proc_get_by_pasid(u32 pasid);
void hipsvm_proc_put(struct hipsvm_proc *p);
void hipsvm_proc_log(struct hipsvm_proc *p, enum hipsvm_ev op, unsigned int gpu,
		     bool has_x, u64 x, const char *word);
void hipsvm_proc_log_format(struct hipsvm_proc *p, struct hipsvm_out *o);
unsigned int hipsvm_proc_count(void);		/* live */
unsigned int hipsvm_proc_dying_count(void);	/* holding a PASID while draining */
/* Unload: stop the worker (before the GPUs go), then free what is left
 * (after the GPUs' handlers are gone). */
void hipsvm_proc_stop(void);
void hipsvm_proc_fini(void);

/* hook.c */
extern const struct file_operations hipsvm_hook_fops;
extern const struct hipsvm_srv_ops hipsvm_srv_ops_kmod;

/* global statistics (main.c) */
extern atomic64_t hipsvm_stat_requests;
extern atomic64_t hipsvm_stat_bad_requests;
extern atomic64_t hipsvm_stat_opens;

#endif
