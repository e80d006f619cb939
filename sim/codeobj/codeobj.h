/* SPDX-License-Identifier: MIT */
/*
 * codeobj.h - kernel argument layout from the AMDGPU code objects of a HIP program.
 *
 * The simulated runtime does not execute kernels. A launch instead touches the
 * memory that the kernel's global-buffer arguments point to, so the runtime has to
 * know, per kernel, which of the user arguments of hipLaunchKernel() are buffers.
 * That is written by the compiler into each code object's NT_AMDGPU_METADATA note
 * (MessagePack, "amdhsa.kernels"); this module reads it.
 *
 * Input layout, as produced by Debian's hipcc (ROCm 5.2, clang-15) and checked on
 * real binaries (see docs/ and tests/hip/):
 *   __hipRegisterFatBinary(wrapper): wrapper in .hipFatBinSegment is
 *     { u32 magic 0x48495046 "HIPF", u32 version 1, const void *binary, void *unused }
 *   binary, in .hip_fatbin, is a clang offload bundle:
 *     "__CLANG_OFFLOAD_BUNDLE__" (24 bytes), u64 entry count, then per entry
 *     u64 offset (from the bundle start), u64 size, u64 triple length, triple
 *     (not NUL-terminated), e.g. "host-x86_64-unknown-linux" (size 0) and
 *     "hipv4-amdgcn-amd-amdhsa--gfx90a" (an ELF64, e_machine EM_AMDGPU = 224).
 *
 * Every length and offset in the input is bounds-checked: the parser is fuzzed.
 * Functions return 0 or -errno and leave *out untouched on failure:
 *   -EINVAL   malformed input
 *   -ENOENT   well-formed, but no amdgcn code object for the target / no
 *             metadata note in it
 *   -ENOTSUP  a compressed ("CCOB") bundle, which clang-15 never writes
 *   -ENOMEM
 * Nothing here logs.
 */
#ifndef HIPSVM_SIM_CODEOBJ_H
#define HIPSVM_SIM_CODEOBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HIPSVM_KERNEL_MAX_ARGS 64

/* One user argument of a kernel (hidden_* arguments are never listed). */
struct hipsvm_karg {
	uint32_t offset;	/* in the kernarg segment */
	uint32_t size;
	bool global_buffer;	/* .value_kind "global_buffer": a pointer to touch */
	/*
	 * .access/.actual_access "read_only" or .is_const. clang-15 writes this for
	 * HIP only on `const T *__restrict__` arguments (and only when optimising):
	 * a plain `const T *` carries no qualifier in the metadata. When the metadata
	 * says nothing, the mangled kernel name is consulted (PK... parameters).
	 */
	bool read_only;
};

struct hipsvm_kernel_info {
	char name[256];		/* .name, the mangled name given to __hipRegisterFunction
				 * (truncated if longer; hipsvm_codeobj_find compares
				 * the full name) */
	unsigned nargs;		/* user arguments, in order (at most 64: any
				 * further ones are dropped) */
	struct hipsvm_karg args[HIPSVM_KERNEL_MAX_ARGS];
	uint32_t kernarg_size;	/* .kernarg_segment_size, hidden arguments included */
	/* .max_flat_workgroup_size (__launch_bounds__; clang writes 1024 for
	 * a HIP kernel without it); 0: not in the metadata */
	uint32_t max_flat_wg;
	/*
	 * The machine code, when the ELF has the "<name>.kd" symbol and the
	 * entry it names lies in an executable section (codeobj_code.c):
	 * kd is the 64-byte kernel descriptor, code points at the entry inside
	 * the code object's own copy of the ELF (valid until
	 * hipsvm_codeobj_free), code_size runs to the end of the kernel's
	 * function symbol (or of its section when there is none).
	 */
	bool has_code;
	uint8_t kd[64];
	const uint8_t *code;
	size_t code_size;
	uint64_t code_vaddr;
	/* the whole executable section holding the entry: the functions the
	 * kernel calls are there too */
	const uint8_t *text;
	size_t text_size;
	uint64_t text_vaddr;
	/* hidden arguments the kernel uses, by kind (bit per HIPSVM_HIDDEN_*) */
	uint32_t hidden_mask;
	uint32_t hidden_off[8];
	/* the code object it belongs to, and its index there */
	const struct hipsvm_codeobj *co;
	unsigned index;
	/* which bytes code and text point to: a number no other copy or
	 * placement of code in this process had (hipsvm_codeobj_generation),
	 * so that a cache can key a kernel by it rather than by its bytes; 0:
	 * not known (compare the bytes) */
	uint64_t gen;
};

/* .value_kind of the hidden arguments the interpreter fills in */
enum {
	HIPSVM_HIDDEN_GLOBAL_OFFSET_X,
	HIPSVM_HIDDEN_GLOBAL_OFFSET_Y,
	HIPSVM_HIDDEN_GLOBAL_OFFSET_Z,
	HIPSVM_HIDDEN_HOSTCALL,
	HIPSVM_HIDDEN_MULTIGRID,
	HIPSVM_HIDDEN_OTHER,
};

struct hipsvm_codeobj;

/*
 * From the pointer that __hipRegisterFatBinary() receives. target is the
 * device's target ID ("gfx90a:sramecc+:xnack+", codeobj_target.h): the first
 * code object compatible with it is read, -ENOENT when none is. NULL takes
 * the first amdgcn code object, whatever its processor (tools, the fuzzer).
 */
int hipsvm_codeobj_load(const void *fatbin_wrapper, const char *target,
			struct hipsvm_codeobj **out);

/* From a raw clang offload bundle or a raw ELF code object of `size` bytes. */
int hipsvm_codeobj_load_blob(const void *data, size_t size, const char *target,
			     struct hipsvm_codeobj **out);

/* The target ID of the code object read ("gfx90a:xnack-"; "" unknown). */
const char *hipsvm_codeobj_target(const struct hipsvm_codeobj *co);

/* Does a code object built for target ID code_object run on a device of
 * target ID device? Either may carry the "amdgcn-amd-amdhsa--" prefix. */
bool hipsvm_target_compatible(const char *code_object, const char *device);

/* By .name (mangled) or by .symbol ("<name>.kd"); NULL when absent. */
const struct hipsvm_kernel_info *hipsvm_codeobj_find(const struct hipsvm_codeobj *co,
						     const char *name);

/*
 * The loaded image (codeobj_image.h): its size in bytes (from address 0 to
 * the end of the last PT_LOAD segment; 0 when there is none), and its bytes
 * for a load at `base`, written into dst (image_size bytes, zeroed by the
 * caller): segments copied, dynamic relocations applied. 0, -EINVAL
 * (malformed), -ENOTSUP (a relocation the loader does not know).
 */
uint64_t hipsvm_codeobj_image_size(const struct hipsvm_codeobj *co);
int hipsvm_codeobj_image_write(const struct hipsvm_codeobj *co, void *dst, uint64_t base);

/* A device variable by name: its offset in the image and size; -ENOENT. */
int hipsvm_codeobj_symbol(const struct hipsvm_codeobj *co, const char *name, uint64_t *addr,
			  uint64_t *size);

/* Number of kernels and the i-th one (NULL when out of range). */
unsigned hipsvm_codeobj_count(const struct hipsvm_codeobj *co);
/* A fresh generation (never 0) for a new copy of code: the code object's
 * own at load, and each image a loader writes. A fork child goes on
 * counting from its parent's count. */
uint64_t hipsvm_codeobj_generation(void);
const struct hipsvm_kernel_info *hipsvm_codeobj_kernel(const struct hipsvm_codeobj *co,
						       unsigned i);

void hipsvm_codeobj_free(struct hipsvm_codeobj *co);

#endif /* HIPSVM_SIM_CODEOBJ_H */
