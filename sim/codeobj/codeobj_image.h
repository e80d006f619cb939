/* SPDX-License-Identifier: MIT */
/*
 * codeobj_image.h - a code object as ROCr's loader places it in GPU memory:
 * its PT_LOAD segments (text, rodata, data, bss) at base + p_vaddr, the file
 * bytes copied and the rest of each segment zeroed, then the dynamic
 * relocations applied, so that device variables (__device__, __constant__)
 * and the pointers between them hold load addresses.
 *
 * lld writes AMDGPU code objects as position-independent shared objects: code
 * reaches data PC-relatively (s_getpc_b64 plus a link-time offset), so only
 * data words are relocated, in .rela.dyn: R_AMDGPU_RELATIVE64 (base + addend)
 * for a pointer to something in the object, R_AMDGPU_ABS64/ABS32(_LO/_HI)
 * (symbol + addend) for one to a named symbol. A relocation of another type,
 * one against an undefined symbol, or one outside the image refuses the
 * load, as ROCr's loader does. Variables are found by name in the dynamic
 * symbol table (.dynsym, or .symtab when stripped of it).
 * Included by codeobj.c only (static helpers). Never logs.
 */
#ifndef HIPSVM_SIM_CODEOBJ_IMAGE_H
#define HIPSVM_SIM_CODEOBJ_IMAGE_H

#include "codeobj.h"
#include "codeobj_code.h"
#include "codeobj_read.h"

#include <errno.h>

#define PT_LOAD_ 1
#define SHT_RELA_ 4
#define IMG_MAX ((uint64_t)1 << 32)	/* the largest span placed */

enum {
	R_AMDGPU_NONE_ = 0,
	R_AMDGPU_ABS32_LO_ = 1,
	R_AMDGPU_ABS32_HI_ = 2,
	R_AMDGPU_ABS64_ = 3,
	R_AMDGPU_ABS32_ = 6,
	R_AMDGPU_RELATIVE64_ = 13,
};

struct img_hdr {
	uint64_t phoff, shoff;
	uint16_t phentsize, phnum, shentsize, shnum;
};

static inline bool img_hdr(const struct buf *b, struct img_hdr *h)
{
	if (!rd64(b, 32, &h->phoff) || !rd64(b, 40, &h->shoff) || !rd(b, 54, &h->phentsize, 2) ||
	    !rd(b, 56, &h->phnum, 2) || !rd(b, 58, &h->shentsize, 2) || !rd(b, 60, &h->shnum, 2))
		return false;
	h->phentsize = le16toh(h->phentsize);
	h->phnum = le16toh(h->phnum);
	h->shentsize = le16toh(h->shentsize);
	h->shnum = le16toh(h->shnum);
	return (!h->phnum || h->phentsize >= 56) && (!h->shnum || h->shentsize >= 64);
}

struct img_seg {
	uint64_t off, vaddr, filesz, memsz;
};

static inline bool img_seg(const struct buf *b, const struct img_hdr *h, uint64_t i,
			   struct img_seg *s, bool *load)
{
	uint64_t e = h->phoff + i * h->phentsize;
	uint32_t type;

	if (!rd32(b, e, &type) || !rd64(b, e + 8, &s->off) || !rd64(b, e + 16, &s->vaddr) ||
	    !rd64(b, e + 32, &s->filesz) || !rd64(b, e + 40, &s->memsz))
		return false;
	*load = type == PT_LOAD_;
	if (!*load)
		return true;
	return s->filesz <= s->memsz && s->off <= b->size && s->filesz <= b->size - s->off &&
	       s->vaddr <= IMG_MAX && s->memsz <= IMG_MAX - s->vaddr;
}

/* Bytes from address 0 to the end of the last PT_LOAD segment; 0: none, or
 * a malformed header. */
static inline uint64_t img_span(const struct buf *b)
{
	struct img_hdr h;
	uint64_t end = 0;

	if (!img_hdr(b, &h))
		return 0;
	for (uint64_t i = 0; i < h.phnum; i++) {
		struct img_seg s;
		bool load;

		if (!img_seg(b, &h, i, &s, &load))
			return 0;
		if (load && s.vaddr + s.memsz > end)
			end = s.vaddr + s.memsz;
	}
	return end;
}

/* One ELF64 symbol; img_sym reads entry i, false when out of range. */
struct img_sym {
	uint32_t name;
	uint8_t info;
	uint16_t shndx;
	uint64_t value, size;
};

static inline bool img_sym(const struct buf *syms, uint64_t i, struct img_sym *s)
{
	uint64_t off = i * 24;

	memset(s, 0, sizeof(*s));
	if (i > syms->size / 24 || off + 24 > syms->size)
		return false;
	rd32(syms, off, &s->name);
	rd(syms, off + 4, &s->info, 1);
	rd(syms, off + 6, &s->shndx, 2);
	s->shndx = le16toh(s->shndx);
	rd64(syms, off + 8, &s->value);
	rd64(syms, off + 16, &s->size);
	return true;
}

/* The symbol table (with its string table) of the given type. */
static inline bool img_symtab(const struct buf *b, const struct img_hdr *h, uint32_t type,
			      struct buf *syms, struct buf *strtab)
{
	for (uint64_t i = 0; i < h->shnum; i++) {
		struct sec s, strs;

		if (read_sec(b, h->shoff, h->shentsize, i, &s) && s.type == type &&
		    nth(b, h->shoff, h->shentsize, h->shnum, s.link, &strs) &&
		    sub(b, s.off, s.size, syms) && sub(b, strs.off, strs.size, strtab))
			return true;
	}
	return false;
}

static inline void img_put(uint8_t *dst, uint64_t off, uint64_t v, unsigned n)
{
	v = htole64(v);
	memcpy(dst + off, &v, n);
}

/*
 * Writes the image for a load at `base` into dst (img_span bytes, which the
 * caller zeroed): 0, -EINVAL for a malformed ELF or a relocation outside the
 * image, -ENOTSUP for a relocation the loader does not know or an undefined
 * symbol.
 */
static inline int img_write(const struct buf *b, uint8_t *dst, uint64_t span, uint64_t base)
{
	struct img_hdr h;

	if (!img_hdr(b, &h))
		return -EINVAL;
	for (uint64_t i = 0; i < h.phnum; i++) {
		struct img_seg s;
		bool load;

		if (!img_seg(b, &h, i, &s, &load))
			return -EINVAL;
		if (load && s.filesz)
			memcpy(dst + s.vaddr, b->p + s.off, s.filesz);
	}
	for (uint64_t i = 0; i < h.shnum; i++) {
		struct sec r, symsec, strs;
		struct buf rel, syms = { NULL, 0 };

		if (!read_sec(b, h.shoff, h.shentsize, i, &r) || r.type != SHT_RELA_ ||
		    !(r.flags & 2 /* SHF_ALLOC: the dynamic ones */))
			continue;
		if (!sub(b, r.off, r.size, &rel))
			return -EINVAL;
		if (nth(b, h.shoff, h.shentsize, h.shnum, r.link, &symsec) &&
		    nth(b, h.shoff, h.shentsize, h.shnum, symsec.link, &strs))
			sub(b, symsec.off, symsec.size, &syms);
		for (uint64_t off = 0; off + 24 <= rel.size; off += 24) {
			uint64_t where = 0, info = 0, addend = 0, sval = 0;
			uint32_t type, symi;
			struct img_sym sym = { 0 };

			rd64(&rel, off, &where);
			rd64(&rel, off + 8, &info);
			rd64(&rel, off + 16, &addend);
			type = (uint32_t)info;
			symi = (uint32_t)(info >> 32);
			if (type == R_AMDGPU_NONE_)
				continue;
			if (where > span || span - where < (type == R_AMDGPU_ABS64_ ||
							    type == R_AMDGPU_RELATIVE64_ ? 8 : 4))
				return -EINVAL;
			if (type != R_AMDGPU_RELATIVE64_ && symi) {
				if (!img_sym(&syms, symi, &sym))
					return -EINVAL;
				if (sym.shndx == 0)
					return -ENOTSUP;	/* undefined: nothing to bind to */
				sval = base + sym.value;
			}
			switch (type) {
			case R_AMDGPU_RELATIVE64_: img_put(dst, where, base + addend, 8); break;
			case R_AMDGPU_ABS64_: img_put(dst, where, sval + addend, 8); break;
			case R_AMDGPU_ABS32_:
			case R_AMDGPU_ABS32_LO_: img_put(dst, where, (uint32_t)(sval + addend), 4); break;
			case R_AMDGPU_ABS32_HI_: img_put(dst, where, (sval + addend) >> 32, 4); break;
			default: return -ENOTSUP;
			}
		}
	}
	return 0;
}

/* A data symbol (STT_OBJECT, defined) by name: its address in the image and
 * its size. */
static inline bool img_find(const struct buf *b, const char *name, uint64_t *addr, uint64_t *size)
{
	struct img_hdr h;
	struct buf syms, strtab;

	if (!img_hdr(b, &h))
		return false;
	if (!img_symtab(b, &h, SHT_DYNSYM_, &syms, &strtab) &&
	    !img_symtab(b, &h, SHT_SYMTAB_, &syms, &strtab))
		return false;
	for (uint64_t i = 1; i < syms.size / 24; i++) {
		struct img_sym s = { 0 };

		if (img_sym(&syms, i, &s) && (s.info & 15) == 1 /* STT_OBJECT */ && s.shndx &&
		    name_is(&strtab, s.name, name, "")) {
			*addr = s.value;
			*size = s.size;
			return true;
		}
	}
	return false;
}

#endif
