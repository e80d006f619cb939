/* SPDX-License-Identifier: MIT */
/*
 * array_wrap.c - arrays: device memory of the current device, held behind a
 * hipArray handle. The handle keys the entry; the size recorded is what the
 * array holds (width x height x depth elements), which the runtime may pad.
 */
#include "wrap.h"

typedef hipError_t (*malloc_array_fn)(hipArray **, const hipChannelFormatDesc *, size_t, size_t,
				      unsigned);
typedef hipError_t (*malloc_3d_array_fn)(hipArray **, const hipChannelFormatDesc *, hipExtent,
					 unsigned);
typedef hipError_t (*array_create_fn)(hipArray **, const HIP_ARRAY_DESCRIPTOR *);
typedef hipError_t (*array_3d_create_fn)(hipArray **, const HIP_ARRAY3D_DESCRIPTOR *);

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

static int call_malloc_array(struct hipsvm_call *c)
{
	struct a_args *a = c->args;

	return ((malloc_array_fn)a->real)((hipArray **)c->ptr, a->desc, a->width, a->height,
					  c->flags);
}

HIPSVM_EXPORT hipError_t hipMallocArray(hipArray **array, const hipChannelFormatDesc *desc,
					size_t width, size_t height, unsigned flags)
{
	WRAP_BEGIN(hipMallocArray);
	if (!s)
		return ((malloc_array_fn)real)(array, desc, width, height, flags);
	a.desc = desc;
	a.width = width;
	a.height = height;
	struct hipsvm_call c = { .api = HIPSVM_API_MALLOC_ARRAY, .ptr = (void **)array,
				 .size = width * at_least_1(height) * channel_bytes(desc),
				 .flags = flags, .real = call_malloc_array, .args = &a,
				 .keyed = true };
	return run(s, &c, true);
}

static int call_malloc_3d_array(struct hipsvm_call *c)
{
	struct a_args *a = c->args;
	hipExtent e = { a->width, a->height, a->depth };

	return ((malloc_3d_array_fn)a->real)((hipArray **)c->ptr, a->desc, e, c->flags);
}

HIPSVM_EXPORT hipError_t hipMalloc3DArray(hipArray **array, const hipChannelFormatDesc *desc,
					  hipExtent e, unsigned flags)
{
	WRAP_BEGIN(hipMalloc3DArray);
	if (!s)
		return ((malloc_3d_array_fn)real)(array, desc, e, flags);
	a.desc = desc;
	a.width = e.width;
	a.height = e.height;
	a.depth = e.depth;
	struct hipsvm_call c = { .api = HIPSVM_API_MALLOC_3D_ARRAY, .ptr = (void **)array,
				 .size = e.width * at_least_1(e.height) * at_least_1(e.depth) *
					 channel_bytes(desc),
				 .flags = flags, .real = call_malloc_3d_array, .args = &a,
				 .keyed = true };
	return run(s, &c, true);
}

static int call_array_create(struct hipsvm_call *c)
{
	struct a_args *a = c->args;

	return ((array_create_fn)a->real)((hipArray **)c->ptr, a->desc);
}

HIPSVM_EXPORT hipError_t hipArrayCreate(hipArray **array, const HIP_ARRAY_DESCRIPTOR *d)
{
	WRAP_BEGIN(hipArrayCreate);
	if (!s || !d)
		return ((array_create_fn)real)(array, d);
	a.desc = d;
	struct hipsvm_call c = { .api = HIPSVM_API_ARRAY_CREATE, .ptr = (void **)array,
				 .size = d->Width * at_least_1(d->Height) *
					 format_bytes(d->Format, d->NumChannels),
				 .real = call_array_create, .args = &a, .keyed = true };
	return run(s, &c, true);
}

static int call_array_3d_create(struct hipsvm_call *c)
{
	struct a_args *a = c->args;

	return ((array_3d_create_fn)a->real)((hipArray **)c->ptr, a->desc);
}

HIPSVM_EXPORT hipError_t hipArray3DCreate(hipArray **array, const HIP_ARRAY3D_DESCRIPTOR *d)
{
	WRAP_BEGIN(hipArray3DCreate);
	if (!s || !d)
		return ((array_3d_create_fn)real)(array, d);
	a.desc = d;
	struct hipsvm_call c = { .api = HIPSVM_API_ARRAY_3D_CREATE, .ptr = (void **)array,
				 .size = d->Width * at_least_1(d->Height) * at_least_1(d->Depth) *
					 format_bytes(d->Format, d->NumChannels),
				 .flags = d->Flags, .real = call_array_3d_create, .args = &a,
				 .keyed = true };
	return run(s, &c, true);
}

HIPSVM_EXPORT hipError_t hipFreeArray(hipArray *array)
{
	return hipsvm_wrap_free(HIPSVM_ROW_hipFreeArray, HIPSVM_API_FREE_ARRAY, array);
}

HIPSVM_EXPORT hipError_t hipArrayDestroy(hipArray *array)
{
	return hipsvm_wrap_free(HIPSVM_ROW_hipArrayDestroy, HIPSVM_API_ARRAY_DESTROY, array);
}
