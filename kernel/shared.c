// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * shared.c - the code that the module shares with user space, compiled in
 * unchanged: the IH ring, the checkpoint operations, the protocol parser and
 * the server semantics of the protocol are the very files that the shim and the simulator link (src/shared/, found
 * through ccflags-y in Kbuild). src/shared/compat.h maps their atomics and types
 * onto the kernel's under __KERNEL__.
 */
#include "ring.c"
#include "checkpoint.c"
#include "proto.c"
#include "hooksrv.c"
