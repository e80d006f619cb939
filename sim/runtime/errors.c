/* SPDX-License-Identifier: MIT */
/*
 * errors.c - the last error (its names and the calls that read it are
 * sim/api/errors.c's).
 *
 * The last error is per thread. A failed call (any result but hipSuccess and
 * hipErrorNotReady, which is a status) records its error; hipGetLastError
 * returns it and resets it to hipSuccess, hipPeekAtLastError only returns it.
 * This is ROCm 6's rule (HIP_UPDATE_ERROR_STATE in clr); ROCm 5.2 recorded
 * every result, success included, which let any successful call erase an
 * error before the program asked (docs/simulator.md).
 */
#include "runtime/errors.h"

static __thread hipError_t last_error;

hipError_t sim_ret(hipError_t e)
{
	if (e != hipSuccess && e != hipErrorNotReady)
		last_error = e;
	return e;
}

hipError_t sim_last_error(bool clear)
{
	hipError_t e = last_error;

	if (clear)
		last_error = hipSuccess;
	return e;
}
