/* SPDX-License-Identifier: MIT */
/*
 * memcpy2d.c - the rectangular copies: 2D, 3D, to and from arrays, the
 * driver's descriptors, and symbols. Every form is turned into one
 * description (ROCm turns them all into a HIP_MEMCPY3D the same way), checked
 * and then run as rows of memmove in stream order. A side that is HIP memory
 * must hold the whole rectangle, an array side must hold it within its
 * extent: hipErrorInvalidValue otherwise, as ROCm's buffer and image
 * rectangles refuse it.
 */
#include "api/api.h"
#include "api/graph.h"
#include "api/memory.h"
#include "runtime/map.h"
#include "runtime/stream.h"

#include <stdlib.h>

struct side {
	uint8_t *ptr;
	size_t pitch, height;		/* bytes per row, rows per slice */
	size_t x, y, z;			/* x in bytes */
	const hipArray *arr;		/* or NULL */
};

struct rect_op {
	struct sim_op op;
	struct side dst, src;
	size_t w, h, d;
};

static uint8_t *at(const struct side *s, size_t y, size_t z)
{
	return s->ptr + (s->z + z) * s->pitch * s->height + (s->y + y) * s->pitch + s->x;
}

static void rect_run(struct sim_op *op)
{
	struct rect_op *r = (struct rect_op *)op;
	size_t y, z;

	for (z = 0; z < r->d; z++)
		for (y = 0; y < r->h; y++)
			memmove(at(&r->dst, y, z), at(&r->src, y, z), r->w);
}

/* Array: its layout; memory: the rectangle inside what holds it. */
static hipError_t settle(struct side *s, size_t w, size_t h, size_t d)
{
	struct sim_array_info ai;
	struct sim_alloc a;
	uintptr_t first, last;

	if (s->arr) {
		if (!sim_array_get(s->arr, &ai))
			return hipErrorInvalidValue;
		if (s->x + w > ai.row || s->y + h > ai.rows || s->z + d > ai.slices)
			return hipErrorInvalidValue;
		s->ptr = ai.mem;
		s->pitch = ai.row;
		s->height = ai.rows;
		return hipSuccess;
	}
	if (!s->ptr)
		return hipErrorInvalidValue;
	if (!s->pitch)
		s->pitch = s->x + w;
	if (!s->height)
		s->height = s->y + h;
	if (s->x + w > s->pitch || (d > 1 && s->y + h > s->height))
		return hipErrorInvalidValue;
	first = (uintptr_t)at(s, 0, 0);
	last = (uintptr_t)at(s, h - 1, d - 1) + w;
	if (last < first)
		return hipErrorInvalidValue;
	if (sim_lookup((void *)first, &a) && last > a.base + a.size)
		return hipErrorInvalidValue;
	return hipSuccess;
}

static hipError_t rect(struct side dst, struct side src, size_t w, size_t h, size_t d,
		       hipStream_t stream, bool sync)
{
	struct rect_op *r;
	hipError_t e;

	if (!w || !h || !d)
		return hipSuccess;
	e = settle(&dst, w, h, d);
	if (e == hipSuccess)
		e = settle(&src, w, h, d);
	if (e != hipSuccess)
		return e;
	if (!sim_stream_get(stream))
		return hipErrorInvalidValue;
	r = calloc(1, sizeof(*r));
	if (!r)
		return hipErrorOutOfMemory;
	r->op.fn = rect_run;
	r->dst = dst;
	r->src = src;
	r->w = w;
	r->h = h;
	r->d = d;
	return sim_run_op(stream, sync, &r->op);
}

static bool kind_ok(int kind)
{
	return kind >= hipMemcpyHostToHost && kind <= hipMemcpyDefault;
}

/* ---- 2D ---- */

static hipError_t copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t w,
			 size_t h, int kind, hipStream_t s, bool sync)
{
	if (!kind_ok(kind))
		return hipErrorInvalidMemcpyDirection;
	if (!w || !h)
		return hipSuccess;
	if (w > dpitch || w > spitch)
		return hipErrorInvalidPitchValue;
	return rect((struct side){ .ptr = dst, .pitch = dpitch },
		    (struct side){ .ptr = (void *)src, .pitch = spitch }, w, h, 1, s, sync);
}

SIM_API hipError_t hipMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
			       size_t width, size_t height, hipMemcpyKind kind)
{
	SIM_INIT_API();
	if (sim_capture_implicit())
		return hipErrorStreamCaptureImplicit;
	SIM_RETURN(copy2d(dst, dpitch, src, spitch, width, height, kind, NULL, true));
}

SIM_API hipError_t hipMemcpy2D_spt(void *dst, size_t dpitch, const void *src, size_t spitch,
				   size_t width, size_t height, hipMemcpyKind kind)
{
	SIM_INIT_API();
	SIM_RETURN(copy2d(dst, dpitch, src, spitch, width, height, kind, sim_spt_stream(),
			  true));
}

SIM_API hipError_t hipMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
				    size_t width, size_t height, hipMemcpyKind kind,
				    hipStream_t stream)
{
	SIM_INIT_API();
	if (sim_capture_active(stream))
		return sim_capture_memcpy2d(stream, dst, dpitch, src, spitch, width, height, kind);
	SIM_RETURN(copy2d(dst, dpitch, src, spitch, width, height, kind, stream, false));
}

/* ---- to and from arrays (offsets and widths in bytes) ---- */

static hipError_t to_array(hipArray *dst, size_t wo, size_t ho, const void *src, size_t spitch,
			   size_t w, size_t h, int kind, hipStream_t s, bool sync)
{
	if (!dst)
		return hipErrorInvalidResourceHandle;
	if (!kind_ok(kind))
		return hipErrorInvalidMemcpyDirection;
	return rect((struct side){ .arr = dst, .x = wo, .y = ho },
		    (struct side){ .ptr = (void *)src, .pitch = spitch }, w, h, 1, s, sync);
}

static hipError_t from_array(void *dst, size_t dpitch, const hipArray *src, size_t wo, size_t ho,
			     size_t w, size_t h, int kind, hipStream_t s, bool sync)
{
	if (!src)
		return hipErrorInvalidResourceHandle;
	if (!kind_ok(kind))
		return hipErrorInvalidMemcpyDirection;
	return rect((struct side){ .ptr = dst, .pitch = dpitch },
		    (struct side){ .arr = src, .x = wo, .y = ho }, w, h, 1, s, sync);
}

SIM_API hipError_t hipMemcpy2DToArray(hipArray *dst, size_t wOffset, size_t hOffset,
				      const void *src, size_t spitch, size_t width, size_t height,
				      hipMemcpyKind kind)
{
	SIM_INIT_API();
	if (spitch == 0)
		SIM_RETURN(hipErrorInvalidPitchValue);
	SIM_RETURN(to_array(dst, wOffset, hOffset, src, spitch, width, height, kind, NULL,
			    true));
}

SIM_API hipError_t hipMemcpy2DToArray_spt(hipArray *dst, size_t wOffset, size_t hOffset,
					  const void *src, size_t spitch, size_t width,
					  size_t height, hipMemcpyKind kind)
{
	SIM_INIT_API();
	if (spitch == 0)
		SIM_RETURN(hipErrorInvalidPitchValue);
	SIM_RETURN(to_array(dst, wOffset, hOffset, src, spitch, width, height, kind,
			    sim_spt_stream(), true));
}

SIM_API hipError_t hipMemcpy2DToArrayAsync(hipArray *dst, size_t wOffset, size_t hOffset,
					   const void *src, size_t spitch, size_t width,
					   size_t height, hipMemcpyKind kind, hipStream_t stream)
{
	SIM_INIT_API();
	if (spitch == 0)
		SIM_RETURN(hipErrorInvalidPitchValue);
	SIM_RETURN(to_array(dst, wOffset, hOffset, src, spitch, width, height, kind, stream,
			    false));
}

SIM_API hipError_t hipMemcpy2DFromArray(void *dst, size_t dpitch, hipArray_const_t src,
					size_t wOffset, size_t hOffset, size_t width, size_t height,
					hipMemcpyKind kind)
{
	SIM_INIT_API();
	/* hipMemcpy2DFromArray_common and the async call (hip_memory.cpp:3098,
	 * :3120); hipMemcpyFromArray's own pitch of 0 is the tight one */
	if (dpitch == 0)
		SIM_RETURN(hipErrorInvalidPitchValue);
	SIM_RETURN(from_array(dst, dpitch, src, wOffset, hOffset, width, height, kind, NULL,
			      true));
}

SIM_API hipError_t hipMemcpy2DFromArray_spt(void *dst, size_t dpitch, hipArray_const_t src,
					    size_t wOffset, size_t hOffset, size_t width,
					    size_t height, hipMemcpyKind kind)
{
	SIM_INIT_API();
	if (dpitch == 0)
		SIM_RETURN(hipErrorInvalidPitchValue);
	SIM_RETURN(from_array(dst, dpitch, src, wOffset, hOffset, width, height, kind,
			      sim_spt_stream(), true));
}

SIM_API hipError_t hipMemcpy2DFromArrayAsync(void *dst, size_t dpitch, hipArray_const_t src,
					     size_t wOffset, size_t hOffset, size_t width,
					     size_t height, hipMemcpyKind kind, hipStream_t stream)
{
	SIM_INIT_API();
	if (dpitch == 0)
		SIM_RETURN(hipErrorInvalidPitchValue);
	SIM_RETURN(from_array(dst, dpitch, src, wOffset, hOffset, width, height, kind, stream,
			      false));
}

/* hipMemcpyToArray / FromArray: ROCm derives the rectangle from count as
 * count / rows bytes wide and count / width / element size rows high. */
static hipError_t linear_shape(const hipArray *a, size_t count, size_t *w, size_t *h)
{
	struct sim_array_info ai;

	if (!sim_array_get(a, &ai) || !a->width)
		return hipErrorInvalidValue;
	*w = count / (a->height ? a->height : 1);
	*h = count / a->width / ai.elem;
	return hipSuccess;
}

SIM_API hipError_t hipMemcpyToArray(hipArray *dst, size_t wOffset, size_t hOffset, const void *src,
				    size_t count, hipMemcpyKind kind)
{
	size_t w, h;
	hipError_t e;

	SIM_INIT_API();
	if (!dst)
		SIM_RETURN(hipErrorInvalidValue);
	e = linear_shape(dst, count, &w, &h);
	if (e == hipSuccess)
		e = to_array(dst, wOffset, hOffset, src, w, w, h, kind, NULL, true);
	SIM_RETURN(e);
}

SIM_API hipError_t hipMemcpyFromArray(void *dst, hipArray_const_t src, size_t wOffset,
				      size_t hOffset, size_t count, hipMemcpyKind kind)
{
	size_t w, h;
	hipError_t e;

	SIM_INIT_API();
	if (!src)
		SIM_RETURN(hipErrorInvalidValue);
	e = linear_shape(src, count, &w, &h);
	if (e == hipSuccess)
		e = from_array(dst, w, src, wOffset, hOffset, w, h, kind, NULL, true);
	SIM_RETURN(e);
}

/* Row 0 of the array, from offset bytes on. */
SIM_API hipError_t hipMemcpyHtoA(hipArray *dstArray, size_t dstOffset, const void *srcHost,
				 size_t count)
{
	SIM_INIT_API();
	if (!dstArray || !srcHost)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(rect((struct side){ .arr = dstArray, .x = dstOffset },
			(struct side){ .ptr = (void *)srcHost, .pitch = count }, count, 1, 1,
			NULL, true));
}

SIM_API hipError_t hipMemcpyAtoH(void *dst, hipArray *srcArray, size_t srcOffset, size_t count)
{
	SIM_INIT_API();
	if (!dst || !srcArray)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(rect((struct side){ .ptr = dst, .pitch = count },
			(struct side){ .arr = srcArray, .x = srcOffset }, count, 1, 1, NULL,
			true));
}

/* ---- descriptors ---- */

/* One side of a HIP_MEMCPY3D (ROCm's ihipMemcpyParam3D: unified memory is
 * the device pointer; host and device pointers are both plain addresses
 * here). */
static hipError_t drv_side(struct side *s, hipMemoryType t, const void *host, const void *dev,
			   const hipArray *arr, size_t x, size_t y, size_t z, size_t pitch,
			   size_t height)
{
	*s = (struct side){ .x = x, .y = y, .z = z, .pitch = pitch, .height = height };
	switch (t) {
	case hipMemoryTypeHost:
		s->ptr = (void *)host;
		break;
	case hipMemoryTypeDevice:
	case hipMemoryTypeUnified:
		s->ptr = (void *)dev;
		break;
	case hipMemoryTypeArray:
		if (!arr)
			return hipErrorInvalidValue;
		s->arr = arr;
		break;
	default:
		return hipErrorInvalidValue;
	}
	return hipSuccess;
}

static hipError_t param3d(const HIP_MEMCPY3D *p, hipStream_t stream, bool sync)
{
	struct side d, s;
	hipError_t e;

	if (!p || !sim_stream_get(stream))
		return hipErrorInvalidValue;
	if (!p->WidthInBytes || !p->Height || !p->Depth)
		return hipSuccess;
	e = drv_side(&s, p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, p->srcXInBytes,
		     p->srcY, p->srcZ, p->srcPitch, p->srcHeight);
	if (e == hipSuccess)
		e = drv_side(&d, p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray,
			     p->dstXInBytes, p->dstY, p->dstZ, p->dstPitch, p->dstHeight);
	if (e != hipSuccess)
		return e;
	return rect(d, s, p->WidthInBytes, p->Height, p->Depth, stream, sync);
}

/* hip::getDrvMemcpy3DDesc of a hip_Memcpy2D: one slice. */
static hipError_t param2d(const hip_Memcpy2D *p, hipStream_t stream, bool sync)
{
	HIP_MEMCPY3D d;

	if (!p)
		return hipErrorInvalidValue;
	memset(&d, 0, sizeof(d));
	d.srcXInBytes = (unsigned)p->srcXInBytes;
	d.srcY = (unsigned)p->srcY;
	d.srcMemoryType = p->srcMemoryType;
	d.srcHost = p->srcHost;
	d.srcDevice = p->srcDevice;
	d.srcArray = p->srcArray;
	d.srcPitch = (unsigned)p->srcPitch;
	d.dstXInBytes = (unsigned)p->dstXInBytes;
	d.dstY = (unsigned)p->dstY;
	d.dstMemoryType = p->dstMemoryType;
	d.dstHost = p->dstHost;
	d.dstDevice = p->dstDevice;
	d.dstArray = p->dstArray;
	d.dstPitch = (unsigned)p->dstPitch;
	d.WidthInBytes = (unsigned)p->WidthInBytes;
	d.Height = (unsigned)p->Height;
	d.Depth = 1;
	return param3d(&d, stream, sync);
}

SIM_API hipError_t hipMemcpyParam2D(const hip_Memcpy2D *pCopy)
{
	SIM_INIT_API();
	SIM_RETURN(param2d(pCopy, NULL, true));
}

SIM_API hipError_t hipMemcpyParam2DAsync(const hip_Memcpy2D *pCopy, hipStream_t stream)
{
	SIM_INIT_API();
	SIM_RETURN(param2d(pCopy, stream, false));
}

SIM_API hipError_t hipDrvMemcpy2DUnaligned(const hip_Memcpy2D *pCopy)
{
	SIM_INIT_API();
	SIM_RETURN(param2d(pCopy, NULL, true));
}

SIM_API hipError_t hipDrvMemcpy3D(const HIP_MEMCPY3D *pCopy)
{
	SIM_INIT_API();
	SIM_RETURN(param3d(pCopy, NULL, true));
}

SIM_API hipError_t hipDrvMemcpy3DAsync(const HIP_MEMCPY3D *pCopy, hipStream_t stream)
{
	SIM_INIT_API();
	SIM_RETURN(param3d(pCopy, stream, false));
}

/* ihipMemcpy3D_validate, then hip::getDrvMemcpy3DDesc: with an array
 * taking part, the extent and positions count that array's elements. */
static hipError_t copy3d(const struct hipMemcpy3DParms *p, hipStream_t stream, bool sync)
{
	struct sim_array_info ai;
	struct side d, s;
	size_t elem = 1;

	if (!p || (p->srcArray && p->srcPtr.ptr) || (p->dstArray && p->dstPtr.ptr))
		return hipErrorInvalidValue;
	if ((!p->srcArray && !p->srcPtr.ptr) || (!p->dstArray && !p->dstPtr.ptr))
		return hipErrorInvalidValue;
	if (!kind_ok(p->kind))
		return hipErrorInvalidMemcpyDirection;
	if (p->srcArray || p->dstArray) {
		if (!sim_array_get(p->dstArray ? p->dstArray : p->srcArray, &ai))
			return hipErrorInvalidValue;
		elem = ai.elem;
	}
	s = (struct side){ .ptr = p->srcPtr.ptr, .pitch = p->srcPtr.pitch,
			   .height = p->srcPtr.ysize, .arr = p->srcArray,
			   .x = p->srcPos.x * elem, .y = p->srcPos.y, .z = p->srcPos.z };
	d = (struct side){ .ptr = p->dstPtr.ptr, .pitch = p->dstPtr.pitch,
			   .height = p->dstPtr.ysize, .arr = p->dstArray,
			   .x = p->dstPos.x * elem, .y = p->dstPos.y, .z = p->dstPos.z };
	if (!sim_stream_get(stream))
		return hipErrorInvalidValue;
	return rect(d, s, p->extent.width * elem, p->extent.height, p->extent.depth, stream, sync);
}

SIM_API hipError_t hipMemcpy3D(const struct hipMemcpy3DParms *p)
{
	SIM_INIT_API();
	if (sim_capture_implicit())
		return hipErrorStreamCaptureImplicit;
	SIM_RETURN(copy3d(p, NULL, true));
}

SIM_API hipError_t hipMemcpy3D_spt(const struct hipMemcpy3DParms *p)
{
	SIM_INIT_API();
	SIM_RETURN(copy3d(p, sim_spt_stream(), true));
}

SIM_API hipError_t hipMemcpy3DAsync(const struct hipMemcpy3DParms *p, hipStream_t stream)
{
	SIM_INIT_API();
	if (sim_capture_active(stream))
		return sim_capture_memcpy3d(stream, p);
	SIM_RETURN(copy3d(p, stream, false));
}
