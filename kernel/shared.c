// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * shared.c - the code that the module shares with user space, compiled in
 * unchanged: the IH ring, the checkpoint operations, the protocol parser and
 * the server semantics of the protocol are the very files that the shim and the simulator link (src/shared/, included
 * qualified from src/, which ccflags-y in Kbuild names). src/shared/compat.h maps their atomics and types
 * onto the kernel's under __KERNEL__.
 */
#include "shared/ring.c"
#include "shared/checkpoint.c"
#include "shared/proto.c"
#include "shared/hooksrv.c"
