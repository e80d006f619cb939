/* SPDX-License-Identifier: MIT */
/*
 * texture.c - textures. No image hardware is simulated: creating, binding
 * or querying textures checks the arguments and answers
 * hipErrorNotSupported, said once per function on stderr. A channel
 * descriptor is plain data and is built as ROCm builds it.
 */
#include "sim.h"

SIM_API hipChannelFormatDesc hipCreateChannelDesc(int x, int y, int z, int w,
						  enum hipChannelFormatKind f)
{
	hipChannelFormatDesc d = { x, y, z, w, f };

	return d;
}

/* A texture reference in a program's code: nothing to bind it to. */
SIM_API void __hipRegisterTexture(void **module, void *var, char *host_var, char *dev_var,
				  int type, int norm, int ext)
{
	(void)module;
	(void)var;
	(void)host_var;
	(void)dev_var;
	(void)type;
	(void)norm;
	(void)ext;
}

SIM_API hipError_t hipBindTexture(size_t* offset, const textureReference* tex, const void* devPtr, const hipChannelFormatDesc* desc, size_t size)
{
	(void)offset;
	(void)size;
	if (!tex || !devPtr || !desc)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipBindTexture2D(size_t* offset, const textureReference* tex, const void* devPtr, const hipChannelFormatDesc* desc, size_t width, size_t height, size_t pitch)
{
	(void)offset;
	(void)width;
	(void)height;
	(void)pitch;
	if (!tex || !devPtr || !desc)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipBindTextureToArray(const textureReference* tex, hipArray_const_t array, const hipChannelFormatDesc* desc)
{
	(void)array;
	if (!tex || !desc)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipBindTextureToMipmappedArray(const textureReference* tex, hipMipmappedArray_const_t mipmappedArray, const hipChannelFormatDesc* desc)
{
	(void)mipmappedArray;
	if (!tex || !desc)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipCreateTextureObject(hipTextureObject_t* pTexObject, const hipResourceDesc* pResDesc, const hipTextureDesc* pTexDesc, const struct hipResourceViewDesc* pResViewDesc)
{
	(void)pResViewDesc;
	if (!pTexObject || !pResDesc || !pTexDesc)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipDestroyTextureObject(hipTextureObject_t textureObject)
{
	if (!textureObject)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGetChannelDesc(hipChannelFormatDesc* desc, hipArray_const_t array)
{
	(void)array;
	if (!desc)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGetTextureAlignmentOffset(size_t* offset, const textureReference* texref)
{
	(void)offset;
	if (!texref)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGetTextureObjectResourceDesc(hipResourceDesc* pResDesc, hipTextureObject_t textureObject)
{
	if (!pResDesc || !textureObject)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGetTextureObjectResourceViewDesc(struct hipResourceViewDesc* pResViewDesc, hipTextureObject_t textureObject)
{
	(void)pResViewDesc;
	if (!textureObject)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGetTextureObjectTextureDesc(hipTextureDesc* pTexDesc, hipTextureObject_t textureObject)
{
	if (!pTexDesc || !textureObject)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipGetTextureReference(const textureReference** texref, const void* symbol)
{
	if (!texref || !symbol)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexObjectCreate(hipTextureObject_t* pTexObject, const HIP_RESOURCE_DESC* pResDesc, const HIP_TEXTURE_DESC* pTexDesc, const HIP_RESOURCE_VIEW_DESC* pResViewDesc)
{
	(void)pResViewDesc;
	if (!pTexObject || !pResDesc || !pTexDesc)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexObjectDestroy(hipTextureObject_t texObject)
{
	if (!texObject)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexObjectGetResourceDesc(HIP_RESOURCE_DESC* pResDesc, hipTextureObject_t texObject)
{
	if (!pResDesc || !texObject)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexObjectGetResourceViewDesc(HIP_RESOURCE_VIEW_DESC* pResViewDesc, hipTextureObject_t texObject)
{
	(void)pResViewDesc;
	if (!texObject)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexObjectGetTextureDesc(HIP_TEXTURE_DESC* pTexDesc, hipTextureObject_t texObject)
{
	if (!pTexDesc || !texObject)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefGetAddress(hipDeviceptr_t* dev_ptr, const textureReference* texRef)
{
	if (!dev_ptr || !texRef)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefGetAddressMode(enum hipTextureAddressMode* pam, const textureReference* texRef, int dim)
{
	(void)dim;
	if (!pam || !texRef)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefGetFilterMode(enum hipTextureFilterMode* pfm, const textureReference* texRef)
{
	if (!pfm || !texRef)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefGetFlags(unsigned int* pFlags, const textureReference* texRef)
{
	if (!pFlags || !texRef)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefGetFormat(hipArray_Format* pFormat, int* pNumChannels, const textureReference* texRef)
{
	(void)pNumChannels;
	if (!pFormat || !texRef)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefGetMaxAnisotropy(int* pmaxAnsio, const textureReference* texRef)
{
	if (!pmaxAnsio || !texRef)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefGetMipmapFilterMode(enum hipTextureFilterMode* pfm, const textureReference* texRef)
{
	if (!pfm || !texRef)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefGetMipmapLevelBias(float* pbias, const textureReference* texRef)
{
	if (!pbias || !texRef)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefGetMipmapLevelClamp(float* pminMipmapLevelClamp, float* pmaxMipmapLevelClamp, const textureReference* texRef)
{
	(void)pmaxMipmapLevelClamp;
	if (!pminMipmapLevelClamp || !texRef)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefSetAddress(size_t* ByteOffset, textureReference* texRef, hipDeviceptr_t dptr, size_t bytes)
{
	(void)ByteOffset;
	(void)dptr;
	(void)bytes;
	if (!texRef)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefSetAddress2D(textureReference* texRef, const HIP_ARRAY_DESCRIPTOR* desc, hipDeviceptr_t dptr, size_t Pitch)
{
	(void)dptr;
	(void)Pitch;
	if (!texRef || !desc)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefSetAddressMode(textureReference* texRef, int dim, enum hipTextureAddressMode am)
{
	(void)dim;
	(void)am;
	if (!texRef)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefSetArray(textureReference* tex, hipArray_const_t array, unsigned int flags)
{
	(void)array;
	(void)flags;
	if (!tex)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefSetBorderColor(textureReference* texRef, float* pBorderColor)
{
	(void)pBorderColor;
	if (!texRef)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefSetFilterMode(textureReference* texRef, enum hipTextureFilterMode fm)
{
	(void)fm;
	if (!texRef)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefSetFlags(textureReference* texRef, unsigned int Flags)
{
	(void)Flags;
	if (!texRef)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefSetFormat(textureReference* texRef, hipArray_Format fmt, int NumPackedComponents)
{
	(void)fmt;
	(void)NumPackedComponents;
	if (!texRef)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefSetMaxAnisotropy(textureReference* texRef, unsigned int maxAniso)
{
	(void)maxAniso;
	if (!texRef)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefSetMipmapFilterMode(textureReference* texRef, enum hipTextureFilterMode fm)
{
	(void)fm;
	if (!texRef)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefSetMipmapLevelBias(textureReference* texRef, float bias)
{
	(void)bias;
	if (!texRef)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefSetMipmapLevelClamp(textureReference* texRef, float minMipMapLevelClamp, float maxMipMapLevelClamp)
{
	(void)minMipMapLevelClamp;
	(void)maxMipMapLevelClamp;
	if (!texRef)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipTexRefSetMipmappedArray(textureReference* texRef, struct hipMipmappedArray* mipmappedArray, unsigned int Flags)
{
	(void)Flags;
	if (!texRef || !mipmappedArray)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}

SIM_API hipError_t hipUnbindTexture(const textureReference* tex)
{
	if (!tex)
		return sim_ret(hipErrorInvalidValue);
	return SIM_NOTSUP();
}
