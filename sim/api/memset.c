/* SPDX-License-Identifier: MIT */
/*
 * memset.c - the rectangular fills, hipMemset2D and hipMemset3D (ROCm's
 * ihipMemset3D): the pointer must be HIP memory holding width * height *
 * depth bytes; a pitch equal to the width is one linear fill, a pitch of 0
 * otherwise is hipErrorInvalidValue; the rectangle must end inside the
 * allocation.
 */
#include "api/api.h"
#include "api/graph.h"
#include "api/memory.h"
#include "runtime/map.h"
#include "runtime/stream.h"

#include <stdlib.h>

struct fill_op {
	struct sim_op op;
	uint8_t *ptr;
	size_t pitch, slice, w, h, d;
	int value;
};

static void fill_run(struct sim_op *op)
{
	struct fill_op *f = (struct fill_op *)op;
	size_t y, z;

	for (z = 0; z < f->d; z++)
		for (y = 0; y < f->h; y++)
			memset(f->ptr + z * f->slice + y * f->pitch, f->value, f->w);
}

static hipError_t fill3d(hipPitchedPtr p, int value, hipExtent e, hipStream_t stream, bool sync)
{
	struct fill_op *f;
	struct sim_alloc a;
	size_t bytes, slice;
	uintptr_t end;

	if (!e.width || !e.height || !e.depth)
		return hipSuccess;
	if (e.height > SIZE_MAX / e.width || e.depth > SIZE_MAX / (e.width * e.height))
		return hipErrorInvalidValue;
	bytes = e.width * e.height * e.depth;
	if (!p.ptr || !sim_lookup(p.ptr, &a) || bytes > a.size)
		return hipErrorInvalidValue;
	if (p.pitch == e.width) {
		slice = e.width * e.height;
		end = (uintptr_t)p.ptr + bytes;
	} else {
		if (p.pitch == 0 || p.pitch < e.width)
			return hipErrorInvalidValue;
		slice = p.pitch * (p.ysize ? p.ysize : e.height);
		end = (uintptr_t)p.ptr + (e.depth - 1) * slice + (e.height - 1) * p.pitch + e.width;
	}
	if (end > a.base + a.size)
		return hipErrorInvalidValue;
	if (!sim_stream_get(stream))
		return hipErrorInvalidHandle;
	f = calloc(1, sizeof(*f));
	if (!f)
		return hipErrorOutOfMemory;
	f->op.fn = fill_run;
	f->ptr = p.ptr;
	f->pitch = p.pitch == e.width ? e.width : p.pitch;
	f->slice = slice;
	f->w = e.width;
	f->h = e.height;
	f->d = e.depth;
	f->value = value;
	return sim_run_op(stream, sync, &f->op);
}

static hipError_t fill2d(void *dst, size_t pitch, int value, size_t w, size_t h, hipStream_t s,
			 bool sync)
{
	return fill3d((hipPitchedPtr){ dst, pitch, w, h }, value, (hipExtent){ w, h, 1 }, s, sync);
}

SIM_API hipError_t hipMemset2D(void *dst, size_t pitch, int value, size_t width, size_t height)
{
	SIM_INIT_API();
	if (sim_capture_implicit())
		return hipErrorStreamCaptureImplicit;
	SIM_RETURN(fill2d(dst, pitch, value, width, height, NULL, true));
}

SIM_API hipError_t hipMemset2D_spt(void *dst, size_t pitch, int value, size_t width,
				   size_t height)
{
	SIM_INIT_API();
	SIM_RETURN(fill2d(dst, pitch, value, width, height, sim_spt_stream(), true));
}

SIM_API hipError_t hipMemset2DAsync(void *dst, size_t pitch, int value, size_t width,
				    size_t height, hipStream_t stream)
{
	SIM_INIT_API();
	if (sim_capture_active(stream))
		return sim_capture_memset2d(stream, dst, pitch, value, width, height);
	SIM_RETURN(fill2d(dst, pitch, value, width, height, stream, false));
}

SIM_API hipError_t hipMemset3D(hipPitchedPtr p, int value, hipExtent extent)
{
	SIM_INIT_API();
	if (sim_capture_implicit())
		return hipErrorStreamCaptureImplicit;
	SIM_RETURN(fill3d(p, value, extent, NULL, true));
}

SIM_API hipError_t hipMemset3D_spt(hipPitchedPtr p, int value, hipExtent extent)
{
	SIM_INIT_API();
	SIM_RETURN(fill3d(p, value, extent, sim_spt_stream(), true));
}

SIM_API hipError_t hipMemset3DAsync(hipPitchedPtr p, int value, hipExtent extent,
				    hipStream_t stream)
{
	SIM_INIT_API();
	if (sim_capture_active(stream))	/* capturehipMemset3DAsync records nothing */
		return hipSuccess;
	SIM_RETURN(fill3d(p, value, extent, stream, false));
}
