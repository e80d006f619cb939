/* SPDX-License-Identifier: MIT */
/*
 * hostcall.h - the host side of hostcalls (device printf): hostcall.c.
 */
#ifndef HIPSVM_SIM_EXEC_HOSTCALL_H
#define HIPSVM_SIM_EXEC_HOSTCALL_H

#include <stdint.h>

/* atfork child and first initialisation: no buffers, no messages. */
void sim_hostcall_reset(void);
/* The hostcall buffer of device dev (made at first use; 0: none could be
 * made), for a kernel's hidden_hostcall_buffer argument and as the
 * interrupt handler's argument. */
uint64_t sim_hostcall_buffer(int dev);
/* isa_env.interrupt: serves the buffer's ready packets. */
void sim_hostcall_interrupt(void *buffer, uint32_t m0);

#endif
