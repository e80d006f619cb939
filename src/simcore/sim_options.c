/* SPDX-License-Identifier: MIT */
/*
 * sim_options.c - the simulated runtime's option table (sim_options.h).
 */
#include "simcore/sim_options.h"

#include <errno.h>

#include "shared/proto.h"

static const struct hipsvm_option_desc table[HIPSVM_SIM_O_COUNT] = {
	[HIPSVM_SIM_O_GPUS] = { "SIM_GPUS", HIPSVM_OPT_INT, "4", 1, HIPSVM_MAX_GPUS,
		"number of simulated GPUs" },
	[HIPSVM_SIM_O_MEM] = { "SIM_MEM", HIPSVM_OPT_SIZE, "64G", HIPSVM_MIB, HIPSVM_TIB,
		"device memory per simulated GPU" },
	[HIPSVM_SIM_O_XNACK] = { "SIM_XNACK", HIPSVM_OPT_BOOL, "1", 0, 1,
		"simulated GPUs retry page faults (XNACK on)" },
	[HIPSVM_SIM_O_FGS_MASK] = { "SIM_FGS_MASK", HIPSVM_OPT_INT, "0x1", 0, UINT64_MAX,
		"bit N set: GPU N supports fine-grained system memory" },
	[HIPSVM_SIM_O_RETRY_CAM] = { "SIM_RETRY_CAM", HIPSVM_OPT_BOOL, "0", 0, 1,
		"retry CAM on: faults on the main ring plus ih_soft" },
	[HIPSVM_SIM_O_APU] = { "SIM_APU", HIPSVM_OPT_BOOL, "0", 0, 1,
		"simulate an APU: no ih1 ring" },
	[HIPSVM_SIM_O_TS_START] = { "SIM_TS_START", HIPSVM_OPT_INT, "0x1000", 1,
		(UINT64_C(1) << 48) - 1, "first timestamp of every simulated GPU clock (48 bits)" },
	/* a power of two too: see ok() */
	[HIPSVM_SIM_O_RING_SIZE] = { "SIM_RING_SIZE", HIPSVM_OPT_SIZE, "256K", 4 * HIPSVM_KIB,
		64 * HIPSVM_MIB, "bytes per simulated IH ring (a power of two)" },
	/* the name the shim's hook "auto" looks for */
	[HIPSVM_SIM_O_SOCKET] = { "SIM_SOCKET", HIPSVM_OPT_STRING, HIPSVM_HOOK_SIM_FMT, 0, 0,
		"socket of the simulator's hook server (@ = abstract, %p = pid)" },
	[HIPSVM_SIM_O_SERVE] = { "SIM_SERVE", HIPSVM_OPT_BOOL, "1", 0, 1,
		"run the simulator's hook server" },
	[HIPSVM_SIM_O_QUIET] = { "SIM_QUIET", HIPSVM_OPT_BOOL, "0", 0, 1,
		"no start-up notice from the simulator" },
	[HIPSVM_SIM_O_EXEC] = { "SIM_EXEC", HIPSVM_OPT_STRING, "auto", 0, 0,
		"kernel launches: auto (interpret the code, else touch buffers) | touch" },
	[HIPSVM_SIM_O_EXEC_THREADS] = { "SIM_EXEC_THREADS", HIPSVM_OPT_INT, "0", 0, 8,
		"threads running one interpreted dispatch (0: one per CPU, at most 4)" },
	/* 0, 256 or 512: see ok() */
	[HIPSVM_SIM_O_SIMD] = { "SIM_SIMD", HIPSVM_OPT_INT, "512", 0, 512,
		"widest x86 vector code the interpreter uses, in bits: 512, 256 or 0" },
};

/* The constraints a [min, max] cannot say: ring offsets are masked, so a
 * ring's size is a power of two; a vector width is one the interpreter
 * has code for. */
static bool ok(unsigned row, uint64_t v)
{
	if (row == HIPSVM_SIM_O_SIMD)
		return v == 0 || v == 256 || v == 512;
	return row != HIPSVM_SIM_O_RING_SIZE || (v & (v - 1)) == 0;
}

static const char *invalid(unsigned row)
{
	if (row == HIPSVM_SIM_O_SIMD)
		return "not 0, 256 or 512";
	return row == HIPSVM_SIM_O_RING_SIZE ? "not a power of two from 4K to 64M" : NULL;
}

const struct hipsvm_option_table hipsvm_sim_option_table = {
	.scope = "SIM_",
	.others = NULL,
	.rows = table,
	.n = HIPSVM_SIM_O_COUNT,
	.ok = ok,
	.invalid = invalid,
};

HIPSVM_OPTION_CALLS(hipsvm_sim_, hipsvm_sim_option_table, struct hipsvm_sim_options,
		    enum hipsvm_sim_opt_id)
