/* SPDX-License-Identifier: MIT */
/* route.c - not written yet. */
typedef int hipsvm_route_placeholder;
