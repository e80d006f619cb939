/* SPDX-License-Identifier: MIT */
/*
 * visible.h - which simulated GPUs the program sees (visible.c).
 */
#ifndef HIPSVM_SIM_RUNTIME_VISIBLE_H
#define HIPSVM_SIM_RUNTIME_VISIBLE_H

/* Applies ROCR_VISIBLE_DEVICES, then HIP_VISIBLE_DEVICES (or
 * CUDA_VISIBLE_DEVICES) to nphys GPUs: fills phys[] and returns the count. */
unsigned sim_visible_devices(unsigned nphys, int *phys);
/* The 16 characters of a physical GPU's uuid (not NUL-terminated). */
void sim_uuid_of(int phys, char out[16]);

#endif
