/* SPDX-License-Identifier: MIT */
/* conf_peer.c - peer access against ROCm 5.2.3's hip_peer.cpp. */
#include "conf.h"

/* hipDeviceCanAccessPeer: a device and itself is 0 before the range check;
 * distinct GPUs can. */
Test(conf_peer, hipDeviceCanAccessPeer)
{
	int can = 9;

	ASSERT_OK(hipDeviceCanAccessPeer(&can, 7, 7));
	cr_expect_eq(can, 0);
	ASSERT_OK(hipDeviceCanAccessPeer(&can, 0, 3));
	cr_expect_eq(can, 1);
	EXPECT_HIP(hipDeviceCanAccessPeer(&can, 0, 4), hipErrorInvalidDevice);
	EXPECT_HIP(hipDeviceCanAccessPeer(NULL, 0, 1), hipErrorInvalidValue);
}

/* hipDeviceEnablePeerAccess / hipDeviceDisablePeerAccess: already enabled,
 * not enabled, self, flags. */
Test(conf_peer, enable_disable)
{
	ASSERT_OK(hipSetDevice(0));
	EXPECT_HIP(hipDeviceDisablePeerAccess(1), hipErrorPeerAccessNotEnabled);
	ASSERT_OK(hipDeviceEnablePeerAccess(1, 0));
	EXPECT_HIP(hipDeviceEnablePeerAccess(1, 0), hipErrorPeerAccessAlreadyEnabled);
	ASSERT_OK(hipSetDevice(1));
	ASSERT_OK(hipDeviceEnablePeerAccess(0, 0));	/* per current device */
	ASSERT_OK(hipSetDevice(0));
	ASSERT_OK(hipDeviceDisablePeerAccess(1));
	EXPECT_HIP(hipDeviceDisablePeerAccess(1), hipErrorPeerAccessNotEnabled);
	EXPECT_HIP(hipDeviceEnablePeerAccess(0, 0), hipErrorInvalidDevice);
	EXPECT_HIP(hipDeviceEnablePeerAccess(2, 1), hipErrorInvalidValue);
	EXPECT_HIP(hipDeviceEnablePeerAccess(9, 0), hipErrorInvalidDevice);
}

/* hipDeviceGetP2PAttribute: access 1; rank and atomics answer the link type. */
Test(conf_peer, hipDeviceGetP2PAttribute)
{
	uint32_t type, hops;
	int v;

	ASSERT_OK(hipDeviceGetP2PAttribute(&v, hipDevP2PAttrAccessSupported, 0, 1));
	cr_expect_eq(v, 1);
	ASSERT_OK(hipDeviceGetP2PAttribute(&v, hipDevP2PAttrHipArrayAccessSupported, 0, 1));
	cr_expect_eq(v, 1);
	ASSERT_OK(hipExtGetLinkTypeAndHopCount(0, 1, &type, &hops));
	ASSERT_OK(hipDeviceGetP2PAttribute(&v, hipDevP2PAttrPerformanceRank, 0, 1));
	cr_expect_eq((uint32_t)v, type);
	cr_expect_eq(hops, 1);
	EXPECT_HIP(hipDeviceGetP2PAttribute(&v, hipDevP2PAttrAccessSupported, 1, 1),
		   hipErrorInvalidDevice);
	EXPECT_HIP(hipDeviceGetP2PAttribute(&v, (hipDeviceP2PAttr)9, 0, 1), hipErrorInvalidValue);
	EXPECT_HIP(hipDeviceGetP2PAttribute(NULL, hipDevP2PAttrAccessSupported, 0, 1),
		   hipErrorInvalidValue);
}

/* hipExtGetLinkTypeAndHopCount: the same device, negatives, NULLs are
 * hipErrorInvalidValue; out of range hipErrorInvalidDevice. */
Test(conf_peer, hipExtGetLinkTypeAndHopCount_checks)
{
	uint32_t t, h;

	EXPECT_HIP(hipExtGetLinkTypeAndHopCount(1, 1, &t, &h), hipErrorInvalidValue);
	EXPECT_HIP(hipExtGetLinkTypeAndHopCount(-1, 1, &t, &h), hipErrorInvalidValue);
	EXPECT_HIP(hipExtGetLinkTypeAndHopCount(0, 1, NULL, &h), hipErrorInvalidValue);
	EXPECT_HIP(hipExtGetLinkTypeAndHopCount(0, 9, &t, &h), hipErrorInvalidDevice);
}
