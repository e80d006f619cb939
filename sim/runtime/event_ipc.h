/* SPDX-License-Identifier: MIT */
/*
 * event_ipc.h - the shared state of an interprocess event: a POSIX shared
 * memory segment named in the hipIpcEventHandle_t, holding the creator's
 * pid and device and two counters, records issued and records completed
 * (any process may record). An event is done when both are equal.
 *
 * Functions return 0 or -errno; nothing here logs or takes a runtime lock
 * (the counters are atomics in the segment).
 */
#ifndef HIPSVM_SIM_EVENT_IPC_H
#define HIPSVM_SIM_EVENT_IPC_H

#include <hip/hip_runtime_api.h>
#include <stdbool.h>
#include <stdint.h>

struct sim_ipc_event;

/* A new segment for an event of device dev. */
int sim_ipc_event_create(int dev, struct sim_ipc_event **out);
void sim_ipc_event_handle(const struct sim_ipc_event *ev, hipIpcEventHandle_t *h);
/* -EINVAL: no such segment; -EEXIST: the creator is this process (ROCm
 * refuses to open an event in the process that made it). *dev gets the
 * creator's device. */
int sim_ipc_event_open(const hipIpcEventHandle_t *h, struct sim_ipc_event **out, int *dev);
/* A record: its sequence number, to pass to _complete when it lands. */
uint64_t sim_ipc_event_record(struct sim_ipc_event *ev);
void sim_ipc_event_complete(struct sim_ipc_event *ev, uint64_t seq);
bool sim_ipc_event_done(const struct sim_ipc_event *ev);
void sim_ipc_event_wait(const struct sim_ipc_event *ev);	/* until done */
/* Drops this process's reference; the last owner removes the segment. */
void sim_ipc_event_close(struct sim_ipc_event *ev);

#endif
