/* SPDX-License-Identifier: MIT */
/* conf_mem_array.c - arrays and mipmapped arrays against ROCm 5.2.3
 * (hip_memory.cpp: ihipArrayCreate, ihipImageCreate, ihipArrayDestroy,
 * the mipmap calls). */
#include "conf_mem.h"

TestSuite(mem_array, .timeout = 60);

/* hipMallocArray: a float4 2D array, its fields as ROCm fills them. */
Test(mem_array, hipMallocArray_fields)
{
	hipChannelFormatDesc d = chan(32, 32, 32, 32, hipChannelFormatKindFloat);
	hipArray *a = NULL;
	uint32_t type = 0;

	cr_assert_eq(hipMallocArray(&a, &d, 64, 16, hipArrayDefault), hipSuccess);
	cr_assert_not_null(a);
	cr_expect_eq(a->width, 64);
	cr_expect_eq(a->height, 16);
	cr_expect_eq(a->depth, 0);
	cr_expect_eq(a->Format, HIP_AD_FORMAT_FLOAT);
	cr_expect_eq(a->NumChannels, 4);
	cr_expect_eq(a->desc.x, 32);
	cr_expect_eq(a->desc.f, hipChannelFormatKindFloat);
	cr_expect_eq(hipsvmSimIsMapped(0, a->data), 1, "the elements are device memory");
	cr_expect_eq(hipPointerGetAttribute(&type, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, a),
		     hipSuccess);
	cr_expect_eq(type, hipMemoryTypeArray);
	cr_expect_eq(hipFreeArray(a), hipSuccess);
}

/* ihipArrayCreate: 1, 2 or 4 channels only. */
Test(mem_array, hipArrayCreate_three_channels_invalid)
{
	HIP_ARRAY_DESCRIPTOR d = { 16, 16, HIP_AD_FORMAT_UNSIGNED_INT8, 3 };
	hipArray *a;

	cr_expect_eq(hipArrayCreate(&a, &d), hipErrorInvalidValue);
	d.NumChannels = 2;
	cr_expect_eq(hipArrayCreate(&a, &d), hipSuccess);
	cr_expect_eq(a->NumChannels, 2);
	cr_expect_eq(hipArrayDestroy(a), hipSuccess);
}

/* ihipArrayCreate: surface, cubemap and gather flags are not supported. */
Test(mem_array, hipArray3DCreate_flags_not_supported)
{
	HIP_ARRAY3D_DESCRIPTOR d = { 8, 8, 8, HIP_AD_FORMAT_FLOAT, 1, hipArraySurfaceLoadStore };
	hipArray *a;

	cr_expect_eq(hipArray3DCreate(&a, &d), hipErrorNotSupported);
	d.Flags = hipArrayCubemap;
	cr_expect_eq(hipArray3DCreate(&a, &d), hipErrorNotSupported);
	d.Flags = hipArrayTextureGather;
	cr_expect_eq(hipArray3DCreate(&a, &d), hipErrorNotSupported);
	d.Flags = 0;
	cr_expect_eq(hipArray3DCreate(&a, &d), hipSuccess);
	cr_expect_eq(a->depth, 8);
	cr_expect_eq(hipArrayDestroy(a), hipSuccess);
}

/* ihipImageCreate: dimensions past the device's image limits, or a width
 * of 0, are hipErrorInvalidValue. gfx90a's 3D limit is 16384 x 16384 x 8192
 * (ROCr's image_lut_kv.cpp:302 through ROCclr rocdevice.cpp:1423-1425), not
 * PAL's 2048: hip-tests 5.2.3's Unit_hipMemcpy3D_Basic allocates widths up
 * to 10240. */
Test(mem_array, hipMalloc3DArray_dimensions)
{
	hipChannelFormatDesc d = chan(8, 0, 0, 0, hipChannelFormatKindUnsigned);
	hipChannelFormatDesc f = chan(32, 0, 0, 0, hipChannelFormatKindFloat);
	hipArray *a = NULL;
	int v = 0;

	cr_assert_eq(hipMalloc3DArray(&a, &f, make_hipExtent(10240, 10, 10), 0), hipSuccess);
	cr_expect_eq(a->width, 10240);
	cr_expect_eq(hipFreeArray(a), hipSuccess);
	cr_expect_eq(hipMalloc3DArray(&a, &d, make_hipExtent(16384, 4, 4), 0), hipSuccess);
	cr_expect_eq(hipFreeArray(a), hipSuccess);
	cr_expect_eq(hipMalloc3DArray(&a, &d, make_hipExtent(4, 16384, 2), 0), hipSuccess);
	cr_expect_eq(hipFreeArray(a), hipSuccess);
	cr_expect_eq(hipMalloc3DArray(&a, &d, make_hipExtent(1, 1, 8192), 0), hipSuccess);
	cr_expect_eq(hipFreeArray(a), hipSuccess);
	/* layers: imageMaxArraySize_, 8192 (image_lut_kv.cpp:304) */
	cr_expect_eq(hipMalloc3DArray(&a, &d, make_hipExtent(16, 16, 8192), hipArrayLayered),
		     hipSuccess);
	cr_expect_eq(hipFreeArray(a), hipSuccess);
	cr_expect_eq(hipMalloc3DArray(&a, &d, make_hipExtent(16, 16, 8193), hipArrayLayered),
		     hipErrorInvalidValue);
	cr_expect_eq(hipMalloc3DArray(&a, &d, make_hipExtent(16385, 4, 4), 0), hipErrorInvalidValue);
	cr_expect_eq(hipMalloc3DArray(&a, &d, make_hipExtent(4, 16385, 4), 0), hipErrorInvalidValue);
	cr_expect_eq(hipMalloc3DArray(&a, &d, make_hipExtent(4, 4, 8193), 0), hipErrorInvalidValue);
	cr_expect_eq(hipDeviceGetAttribute(&v, hipDeviceAttributeMaxTexture3DWidth, 0), hipSuccess);
	cr_expect_eq(v, 16384, "the attribute and the check disagree");
	cr_expect_eq(hipDeviceGetAttribute(&v, hipDeviceAttributeMaxTexture3DDepth, 0), hipSuccess);
	cr_expect_eq(v, 8192, "the attribute and the check disagree");
	cr_expect_eq(hipMalloc3DArray(&a, &d, make_hipExtent(0, 4, 4), 0), hipErrorInvalidValue);
	cr_expect_eq(hipMallocArray(&a, &d, 20000, 1, 0), hipErrorInvalidValue);
	cr_expect_eq(hipMalloc3DArray(&a, &d, make_hipExtent(64, 4, 4), 0), hipSuccess);
	cr_expect_eq(hipFreeArray(a), hipSuccess);
}

/* ihipArrayDestroy: NULL or an array already freed is hipErrorInvalidValue. */
Test(mem_array, hipFreeArray_twice)
{
	hipChannelFormatDesc d = chan(16, 0, 0, 0, hipChannelFormatKindSigned);
	hipArray *a;

	cr_assert_eq(hipMallocArray(&a, &d, 8, 0, 0), hipSuccess);
	cr_expect_eq(a->Format, HIP_AD_FORMAT_SIGNED_INT16);
	cr_expect_eq(hipFreeArray(a), hipSuccess);
	cr_expect_eq(hipFreeArray(a), hipErrorInvalidValue);
	cr_expect_eq(hipFreeArray(NULL), hipErrorInvalidValue);
	cr_expect_eq(hipArrayDestroy(NULL), hipErrorInvalidValue);
}

/* hipMallocMipmappedArray, hipGetMipmappedArrayLevel,
 * hipFreeMipmappedArray: hipErrorNotSupported in ROCm 5.2.3. */
Test(mem_array, runtime_mipmaps_not_supported)
{
	hipChannelFormatDesc d = chan(8, 0, 0, 0, hipChannelFormatKindUnsigned);
	hipMipmappedArray_t m = NULL;
	hipArray_t l;

	cr_expect_eq(hipMallocMipmappedArray(&m, &d, make_hipExtent(16, 16, 0), 2, 0),
		     hipErrorNotSupported);
	cr_expect_eq(hipGetMipmappedArrayLevel(&l, m, 0), hipErrorNotSupported);
	cr_expect_eq(hipFreeMipmappedArray(m), hipErrorNotSupported);
}

/* hipMipmappedArrayCreate / GetLevel / Destroy: levels halve; more levels
 * than the size allows is hipErrorInvalidValue. */
Test(mem_array, hipMipmappedArrayCreate_levels)
{
	HIP_ARRAY3D_DESCRIPTOR d = { 16, 8, 0, HIP_AD_FORMAT_UNSIGNED_INT8, 1, 0 };
	hipMipmappedArray_t m = NULL;
	hipArray_t l = NULL;

	cr_expect_eq(hipMipmappedArrayCreate(&m, &d, 6), hipErrorInvalidValue);
	cr_assert_eq(hipMipmappedArrayCreate(&m, &d, 5), hipSuccess);
	cr_expect_eq(m->max_mipmap_level, 5);
	cr_assert_eq(hipMipmappedArrayGetLevel(&l, m, 2), hipSuccess);
	cr_expect_eq(l->width, 4);
	cr_expect_eq(l->height, 2);
	cr_assert_eq(hipMipmappedArrayGetLevel(&l, m, 4), hipSuccess);
	cr_expect_eq(l->width, 1);
	cr_expect_eq(l->height, 1);
	cr_expect_eq(hipMipmappedArrayGetLevel(&l, m, 5), hipErrorInvalidValue);
	cr_expect_eq(hipMipmappedArrayGetLevel(NULL, m, 0), hipErrorInvalidValue);
	cr_expect_eq(hipMipmappedArrayDestroy(m), hipSuccess);
	cr_expect_eq(hipMipmappedArrayDestroy(m), hipErrorInvalidValue);
	cr_expect_eq(hipMipmappedArrayDestroy(NULL), hipErrorInvalidValue);
}
