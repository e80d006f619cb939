/* SPDX-License-Identifier: MIT */
/*
 * array.c - arrays, mipmapped arrays and pitched allocations as device
 * memory (ROCm's hip_memory.cpp: ihipArrayCreate, ihipMallocPitch). An
 * array's elements live in one device allocation (row after row, slice after
 * slice, rows packed: no texture tiling to simulate), which goes through the
 * page-fault path like any hipMalloc. The handle the program gets is a
 * hipArray whose data points at that storage; handles are checked against a
 * list of live arrays, so a stale or made-up handle is an error, not a crash.
 * Mipmapped arrays are what ROCm 5.2.3 answers: the hipMallocMipmappedArray
 * family is not supported there, the hipMipmappedArray* driver family is.
 */
#include "api/api.h"
#include "api/graph.h"
#include "api/memory.h"
#include "runtime/map.h"
#include "runtime/stream.h"

#include <stdlib.h>

#define ARRAY_MAGIC 0x41525259u	/* "ARRY" */
#define MIP_MAGIC 0x4d495050u	/* "MIPP" */
/* gfx90a image limits: ROCclr's device info (rocdevice.cpp:1413-1444) from
 * ROCr's HSA_EXT_AGENT_INFO_IMAGE_*_MAX_ELEMENTS, i.e. ImageLutKv's
 * kMaxDimensionLut_ (image_lut_kv.cpp:299-308, also gfx9's). The 2 Ki 3D
 * limit is PAL's (paldevice.cpp:464), not ROCm's. */
#define MAX_1D 16384u
#define MAX_2D 16384u
#define MAX_3D 16384u		/* width and height */
#define MAX_3D_DEPTH 8192u
#define MAX_LAYERS 8192u	/* imageMaxArraySize_: the 2DA array size */
#define PITCH_ALIGN 256u	/* imagePitchAlignment_ */

struct sim_array {
	hipArray pub;			/* first: the handle is its address */
	uint32_t magic;
	size_t elem, row, rows, slices;
	unsigned flags;
	void *mem;
	struct sim_array *next;
};

struct sim_mip {
	hipMipmappedArray pub;
	uint32_t magic;
	struct sim_array *levels[16];
	unsigned nlevels;
	struct sim_mip *next;
};

static pthread_mutex_t arr_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sim_array *arrays;
static struct sim_mip *mips;

size_t sim_format_bytes(enum hipArray_Format f)
{
	switch (f) {
	case HIP_AD_FORMAT_UNSIGNED_INT8:
	case HIP_AD_FORMAT_SIGNED_INT8:
		return 1;
	case HIP_AD_FORMAT_UNSIGNED_INT16:
	case HIP_AD_FORMAT_SIGNED_INT16:
	case HIP_AD_FORMAT_HALF:
		return 2;
	case HIP_AD_FORMAT_UNSIGNED_INT32:
	case HIP_AD_FORMAT_SIGNED_INT32:
	case HIP_AD_FORMAT_FLOAT:
		return 4;
	default:
		return 0;
	}
}

/* hip::getArrayFormat / getNumChannels: 0 channels for a bad desc. */
static unsigned desc_channels(const struct hipChannelFormatDesc *d)
{
	return (d->x != 0) + (d->y != 0) + (d->z != 0) + (d->w != 0);
}

static enum hipArray_Format desc_format(const struct hipChannelFormatDesc *d)
{
	switch (d->f) {
	case hipChannelFormatKindUnsigned:
		return d->x == 8 ? HIP_AD_FORMAT_UNSIGNED_INT8 : d->x == 16 ? HIP_AD_FORMAT_UNSIGNED_INT16
			: d->x == 32 ? HIP_AD_FORMAT_UNSIGNED_INT32 : (enum hipArray_Format)0;
	case hipChannelFormatKindSigned:
		return d->x == 8 ? HIP_AD_FORMAT_SIGNED_INT8 : d->x == 16 ? HIP_AD_FORMAT_SIGNED_INT16
			: d->x == 32 ? HIP_AD_FORMAT_SIGNED_INT32 : (enum hipArray_Format)0;
	case hipChannelFormatKindFloat:
		return d->x == 16 ? HIP_AD_FORMAT_HALF : d->x == 32 ? HIP_AD_FORMAT_FLOAT
			: (enum hipArray_Format)0;
	default:
		return (enum hipArray_Format)0;
	}
}

static struct hipChannelFormatDesc format_desc(unsigned ch, enum hipArray_Format f)
{
	struct hipChannelFormatDesc d = { 0, 0, 0, 0, hipChannelFormatKindNone };
	int bits = (int)sim_format_bytes(f) * 8;

	d.x = bits;
	d.y = ch > 1 ? bits : 0;
	d.z = ch > 2 ? bits : 0;
	d.w = ch > 3 ? bits : 0;
	d.f = (f == HIP_AD_FORMAT_HALF || f == HIP_AD_FORMAT_FLOAT) ? hipChannelFormatKindFloat
		: (f >= HIP_AD_FORMAT_SIGNED_INT8 && f <= HIP_AD_FORMAT_SIGNED_INT32)
		? hipChannelFormatKindSigned : hipChannelFormatKindUnsigned;
	return d;
}

/* amd::Image::validateDimensions for gfx90a's limits. */
static bool dims_ok(size_t w, size_t h, size_t d, unsigned flags)
{
	if (w == 0)
		return false;
	if (flags & hipArrayLayered)
		return w <= MAX_2D && h <= MAX_2D && d >= 1 && d <= MAX_LAYERS;
	if (d)
		return h && w <= MAX_3D && h <= MAX_3D && d <= MAX_3D_DEPTH;
	if (h)
		return w <= MAX_2D && h <= MAX_2D;
	return w <= MAX_1D;
}

static void *storage(size_t bytes, void *owner)
{
	struct sim_alloc *a;
	int dev = sim_current_device();
	struct hipsvm_context *c = hipsvm_ctxset_for_api(&sim.ctx, HIPSVM_API_MALLOC, dev);

	if (!c || sim_alloc_new(bytes, HIPSVM_KIND_DEVICE, c->id, dev, 0, NULL, &a) != hipSuccess)
		return NULL;
	sim_alloc_set_role((void *)a->base, SIM_ROLE_ARRAY, owner);
	return (void *)a->base;
}

static void release_storage(void *mem)
{
	struct sim_alloc *a = sim_map_take(mem, SIM_ROLE_ARRAY);

	if (a)
		sim_alloc_destroy(a);
}

/* ihipArrayCreate; levels > 0: a mipmap's base level check. */
static hipError_t array_create(struct sim_array **out, const HIP_ARRAY3D_DESCRIPTOR *d,
			       unsigned levels)
{
	struct sim_array *a;
	size_t fs = sim_format_bytes(d->Format);

	if (d->NumChannels != 1 && d->NumChannels != 2 && d->NumChannels != 4)
		return hipErrorInvalidValue;
	if (d->Flags & (hipArraySurfaceLoadStore | hipArrayCubemap | hipArrayTextureGather))
		return hipErrorNotSupported;
	if (!fs || !dims_ok(d->Width, d->Height, d->Depth, d->Flags))
		return hipErrorInvalidValue;
	if (levels) {
		size_t m = d->Width > d->Height ? d->Width : d->Height, n = 0;

		m = m > d->Depth ? m : d->Depth;
		for (; m; m >>= 1)
			n++;
		if (n < levels || levels > 16)
			return hipErrorInvalidValue;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return hipErrorOutOfMemory;
	a->magic = ARRAY_MAGIC;
	a->elem = fs * d->NumChannels;
	a->row = d->Width * a->elem;
	a->rows = d->Height ? d->Height : 1;
	a->slices = d->Depth ? d->Depth : 1;
	a->flags = d->Flags;
	a->mem = storage(a->row * a->rows * a->slices, a);
	if (!a->mem) {
		free(a);
		return hipErrorOutOfMemory;
	}
	a->pub.data = a->mem;
	a->pub.desc = format_desc(d->NumChannels, d->Format);
	a->pub.width = (unsigned)d->Width;
	a->pub.height = (unsigned)d->Height;
	a->pub.depth = (unsigned)d->Depth;
	a->pub.Format = d->Format;
	a->pub.NumChannels = d->NumChannels;
	a->pub.type = d->Depth ? 2 : d->Height ? 1 : 0;
	*out = a;
	return hipSuccess;
}

static void publish(struct sim_array *a)
{
	pthread_mutex_lock(&arr_lock);
	a->next = arrays;
	arrays = a;
	pthread_mutex_unlock(&arr_lock);
}

/* Unlinks a live array; false for anything else. */
static bool unlink_array(const hipArray *h)
{
	struct sim_array **pp;

	for (pp = &arrays; *pp; pp = &(*pp)->next)
		if (&(*pp)->pub == h) {
			*pp = (*pp)->next;
			return true;
		}
	return false;
}

bool sim_array_get(const hipArray *h, struct sim_array_info *out)
{
	struct sim_array *a;
	bool found = false;

	if (!h)
		return false;
	pthread_mutex_lock(&arr_lock);
	for (a = arrays; a && !found; a = a->next)
		if (&a->pub == h) {
			found = true;
			out->mem = a->mem;
			out->elem = a->elem;
			out->row = a->row;
			out->rows = a->rows;
			out->slices = a->slices;
			out->width = a->pub.width;
			out->height = a->pub.height;
			out->depth = a->pub.depth;
			out->flags = a->flags;
		}
	pthread_mutex_unlock(&arr_lock);
	return found;
}

static hipError_t create_public(hipArray **array, const HIP_ARRAY3D_DESCRIPTOR *d)
{
	struct sim_array *a;
	hipError_t e;

	if (!array || !d)
		return hipErrorInvalidValue;
	e = array_create(&a, d, 0);
	if (e == hipSuccess) {
		publish(a);
		*array = &a->pub;
	}
	return e;
}

SIM_API hipError_t hipArrayCreate(hipArray **array, const HIP_ARRAY_DESCRIPTOR *d)
{
	HIP_ARRAY3D_DESCRIPTOR d3;

	SIM_INIT_API();
	SIM_CAPTURE_SUPPORTED();
	if (!d)
		SIM_RETURN(hipErrorInvalidValue);
	d3 = (HIP_ARRAY3D_DESCRIPTOR){ d->Width, d->Height, 0, d->Format, d->NumChannels,
				       hipArrayDefault };
	SIM_RETURN(create_public(array, &d3));
}

SIM_API hipError_t hipArray3DCreate(hipArray **array, const HIP_ARRAY3D_DESCRIPTOR *d)
{
	SIM_INIT_API();
	SIM_CAPTURE_SUPPORTED();
	SIM_RETURN(create_public(array, d));
}

static hipError_t from_desc(hipArray **array, const struct hipChannelFormatDesc *desc, size_t w,
			    size_t h, size_t d, unsigned flags)
{
	HIP_ARRAY3D_DESCRIPTOR d3;

	if (!desc)
		return hipErrorInvalidValue;
	d3 = (HIP_ARRAY3D_DESCRIPTOR){ w, h, d, desc_format(desc), desc_channels(desc), flags };
	return create_public(array, &d3);
}

SIM_API hipError_t hipMallocArray(hipArray **array, const hipChannelFormatDesc *desc, size_t width,
				  size_t height, unsigned int flags)
{
	SIM_INIT_API();
	SIM_CAPTURE_SUPPORTED();
	SIM_RETURN(from_desc(array, desc, width, height, 0, flags));
}

SIM_API hipError_t hipMalloc3DArray(hipArray **array, const struct hipChannelFormatDesc *desc,
				    struct hipExtent extent, unsigned int flags)
{
	SIM_INIT_API();
	SIM_CAPTURE_SUPPORTED();
	SIM_RETURN(from_desc(array, desc, extent.width, extent.height, extent.depth, flags));
}

/* ihipArrayDestroy: the null streams finish first. */
static hipError_t array_destroy(hipArray *h)
{
	struct sim_array *a;
	bool ok;

	if (!h)
		return hipErrorInvalidValue;
	pthread_mutex_lock(&arr_lock);
	ok = unlink_array(h);
	pthread_mutex_unlock(&arr_lock);
	if (!ok)
		return hipErrorInvalidValue;
	sim_device_sync(-1);
	a = (struct sim_array *)h;
	release_storage(a->mem);
	a->magic = 0;
	free(a);
	return hipSuccess;
}

SIM_API hipError_t hipFreeArray(hipArray *array)
{
	SIM_INIT_API();
	SIM_CAPTURE_SUPPORTED();
	SIM_RETURN(array_destroy(array));
}

SIM_API hipError_t hipArrayDestroy(hipArray *array)
{
	SIM_INIT_API();
	SIM_CAPTURE_SUPPORTED();
	SIM_RETURN(array_destroy(array));
}

/* ---- pitched allocations ---- */

/* ihipMallocPitch: rows aligned to the image pitch alignment. */
static hipError_t malloc_pitch(void **ptr, size_t *pitch, size_t w, size_t h, size_t d)
{
	struct sim_alloc *a;
	struct hipsvm_context *c;
	size_t p;
	int dev;

	if (!ptr)
		return hipErrorInvalidValue;
	if (w == 0 || h == 0 || d == 0) {
		*ptr = NULL;
		return hipSuccess;
	}
	if (!pitch)
		return hipErrorInvalidValue;
	if (w > SIZE_MAX - PITCH_ALIGN)
		return hipErrorOutOfMemory;
	p = (w + PITCH_ALIGN - 1) / PITCH_ALIGN * PITCH_ALIGN;
	if (h > SIZE_MAX / p || d > SIZE_MAX / (p * h))
		return hipErrorOutOfMemory;
	*pitch = p;
	if (p * h * d > sim_max_alloc())
		return hipErrorOutOfMemory;		/* ihipMallocPitch, hip_memory.cpp:681 */
	dev = sim_current_device();
	c = hipsvm_ctxset_for_api(&sim.ctx, HIPSVM_API_MALLOC_PITCH, dev);
	if (!c)
		return hipErrorInvalidDevice;
	if (sim_alloc_new(p * h * d, HIPSVM_KIND_DEVICE, c->id, dev, 0, NULL, &a) != hipSuccess)
		return hipErrorOutOfMemory;
	*ptr = (void *)a->base;
	return hipSuccess;
}

SIM_API hipError_t hipMemAllocPitch(hipDeviceptr_t *dptr, size_t *pitch, size_t widthInBytes,
				    size_t height, unsigned int elementSizeBytes)
{
	(void)elementSizeBytes;	/* ROCm: hipMallocPitch, the element size unused */
	SIM_INIT_API();
	SIM_CAPTURE_SUPPORTED();
	SIM_RETURN(malloc_pitch(dptr, pitch, widthInBytes, height, 1));
}

SIM_API hipError_t hipMalloc3D(hipPitchedPtr *pp, hipExtent extent)
{
	size_t pitch = 0;
	hipError_t e;

	SIM_INIT_API();
	SIM_CAPTURE_SUPPORTED();
	if (!pp)
		SIM_RETURN(hipErrorInvalidValue);
	e = malloc_pitch(&pp->ptr, &pitch, extent.width, extent.height, extent.depth);
	if (e == hipSuccess) {
		pp->pitch = pitch;
		pp->xsize = extent.width;
		pp->ysize = extent.height;
	}
	SIM_RETURN(e);
}

/* ---- mipmapped arrays ---- */

/* ROCm 5.2.3 answers hipErrorNotSupported for the runtime-API family. */
SIM_API hipError_t hipMallocMipmappedArray(hipMipmappedArray_t *m, const struct hipChannelFormatDesc *desc,
					   struct hipExtent extent, unsigned int numLevels,
					   unsigned int flags)
{
	(void)m, (void)desc, (void)extent, (void)numLevels, (void)flags;
	SIM_INIT_API();
	SIM_RETURN(hipErrorNotSupported);
}

SIM_API hipError_t hipFreeMipmappedArray(hipMipmappedArray_t m)
{
	(void)m;
	SIM_INIT_API();
	SIM_RETURN(hipErrorNotSupported);
}

SIM_API hipError_t hipGetMipmappedArrayLevel(hipArray_t *level, hipMipmappedArray_const_t m,
					     unsigned int n)
{
	(void)level, (void)m, (void)n;
	SIM_INIT_API();
	SIM_RETURN(hipErrorNotSupported);
}

static size_t level_dim(size_t d, unsigned level)
{
	if (!d)
		return 0;
	d >>= level;
	return d ? d : 1;
}

/* The driver family: each level is an array of its own, made up front. */
SIM_API hipError_t hipMipmappedArrayCreate(hipMipmappedArray_t *out, HIP_ARRAY3D_DESCRIPTOR *d,
					   unsigned int levels)
{
	struct sim_mip *m;
	hipError_t e = hipSuccess;
	unsigned i, n;

	SIM_INIT_API();
	if (!out || !d)
		SIM_RETURN(hipErrorInvalidValue);
	n = levels ? levels : 1;
	m = calloc(1, sizeof(*m));
	if (!m)
		SIM_RETURN(hipErrorOutOfMemory);
	for (i = 0; i < n && e == hipSuccess; i++) {
		HIP_ARRAY3D_DESCRIPTOR l = *d;

		l.Width = level_dim(d->Width, i);
		l.Height = level_dim(d->Height, i);
		l.Depth = level_dim(d->Depth, i);
		e = array_create(&m->levels[i], &l, i == 0 ? levels : 0);
		if (e == hipSuccess)
			m->nlevels = i + 1;
	}
	if (e != hipSuccess) {
		for (i = 0; i < m->nlevels; i++) {
			release_storage(m->levels[i]->mem);
			free(m->levels[i]);
		}
		free(m);
		SIM_RETURN(e);
	}
	m->magic = MIP_MAGIC;
	m->pub.data = m->levels[0]->mem;
	m->pub.desc = m->levels[0]->pub.desc;
	m->pub.type = m->levels[0]->pub.type;
	m->pub.width = (unsigned)d->Width;
	m->pub.height = (unsigned)d->Height;
	m->pub.depth = (unsigned)d->Depth;
	m->pub.min_mipmap_level = 0;
	m->pub.max_mipmap_level = levels;
	m->pub.flags = d->Flags;
	m->pub.format = d->Format;
	pthread_mutex_lock(&arr_lock);
	m->next = mips;
	mips = m;
	for (i = 0; i < m->nlevels; i++) {
		m->levels[i]->next = arrays;
		arrays = m->levels[i];
	}
	pthread_mutex_unlock(&arr_lock);
	*out = &m->pub;
	SIM_RETURN(hipSuccess);
}

static struct sim_mip *find_mip(hipMipmappedArray_const_t h, bool unlink)
{
	struct sim_mip **pp, *m;

	for (pp = &mips; *pp; pp = &(*pp)->next)
		if (&(*pp)->pub == h) {
			m = *pp;
			if (unlink)
				*pp = m->next;
			return m;
		}
	return NULL;
}

SIM_API hipError_t hipMipmappedArrayDestroy(hipMipmappedArray_t h)
{
	struct sim_mip *m;
	unsigned i;

	SIM_INIT_API();
	if (!h)
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&arr_lock);
	m = find_mip(h, true);
	if (m)
		for (i = 0; i < m->nlevels; i++)
			unlink_array(&m->levels[i]->pub);
	pthread_mutex_unlock(&arr_lock);
	if (!m)
		SIM_RETURN(hipErrorInvalidValue);
	sim_device_sync(-1);
	for (i = 0; i < m->nlevels; i++) {
		release_storage(m->levels[i]->mem);
		free(m->levels[i]);
	}
	free(m);
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipMipmappedArrayGetLevel(hipArray_t *level, hipMipmappedArray_t h,
					     unsigned int n)
{
	struct sim_mip *m;
	hipError_t e = hipSuccess;

	SIM_INIT_API();
	if (!level || !h)
		SIM_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&arr_lock);
	m = find_mip(h, false);
	if (!m || n >= m->nlevels)
		e = hipErrorInvalidValue;
	else
		*level = &m->levels[n]->pub;
	pthread_mutex_unlock(&arr_lock);
	SIM_RETURN(e);
}

/* hipMemMapArrayAsync: sparse arrays are not in ROCm 5.2.3 either. */
SIM_API hipError_t hipMemMapArrayAsync(hipArrayMapInfo *list, unsigned int count, hipStream_t stream)
{
	(void)stream;
	SIM_INIT_API();
	if (!list || count == 0)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(hipErrorNotSupported);
}
