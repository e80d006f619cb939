/* SPDX-License-Identifier: MIT */
/* unmap_args.c - see unmap_args.h. Where several checks fail, the kernel's
 * first decides its errno; the wrappers hand a refused call to the real
 * function, so only whether any check fails matters here. Where a kernel
 * version may go ahead (MAP_SHARED_VALIDATE), the call is not refused. */
#include "shim/unmap_args.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/mman.h>

static bool page_aligned(const struct hipsvm_vm_limits *l, uintptr_t v)
{
	return (v & (l->page - 1)) == 0;
}

/* len rounded up to a page; 0 when that wraps (as PAGE_ALIGN does). */
static uintptr_t page_up(const struct hipsvm_vm_limits *l, size_t len)
{
	return ((uintptr_t)len + l->page - 1) & ~(l->page - 1);
}

int hipsvm_munmap_refusal(const struct hipsvm_vm_limits *l, uintptr_t addr, size_t len)
{
	if (!page_aligned(l, addr) || addr > l->top || len > l->top - addr)
		return -EINVAL;
	if (page_up(l, len) == 0)
		return -EINVAL;
	return 0;
}

int hipsvm_mmap_refusal(const struct hipsvm_vm_limits *l, uintptr_t addr, size_t len, int flags,
			off_t off)
{
	uintptr_t alen;
	int type = flags & MAP_TYPE;

	/* the system call wrapper checks the offset, then the mapping type */
	if (off & (off_t)(l->page - 1))
		return -EINVAL;
	if (type != MAP_SHARED && type != MAP_PRIVATE && type != MAP_SHARED_VALIDATE)
		return -EINVAL;
	if (len == 0)
		return -EINVAL;
	alen = page_up(l, len);
	if (alen == 0)
		return -ENOMEM;
	if ((uint64_t)off / l->page + alen / l->page < (uint64_t)off / l->page)
		return -EOVERFLOW;
	if (alen > l->top || addr > l->top - alen)
		return -ENOMEM;
	if (!page_aligned(l, addr))
		return -EINVAL;
	return 0;
}

int hipsvm_mremap_refusal(const struct hipsvm_vm_limits *l, uintptr_t old, size_t old_len,
			  size_t new_len, int flags, uintptr_t new_addr)
{
	uintptr_t olen, nlen;

	if (flags & ~(MREMAP_FIXED | MREMAP_MAYMOVE | MREMAP_DONTUNMAP))
		return -EINVAL;
	if ((flags & MREMAP_FIXED) && !(flags & MREMAP_MAYMOVE))
		return -EINVAL;
	if ((flags & MREMAP_DONTUNMAP) && (!(flags & MREMAP_MAYMOVE) || old_len != new_len))
		return -EINVAL;
	if (!page_aligned(l, old))
		return -EINVAL;
	olen = page_up(l, old_len);
	nlen = page_up(l, new_len);
	if (nlen == 0)
		return -EINVAL;
	if (flags & MREMAP_FIXED) {
		if (!page_aligned(l, new_addr))
			return -EINVAL;
		if (nlen > l->top || new_addr > l->top - nlen)
			return -EINVAL;
		/* the two ranges [old, old + olen) and [new, new + nlen) must
		 * not overlap */
		if (old + olen > new_addr && new_addr + nlen > old)
			return -EINVAL;
	} else if (nlen > olen && nlen > l->top - old) {
		/* grows past the end of the address space: no room in place,
		 * and no free area that large to move to */
		return -ENOMEM;
	}
	return 0;
}

int hipsvm_madvise_refusal(const struct hipsvm_vm_limits *l, uintptr_t addr, size_t len)
{
	uintptr_t alen;

	if (!page_aligned(l, addr))
		return -EINVAL;
	alen = page_up(l, len);
	if (len && !alen)
		return -EINVAL;
	if (addr + alen < addr)
		return -EINVAL;
	return 0;
}
