/* SPDX-License-Identifier: MIT */
/* test_iv.c - IV encode/decode (src/shared/iv.h). */
#include <criterion/criterion.h>

#include "shared/iv.h"

static void assert_iv_eq(const struct hipsvm_iv *a, const struct hipsvm_iv *b)
{
	cr_assert_eq(a->client_id, b->client_id);
	cr_assert_eq(a->src_id, b->src_id);
	cr_assert_eq(a->ring_id, b->ring_id);
	cr_assert_eq(a->vmid, b->vmid);
	cr_assert_eq(a->vmid_src, b->vmid_src);
	cr_assert_eq(a->timestamp_src, b->timestamp_src);
	cr_assert_eq(a->timestamp, b->timestamp, "ts 0x%llx != 0x%llx",
		     (unsigned long long)a->timestamp, (unsigned long long)b->timestamp);
	cr_assert_eq(a->pasid, b->pasid);
	cr_assert_eq(a->node_id, b->node_id);
	cr_assert_arr_eq(a->src_data, b->src_data, sizeof(a->src_data));
}

Test(iv, layout_of_each_field)
{
	struct hipsvm_iv iv = { 0 };
	uint32_t dw[HIPSVM_IV_DWORDS];

	iv.client_id = 0x12;
	iv.src_id = 0x34;
	iv.ring_id = 0x56;
	iv.vmid = 0x9;
	iv.vmid_src = true;
	iv.timestamp = UINT64_C(0xabcd12345678);
	iv.timestamp_src = true;
	iv.pasid = 0xbeef;
	iv.node_id = 0x42;
	iv.src_data[0] = 0x11111111;
	iv.src_data[1] = 0x22222222;
	iv.src_data[2] = 0x33333333;
	iv.src_data[3] = 0x44444444;
	hipsvm_iv_encode(&iv, dw);
	cr_assert_eq(dw[0], 0x89563412u, "dw0 0x%08x", dw[0]);
	cr_assert_eq(dw[1], 0x12345678u);
	cr_assert_eq(dw[2], 0x8000abcdu, "dw2 0x%08x", dw[2]);
	cr_assert_eq(dw[3], 0x0042beefu);
	cr_assert_eq(dw[4], 0x11111111u);
	cr_assert_eq(dw[5], 0x22222222u);
	cr_assert_eq(dw[6], 0x33333333u);
	cr_assert_eq(dw[7], 0x44444444u);
	cr_assert_eq(hipsvm_iv_dw_ts(dw), UINT64_C(0xabcd12345678));
}

Test(iv, round_trip_max_values)
{
	struct hipsvm_iv iv = { 0 }, back;
	uint32_t dw[HIPSVM_IV_DWORDS];

	iv.client_id = 0xff;
	iv.src_id = 0xff;
	iv.ring_id = 0xff;
	iv.vmid = 0xf;
	iv.vmid_src = true;
	iv.timestamp = HIPSVM_TS_MASK;
	iv.timestamp_src = true;
	iv.pasid = 0xffff;
	iv.node_id = 0xff;
	iv.src_data[0] = iv.src_data[1] = iv.src_data[2] = iv.src_data[3] = 0xffffffffu;
	hipsvm_iv_encode(&iv, dw);
	cr_assert_eq(dw[0], 0x8fffffffu, "bits 30..28 of dw0 must stay 0: 0x%08x", dw[0]);
	cr_assert_eq(dw[2], 0x8000ffffu, "bits 30..16 of dw2 must stay 0: 0x%08x", dw[2]);
	cr_assert_eq(dw[3], 0x00ffffffu);
	memset(&back, 0x5a, sizeof(back));
	hipsvm_iv_decode(dw, &back);
	assert_iv_eq(&iv, &back);
}

Test(iv, round_trip_zero)
{
	struct hipsvm_iv iv = { 0 }, back;
	uint32_t dw[HIPSVM_IV_DWORDS];
	unsigned i;

	hipsvm_iv_encode(&iv, dw);
	for (i = 0; i < HIPSVM_IV_DWORDS; i++)
		cr_assert_eq(dw[i], 0u);
	memset(&back, 0x5a, sizeof(back));
	hipsvm_iv_decode(dw, &back);
	assert_iv_eq(&iv, &back);
}

Test(iv, round_trip_each_field_alone)
{
	/* One field at its maximum, the rest zero: catches a field that spills
	 * into a neighbour. */
	unsigned f;

	for (f = 0; f < 13; f++) {
		struct hipsvm_iv iv = { 0 }, back;
		uint32_t dw[HIPSVM_IV_DWORDS];

		switch (f) {
		case 0: iv.client_id = 0xff; break;
		case 1: iv.src_id = 0xff; break;
		case 2: iv.ring_id = 0xff; break;
		case 3: iv.vmid = 0xf; break;
		case 4: iv.vmid_src = true; break;
		case 5: iv.timestamp = HIPSVM_TS_MASK; break;
		case 6: iv.timestamp_src = true; break;
		case 7: iv.pasid = 0xffff; break;
		case 8: iv.node_id = 0xff; break;
		default: iv.src_data[f - 9] = 0xffffffffu; break;
		}
		hipsvm_iv_encode(&iv, dw);
		hipsvm_iv_decode(dw, &back);
		assert_iv_eq(&iv, &back);
	}
}

Test(iv, masking)
{
	struct hipsvm_iv iv = { 0 }, back;
	uint32_t dw[HIPSVM_IV_DWORDS];

	/* vmid is 4 bits: the upper nibble must not leak into bits 28..31. */
	iv.vmid = 0xf3;
	/* bits 48..63 of the timestamp are not part of an IV. */
	iv.timestamp = UINT64_C(0xffff000000000042);
	hipsvm_iv_encode(&iv, dw);
	cr_assert_eq(dw[0], 0x03000000u, "dw0 0x%08x", dw[0]);
	cr_assert_eq(dw[1], 0x42u);
	cr_assert_eq(dw[2], 0u, "dw2 0x%08x", dw[2]);
	hipsvm_iv_decode(dw, &back);
	cr_assert_eq(back.vmid, 3);
	cr_assert_eq(back.timestamp, 0x42u);
	cr_assert_not(back.vmid_src);
	cr_assert_not(back.timestamp_src);

	/* Garbage in the reserved bits of dw2 does not reach the timestamp. */
	dw[2] = 0x7fff0001u;
	cr_assert_eq(hipsvm_iv_dw_ts(dw), UINT64_C(0x100000042));
	hipsvm_iv_decode(dw, &back);
	cr_assert_not(back.timestamp_src);
}

Test(iv, fault_address_48bit)
{
	static const uint64_t addrs[] = {
		0, 0x1000, UINT64_C(0x7fffffffe000), UINT64_C(0x00007f1234567000),
		UINT64_C(0xfffffffff000), UINT64_C(0x100000000000), UINT64_C(0x0fffffffffff000),
	};
	unsigned i, w;

	for (i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		for (w = 0; w < 2; w++) {
			struct hipsvm_iv iv, back;
			uint32_t dw[HIPSVM_IV_DWORDS];
			uint64_t want = addrs[i] & UINT64_C(0xfffffffff000);

			hipsvm_iv_make_fault(&iv, addrs[i] | 0x123, w, UINT64_C(0x123456789abc),
					     77, 3);
			hipsvm_iv_encode(&iv, dw);
			hipsvm_iv_decode(dw, &back);
			cr_assert_eq(hipsvm_iv_fault_addr(&back), want, "addr 0x%llx -> 0x%llx",
				     (unsigned long long)addrs[i],
				     (unsigned long long)hipsvm_iv_fault_addr(&back));
			cr_assert_eq((back.src_data[1] & HIPSVM_IV_SRC_DATA1_WRITE) != 0, (bool)w);
			cr_assert(hipsvm_iv_fault_retry(&back));
			cr_assert_eq(back.client_id, HIPSVM_IH_CLIENT_VMC);
			cr_assert_eq(back.timestamp, UINT64_C(0x123456789abc));
			cr_assert_eq(back.pasid, 77);
			cr_assert_eq(back.node_id, 3);
			/* bits 47..44 of the address in src_data[1][3:0] */
			cr_assert_eq(dw[5] & 0xf, (uint32_t)((want >> 44) & 0xf));
			cr_assert_eq(dw[4], (uint32_t)(want >> 12));
		}
	}
}

Test(iv, fault_timestamp_masked)
{
	struct hipsvm_iv iv;

	hipsvm_iv_make_fault(&iv, 0x1000, false, UINT64_C(0x1000000000005), 1, 0);
	cr_assert_eq(iv.timestamp, 5u);
	cr_assert_not(iv.src_data[1] & HIPSVM_IV_SRC_DATA1_WRITE);
}

Test(iv, dw_ts)
{
	uint32_t dw[HIPSVM_IV_DWORDS] = { 0 };

	dw[1] = 0xffffffffu;
	dw[2] = 0xffffffffu;
	cr_assert_eq(hipsvm_iv_dw_ts(dw), HIPSVM_TS_MASK);
	dw[1] = 0;
	dw[2] = 0x80000001u;
	cr_assert_eq(hipsvm_iv_dw_ts(dw), UINT64_C(0x100000000));
	dw[1] = 0xdeadbeefu;
	dw[2] = 0;
	cr_assert_eq(hipsvm_iv_dw_ts(dw), UINT64_C(0xdeadbeef));
}
