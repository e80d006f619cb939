/* SPDX-License-Identifier: MIT */
/*
 * texture.c - texture objects and texture references as ROCm 5.2.3's
 * hipamd makes them (hip_texture.cpp, tag rocm-5.2.3). A texture object is
 * device memory holding what the device code reads: the image resource
 * descriptor (12 dwords: the gfx9 SRD of sim/isa/srd.h and HIP's three
 * extra words) and the sampler's (8 dwords) at HIP_SAMPLER_OBJECT_OFFSET_DWORD.
 * The handle is that memory's address, as on ROCm; the descriptors the API
 * returns are kept on the host in a list of live objects, so a stale or
 * made-up handle is an error (5.2.3 dereferences it), never a crash.
 *
 * Images are linear with the storage's own pitch: an array's rows packed
 * (array.c), a pitched allocation's pitch, a linear buffer as a buffer
 * descriptor (tex1Dfetch's buffer_load_format). The interpreter
 * (sim/isa/image.c) samples them as the hardware does.
 *
 * A texture reference is a device variable (hipcc's __hipRegisterTexture)
 * holding a textureReference whose textureObject the kernel follows: the
 * bind calls make a texture object from the reference's fields and copy
 * the whole reference to the variable, as hipamd does.
 */
#include "api/api.h"
#include "api/exports.h"
#include "api/memory.h"
#include "isa/srd.h"
#include "runtime/map.h"
#include "runtime/stream.h"

#include <stdlib.h>
#include <string.h>

/* ROCclr's device info for gfx90a (rocdevice.cpp:1405-1456): ROCr's image
 * limits (image_lut_kv.cpp:299-308), 1DB's for the linear limit. */
#define IMG_ALIGN 256u			/* imageBaseAddressAlignment_ */
#define IMG_PITCH_ALIGN 256u		/* imagePitchAlignment_ */
#define IMG_2D_MAX 16384u		/* image2DMaxWidth_ / Height_ */
#define IMG_BUFFER_MAX 4294967295ull	/* imageMaxBufferSize_ (1DB elements) */

struct sim_tex {
	uint32_t *dev;		/* the handle: SRD_TEXTURE_DWORDS of device memory */
	hipResourceDesc res;
	hipTextureDesc tex;
	struct hipResourceViewDesc view;
	struct sim_tex *next;
};

static pthread_mutex_t tex_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sim_tex *texes;

SIM_API hipChannelFormatDesc hipCreateChannelDesc(int x, int y, int z, int w,
						  enum hipChannelFormatKind f)
{
	hipChannelFormatDesc d = { x, y, z, w, f };

	return d;
}

/* ---- formats ---- */

/* An element's format, as hip_conversions.hpp derives it; ch 0: invalid. */
struct tfmt {
	unsigned ch;
	enum hipArray_Format f;
};

/* getNumChannels / getArrayFormat of a channel descriptor: the channels
 * are counted, the format is x's (hip_conversions.hpp:299-336) */
static struct tfmt from_desc(const hipChannelFormatDesc *d)
{
	struct tfmt t = { (d->x != 0) + (d->y != 0) + (d->z != 0) + (d->w != 0), 0 };

	switch (d->f) {
	case hipChannelFormatKindUnsigned:
		t.f = d->x == 8 ? HIP_AD_FORMAT_UNSIGNED_INT8 : d->x == 16 ? HIP_AD_FORMAT_UNSIGNED_INT16
			: d->x == 32 ? HIP_AD_FORMAT_UNSIGNED_INT32 : 0;
		break;
	case hipChannelFormatKindSigned:
		t.f = d->x == 8 ? HIP_AD_FORMAT_SIGNED_INT8 : d->x == 16 ? HIP_AD_FORMAT_SIGNED_INT16
			: d->x == 32 ? HIP_AD_FORMAT_SIGNED_INT32 : 0;
		break;
	case hipChannelFormatKindFloat:
		t.f = d->x == 16 ? HIP_AD_FORMAT_HALF : d->x == 32 ? HIP_AD_FORMAT_FLOAT : 0;
		break;
	default:
		break;
	}
	if (!t.f || (t.ch != 1 && t.ch != 2 && t.ch != 4))
		t.ch = 0;
	return t;
}

/* hip::getChannelFormatDesc (hip_conversions.hpp:216) */
static hipChannelFormatDesc to_desc(int ch, enum hipArray_Format f)
{
	hipChannelFormatDesc d = { 0, 0, 0, 0, hipChannelFormatKindNone };
	int bits = (int)sim_format_bytes(f) * 8;

	if (!bits || (ch != 1 && ch != 2 && ch != 4))
		return d;
	d.x = bits;
	d.y = ch > 1 ? bits : 0;
	d.z = d.w = ch > 2 ? bits : 0;
	d.f = (f == HIP_AD_FORMAT_HALF || f == HIP_AD_FORMAT_FLOAT) ? hipChannelFormatKindFloat
		: (f == HIP_AD_FORMAT_SIGNED_INT8 || f == HIP_AD_FORMAT_SIGNED_INT16 ||
		   f == HIP_AD_FORMAT_SIGNED_INT32) ? hipChannelFormatKindSigned
		: hipChannelFormatKindUnsigned;
	return d;
}

/* A resource view format's channels and element format
 * (hip_conversions.hpp:341-420); ch 0: invalid. */
static struct tfmt from_view(enum hipResourceViewFormat v)
{
	static const enum hipArray_Format f[] = {
		HIP_AD_FORMAT_UNSIGNED_INT8, HIP_AD_FORMAT_SIGNED_INT8, HIP_AD_FORMAT_UNSIGNED_INT16,
		HIP_AD_FORMAT_SIGNED_INT16, HIP_AD_FORMAT_UNSIGNED_INT32, HIP_AD_FORMAT_SIGNED_INT32,
		HIP_AD_FORMAT_HALF, HIP_AD_FORMAT_FLOAT,
	};
	struct tfmt t = { 0, 0 };

	/* hipResViewFormatUnsignedChar1 = 1 .. hipResViewFormatFloat4 = 0x18,
	 * three channel counts (1, 2, 4) per element format */
	if (v >= hipResViewFormatUnsignedChar1 && v <= hipResViewFormatFloat4) {
		unsigned i = (unsigned)v - 1;

		t.f = f[i / 3];
		t.ch = 1u << (i % 3);
	}
	return t;
}

/* hipResViewFormat of a channel descriptor (getResourceViewFormat) */
static enum hipResourceViewFormat view_format(const hipChannelFormatDesc *d)
{
	struct tfmt t = from_desc(d);
	unsigned i;

	if (!t.ch)
		return hipResViewFormatNone;
	for (i = 0; i < 8; i++)
		if (from_view((enum hipResourceViewFormat)(1 + 3 * i)).f == t.f)
			break;
	return (enum hipResourceViewFormat)(1 + 3 * i + (t.ch == 1 ? 0 : t.ch == 2 ? 1 : 2));
}

/* The SRD's element: DATA_FORMAT, NUM_FORMAT and HIP's channel words, from
 * the element and the read mode (getCLChannelType, then ROCr's format
 * table); false for a combination ROCm refuses. */
struct srdfmt {
	unsigned dfmt, nfmt, hsa_type, hsa_order, bytes;
	unsigned sel[4];
};

static bool srd_format(struct tfmt t, enum hipTextureReadMode mode, int srgb, struct srdfmt *o)
{
	static const unsigned dfmts[3][3] = {
		{ SRD_FMT_8, SRD_FMT_8_8, SRD_FMT_8_8_8_8 },
		{ SRD_FMT_16, SRD_FMT_16_16, SRD_FMT_16_16_16_16 },
		{ SRD_FMT_32, SRD_FMT_32_32, SRD_FMT_32_32_32_32 },
	};
	bool norm = mode == hipReadModeNormalizedFloat;
	unsigned b = sim_format_bytes(t.f), ci = t.ch == 1 ? 0 : t.ch == 2 ? 1 : 2;

	if (!t.ch || !b)
		return false;
	o->bytes = b * t.ch;
	o->dfmt = dfmts[b == 1 ? 0 : b == 2 ? 1 : 2][ci];
	switch (t.f) {
	case HIP_AD_FORMAT_UNSIGNED_INT8:
		o->nfmt = norm ? SRD_NUM_UNORM : SRD_NUM_UINT;
		o->hsa_type = norm ? SRD_HSA_UNORM_INT8 : SRD_HSA_UNSIGNED_INT8;
		break;
	case HIP_AD_FORMAT_SIGNED_INT8:
		o->nfmt = norm ? SRD_NUM_SNORM : SRD_NUM_SINT;
		o->hsa_type = norm ? SRD_HSA_SNORM_INT8 : SRD_HSA_SIGNED_INT8;
		break;
	case HIP_AD_FORMAT_UNSIGNED_INT16:
		o->nfmt = norm ? SRD_NUM_UNORM : SRD_NUM_UINT;
		o->hsa_type = norm ? SRD_HSA_UNORM_INT16 : SRD_HSA_UNSIGNED_INT16;
		break;
	case HIP_AD_FORMAT_SIGNED_INT16:
		o->nfmt = norm ? SRD_NUM_SNORM : SRD_NUM_SINT;
		o->hsa_type = norm ? SRD_HSA_SNORM_INT16 : SRD_HSA_SIGNED_INT16;
		break;
	/* 32-bit integers are never normalized (getCLChannelType) */
	case HIP_AD_FORMAT_UNSIGNED_INT32:
		o->nfmt = SRD_NUM_UINT;
		o->hsa_type = SRD_HSA_UNSIGNED_INT32;
		break;
	case HIP_AD_FORMAT_SIGNED_INT32:
		o->nfmt = SRD_NUM_SINT;
		o->hsa_type = SRD_HSA_SIGNED_INT32;
		break;
	case HIP_AD_FORMAT_HALF:
		o->nfmt = SRD_NUM_FLOAT;
		o->hsa_type = SRD_HSA_HALF_FLOAT;
		break;
	case HIP_AD_FORMAT_FLOAT:
		o->nfmt = SRD_NUM_FLOAT;
		o->hsa_type = SRD_HSA_FLOAT;
		break;
	default:
		return false;
	}
	o->hsa_order = t.ch == 1 ? SRD_HSA_R : t.ch == 2 ? SRD_HSA_RG : SRD_HSA_RGBA;
	/* getCLChannelOrder: sRGB only with four channels; ROCr's table has
	 * sRGBA for 8-bit unsigned normalized channels alone */
	if (srgb == 1 && t.ch == 4) {
		if (o->hsa_type != SRD_HSA_UNORM_INT8)
			return false;
		o->hsa_order = SRD_HSA_SRGBA;
		o->nfmt = SRD_NUM_SRGB;
	}
	/* ROCr's swizzle table: R -> (x, 0, 0, 1), RG -> (x, y, 0, 1) */
	o->sel[0] = SRD_SEL_X;
	o->sel[1] = t.ch > 1 ? SRD_SEL_Y : SRD_SEL_0;
	o->sel[2] = t.ch > 2 ? SRD_SEL_Z : SRD_SEL_0;
	o->sel[3] = t.ch > 2 ? SRD_SEL_W : SRD_SEL_1;
	return true;
}

static uint32_t sels(const struct srdfmt *f)
{
	return srd_put(f->sel[0], 0, 3) | srd_put(f->sel[1], 3, 3) | srd_put(f->sel[2], 6, 3) |
	       srd_put(f->sel[3], 9, 3);
}

/* An image SRD (ROCr's ImageManagerAi::PopulateImageSrd fields, linear). */
static void image_srd(uint32_t *w, uint64_t base, const struct srdfmt *f, unsigned type,
		      size_t width, size_t height, size_t depth, size_t pitch)
{
	w[0] = (uint32_t)(base >> 8);
	w[1] = srd_put((uint32_t)(base >> 40), 0, 8) | srd_put(f->dfmt, 20, 6) |
	       srd_put(f->nfmt, 26, 4);
	w[2] = srd_put((uint32_t)width - 1, 0, 14) | srd_put((uint32_t)height - 1, 14, 14);
	w[3] = sels(f) | srd_put(type, 28, 4);
	w[4] = srd_put((uint32_t)depth - 1, 0, 13) | srd_put((uint32_t)pitch - 1, 13, 16);
	w[5] = w[6] = w[7] = 0;
	w[10] = (uint32_t)width;
}

/* A buffer SRD for a linear resource (the 1DB branch of ROCr's
 * PopulateImageSrd): the element is the stride, NUM_RECORDS its bytes. */
static void buffer_srd(uint32_t *w, uint64_t base, const struct srdfmt *f, size_t width)
{
	w[0] = (uint32_t)base;
	w[1] = srd_put((uint32_t)(base >> 32), 0, 16) | srd_put(f->bytes, 16, 14);
	w[2] = (uint32_t)(width * f->bytes);
	w[3] = sels(f) | srd_put(f->nfmt, 12, 3) | srd_put(f->dfmt, 15, 4) |
	       srd_put(f->bytes, 21, 2);
	w[4] = w[5] = w[6] = w[7] = 0;
	w[10] = (uint32_t)width;
}

/* ROCr's PopulateSamplerSrd from ROCclr's sampler (rocdevice.cpp:1010-1035):
 * one address mode for every dimension, the filter for both directions. */
static void sampler_srd(uint32_t *w, unsigned clamp, bool unnorm, unsigned filter)
{
	w[0] = srd_put(clamp, 0, 3) | srd_put(clamp, 3, 3) | srd_put(clamp, 6, 3) |
	       srd_put(unnorm, 15, 1);
	w[1] = srd_put(4095, 12, 12);
	w[2] = srd_put(filter, 20, 2) | srd_put(filter, 22, 2);
	w[3] = 0;	/* BORDER_COLOR_TYPE: transparent black */
	w[4] = w[5] = w[6] = w[7] = 0;
}

/* [p, p + n) inside one live allocation (getMemoryObjectWithOffset) */
static bool in_memory(const void *p, size_t n)
{
	struct sim_alloc a;

	if (!sim_lookup(p, &a))
		return false;
	return (uintptr_t)p >= a.base && n <= a.size && (uintptr_t)p - a.base <= a.size - n;
}

static void *tex_memory(void *owner)
{
	struct sim_alloc *a;
	int dev = sim_current_device();
	struct hipsvm_context *c = hipsvm_ctxset_for_api(&sim.ctx, HIPSVM_API_MALLOC, dev);

	if (!c || sim_alloc_new(SRD_TEXTURE_DWORDS * 4, HIPSVM_KIND_DEVICE, c->id, dev, 0, NULL,
				&a) != hipSuccess)
		return NULL;
	sim_alloc_set_role((void *)a->base, SIM_ROLE_TEXTURE, owner);
	return (void *)a->base;
}

/* ihipCreateTextureObject (hip_texture.cpp:75-309), its checks in order. */
static hipError_t tex_create(hipTextureObject_t *out, const hipResourceDesc *r,
			     const hipTextureDesc *t, const struct hipResourceViewDesc *v)
{
	uint32_t w[SRD_TEXTURE_DWORDS] = { 0 };
	enum hipTextureReadMode mode = t ? t->readMode : hipReadModeElementType;
	unsigned clamp, filter;
	struct srdfmt f;
	struct sim_tex *x;

	if (!out || !r || !t)
		return hipErrorInvalidValue;
	if (v && r->resType != hipResourceTypeArray && r->resType != hipResourceTypeMipmappedArray)
		return hipErrorInvalidValue;
	if (r->resType == hipResourceTypeArray && !r->res.array.array)
		return hipErrorInvalidValue;
	if (r->resType == hipResourceTypeMipmappedArray &&
	    (!r->res.mipmap.mipmap || !t->normalizedCoords))
		return hipErrorInvalidValue;
	if (r->resType == hipResourceTypeLinear) {
		size_t e = sim_format_bytes(from_desc(&r->res.linear.desc).f) *
			   from_desc(&r->res.linear.desc).ch;

		/* 5.2.3 divides by the element size: 0 would trap there */
		if (!r->res.linear.devPtr || (uintptr_t)r->res.linear.devPtr % IMG_ALIGN || !e ||
		    r->res.linear.sizeInBytes / e >= IMG_BUFFER_MAX)
			return hipErrorInvalidValue;
	}
	if (r->resType == hipResourceTypePitch2D &&
	    (!r->res.pitch2D.devPtr || (uintptr_t)r->res.pitch2D.devPtr % IMG_ALIGN ||
	     r->res.pitch2D.width >= IMG_2D_MAX || r->res.pitch2D.height >= IMG_2D_MAX ||
	     r->res.pitch2D.pitchInBytes % IMG_PITCH_ALIGN))
		return hipErrorInvalidValue;
	if (r->resType == hipResourceTypeMipmappedArray)
		return hipErrorNotSupported;	/* "Mipmaps are currently not supported." */
	/* fields 5.2.3 does not program into the sampler */
	if (t->maxAnisotropy != 0 || t->mipmapLevelBias != 0 || t->minMipmapLevelClamp != 0 ||
	    t->maxMipmapLevelClamp != 0)
		return hipErrorNotSupported;
	/* one address mode, the first's; unnormalized coordinates turn wrap and
	 * mirror into clamp; a linear resource has none (ROCclr: undefined,
	 * which ROCr programs as wrap) and filters linearly (CL_FILTER_NONE
	 * is not CL_FILTER_NEAREST) */
	if (!t->normalizedCoords &&
	    (t->addressMode[0] == hipAddressModeWrap || t->addressMode[0] == hipAddressModeMirror))
		clamp = SRD_CLAMP_LAST_TEXEL;
	else if (r->resType == hipResourceTypeLinear)
		clamp = SRD_CLAMP_WRAP;
	else
		switch (t->addressMode[0]) {
		case hipAddressModeWrap: clamp = SRD_CLAMP_WRAP; break;
		case hipAddressModeClamp: clamp = SRD_CLAMP_LAST_TEXEL; break;
		case hipAddressModeMirror: clamp = SRD_CLAMP_MIRROR; break;
		case hipAddressModeBorder: clamp = SRD_CLAMP_BORDER; break;
		default: return hipErrorInvalidValue;
		}
	filter = r->resType != hipResourceTypeLinear && t->filterMode == hipFilterModePoint
		 ? SRD_FILTER_POINT : SRD_FILTER_BILINEAR;
	sampler_srd(w + SRD_IMAGE_DWORDS, clamp, !t->normalizedCoords, filter);

	switch (r->resType) {
	case hipResourceTypeArray: {
		struct sim_array_info ai;
		const hipArray *a = r->res.array.array;
		struct tfmt tf;
		unsigned type;
		size_t h, d;

		if (!sim_array_get(a, &ai))
			return hipErrorInvalidValue;	/* is_valid(memObj) */
		tf = v ? from_view(v->format) : (struct tfmt){ a->NumChannels, a->Format };
		if (a->Format == HIP_AD_FORMAT_SIGNED_INT32 || a->Format == HIP_AD_FORMAT_UNSIGNED_INT32)
			mode = hipReadModeElementType;
		if (!srd_format(tf, mode, t->sRGB, &f) || ai.row % f.bytes)
			return hipErrorInvalidValue;
		h = ai.height ? ai.height : 1;
		d = 1;
		if (ai.flags & hipArrayLayered) {
			type = ai.height ? SRD_TYPE_2D_ARRAY : SRD_TYPE_1D_ARRAY;
			d = ai.depth;
		} else if (ai.depth) {
			type = SRD_TYPE_3D;
			d = ai.depth;
		} else {
			type = ai.height ? SRD_TYPE_2D : SRD_TYPE_1D;
		}
		image_srd(w, (uintptr_t)ai.mem, &f, type, ai.row / f.bytes, h, d, ai.row / f.bytes);
		break;
	}
	case hipResourceTypeLinear: {
		size_t width;

		if (!srd_format(from_desc(&r->res.linear.desc), mode, t->sRGB, &f))
			return hipErrorInvalidValue;
		width = r->res.linear.sizeInBytes / f.bytes;
		/* validateDimensions; 5.2.3 would crash on memory it does not know */
		if (!width || !in_memory(r->res.linear.devPtr, r->res.linear.sizeInBytes))
			return hipErrorInvalidValue;
		buffer_srd(w, (uintptr_t)r->res.linear.devPtr, &f, width);
		break;
	}
	case hipResourceTypePitch2D: {
		const size_t wd = r->res.pitch2D.width, ht = r->res.pitch2D.height;

		if (!srd_format(from_desc(&r->res.pitch2D.desc), mode, t->sRGB, &f))
			return hipErrorInvalidValue;
		if (!wd || !ht || r->res.pitch2D.pitchInBytes < wd * f.bytes ||
		    r->res.pitch2D.pitchInBytes % f.bytes ||
		    !in_memory(r->res.pitch2D.devPtr,
			       wd * f.bytes + r->res.pitch2D.pitchInBytes * (ht - 1)))
			return hipErrorInvalidValue;
		image_srd(w, (uintptr_t)r->res.pitch2D.devPtr, &f, SRD_TYPE_2D, wd, ht, 1,
			  r->res.pitch2D.pitchInBytes / f.bytes);
		break;
	}
	default:
		return hipErrorInvalidValue;
	}
	w[8] = f.hsa_type;
	w[9] = f.hsa_order;

	x = calloc(1, sizeof(*x));
	if (!x)
		return hipErrorOutOfMemory;
	x->dev = tex_memory(x);
	if (!x->dev) {
		free(x);
		return hipErrorOutOfMemory;
	}
	memcpy(x->dev, w, sizeof(w));
	x->res = *r;
	x->tex = *t;
	if (v)
		x->view = *v;
	pthread_mutex_lock(&tex_lock);
	x->next = texes;
	texes = x;
	pthread_mutex_unlock(&tex_lock);
	*out = (hipTextureObject_t)(void *)x->dev;
	return hipSuccess;
}

/* The live record of a handle (copied out), unlinked when asked. */
static struct sim_tex *tex_find(hipTextureObject_t h, bool unlink)
{
	struct sim_tex **pp, *x = NULL;

	pthread_mutex_lock(&tex_lock);
	for (pp = &texes; *pp; pp = &(*pp)->next)
		if ((void *)(*pp)->dev == (void *)h) {
			x = *pp;
			if (unlink)
				*pp = x->next;
			break;
		}
	pthread_mutex_unlock(&tex_lock);
	return x;
}

/* ihipDestroyTextureObject: NULL is success (hip_texture.cpp:319-321);
 * the object's memory goes as hipFree's does (ihipFree, :343), after the
 * devices finish (hip_memory.cpp:100-104), so a kernel still queued reads
 * it whole. */
static hipError_t tex_destroy(hipTextureObject_t h)
{
	struct sim_tex *x;
	struct sim_alloc *a;

	if (!h)
		return hipSuccess;
	x = tex_find(h, true);
	if (!x)
		return hipErrorInvalidValue;
	sim_device_sync(-1);
	a = sim_map_take(x->dev, SIM_ROLE_TEXTURE);
	if (a)
		sim_alloc_destroy(a);
	free(x);
	return hipSuccess;
}

/* Copies a live object's descriptors; false for an unknown handle. */
static bool tex_get(hipTextureObject_t h, hipResourceDesc *r, hipTextureDesc *t,
		    struct hipResourceViewDesc *v)
{
	struct sim_tex *x;
	bool found = false;

	pthread_mutex_lock(&tex_lock);
	for (x = texes; x; x = x->next)
		if ((void *)x->dev == (void *)h) {
			if (r)
				*r = x->res;
			if (t)
				*t = x->tex;
			if (v)
				*v = x->view;
			found = true;
			break;
		}
	pthread_mutex_unlock(&tex_lock);
	return found;
}

SIM_API hipError_t hipCreateTextureObject(hipTextureObject_t *pTexObject, const hipResourceDesc *pResDesc,
					  const hipTextureDesc *pTexDesc,
					  const struct hipResourceViewDesc *pResViewDesc)
{
	SIM_INIT_API();
	SIM_RETURN(tex_create(pTexObject, pResDesc, pTexDesc, pResViewDesc));
}

SIM_API hipError_t hipDestroyTextureObject(hipTextureObject_t textureObject)
{
	SIM_INIT_API();
	SIM_RETURN(tex_destroy(textureObject));
}

SIM_API hipError_t hipGetTextureObjectResourceDesc(hipResourceDesc *pResDesc,
						   hipTextureObject_t textureObject)
{
	SIM_INIT_API();
	if (!pResDesc || !textureObject)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(tex_get(textureObject, pResDesc, NULL, NULL) ? hipSuccess : hipErrorInvalidValue);
}

SIM_API hipError_t hipGetTextureObjectResourceViewDesc(struct hipResourceViewDesc *pResViewDesc,
						       hipTextureObject_t textureObject)
{
	SIM_INIT_API();
	if (!pResViewDesc || !textureObject)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(tex_get(textureObject, NULL, NULL, pResViewDesc) ? hipSuccess
								    : hipErrorInvalidValue);
}

SIM_API hipError_t hipGetTextureObjectTextureDesc(hipTextureDesc *pTexDesc,
						  hipTextureObject_t textureObject)
{
	SIM_INIT_API();
	if (!pTexDesc || !textureObject)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(tex_get(textureObject, NULL, pTexDesc, NULL) ? hipSuccess : hipErrorInvalidValue);
}

/* ---- the driver API's forms (hip_conversions.hpp:694-925) ---- */

static hipResourceDesc res_from_drv(const HIP_RESOURCE_DESC *d)
{
	hipResourceDesc r;

	memset(&r, 0, sizeof(r));
	r.resType = (enum hipResourceType)d->resType;
	switch (r.resType) {
	case hipResourceTypeArray:
		r.res.array.array = d->res.array.hArray;
		break;
	case hipResourceTypeMipmappedArray:
		r.res.mipmap.mipmap = d->res.mipmap.hMipmappedArray;
		break;
	case hipResourceTypeLinear:
		r.res.linear.devPtr = d->res.linear.devPtr;
		r.res.linear.desc = to_desc((int)d->res.linear.numChannels, d->res.linear.format);
		r.res.linear.sizeInBytes = d->res.linear.sizeInBytes;
		break;
	case hipResourceTypePitch2D:
		r.res.pitch2D.devPtr = d->res.pitch2D.devPtr;
		r.res.pitch2D.desc = to_desc((int)d->res.pitch2D.numChannels, d->res.pitch2D.format);
		r.res.pitch2D.width = d->res.pitch2D.width;
		r.res.pitch2D.height = d->res.pitch2D.height;
		r.res.pitch2D.pitchInBytes = d->res.pitch2D.pitchInBytes;
		break;
	}
	return r;
}

static HIP_RESOURCE_DESC res_to_drv(const hipResourceDesc *r)
{
	HIP_RESOURCE_DESC d;
	struct tfmt t;

	memset(&d, 0, sizeof(d));
	d.resType = (HIPresourcetype)r->resType;
	switch (r->resType) {
	case hipResourceTypeArray:
		d.res.array.hArray = r->res.array.array;
		break;
	case hipResourceTypeMipmappedArray:
		d.res.mipmap.hMipmappedArray = r->res.mipmap.mipmap;
		break;
	case hipResourceTypeLinear:
		t = from_desc(&r->res.linear.desc);
		d.res.linear.devPtr = r->res.linear.devPtr;
		d.res.linear.numChannels = t.ch;
		d.res.linear.format = t.f;
		d.res.linear.sizeInBytes = r->res.linear.sizeInBytes;
		break;
	case hipResourceTypePitch2D:
		t = from_desc(&r->res.pitch2D.desc);
		d.res.pitch2D.devPtr = r->res.pitch2D.devPtr;
		d.res.pitch2D.numChannels = t.ch;
		d.res.pitch2D.format = t.f;
		d.res.pitch2D.width = r->res.pitch2D.width;
		d.res.pitch2D.height = r->res.pitch2D.height;
		d.res.pitch2D.pitchInBytes = r->res.pitch2D.pitchInBytes;
		break;
	}
	return d;
}

static hipTextureDesc tex_from_drv(const HIP_TEXTURE_DESC *d)
{
	hipTextureDesc t;

	memset(&t, 0, sizeof(t));
	for (int i = 0; i < 3; i++)
		t.addressMode[i] = (enum hipTextureAddressMode)d->addressMode[i];
	t.filterMode = (enum hipTextureFilterMode)d->filterMode;
	t.readMode = d->flags & HIP_TRSF_READ_AS_INTEGER ? hipReadModeElementType
							 : hipReadModeNormalizedFloat;
	t.sRGB = d->flags & HIP_TRSF_SRGB ? 1 : 0;
	memcpy(t.borderColor, d->borderColor, sizeof(t.borderColor));
	t.normalizedCoords = d->flags & HIP_TRSF_NORMALIZED_COORDINATES ? 1 : 0;
	t.maxAnisotropy = d->maxAnisotropy;
	t.mipmapFilterMode = (enum hipTextureFilterMode)d->mipmapFilterMode;
	t.mipmapLevelBias = d->mipmapLevelBias;
	t.minMipmapLevelClamp = d->minMipmapLevelClamp;
	t.maxMipmapLevelClamp = d->maxMipmapLevelClamp;
	return t;
}

static HIP_TEXTURE_DESC tex_to_drv(const hipTextureDesc *t)
{
	HIP_TEXTURE_DESC d;

	memset(&d, 0, sizeof(d));
	for (int i = 0; i < 3; i++)
		d.addressMode[i] = (HIPaddress_mode)t->addressMode[i];
	d.filterMode = (HIPfilter_mode)t->filterMode;
	d.flags = (t->readMode == hipReadModeElementType ? HIP_TRSF_READ_AS_INTEGER : 0) |
		  (t->sRGB == 1 ? HIP_TRSF_SRGB : 0) |
		  (t->normalizedCoords == 1 ? HIP_TRSF_NORMALIZED_COORDINATES : 0);
	d.maxAnisotropy = t->maxAnisotropy;
	d.mipmapFilterMode = (HIPfilter_mode)t->mipmapFilterMode;
	d.mipmapLevelBias = t->mipmapLevelBias;
	d.minMipmapLevelClamp = t->minMipmapLevelClamp;
	d.maxMipmapLevelClamp = t->maxMipmapLevelClamp;
	memcpy(d.borderColor, t->borderColor, sizeof(d.borderColor));
	return d;
}

static HIP_RESOURCE_VIEW_DESC view_to_drv(const struct hipResourceViewDesc *v)
{
	HIP_RESOURCE_VIEW_DESC d;

	memset(&d, 0, sizeof(d));
	d.format = (HIPresourceViewFormat)v->format;
	d.width = v->width;
	d.height = v->height;
	d.depth = v->depth;
	d.firstMipmapLevel = v->firstMipmapLevel;
	d.lastMipmapLevel = v->lastMipmapLevel;
	d.firstLayer = v->firstLayer;
	d.lastLayer = v->lastLayer;
	return d;
}

static struct hipResourceViewDesc view_from_drv(const HIP_RESOURCE_VIEW_DESC *d)
{
	struct hipResourceViewDesc v;

	memset(&v, 0, sizeof(v));
	v.format = (enum hipResourceViewFormat)d->format;
	v.width = d->width;
	v.height = d->height;
	v.depth = d->depth;
	v.firstMipmapLevel = d->firstMipmapLevel;
	v.lastMipmapLevel = d->lastMipmapLevel;
	v.firstLayer = d->firstLayer;
	v.lastLayer = d->lastLayer;
	return v;
}

SIM_API hipError_t hipTexObjectCreate(hipTextureObject_t *pTexObject, const HIP_RESOURCE_DESC *pResDesc,
				      const HIP_TEXTURE_DESC *pTexDesc,
				      const HIP_RESOURCE_VIEW_DESC *pResViewDesc)
{
	hipResourceDesc r;
	hipTextureDesc t;
	struct hipResourceViewDesc v;

	SIM_INIT_API();
	if (!pTexObject || !pResDesc || !pTexDesc)
		SIM_RETURN(hipErrorInvalidValue);
	r = res_from_drv(pResDesc);
	t = tex_from_drv(pTexDesc);
	if (pResViewDesc)
		v = view_from_drv(pResViewDesc);
	SIM_RETURN(tex_create(pTexObject, &r, &t, pResViewDesc ? &v : NULL));
}

SIM_API hipError_t hipTexObjectDestroy(hipTextureObject_t texObject)
{
	SIM_INIT_API();
	SIM_RETURN(tex_destroy(texObject));
}

SIM_API hipError_t hipTexObjectGetResourceDesc(HIP_RESOURCE_DESC *pResDesc, hipTextureObject_t texObject)
{
	hipResourceDesc r;

	SIM_INIT_API();
	if (!pResDesc || !texObject)
		SIM_RETURN(hipErrorInvalidValue);
	if (!tex_get(texObject, &r, NULL, NULL))
		SIM_RETURN(hipErrorInvalidValue);
	*pResDesc = res_to_drv(&r);
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipTexObjectGetResourceViewDesc(HIP_RESOURCE_VIEW_DESC *pResViewDesc,
						   hipTextureObject_t texObject)
{
	struct hipResourceViewDesc v;

	SIM_INIT_API();
	if (!pResViewDesc || !texObject)
		SIM_RETURN(hipErrorInvalidValue);
	if (!tex_get(texObject, NULL, NULL, &v))
		SIM_RETURN(hipErrorInvalidValue);
	*pResViewDesc = view_to_drv(&v);
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipTexObjectGetTextureDesc(HIP_TEXTURE_DESC *pTexDesc, hipTextureObject_t texObject)
{
	hipTextureDesc t;

	SIM_INIT_API();
	if (!pTexDesc || !texObject)
		SIM_RETURN(hipErrorInvalidValue);
	if (!tex_get(texObject, NULL, &t, NULL))
		SIM_RETURN(hipErrorInvalidValue);
	*pTexDesc = tex_to_drv(&t);
	SIM_RETURN(hipSuccess);
}

/* hipGetChannelDesc: the array's descriptor (hip_texture.cpp:696-716). */
SIM_API hipError_t hipGetChannelDesc(hipChannelFormatDesc *desc, hipArray_const_t array)
{
	struct sim_array_info ai;

	SIM_INIT_API();
	if (!desc || !array)
		SIM_RETURN(hipErrorInvalidValue);
	if (!sim_array_get(array, &ai))
		SIM_RETURN(hipErrorInvalidValue);	/* 5.2.3 reads any pointer */
	*desc = array->desc;
	SIM_RETURN(hipSuccess);
}

/* ---- texture references ---- */

/* __hipRegisterTexture: a device variable of a textureReference, found
 * by its host shadow as any other (PlatformState's DVK_Texture). */
SIM_API void __hipRegisterTexture(void **module, void *var, char *host_var, char *dev_var,
				  int type, int norm, int ext)
{
	(void)type;
	(void)norm;
	__hipRegisterVar(module, var, host_var, dev_var, ext, sizeof(textureReference), 0, 0);
}

/* hipGetTextureReference: the symbol is the reference (no check). */
SIM_API hipError_t hipGetTextureReference(const textureReference **texref, const void *symbol)
{
	SIM_INIT_API();
	if (!texref)
		SIM_RETURN(hipErrorInvalidValue);
	*texref = symbol;
	SIM_RETURN(hipSuccess);
}

/* ihipGetTextureAlignmentOffset: how far past the 256-byte alignment. */
static hipError_t align_offset(size_t *offset, const void *p)
{
	size_t off = (IMG_ALIGN - (uintptr_t)p % IMG_ALIGN) % IMG_ALIGN;

	if (off && !offset)
		return hipErrorInvalidValue;
	if (offset)
		*offset = off;
	return hipSuccess;
}

/* getTextureDesc(textureReference*) */
static hipTextureDesc ref_desc(const textureReference *r)
{
	hipTextureDesc t;

	memset(&t, 0, sizeof(t));
	memcpy(t.addressMode, r->addressMode, sizeof(t.addressMode));
	t.filterMode = r->filterMode;
	t.readMode = r->readMode;
	t.sRGB = r->sRGB;
	t.normalizedCoords = r->normalized;
	t.maxAnisotropy = r->maxAnisotropy;
	t.mipmapFilterMode = r->mipmapFilterMode;
	t.mipmapLevelBias = r->mipmapLevelBias;
	t.minMipmapLevelClamp = r->minMipmapLevelClamp;
	t.maxMipmapLevelClamp = r->maxMipmapLevelClamp;
	return t;
}

/* The variable a reference lives in (getStatGlobalVar), then after
 * binding, the reference copied there on the null stream. */
static hipError_t ref_publish(const textureReference *ref, void *var)
{
	return sim_copy(var, ref, sizeof(*ref), hipMemcpyHostToDevice, NULL, true, true);
}

static hipError_t ref_var(const textureReference *ref, void **var)
{
	size_t n;

	/* a NULL or unregistered reference: hipErrorInvalidSymbol, before the
	 * bind's own checks (StatCO::getStatGlobalVar, hip_code_object.cpp:815) */
	return sim_symbol_storage(ref, var, &n);
}

/* A bind: the previous object goes, a new one from res (and view). */
static hipError_t ref_bind(textureReference *ref, hipResourceDesc *r,
			   const struct hipResourceViewDesc *v)
{
	hipTextureDesc t = ref_desc(ref);
	hipError_t e = tex_destroy(ref->textureObject);

	if (e != hipSuccess)
		return e;
	ref->textureObject = NULL;
	return tex_create(&ref->textureObject, r, &t, v);
}

static hipError_t bind_linear(size_t *offset, const textureReference *ref, const void *p,
			      const hipChannelFormatDesc *desc, size_t size, bool two_d,
			      size_t w, size_t h, size_t pitch)
{
	hipResourceDesc r;
	size_t off = 0;
	hipError_t e;
	void *var;

	e = ref_var(ref, &var);
	if (e != hipSuccess)
		return e;
	if (!p || !desc)
		return hipErrorInvalidValue;
	e = tex_destroy(ref->textureObject);
	if (e != hipSuccess)
		return e;
	((textureReference *)ref)->textureObject = NULL;
	/* unaligned with no offset to return: hipErrorInvalidValue; 5.2.3
	 * then reads *offset even when NULL (aligned): 0 here */
	e = align_offset(offset, p);
	if (e != hipSuccess)
		return e;
	off = offset ? *offset : 0;
	memset(&r, 0, sizeof(r));
	if (two_d) {
		r.resType = hipResourceTypePitch2D;
		r.res.pitch2D.devPtr = (char *)(uintptr_t)p - off;
		r.res.pitch2D.desc = *desc;
		r.res.pitch2D.width = w;
		r.res.pitch2D.height = h;
		r.res.pitch2D.pitchInBytes = pitch;
	} else {
		r.resType = hipResourceTypeLinear;
		r.res.linear.devPtr = (char *)(uintptr_t)p - off;
		r.res.linear.desc = *desc;
		r.res.linear.sizeInBytes = size;
	}
	e = ref_bind((textureReference *)ref, &r, NULL);
	return e == hipSuccess ? ref_publish(ref, var) : e;
}

SIM_API hipError_t hipBindTexture(size_t *offset, const textureReference *tex, const void *devPtr,
				  const hipChannelFormatDesc *desc, size_t size)
{
	SIM_INIT_API();
	SIM_RETURN(bind_linear(offset, tex, devPtr, desc, size, false, 0, 0, 0));
}

SIM_API hipError_t hipBindTexture2D(size_t *offset, const textureReference *tex, const void *devPtr,
				    const hipChannelFormatDesc *desc, size_t width, size_t height,
				    size_t pitch)
{
	SIM_INIT_API();
	SIM_RETURN(bind_linear(offset, tex, devPtr, desc, 0, true, width, height, pitch));
}

/* getResourceViewDesc(array, format) */
static struct hipResourceViewDesc array_view(const hipArray *a, enum hipResourceViewFormat f)
{
	struct hipResourceViewDesc v;

	memset(&v, 0, sizeof(v));
	v.format = f;
	v.width = a->width;
	v.height = a->height;
	v.depth = a->depth;
	return v;
}

SIM_API hipError_t hipBindTextureToArray(const textureReference *tex, hipArray_const_t array,
					 const hipChannelFormatDesc *desc)
{
	struct sim_array_info ai;
	hipResourceDesc r;
	struct hipResourceViewDesc v;
	hipError_t e;
	void *var;

	SIM_INIT_API();
	e = ref_var(tex, &var);
	if (e != hipSuccess)
		SIM_RETURN(e);
	if (!array || !desc)
		SIM_RETURN(hipErrorInvalidValue);
	if (!sim_array_get(array, &ai))
		SIM_RETURN(hipErrorInvalidValue);	/* 5.2.3 reads the handle */
	memset(&r, 0, sizeof(r));
	r.resType = hipResourceTypeArray;
	r.res.array.array = (hipArray_t)(uintptr_t)array;
	v = array_view(array, view_format(desc));
	e = ref_bind((textureReference *)tex, &r, &v);
	SIM_RETURN(e == hipSuccess ? ref_publish(tex, var) : e);
}

/* hipUnbindTexture: the object goes; the variable keeps its copy, as in
 * 5.2.3 (ihipUnbindTexture copies nothing to the device). */
SIM_API hipError_t hipUnbindTexture(const textureReference *tex)
{
	hipError_t e;

	SIM_INIT_API();
	if (!tex)
		SIM_RETURN(hipErrorInvalidValue);
	e = tex_destroy(tex->textureObject);
	if (e == hipSuccess)
		((textureReference *)tex)->textureObject = NULL;
	SIM_RETURN(e);
}

SIM_API hipError_t hipGetTextureAlignmentOffset(size_t *offset, const textureReference *texref)
{
	SIM_INIT_API();
	if (!offset || !texref)
		SIM_RETURN(hipErrorInvalidValue);
	*offset = 0;	/* "TODO enforce alignment on devPtr." */
	SIM_RETURN(hipSuccess);
}

/* ---- hipTexRef*: the fields of the host reference ---- */

SIM_API hipError_t hipTexRefSetFormat(textureReference *texRef, hipArray_Format fmt,
				      int NumPackedComponents)
{
	SIM_INIT_API();
	if (!texRef)
		SIM_RETURN(hipErrorInvalidValue);
	texRef->format = fmt;
	texRef->numChannels = NumPackedComponents;
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipTexRefGetFormat(hipArray_Format *pFormat, int *pNumChannels,
				      const textureReference *texRef)
{
	SIM_INIT_API();
	if (!pFormat || !pNumChannels || !texRef)
		SIM_RETURN(hipErrorInvalidValue);
	*pFormat = texRef->format;
	*pNumChannels = texRef->numChannels;
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipTexRefSetFlags(textureReference *texRef, unsigned int Flags)
{
	SIM_INIT_API();
	if (!texRef)
		SIM_RETURN(hipErrorInvalidValue);
	texRef->readMode = Flags & HIP_TRSF_READ_AS_INTEGER ? hipReadModeElementType
							    : hipReadModeNormalizedFloat;
	texRef->normalized = Flags & HIP_TRSF_NORMALIZED_COORDINATES ? 1 : 0;
	texRef->sRGB = Flags & HIP_TRSF_SRGB ? 1 : 0;
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipTexRefGetFlags(unsigned int *pFlags, const textureReference *texRef)
{
	SIM_INIT_API();
	if (!pFlags || !texRef)
		SIM_RETURN(hipErrorInvalidValue);
	*pFlags = (texRef->readMode == hipReadModeElementType ? HIP_TRSF_READ_AS_INTEGER : 0) |
		  (texRef->normalized == 1 ? HIP_TRSF_NORMALIZED_COORDINATES : 0) |
		  (texRef->sRGB == 1 ? HIP_TRSF_SRGB : 0);
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipTexRefSetFilterMode(textureReference *texRef, enum hipTextureFilterMode fm)
{
	SIM_INIT_API();
	if (!texRef)
		SIM_RETURN(hipErrorInvalidValue);
	texRef->filterMode = fm;
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipTexRefGetFilterMode(enum hipTextureFilterMode *pfm, const textureReference *texRef)
{
	SIM_INIT_API();
	if (!pfm || !texRef)
		SIM_RETURN(hipErrorInvalidValue);
	*pfm = texRef->filterMode;
	SIM_RETURN(hipSuccess);
}

/* dim 0 or 1 to read (hip_texture.cpp:845), 0..2 to set (:867) */
SIM_API hipError_t hipTexRefGetAddressMode(enum hipTextureAddressMode *pam,
					   const textureReference *texRef, int dim)
{
	SIM_INIT_API();
	if (!pam || !texRef || (dim != 0 && dim != 1))
		SIM_RETURN(hipErrorInvalidValue);
	*pam = texRef->addressMode[dim];
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipTexRefSetAddressMode(textureReference *texRef, int dim,
					   enum hipTextureAddressMode am)
{
	SIM_INIT_API();
	if (!texRef || dim < 0 || dim > 2)
		SIM_RETURN(hipErrorInvalidValue);
	texRef->addressMode[dim] = am;
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipTexRefSetMaxAnisotropy(textureReference *texRef, unsigned int maxAniso)
{
	SIM_INIT_API();
	if (!texRef)
		SIM_RETURN(hipErrorInvalidValue);
	texRef->maxAnisotropy = maxAniso;
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipTexRefSetMipmapFilterMode(textureReference *texRef, enum hipTextureFilterMode fm)
{
	SIM_INIT_API();
	if (!texRef)
		SIM_RETURN(hipErrorInvalidValue);
	texRef->mipmapFilterMode = fm;
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipTexRefSetMipmapLevelBias(textureReference *texRef, float bias)
{
	SIM_INIT_API();
	if (!texRef)
		SIM_RETURN(hipErrorInvalidValue);
	texRef->mipmapLevelBias = bias;
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipTexRefSetMipmapLevelClamp(textureReference *texRef, float minMipMapLevelClamp,
						float maxMipMapLevelClamp)
{
	SIM_INIT_API();
	if (!texRef)
		SIM_RETURN(hipErrorInvalidValue);
	texRef->minMipmapLevelClamp = minMipMapLevelClamp;
	texRef->maxMipmapLevelClamp = maxMipMapLevelClamp;
	SIM_RETURN(hipSuccess);
}

/* The getters below answer hipErrorInvalidValue after storing the value:
 * 5.2.3's own (hip_texture.cpp:1204, 1224, 1244, 1267). */
SIM_API hipError_t hipTexRefGetMaxAnisotropy(int *pmaxAnsio, const textureReference *texRef)
{
	SIM_INIT_API();
	if (!pmaxAnsio || !texRef)
		SIM_RETURN(hipErrorInvalidValue);
	*pmaxAnsio = (int)texRef->maxAnisotropy;
	SIM_RETURN(hipErrorInvalidValue);
}

SIM_API hipError_t hipTexRefGetMipmapFilterMode(enum hipTextureFilterMode *pfm,
						const textureReference *texRef)
{
	SIM_INIT_API();
	if (!pfm || !texRef)
		SIM_RETURN(hipErrorInvalidValue);
	*pfm = texRef->mipmapFilterMode;
	SIM_RETURN(hipErrorInvalidValue);
}

SIM_API hipError_t hipTexRefGetMipmapLevelBias(float *pbias, const textureReference *texRef)
{
	SIM_INIT_API();
	if (!pbias || !texRef)
		SIM_RETURN(hipErrorInvalidValue);
	*pbias = texRef->mipmapLevelBias;
	SIM_RETURN(hipErrorInvalidValue);
}

SIM_API hipError_t hipTexRefGetMipmapLevelClamp(float *pminMipmapLevelClamp,
						float *pmaxMipmapLevelClamp,
						const textureReference *texRef)
{
	SIM_INIT_API();
	if (!pminMipmapLevelClamp || !pmaxMipmapLevelClamp || !texRef)
		SIM_RETURN(hipErrorInvalidValue);
	*pminMipmapLevelClamp = texRef->minMipmapLevelClamp;
	*pmaxMipmapLevelClamp = texRef->maxMipmapLevelClamp;
	SIM_RETURN(hipErrorInvalidValue);
}

/* hipTexRefSetBorderColor: 5.2.3 asserts false (no borderColor in the
 * reference), compiled out in release builds: success, nothing kept. */
SIM_API hipError_t hipTexRefSetBorderColor(textureReference *texRef, float *pBorderColor)
{
	SIM_INIT_API();
	if (!texRef || !pBorderColor)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipTexRefGetAddress(hipDeviceptr_t *dev_ptr, const textureReference *texRef)
{
	hipResourceDesc r;

	SIM_INIT_API();
	if (!dev_ptr || !texRef || !texRef->textureObject)
		SIM_RETURN(hipErrorInvalidValue);
	if (!tex_get(texRef->textureObject, &r, NULL, NULL))
		SIM_RETURN(hipErrorInvalidValue);
	switch (r.resType) {
	case hipResourceTypeLinear:
		*dev_ptr = r.res.linear.devPtr;
		break;
	case hipResourceTypePitch2D:
		*dev_ptr = r.res.pitch2D.devPtr;
		break;
	default:
		SIM_RETURN(hipErrorInvalidValue);
	}
	SIM_RETURN(hipSuccess);
}

/* The driver binds: the reference must be a module's (getDynTexGlobalVar);
 * hipModuleGetTexRef is not simulated, so none is, and they answer what
 * 5.2.3 answers for a reference no module has. */
SIM_API hipError_t hipTexRefSetAddress(size_t *ByteOffset, textureReference *texRef,
				       hipDeviceptr_t dptr, size_t bytes)
{
	(void)ByteOffset, (void)dptr, (void)bytes;
	SIM_INIT_API();
	if (!texRef)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(hipErrorNotFound);
}

SIM_API hipError_t hipTexRefSetAddress2D(textureReference *texRef, const HIP_ARRAY_DESCRIPTOR *desc,
					 hipDeviceptr_t dptr, size_t Pitch)
{
	(void)dptr, (void)Pitch;
	SIM_INIT_API();
	if (!texRef || !desc)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(hipErrorNotFound);
}

SIM_API hipError_t hipTexRefSetArray(textureReference *tex, hipArray_const_t array, unsigned int flags)
{
	SIM_INIT_API();
	if (!tex || !array || flags != HIP_TRSA_OVERRIDE_FORMAT)
		SIM_RETURN(hipErrorInvalidValue);
	SIM_RETURN(hipErrorNotFound);
}
