/* SPDX-License-Identifier: MIT */
/*
 * errors.h - the last-error rule (errors.c).
 */
#ifndef HIPSVM_SIM_RUNTIME_ERRORS_H
#define HIPSVM_SIM_RUNTIME_ERRORS_H

#include <hip/hip_runtime_api.h>
#include <stdbool.h>

hipError_t sim_ret(hipError_t e);	/* records e as the last error, returns it */
/* The calling thread's last error; clear: reset it to hipSuccess. */
hipError_t sim_last_error(bool clear);

#endif
