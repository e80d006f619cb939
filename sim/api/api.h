/* SPDX-License-Identifier: MIT */
/*
 * api.h - what every HIP entry point of sim/api/ uses: the export
 * attribute, the entry and exit pair, and the not-supported answer.
 */
#ifndef HIPSVM_SIM_API_H
#define HIPSVM_SIM_API_H

#include "runtime/errors.h"
#include "runtime/state.h"

#define SIM_API __attribute__((visibility("default")))

/*
 * The entry and the exit of an API body, as hipamd's HIP_INIT_API and
 * HIP_RETURN: the runtime initialised once per process (again in a fork
 * child), and the answer recorded by the last-error rule (errors.c) before
 * it is returned. A body that returns without SIM_RETURN leaves the last
 * error alone, as ROCm's do where they return directly.
 */
#define SIM_INIT_API() sim_init()
#define SIM_RETURN(e) return sim_ret(e)

/* hipErrorNotSupported, recorded; says once per function (once points at
 * that function's flag) that the simulator does not provide it, unless
 * HIPSVM_SIM_QUIET. */
hipError_t sim_notsup(const char *fn, uint32_t *once);
#define SIM_NOTSUP() ({ static uint32_t once_; sim_notsup(__func__, &once_); })

#endif
