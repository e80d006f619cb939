/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * hipsvm_kmod.h - internals of hipsvm.ko, the debugfs checkpoint hook.
 *
 * The module has three parts:
 *   vgpu.c  virtual GPUs standing in for amdgpu: three IH rings each, a clock,
 *           and an ordered workqueue that runs the shared ring handler;
 *   proc.c  per-process state (a checkpoint per GPU, counters, an event log),
 *           keyed by the opener's thread group and found by PASID from the
 *           fault path;
 *   hook.c  /sys/kernel/debug/hipsvm/hook, the protocol of src/proto.h.
 * The checkpoint logic itself is not here: shared.c compiles src/ring.c,
 * src/checkpoint.c and src/proto.c into the module unchanged.
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

#include "checkpoint.h"
#include "proto.h"

#define HIPSVM_KMOD_MAX_GPUS 16
#define HIPSVM_NRINGS 3
#define HIPSVM_LOG_LEN 64
#define HIPSVM_DRAIN_DEFAULT_MS 1000
#define HIPSVM_DRAIN_MAX_MS 60000

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
	/* counters, written by the handler only */
	u64 faults;
	u64 unknown_pasid;
	u64 not_fault;
	u64 soft_lost;			/* retry faults ih_soft had no room for */
};

extern struct hipsvm_vgpu *hipsvm_vgpus;

int hipsvm_vgpu_init_all(void);
void hipsvm_vgpu_fini_all(void);
/* Push a retry fault IV; *ts is the timestamp used (now = the GPU's clock). */
int hipsvm_vgpu_inject(unsigned int gpu, bool now, u64 ts, u64 addr, bool write,
		       u16 pasid, u64 *used);
int hipsvm_vgpu_ring_enable(unsigned int gpu, enum hipsvm_ring_id id, bool on);
void hipsvm_vgpu_set_paused(unsigned int gpu, bool paused);
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
	struct kref ref;	/* one per open file, one per fault in flight */
	struct list_head node;	/* hipsvm_procs, under hipsvm_procs_lock */
	pid_t tgid;
	u32 pasid;
	struct hipsvm_cp cp[HIPSVM_KMOD_MAX_GPUS];
	atomic64_t injected;
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
};

struct hipsvm_proc *hipsvm_proc_get_current(void);	/* creates; ERR_PTR */
struct hipsvm_proc *hipsvm_proc_get_by_pasid(u32 pasid);	/* NULL if none */
void hipsvm_proc_put(struct hipsvm_proc *p);
void hipsvm_proc_log(struct hipsvm_proc *p, enum hipsvm_ev op, unsigned int gpu,
		     bool has_x, u64 x, const char *word);
void hipsvm_proc_log_format(struct hipsvm_proc *p, struct hipsvm_out *o);
unsigned int hipsvm_proc_count(void);

/* hook.c */
extern const struct file_operations hipsvm_hook_fops;

/* global statistics (main.c) */
extern atomic64_t hipsvm_stat_requests;
extern atomic64_t hipsvm_stat_bad_requests;
extern atomic64_t hipsvm_stat_opens;

#endif
