/* SPDX-License-Identifier: MIT */
/*
 * stream.c - the stream calls: creation with flags and priorities,
 * destruction, synchronisation, queries. The streams themselves, their
 * workers and the null stream's barriers are sim/runtime/stream.c's.
 */
#include "api/api.h"
#include "api/graph.h"
#include "runtime/stream.h"

SIM_API hipError_t hipStreamCreate(hipStream_t *s)
{
	SIM_RETURN(sim_stream_create(s, hipStreamDefault, 0));
}

SIM_API hipError_t hipStreamCreateWithFlags(hipStream_t *s, unsigned int flags)
{
	SIM_RETURN(sim_stream_create(s, flags, 0));
}

SIM_API hipError_t hipStreamCreateWithPriority(hipStream_t *s, unsigned int flags, int prio)
{
	SIM_RETURN(sim_stream_create(s, flags, prio <= -1 ? -1 : prio >= 1 ? 1 : 0));
}

SIM_API hipError_t hipDeviceGetStreamPriorityRange(int *least, int *greatest)
{
	if (least)
		*least = 1;
	if (greatest)
		*greatest = -1;
	return hipSuccess;
}

SIM_API hipError_t hipStreamDestroy(hipStream_t h)
{
	SIM_INIT_API();
	if (!h || h == hipStreamPerThread)	/* ROCm: InvalidHandle, InvalidResourceHandle */
		SIM_RETURN(hipErrorInvalidHandle);
	sim_capture_stream_gone(h);
	if (!sim_stream_destroy(h))
		SIM_RETURN(hipErrorContextIsDestroyed);
	return hipSuccess;
}

SIM_API hipError_t hipStreamSynchronize(hipStream_t h)
{
	struct sim_stream *s;

	SIM_INIT_API();
	s = sim_stream_get(h);
	if (!s)
		SIM_RETURN(h ? hipErrorContextIsDestroyed : hipErrorNoDevice);
	SIM_RETURN(sim_stream_sync(s));
}

SIM_API hipError_t hipStreamQuery(hipStream_t h)
{
	struct sim_stream *s;

	SIM_INIT_API();
	s = sim_stream_get(h);
	if (!s)
		SIM_RETURN(h ? hipErrorContextIsDestroyed : hipErrorNoDevice);
	SIM_RETURN(sim_stream_query(s));
}

SIM_API hipError_t hipStreamGetFlags(hipStream_t h, unsigned int *flags)
{
	struct sim_stream *s;

	SIM_INIT_API();
	/* ROCm: the null stream has no flags to report */
	if (!flags || !h)
		SIM_RETURN(hipErrorInvalidValue);
	s = sim_stream_get(h);
	if (!s)
		SIM_RETURN(hipErrorContextIsDestroyed);
	*flags = sim_stream_flags(s);
	return hipSuccess;
}

SIM_API hipError_t hipStreamGetPriority(hipStream_t h, int *prio)
{
	struct sim_stream *s;

	SIM_INIT_API();
	if (!prio)
		SIM_RETURN(hipErrorInvalidValue);
	if (!h) {		/* ROCm: the null stream is normal priority */
		*prio = 0;
		return hipSuccess;
	}
	s = sim_stream_get(h);
	if (!s)
		SIM_RETURN(hipErrorContextIsDestroyed);
	*prio = sim_stream_priority(s);
	return hipSuccess;
}
