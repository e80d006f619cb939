/* SPDX-License-Identifier: MIT */
/* abi_layout.h - the sizes and offsets that must agree between the shim's
 * hip_abi.h and ROCm's headers (expanded once against each). */
#ifndef HIPSVM_ABI_LAYOUT_H
#define HIPSVM_ABI_LAYOUT_H

#define ABI_LAYOUT							\
	sizeof(hipIpcMemHandle_t), sizeof(hipMemPoolPtrExportData),	\
	sizeof(hipMemLocation), offsetof(hipMemLocation, id),		\
	sizeof(hipMemPoolProps), offsetof(hipMemPoolProps, location),	\
	sizeof(hipMemAllocationProp), offsetof(hipMemAllocationProp, location), \
	sizeof(hipMemAccessDesc), offsetof(hipMemAccessDesc, flags),	\
	sizeof(hipPitchedPtr), offsetof(hipPitchedPtr, pitch),		\
	sizeof(hipExtent), offsetof(hipExtent, depth),			\
	sizeof(hipChannelFormatDesc), offsetof(hipChannelFormatDesc, w), \
	sizeof(HIP_ARRAY_DESCRIPTOR), offsetof(HIP_ARRAY_DESCRIPTOR, Format), \
	offsetof(HIP_ARRAY_DESCRIPTOR, NumChannels),			\
	sizeof(HIP_ARRAY3D_DESCRIPTOR), offsetof(HIP_ARRAY3D_DESCRIPTOR, Format), \
	offsetof(HIP_ARRAY3D_DESCRIPTOR, NumChannels), offsetof(HIP_ARRAY3D_DESCRIPTOR, Flags), \
	hipMemLocationTypeDevice, hipMemAccessFlagsProtNone, hipMemAttachGlobal, \
	hipMallocSignalMemory, hipMemAdviseSetPreferredLocation, hipMemAdviseSetAccessedBy

#endif
