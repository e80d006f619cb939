/* SPDX-License-Identifier: MIT */
/*
 * elfinfo.h - what hipsvm check needs to know about one ELF file.
 */
#ifndef HIPSVM_TOOLS_ELFINFO_H
#define HIPSVM_TOOLS_ELFINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The functions the shim hooks (preload/), in the order they are shown. */
enum hooked {
	H_HIPMALLOC, H_HIPFREE, H_HIPMALLOCMANAGED, H_HIPHOSTMALLOC, H_HIPHOSTFREE,
	H_HIPMALLOCHOST, H_HIPHOSTALLOC, H_HIPEXTMALLOCWITHFLAGS, H_HIPMALLOCPITCH,
	H_HIPMALLOCASYNC, H_HIPFREEASYNC, H_HIPHOSTREGISTER, H_HIPHOSTUNREGISTER,
	H_HIPGETPROCADDRESS,
	H_FIRST_LIBC,
	H_MUNMAP = H_FIRST_LIBC, H_MREMAP, H_MADVISE, H_MMAP,
	H_COUNT
};
extern const char *const hooked_names[H_COUNT];

#define ELFI_MAX_NEEDED 128

struct elfinfo {
	int elf_class;		/* 32 or 64 */
	int machine;		/* e_machine */
	int type;		/* e_type */
	bool interp;		/* PT_INTERP: started by the dynamic loader */
	bool dynamic;		/* PT_DYNAMIC */
	bool pie;		/* DF_1_PIE */
	char interp_path[256];
	char *needed[ELFI_MAX_NEEDED];
	size_t n_needed;
	char *rpath, *runpath, *soname;
	uint32_t imports;	/* bit per enum hooked: undefined in .dynsym */
	uint32_t defines;	/* bit per enum hooked: defined (.dynsym or .symtab) */
	size_t hip_imports;	/* undefined "hip*" symbols of any kind */
	size_t hip_defines;	/* defined "hip*" functions */
	bool imports_dlopen, imports_dlsym;
	bool stripped;		/* no .symtab */
};

/* 0, -ENOEXEC when the file is not ELF (msg says what it looks like),
 * -EINVAL for a broken ELF (msg begins "truncated" or "corrupt"), other
 * -errno from open. */
int elfinfo_read(const char *path, struct elfinfo *ei, char *msg, size_t msgcap);
void elfinfo_free(struct elfinfo *ei);

#endif
