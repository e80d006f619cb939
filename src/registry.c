/* SPDX-License-Identifier: MIT */
/* registry.c - not written yet. */
typedef int hipsvm_registry_placeholder;
