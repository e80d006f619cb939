/* SPDX-License-Identifier: MIT */
/*
 * srd.h - the gfx9 resource descriptors of textures, as the runtime writes
 * them (sim/api/texture.c) and the image and format-buffer instructions read
 * them (sim/isa/image.c): one list of the fields and their codes, so both
 * sides agree by construction.
 *
 * The layout is the hardware's (the ROCr image manager for gfx9 fills the
 * same words; device code reads some fields itself: ockl takes the width
 * and height from words 2 and 10 and the filter and coordinate mode from
 * the sampler). What the simulator writes differently from ROCr: images
 * are always linear (SW_MODE 0) with the pitch of its own packed storage.
 *
 *   image (8 dwords)   w0 BASE_ADDRESS[39:8]; w1 BASE_ADDRESS_HI 0:7,
 *                      DATA_FORMAT 20:25, NUM_FORMAT 26:29; w2 WIDTH-1 0:13,
 *                      HEIGHT-1 14:27; w3 DST_SEL_X/Y/Z/W 0:11, SW_MODE
 *                      20:24, TYPE 28:31; w4 DEPTH-1 (3D) or layers-1 0:12,
 *                      PITCH-1 13:28 (elements)
 *   HIP's extra words  w8 HSA channel type, w9 HSA channel order, w10 width
 *   buffer (4 dwords)  w0 BASE[31:0]; w1 BASE[47:32] 0:15, STRIDE 16:29;
 *                      w2 NUM_RECORDS; w3 DST_SEL 0:11, NUM_FORMAT 12:14,
 *                      DATA_FORMAT 15:18, INDEX_STRIDE 21:22, TYPE 30:31
 *   sampler (4 dwords) w0 CLAMP_X/Y/Z 0:8, FORCE_UNNORMALIZED 15; w1
 *                      MAX_LOD 12:23; w2 XY_MAG_FILTER 20:21, XY_MIN_FILTER
 *                      22:23; w3 BORDER_COLOR_TYPE 30:31
 */
#ifndef HIPSVM_SIM_ISA_SRD_H
#define HIPSVM_SIM_ISA_SRD_H

#include <stdint.h>

/* DATA_FORMAT (image and buffer): element layouts */
enum srd_fmt {
	SRD_FMT_8 = 1, SRD_FMT_16 = 2, SRD_FMT_8_8 = 3, SRD_FMT_32 = 4, SRD_FMT_16_16 = 5,
	SRD_FMT_8_8_8_8 = 10, SRD_FMT_32_32 = 11, SRD_FMT_16_16_16_16 = 12,
	SRD_FMT_32_32_32_32 = 14,
};

/* NUM_FORMAT: how a channel's bits are read */
enum srd_num {
	SRD_NUM_UNORM = 0, SRD_NUM_SNORM = 1, SRD_NUM_UINT = 4, SRD_NUM_SINT = 5,
	SRD_NUM_FLOAT = 7, SRD_NUM_SRGB = 9,
};

/* TYPE of an image resource */
enum srd_type {
	SRD_TYPE_1D = 8, SRD_TYPE_2D = 9, SRD_TYPE_3D = 10, SRD_TYPE_1D_ARRAY = 12,
	SRD_TYPE_2D_ARRAY = 13,
};

/* DST_SEL: a result channel's source */
enum srd_sel { SRD_SEL_0 = 0, SRD_SEL_1 = 1, SRD_SEL_X = 4, SRD_SEL_Y = 5, SRD_SEL_Z = 6, SRD_SEL_W = 7 };

/* CLAMP_X/Y/Z */
enum srd_clamp {
	SRD_CLAMP_WRAP = 0, SRD_CLAMP_MIRROR = 1, SRD_CLAMP_LAST_TEXEL = 2,
	SRD_CLAMP_MIRROR_ONCE_LAST_TEXEL = 3, SRD_CLAMP_HALF_BORDER = 4,
	SRD_CLAMP_MIRROR_ONCE_HALF_BORDER = 5, SRD_CLAMP_BORDER = 6, SRD_CLAMP_MIRROR_ONCE_BORDER = 7,
};

/* XY_MAG_FILTER / XY_MIN_FILTER */
enum srd_filter { SRD_FILTER_POINT = 0, SRD_FILTER_BILINEAR = 1 };

/* HSA's channel orders and types (hsa_ext_image.h), which HIP's words 8
 * and 9 hold */
enum srd_hsa_type {
	SRD_HSA_SNORM_INT8 = 0, SRD_HSA_SNORM_INT16 = 1, SRD_HSA_UNORM_INT8 = 2,
	SRD_HSA_UNORM_INT16 = 3, SRD_HSA_SIGNED_INT8 = 8, SRD_HSA_SIGNED_INT16 = 9,
	SRD_HSA_SIGNED_INT32 = 10, SRD_HSA_UNSIGNED_INT8 = 11, SRD_HSA_UNSIGNED_INT16 = 12,
	SRD_HSA_UNSIGNED_INT32 = 13, SRD_HSA_HALF_FLOAT = 14, SRD_HSA_FLOAT = 15,
};
enum srd_hsa_order { SRD_HSA_R = 1, SRD_HSA_RG = 3, SRD_HSA_RGBA = 8, SRD_HSA_SRGBA = 14 };

/* HIP's texture object: the image words, then the sampler's
 * (HIP_SAMPLER_OBJECT_OFFSET_DWORD) */
#define SRD_IMAGE_DWORDS 12
#define SRD_SAMPLER_DWORDS 8
#define SRD_TEXTURE_DWORDS (SRD_IMAGE_DWORDS + SRD_SAMPLER_DWORDS)

static inline uint32_t srd_get(uint32_t w, unsigned lo, unsigned bits)
{
	return (w >> lo) & ((1u << bits) - 1u);
}

static inline uint32_t srd_put(uint32_t v, unsigned lo, unsigned bits)
{
	return (v & ((1u << bits) - 1u)) << lo;
}

/* The image fields */
#define SRD_IMG_DFMT(w) srd_get((w)[1], 20, 6)
#define SRD_IMG_NFMT(w) srd_get((w)[1], 26, 4)
#define SRD_IMG_WIDTH(w) (srd_get((w)[2], 0, 14) + 1u)
#define SRD_IMG_HEIGHT(w) (srd_get((w)[2], 14, 14) + 1u)
#define SRD_IMG_SEL(w, c) srd_get((w)[3], 3 * (c), 3)
#define SRD_IMG_SWMODE(w) srd_get((w)[3], 20, 5)
#define SRD_IMG_TYPE(w) srd_get((w)[3], 28, 4)
#define SRD_IMG_DEPTH(w) (srd_get((w)[4], 0, 13) + 1u)
#define SRD_IMG_PITCH(w) (srd_get((w)[4], 13, 16) + 1u)
#define SRD_IMG_BASE(w) (((uint64_t)(w)[0] << 8) | ((uint64_t)srd_get((w)[1], 0, 8) << 40))

/* The buffer fields */
#define SRD_BUF_BASE(w) ((uint64_t)(w)[0] | ((uint64_t)srd_get((w)[1], 0, 16) << 32))
#define SRD_BUF_STRIDE(w) srd_get((w)[1], 16, 14)
#define SRD_BUF_SEL(w, c) srd_get((w)[3], 3 * (c), 3)
#define SRD_BUF_NFMT(w) srd_get((w)[3], 12, 3)
#define SRD_BUF_DFMT(w) srd_get((w)[3], 15, 4)

/* The sampler fields */
#define SRD_SAMP_CLAMP(w, d) srd_get((w)[0], 3 * (d), 3)
#define SRD_SAMP_UNNORM(w) srd_get((w)[0], 15, 1)
#define SRD_SAMP_MAG(w) srd_get((w)[2], 20, 2)
#define SRD_SAMP_MIN(w) srd_get((w)[2], 22, 2)
#define SRD_SAMP_BORDER(w) srd_get((w)[3], 30, 2)

#endif
