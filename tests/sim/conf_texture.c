/* SPDX-License-Identifier: MIT */
/*
 * conf_texture.c - texture objects and references against ROCm 5.2.3
 * (hipamd hip_texture.cpp, tag rocm-5.2.3): the argument checks in their
 * order, the descriptors given back, and the device memory a handle points
 * to, which holds the gfx9 image and sampler descriptors that device code
 * reads (the field layout of sim/isa/srd.h, which ROCr's image manager
 * fills the same way).
 */
#include "conf.h"

#include "isa/srd.h"

TestSuite(conf_texture, .timeout = 60);

static hipTextureDesc point_desc(int normalized, enum hipTextureAddressMode am)
{
	hipTextureDesc t;

	memset(&t, 0, sizeof(t));
	t.addressMode[0] = t.addressMode[1] = t.addressMode[2] = am;
	t.filterMode = hipFilterModePoint;
	t.readMode = hipReadModeElementType;
	t.normalizedCoords = normalized;
	return t;
}

/* The 20 dwords a handle points to, read back as a kernel would. */
static void read_srd(hipTextureObject_t t, uint32_t w[SRD_TEXTURE_DWORDS])
{
	ASSERT_OK(hipMemcpy(w, (const void *)t, SRD_TEXTURE_DWORDS * 4, hipMemcpyDeviceToHost));
}

/* An array's texture: a 2D image of float, its base the array's storage,
 * the sampler the descriptor's (ROCr's PopulateImageSrd and
 * PopulateSamplerSrd fields). */
Test(conf_texture, array_object_descriptors)
{
	hipChannelFormatDesc cd = hipCreateChannelDesc(32, 0, 0, 0, hipChannelFormatKindFloat);
	hipArray *a = NULL;
	hipResourceDesc r, r2;
	hipTextureDesc t = point_desc(1, hipAddressModeWrap), t2;
	hipTextureObject_t o = NULL;
	uint32_t w[SRD_TEXTURE_DWORDS];

	ASSERT_OK(hipMallocArray(&a, &cd, 40, 24, hipArrayDefault));
	memset(&r, 0, sizeof(r));
	r.resType = hipResourceTypeArray;
	r.res.array.array = a;
	ASSERT_OK(hipCreateTextureObject(&o, &r, &t, NULL));
	cr_assert_not_null(o);
	read_srd(o, w);
	cr_expect_eq(SRD_IMG_BASE(w), (uint64_t)(uintptr_t)a->data);
	cr_expect_eq(SRD_IMG_WIDTH(w), 40);
	cr_expect_eq(SRD_IMG_HEIGHT(w), 24);
	cr_expect_eq(SRD_IMG_TYPE(w), SRD_TYPE_2D);
	cr_expect_eq(SRD_IMG_DFMT(w), SRD_FMT_32);
	cr_expect_eq(SRD_IMG_NFMT(w), SRD_NUM_FLOAT);
	cr_expect_eq(SRD_IMG_PITCH(w), 40, "rows packed: the pitch is the width");
	cr_expect_eq(SRD_IMG_SEL(w, 0), SRD_SEL_X);
	cr_expect_eq(SRD_IMG_SEL(w, 3), SRD_SEL_1, "one channel: alpha reads 1");
	cr_expect_eq(w[8], SRD_HSA_FLOAT);
	cr_expect_eq(w[9], SRD_HSA_R);
	cr_expect_eq(w[10], 40, "ockl's width word");
	cr_expect_eq(SRD_SAMP_CLAMP(w + SRD_IMAGE_DWORDS, 0), SRD_CLAMP_WRAP);
	cr_expect_eq(SRD_SAMP_CLAMP(w + SRD_IMAGE_DWORDS, 2), SRD_CLAMP_WRAP);
	cr_expect_eq(SRD_SAMP_UNNORM(w + SRD_IMAGE_DWORDS), 0);
	cr_expect_eq(SRD_SAMP_MAG(w + SRD_IMAGE_DWORDS), SRD_FILTER_POINT);
	ASSERT_OK(hipGetTextureObjectResourceDesc(&r2, o));
	cr_expect_eq(r2.resType, hipResourceTypeArray);
	cr_expect_eq(r2.res.array.array, a);
	ASSERT_OK(hipGetTextureObjectTextureDesc(&t2, o));
	cr_expect_eq(t2.addressMode[0], hipAddressModeWrap);
	cr_expect_eq(t2.normalizedCoords, 1);
	ASSERT_OK(hipDestroyTextureObject(o));
	ASSERT_OK(hipFreeArray(a));
}

/* Unnormalized coordinates turn wrap into clamp; border, linear filter
 * and normalized 8-bit reads land in the sampler and the format. */
Test(conf_texture, sampler_modes_and_read_mode)
{
	hipChannelFormatDesc cd = hipCreateChannelDesc(8, 8, 8, 8, hipChannelFormatKindUnsigned);
	hipArray *a = NULL;
	hipResourceDesc r;
	hipTextureDesc t = point_desc(0, hipAddressModeWrap);
	hipTextureObject_t o = NULL;
	uint32_t w[SRD_TEXTURE_DWORDS];

	ASSERT_OK(hipMallocArray(&a, &cd, 16, 0, hipArrayDefault));
	memset(&r, 0, sizeof(r));
	r.resType = hipResourceTypeArray;
	r.res.array.array = a;
	ASSERT_OK(hipCreateTextureObject(&o, &r, &t, NULL));
	read_srd(o, w);
	cr_expect_eq(SRD_IMG_TYPE(w), SRD_TYPE_1D);
	cr_expect_eq(SRD_IMG_DFMT(w), SRD_FMT_8_8_8_8);
	cr_expect_eq(SRD_IMG_NFMT(w), SRD_NUM_UINT);
	cr_expect_eq(SRD_SAMP_UNNORM(w + SRD_IMAGE_DWORDS), 1);
	cr_expect_eq(SRD_SAMP_CLAMP(w + SRD_IMAGE_DWORDS, 0), SRD_CLAMP_LAST_TEXEL,
		     "unnormalized wrap is clamp (hip_texture.cpp:164-167)");
	ASSERT_OK(hipDestroyTextureObject(o));

	t = point_desc(1, hipAddressModeBorder);
	t.filterMode = hipFilterModeLinear;
	t.readMode = hipReadModeNormalizedFloat;
	ASSERT_OK(hipCreateTextureObject(&o, &r, &t, NULL));
	read_srd(o, w);
	cr_expect_eq(SRD_IMG_NFMT(w), SRD_NUM_UNORM);
	cr_expect_eq(w[8], SRD_HSA_UNORM_INT8);
	cr_expect_eq(SRD_SAMP_CLAMP(w + SRD_IMAGE_DWORDS, 1), SRD_CLAMP_BORDER);
	cr_expect_eq(SRD_SAMP_MAG(w + SRD_IMAGE_DWORDS), SRD_FILTER_BILINEAR);
	cr_expect_eq(SRD_SAMP_MIN(w + SRD_IMAGE_DWORDS), SRD_FILTER_BILINEAR);
	ASSERT_OK(hipDestroyTextureObject(o));
	ASSERT_OK(hipFreeArray(a));
}

/* 32-bit integers are read as elements whatever the read mode; layered
 * and 3D arrays are their image types. */
Test(conf_texture, int32_layered_and_3d)
{
	hipChannelFormatDesc cd = hipCreateChannelDesc(32, 32, 0, 0, hipChannelFormatKindSigned);
	hipArray *a = NULL, *b = NULL;
	hipResourceDesc r;
	hipTextureDesc t = point_desc(1, hipAddressModeClamp);
	hipTextureObject_t o = NULL;
	uint32_t w[SRD_TEXTURE_DWORDS];

	t.readMode = hipReadModeNormalizedFloat;
	ASSERT_OK(hipMalloc3DArray(&a, &cd, make_hipExtent(8, 4, 5), hipArrayLayered));
	memset(&r, 0, sizeof(r));
	r.resType = hipResourceTypeArray;
	r.res.array.array = a;
	ASSERT_OK(hipCreateTextureObject(&o, &r, &t, NULL));
	read_srd(o, w);
	cr_expect_eq(SRD_IMG_TYPE(w), SRD_TYPE_2D_ARRAY);
	cr_expect_eq(SRD_IMG_DEPTH(w), 5, "the layers");
	cr_expect_eq(SRD_IMG_DFMT(w), SRD_FMT_32_32);
	cr_expect_eq(SRD_IMG_NFMT(w), SRD_NUM_SINT);
	cr_expect_eq(SRD_SAMP_CLAMP(w + SRD_IMAGE_DWORDS, 0), SRD_CLAMP_LAST_TEXEL);
	ASSERT_OK(hipDestroyTextureObject(o));
	ASSERT_OK(hipMalloc3DArray(&b, &cd, make_hipExtent(8, 4, 3), hipArrayDefault));
	r.res.array.array = b;
	ASSERT_OK(hipCreateTextureObject(&o, &r, &t, NULL));
	read_srd(o, w);
	cr_expect_eq(SRD_IMG_TYPE(w), SRD_TYPE_3D);
	cr_expect_eq(SRD_IMG_DEPTH(w), 3);
	ASSERT_OK(hipDestroyTextureObject(o));
	ASSERT_OK(hipFreeArray(a));
	ASSERT_OK(hipFreeArray(b));
}

/* A linear resource is a buffer descriptor (the element its stride); a
 * pitched one a 2D image with the pitch in elements. */
Test(conf_texture, linear_and_pitch2d)
{
	hipChannelFormatDesc cd = hipCreateChannelDesc(16, 16, 0, 0, hipChannelFormatKindFloat);
	hipResourceDesc r;
	hipTextureDesc t = point_desc(0, hipAddressModeClamp);
	hipTextureObject_t o = NULL;
	uint32_t w[SRD_TEXTURE_DWORDS];
	void *p = NULL;
	size_t pitch = 0;

	ASSERT_OK(hipMalloc(&p, 4096));
	memset(&r, 0, sizeof(r));
	r.resType = hipResourceTypeLinear;
	r.res.linear.devPtr = p;
	r.res.linear.desc = cd;
	r.res.linear.sizeInBytes = 4096;
	ASSERT_OK(hipCreateTextureObject(&o, &r, &t, NULL));
	read_srd(o, w);
	cr_expect_eq(SRD_BUF_BASE(w), (uint64_t)(uintptr_t)p);
	cr_expect_eq(SRD_BUF_STRIDE(w), 4);
	cr_expect_eq(w[2], 4096, "NUM_RECORDS: width times element, as ROCr writes it");
	cr_expect_eq(SRD_BUF_DFMT(w), SRD_FMT_16_16);
	cr_expect_eq(SRD_BUF_NFMT(w), SRD_NUM_FLOAT);
	cr_expect_eq(w[10], 1024);
	ASSERT_OK(hipDestroyTextureObject(o));
	ASSERT_OK(hipFree(p));

	ASSERT_OK(hipMallocPitch(&p, &pitch, 100 * 4, 30));
	memset(&r, 0, sizeof(r));
	r.resType = hipResourceTypePitch2D;
	r.res.pitch2D.devPtr = p;
	r.res.pitch2D.desc = cd;
	r.res.pitch2D.width = 100;
	r.res.pitch2D.height = 30;
	r.res.pitch2D.pitchInBytes = pitch;
	ASSERT_OK(hipCreateTextureObject(&o, &r, &t, NULL));
	read_srd(o, w);
	cr_expect_eq(SRD_IMG_TYPE(w), SRD_TYPE_2D);
	cr_expect_eq(SRD_IMG_WIDTH(w), 100);
	cr_expect_eq(SRD_IMG_HEIGHT(w), 30);
	cr_expect_eq(SRD_IMG_PITCH(w), pitch / 4);
	ASSERT_OK(hipDestroyTextureObject(o));
	ASSERT_OK(hipFree(p));
}

/* ihipCreateTextureObject's checks, in 5.2.3's order. */
Test(conf_texture, create_argument_checks)
{
	hipChannelFormatDesc cd = hipCreateChannelDesc(32, 0, 0, 0, hipChannelFormatKindFloat);
	hipResourceDesc r;
	hipTextureDesc t = point_desc(1, hipAddressModeWrap);
	struct hipResourceViewDesc v;
	hipTextureObject_t o = NULL;
	hipArray *a = NULL;
	void *p = NULL;

	memset(&v, 0, sizeof(v));
	ASSERT_OK(hipMalloc(&p, 1 << 16));
	memset(&r, 0, sizeof(r));
	r.resType = hipResourceTypeLinear;
	r.res.linear.devPtr = p;
	r.res.linear.desc = cd;
	r.res.linear.sizeInBytes = 1024;
	/* a view only with an array */
	EXPECT_HIP(hipCreateTextureObject(NULL, &r, &t, NULL), hipErrorInvalidValue);
	EXPECT_HIP(hipCreateTextureObject(&o, NULL, &t, NULL), hipErrorInvalidValue);
	EXPECT_HIP(hipCreateTextureObject(&o, &r, NULL, NULL), hipErrorInvalidValue);
	v.format = hipResViewFormatFloat1;
	EXPECT_HIP(hipCreateTextureObject(&o, &r, &t, &v), hipErrorInvalidValue);
	r.res.linear.devPtr = (char *)p + 4;
	/* unaligned to imageBaseAddressAlignment_ */
	EXPECT_HIP(hipCreateTextureObject(&o, &r, &t, NULL), hipErrorInvalidValue);
	r.res.linear.devPtr = p;
	r.res.linear.sizeInBytes = SIZE_MAX;
	/* validateDimensions: width 0 */
	EXPECT_HIP(hipCreateTextureObject(&o, &r, &t, NULL), hipErrorInvalidValue);
	r.res.linear.sizeInBytes = 0;
	EXPECT_HIP(hipCreateTextureObject(&o, &r, &t, NULL), hipErrorInvalidValue);
	r.res.linear.sizeInBytes = 1024;
	t.maxAnisotropy = 2;
	/* pitch unaligned to imagePitchAlignment_ */
	EXPECT_HIP(hipCreateTextureObject(&o, &r, &t, NULL), hipErrorNotSupported);
	t.maxAnisotropy = 0;
	t.mipmapLevelBias = 1.0f;
	EXPECT_HIP(hipCreateTextureObject(&o, &r, &t, NULL), hipErrorNotSupported);
	t.mipmapLevelBias = 0;

	memset(&r, 0, sizeof(r));
	r.resType = hipResourceTypePitch2D;
	r.res.pitch2D.devPtr = p;
	r.res.pitch2D.desc = cd;
	r.res.pitch2D.width = 16;
	r.res.pitch2D.height = 16;
	r.res.pitch2D.pitchInBytes = 100;
	EXPECT_HIP(hipCreateTextureObject(&o, &r, &t, NULL), hipErrorInvalidValue);
	r.res.pitch2D.pitchInBytes = 256;
	r.res.pitch2D.width = 16384;
	/* width >= image2DMaxWidth_ */
	EXPECT_HIP(hipCreateTextureObject(&o, &r, &t, NULL), hipErrorInvalidValue);
	r.res.pitch2D.width = 16;
	r.res.pitch2D.height = 0;
	/* no READ_AS_INTEGER */
	EXPECT_HIP(hipCreateTextureObject(&o, &r, &t, NULL), hipErrorInvalidValue);

	memset(&r, 0, sizeof(r));
	r.resType = hipResourceTypeArray;
	EXPECT_HIP(hipCreateTextureObject(&o, &r, &t, NULL), hipErrorInvalidValue);
	r.resType = hipResourceTypeMipmappedArray;
	EXPECT_HIP(hipCreateTextureObject(&o, &r, &t, NULL), hipErrorInvalidValue);
	/* a mipmapped array passes the checks, then "Mipmaps are currently
	 * not supported" (hip_texture.cpp:138-141) */
	ASSERT_OK(hipMallocArray(&a, &cd, 8, 8, 0));
	r.res.mipmap.mipmap = (hipMipmappedArray_t)(void *)a;
	EXPECT_HIP(hipCreateTextureObject(&o, &r, &t, NULL), hipErrorNotSupported);
	t.normalizedCoords = 0;
	EXPECT_HIP(hipCreateTextureObject(&o, &r, &t, NULL), hipErrorInvalidValue);
	ASSERT_OK(hipFreeArray(a));
	ASSERT_OK(hipFree(p));
}

/* Destroying NULL is success; an object once. */
Test(conf_texture, destroy)
{
	hipChannelFormatDesc cd = hipCreateChannelDesc(32, 0, 0, 0, hipChannelFormatKindFloat);
	hipResourceDesc r;
	hipTextureDesc t = point_desc(1, hipAddressModeWrap);
	hipTextureObject_t o = NULL;
	hipArray *a = NULL;

	EXPECT_HIP(hipDestroyTextureObject(NULL), hipSuccess);
	EXPECT_HIP(hipTexObjectDestroy(NULL), hipSuccess);
	ASSERT_OK(hipMallocArray(&a, &cd, 8, 8, 0));
	memset(&r, 0, sizeof(r));
	r.resType = hipResourceTypeArray;
	r.res.array.array = a;
	ASSERT_OK(hipCreateTextureObject(&o, &r, &t, NULL));
	ASSERT_OK(hipDestroyTextureObject(o));
	/* 5.2.3 would free memory it no longer owns; the simulator knows */
	EXPECT_HIP(hipDestroyTextureObject(o), hipErrorInvalidValue);
	EXPECT_HIP(hipGetTextureObjectResourceDesc(&r, o), hipErrorInvalidValue);
	ASSERT_OK(hipFreeArray(a));
}

/* The driver forms convert as hip_conversions.hpp does. */
Test(conf_texture, driver_forms)
{
	HIP_RESOURCE_DESC r, r2;
	HIP_TEXTURE_DESC t, t2;
	HIP_RESOURCE_VIEW_DESC v;
	hipTextureObject_t o = NULL;
	void *p = NULL;

	ASSERT_OK(hipMalloc(&p, 4096));
	memset(&r, 0, sizeof(r));
	memset(&t, 0, sizeof(t));
	r.resType = HIP_RESOURCE_TYPE_LINEAR;
	r.res.linear.devPtr = p;
	r.res.linear.format = HIP_AD_FORMAT_UNSIGNED_INT16;
	r.res.linear.numChannels = 2;
	r.res.linear.sizeInBytes = 4096;
	t.flags = HIP_TRSF_READ_AS_INTEGER;
	EXPECT_HIP(hipTexObjectCreate(NULL, &r, &t, NULL), hipErrorInvalidValue);
	ASSERT_OK(hipTexObjectCreate(&o, &r, &t, NULL));
	ASSERT_OK(hipTexObjectGetResourceDesc(&r2, o));
	cr_expect_eq(r2.resType, HIP_RESOURCE_TYPE_LINEAR);
	cr_expect_eq(r2.res.linear.format, HIP_AD_FORMAT_UNSIGNED_INT16);
	cr_expect_eq(r2.res.linear.numChannels, 2);
	cr_expect_eq(r2.res.linear.sizeInBytes, 4096);
	ASSERT_OK(hipTexObjectGetTextureDesc(&t2, o));
	cr_expect_eq(t2.flags, HIP_TRSF_READ_AS_INTEGER);
	ASSERT_OK(hipTexObjectGetResourceViewDesc(&v, o));
	cr_expect_eq(v.format, HIP_RES_VIEW_FORMAT_NONE, "no view: zeros");
	ASSERT_OK(hipTexObjectDestroy(o));
	ASSERT_OK(hipFree(p));
}

/* The hipTexRef* fields, and the getters 5.2.3 ends with an error. */
Test(conf_texture, texref_fields)
{
	textureReference ref;
	enum hipTextureAddressMode am;
	enum hipTextureFilterMode fm;
	unsigned flags = 0;
	hipArray_Format f;
	int n = 0, an = 0;
	float bias = 0;

	memset(&ref, 0, sizeof(ref));
	ASSERT_OK(hipTexRefSetFlags(&ref, HIP_TRSF_NORMALIZED_COORDINATES));
	cr_expect_eq(ref.normalized, 1);
	cr_expect_eq(ref.readMode, hipReadModeNormalizedFloat);
	ASSERT_OK(hipTexRefGetFlags(&flags, &ref));
	cr_expect_eq(flags, HIP_TRSF_NORMALIZED_COORDINATES);
	ASSERT_OK(hipTexRefSetAddressMode(&ref, 2, hipAddressModeMirror));
	/* dim 0 or 1 */
	EXPECT_HIP(hipTexRefSetAddressMode(&ref, 3, hipAddressModeMirror), hipErrorInvalidValue);
	EXPECT_HIP(hipTexRefGetAddressMode(&am, &ref, 2), hipErrorInvalidValue);
	ASSERT_OK(hipTexRefGetAddressMode(&am, &ref, 1));
	ASSERT_OK(hipTexRefSetFilterMode(&ref, hipFilterModeLinear));
	ASSERT_OK(hipTexRefGetFilterMode(&fm, &ref));
	cr_expect_eq(fm, hipFilterModeLinear);
	ASSERT_OK(hipTexRefSetFormat(&ref, HIP_AD_FORMAT_HALF, 4));
	ASSERT_OK(hipTexRefGetFormat(&f, &n, &ref));
	cr_expect_eq(f, HIP_AD_FORMAT_HALF);
	cr_expect_eq(n, 4);
	ASSERT_OK(hipTexRefSetMaxAnisotropy(&ref, 3));
	/* no object: nothing to destroy */
	EXPECT_HIP(hipTexRefGetMaxAnisotropy(&an, &ref), hipErrorInvalidValue);
	cr_expect_eq(an, 3, "stored, then hipErrorInvalidValue (hip_texture.cpp)");
	ASSERT_OK(hipTexRefSetMipmapLevelBias(&ref, 0.5f));
	EXPECT_HIP(hipTexRefGetMipmapLevelBias(&bias, &ref), hipErrorInvalidValue);
	cr_expect_float_eq(bias, 0.5f, 0);
	EXPECT_HIP(hipTexRefSetFilterMode(NULL, hipFilterModePoint), hipErrorInvalidValue);
}

/* The runtime binds find the reference's variable first: one no code
 * object registered is hipErrorInvalidSymbol; module references
 * (getDynTexGlobalVar) hipErrorNotFound. */
Test(conf_texture, texref_binds_need_a_variable)
{
	hipChannelFormatDesc cd = hipCreateChannelDesc(32, 0, 0, 0, hipChannelFormatKindFloat);
	textureReference ref;
	const textureReference *got = NULL;
	hipArray *a = NULL;
	void *p = NULL;
	size_t off = 1;

	memset(&ref, 0, sizeof(ref));
	ASSERT_OK(hipMalloc(&p, 1024));
	ASSERT_OK(hipMallocArray(&a, &cd, 8, 8, 0));
	EXPECT_HIP(hipBindTexture(&off, &ref, p, &cd, 1024), hipErrorInvalidSymbol);
	EXPECT_HIP(hipBindTexture(NULL, &ref, (char *)p + 4, &cd, 1024), hipErrorInvalidSymbol);
	EXPECT_HIP(hipBindTexture(&off, NULL, p, &cd, 1024), hipErrorInvalidSymbol);
	EXPECT_HIP(hipBindTextureToArray(&ref, a, &cd), hipErrorInvalidSymbol);
	EXPECT_HIP(hipTexRefSetAddress(&off, &ref, p, 1024), hipErrorNotFound);
	EXPECT_HIP(hipTexRefSetArray(&ref, a, HIP_TRSA_OVERRIDE_FORMAT), hipErrorNotFound);
	EXPECT_HIP(hipTexRefSetArray(&ref, a, 0), hipErrorInvalidValue);
	EXPECT_HIP(hipUnbindTexture(&ref), hipSuccess);
	EXPECT_HIP(hipUnbindTexture(NULL), hipErrorInvalidValue);
	ASSERT_OK(hipGetTextureReference(&got, &ref));
	cr_expect_eq(got, &ref);
	ASSERT_OK(hipGetTextureAlignmentOffset(&off, &ref));
	cr_expect_eq(off, 0);
	ASSERT_OK(hipFreeArray(a));
	ASSERT_OK(hipFree(p));
}

/* hipGetChannelDesc: the array's descriptor. */
Test(conf_texture, get_channel_desc)
{
	hipChannelFormatDesc cd = hipCreateChannelDesc(16, 16, 16, 16, hipChannelFormatKindSigned);
	hipChannelFormatDesc got;
	hipArray *a = NULL;

	ASSERT_OK(hipMallocArray(&a, &cd, 8, 0, 0));
	ASSERT_OK(hipGetChannelDesc(&got, a));
	cr_expect_eq(got.x, 16);
	cr_expect_eq(got.w, 16);
	cr_expect_eq(got.f, hipChannelFormatKindSigned);
	EXPECT_HIP(hipGetChannelDesc(NULL, a), hipErrorInvalidValue);
	ASSERT_OK(hipFreeArray(a));
}

/* hipcc's constructors register a texture reference so; here by hand, with
 * no code object, so the variable is device memory of its own. */
void __hipRegisterTexture(void **module, void *var, char *host_var, char *dev_var, int type,
			  int norm, int ext);

static textureReference gref;

/* A bind makes an object from the reference's fields and copies the
 * whole reference to its variable (hip_texture.cpp:545-693). */
Test(conf_texture, texref_bind_copies_to_the_variable)
{
	hipChannelFormatDesc cd = hipCreateChannelDesc(32, 0, 0, 0, hipChannelFormatKindFloat);
	textureReference dev;
	hipResourceDesc r;
	hipArray *a = NULL;
	void *p = NULL;
	size_t off = 7;

	__hipRegisterTexture(NULL, &gref, "gref", "gref", 1, 0, 0);
	gref.filterMode = hipFilterModeLinear;
	gref.normalized = 1;
	ASSERT_OK(hipMalloc(&p, 4096));
	ASSERT_OK(hipBindTexture(&off, &gref, p, &cd, 4096));
	cr_expect_eq(off, 0);
	cr_assert_not_null(gref.textureObject);
	ASSERT_OK(hipMemcpyFromSymbol(&dev, &gref, sizeof(dev), 0, hipMemcpyDeviceToHost));
	cr_expect_eq(dev.textureObject, gref.textureObject, "the kernel's copy names the object");
	ASSERT_OK(hipGetTextureObjectResourceDesc(&r, gref.textureObject));
	cr_expect_eq(r.resType, hipResourceTypeLinear);
	cr_expect_eq(r.res.linear.devPtr, p);
	/* unaligned, and no offset to say by how much */
	EXPECT_HIP(hipBindTexture(NULL, &gref, (char *)p + 4, &cd, 1024), hipErrorInvalidValue);
	cr_expect_null(gref.textureObject, "the previous object went first");

	ASSERT_OK(hipMallocArray(&a, &cd, 16, 16, 0));
	ASSERT_OK(hipBindTextureToArray(&gref, a, &cd));
	ASSERT_OK(hipGetTextureObjectResourceDesc(&r, gref.textureObject));
	cr_expect_eq(r.resType, hipResourceTypeArray);
	ASSERT_OK(hipMemcpyFromSymbol(&dev, &gref, sizeof(dev), 0, hipMemcpyDeviceToHost));
	cr_expect_eq(dev.textureObject, gref.textureObject);
	ASSERT_OK(hipUnbindTexture(&gref));
	cr_expect_null(gref.textureObject);
	ASSERT_OK(hipFreeArray(a));
	ASSERT_OK(hipFree(p));
}
