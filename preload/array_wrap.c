/* SPDX-License-Identifier: MIT */
/*
 * array_wrap.c - arrays: device memory of the current device, held behind a
 * hipArray handle. The handle keys the entry; the size recorded is what the
 * array holds (width x height x depth elements), which the runtime may pad.
 */
#include "wrap.h"

static size_t at_least_1(size_t n)
{
	return n ? n : 1;
}

/* Bytes per element of a channel description (bits of its four channels). */
static size_t channel_bytes(const hipChannelFormatDesc *d)
{
	return d ? (size_t)(d->x + d->y + d->z + d->w) / 8 : 0;
}

/* Bytes per element of a driver array format with n channels. */
static size_t format_bytes(int format, unsigned n)
{
	switch (format) {
	case 0x01: case 0x08: return n;		/* (un)signed 8-bit */
	case 0x02: case 0x09: case 0x10: return 2 * (size_t)n;	/* 16-bit, half */
	case 0x03: case 0x0a: case 0x20: return 4 * (size_t)n;	/* 32-bit, float */
	default: return 0;
	}
}

/* An array call: its handle keys the entry, size is what it holds. */
#define ALLOC_ARRAY(api_, size_, flags_, call)					\
	do {									\
		struct hipsvm_call c;						\
		size_t n_ = (size_);						\
										\
		hipsvm_call_init(&c, (api_), (void **)array, n_);		\
		c.flags = (flags_);						\
		c.keyed = true;							\
		ALLOC(c, call, array ? *array : NULL, n_);			\
	} while (0)

HOOK(hipMallocArray, (hipArray **array, const hipChannelFormatDesc *desc, size_t width,
		      size_t height, unsigned flags),
     (array, desc, width, height, flags))
{
	ALLOC_ARRAY(HIPSVM_API_MALLOC_ARRAY, width * at_least_1(height) * channel_bytes(desc), flags,
		    real(array, desc, width, height, flags));
}

HOOK(hipMalloc3DArray, (hipArray **array, const hipChannelFormatDesc *desc, hipExtent e,
			unsigned flags),
     (array, desc, e, flags))
{
	ALLOC_ARRAY(HIPSVM_API_MALLOC_3D_ARRAY,
		    e.width * at_least_1(e.height) * at_least_1(e.depth) * channel_bytes(desc), flags,
		    real(array, desc, e, flags));
}

HOOK(hipArrayCreate, (hipArray **array, const HIP_ARRAY_DESCRIPTOR *d), (array, d))
{
	if (!d)
		return real(array, d);
	ALLOC_ARRAY(HIPSVM_API_ARRAY_CREATE,
		    d->Width * at_least_1(d->Height) * format_bytes(d->Format, d->NumChannels), 0,
		    real(array, d));
}

HOOK(hipArray3DCreate, (hipArray **array, const HIP_ARRAY3D_DESCRIPTOR *d), (array, d))
{
	if (!d)
		return real(array, d);
	ALLOC_ARRAY(HIPSVM_API_ARRAY_3D_CREATE,
		    d->Width * at_least_1(d->Height) * at_least_1(d->Depth) *
			    format_bytes(d->Format, d->NumChannels),
		    d->Flags, real(array, d));
}

HOOK(hipFreeArray, (hipArray *array), (array))
{
	FREE(HIPSVM_API_FREE_ARRAY, array, real(array));
}

HOOK(hipArrayDestroy, (hipArray *array), (array))
{
	FREE(HIPSVM_API_ARRAY_DESTROY, array, real(array));
}
