/* SPDX-License-Identifier: MIT */
/*
 * device.h - a device's properties (device.c) and primary context (ctx.c).
 */
#ifndef HIPSVM_SIM_API_DEVICE_H
#define HIPSVM_SIM_API_DEVICE_H

#include <hip/hip_runtime_api.h>

void sim_fill_props(int dev, hipDeviceProp_t *p);
int sim_pci_bus(int dev);	/* the PCI bus number of a visible device */
/* ctx.c: a device's primary context handle */
hipCtx_t sim_ctx_of(int dev);

#endif
