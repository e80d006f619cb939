/* SPDX-License-Identifier: MIT */
/*
 * iv.h - interrupt vectors (IVs) as a GPU writes them into an IH ring.
 *
 * One IV is 8 dwords (32 bytes). Layout (docs/design.md, Rings):
 *   DW0  client_id[7:0] | src_id[15:8] | ring_id[23:16] | vmid[27:24] | vmid_src[31]
 *   DW1  timestamp[31:0]
 *   DW2  timestamp[47:32] in [15:0], timestamp_src in [31]
 *   DW3  pasid[15:0] | node_id[23:16]
 *   DW4..DW7 src_data[0..3]
 * A retry page fault carries its address like gmc_v9: page number bits [43:12]
 * in src_data[0], bits [47:44] in src_data[1][3:0], write in bit 5 and retry in
 * bit 7 of src_data[1].
 */
#ifndef HIPSVM_IV_H
#define HIPSVM_IV_H

#include "shared/compat.h"
#include "shared/ts.h"

#define HIPSVM_IV_DWORDS 8
#define HIPSVM_IV_BYTES  32

#define HIPSVM_IH_CLIENT_VMC   0x12 /* SOC15_IH_CLIENTID_VMC */
#define HIPSVM_IH_CLIENT_UTCL2 0x1b
#define HIPSVM_IV_SRC_DATA1_WRITE (1u << 5)
#define HIPSVM_IV_SRC_DATA1_RETRY (1u << 7)

struct hipsvm_iv {
	uint8_t client_id;
	uint8_t src_id;
	uint8_t ring_id;
	uint8_t vmid;		/* 4 bits */
	bool vmid_src;
	bool timestamp_src;
	uint64_t timestamp;	/* 48 bits */
	uint16_t pasid;
	uint8_t node_id;
	uint32_t src_data[4];
};

static inline void hipsvm_iv_encode(const struct hipsvm_iv *iv, uint32_t dw[HIPSVM_IV_DWORDS])
{
	dw[0] = (uint32_t)iv->client_id | (uint32_t)iv->src_id << 8 |
		(uint32_t)iv->ring_id << 16 | (uint32_t)(iv->vmid & 0xf) << 24 |
		(uint32_t)(iv->vmid_src ? 1u : 0u) << 31;
	dw[1] = (uint32_t)(iv->timestamp & 0xffffffffu);
	dw[2] = (uint32_t)((iv->timestamp >> 32) & 0xffff) |
		(uint32_t)(iv->timestamp_src ? 1u : 0u) << 31;
	dw[3] = (uint32_t)iv->pasid | (uint32_t)iv->node_id << 16;
	dw[4] = iv->src_data[0];
	dw[5] = iv->src_data[1];
	dw[6] = iv->src_data[2];
	dw[7] = iv->src_data[3];
}

static inline uint64_t hipsvm_iv_dw_ts(const uint32_t dw[HIPSVM_IV_DWORDS])
{
	return (uint64_t)dw[1] | (uint64_t)(dw[2] & 0xffff) << 32;
}

static inline void hipsvm_iv_decode(const uint32_t dw[HIPSVM_IV_DWORDS], struct hipsvm_iv *iv)
{
	iv->client_id = dw[0] & 0xff;
	iv->src_id = (dw[0] >> 8) & 0xff;
	iv->ring_id = (dw[0] >> 16) & 0xff;
	iv->vmid = (dw[0] >> 24) & 0xf;
	iv->vmid_src = (dw[0] >> 31) & 1;
	iv->timestamp = hipsvm_iv_dw_ts(dw);
	iv->timestamp_src = (dw[2] >> 31) & 1;
	iv->pasid = dw[3] & 0xffff;
	iv->node_id = (dw[3] >> 16) & 0xff;
	iv->src_data[0] = dw[4];
	iv->src_data[1] = dw[5];
	iv->src_data[2] = dw[6];
	iv->src_data[3] = dw[7];
}

/* A retry fault IV for the page that holds addr (48-bit GPU virtual address). */
static inline void hipsvm_iv_make_fault(struct hipsvm_iv *iv, uint64_t addr, bool write,
					uint64_t ts, uint16_t pasid, uint8_t node_id)
{
	memset(iv, 0, sizeof(*iv));
	iv->client_id = HIPSVM_IH_CLIENT_VMC;
	iv->vmid = 8;	/* KFD compute VMIDs start at 8 */
	iv->timestamp = ts & HIPSVM_TS_MASK;
	iv->pasid = pasid;
	iv->node_id = node_id;
	iv->src_data[0] = (uint32_t)(addr >> 12);
	iv->src_data[1] = (uint32_t)((addr >> 44) & 0xf) | HIPSVM_IV_SRC_DATA1_RETRY |
			  (write ? HIPSVM_IV_SRC_DATA1_WRITE : 0);
}

static inline uint64_t hipsvm_iv_fault_addr(const struct hipsvm_iv *iv)
{
	return (uint64_t)iv->src_data[0] << 12 | (uint64_t)(iv->src_data[1] & 0xf) << 44;
}

static inline bool hipsvm_iv_fault_retry(const struct hipsvm_iv *iv)
{
	return (iv->src_data[1] & HIPSVM_IV_SRC_DATA1_RETRY) != 0;
}

#endif
