/* srcloc.c: function address -> source file and line through libdw (see srcloc.h), and which
 * functions were compiled into sections of their own. Owns the Dwarf handle and the file
 * descriptor under it. Workload: a few dozen lookups per command, each walking the top-level
 * DIEs of one compilation unit; one pass over every unit's address ranges for the sections. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ramplace/srcloc.h"
#include "ramplace/util.h"

struct rp_dwarf {
	int fd;
	Dwarf *dbg;
	char *path;
};

int rp_dwarf_open(rp_dwarf **out, const char *path, rp_err *err)
{
	*out = NULL;
	rp_dwarf *dw = calloc(1, sizeof(*dw));
	if (!dw)
		return rp_err_nomem(err, "opening the debug information");
	dw->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (dw->fd < 0) {
		free(dw);
		return rp_err_set(err, RP_EINPUT, "%s: cannot open: %m", path);
	}
	dw->dbg = dwarf_begin(dw->fd, DWARF_C_READ);
	if (!dw->dbg || rp_strdup(&dw->path, path, err)) {
		int rc = dw->dbg ? err->code
				 : rp_err_set(err, RP_EINPUT, "%s: no DWARF debug information (build with -g): %s",
					      path, dwarf_errmsg(-1));
		rp_dwarf_close(dw);
		return rc;
	}
	*out = dw;
	return 0;
}

void rp_dwarf_close(rp_dwarf *dw)
{
	if (!dw)
		return;
	if (dw->dbg)
		dwarf_end(dw->dbg);
	if (dw->fd >= 0)
		close(dw->fd);
	free(dw->path);
	free(dw);
}

/* name made absolute against the CU's DW_AT_comp_dir, and through realpath when it exists. */
static int absolute_path(char **out, const char *name, Dwarf_Die *cu, rp_err *err)
{
	char joined[PATH_MAX], real[PATH_MAX];
	Dwarf_Attribute attr;
	const char *dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
	if (name[0] != '/' && dir)
		snprintf(joined, sizeof(joined), "%s/%s", dir, name);
	else
		snprintf(joined, sizeof(joined), "%s", name);
	return rp_strdup(out, realpath(joined, real) ? real : joined, err);
}

/* The subprogram among cu's children whose ranges hold addr. */
static int find_subprogram(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *found)
{
	Dwarf_Die child;
	if (dwarf_child(cu, &child) != 0)
		return 0;
	do {
		if (dwarf_tag(&child) == DW_TAG_subprogram && dwarf_haspc(&child, addr) > 0) {
			*found = child;
			return 1;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

int rp_dwarf_locate(rp_dwarf *dw, uint64_t addr, rp_srcloc *loc, rp_err *err)
{
	Dwarf_Die cu, sub;
	memset(loc, 0, sizeof(*loc));
	if (!dwarf_addrdie(dw->dbg, (Dwarf_Addr)addr, &cu) || !find_subprogram(&cu, addr, &sub))
		return 1;
	const char *name = dwarf_diename(&sub);   /* follows DW_AT_abstract_origin */
	const char *cu_name = dwarf_diename(&cu);
	const char *decl = dwarf_decl_file(&sub);
	if (!name || !cu_name)
		return 1;
	if (rp_strdup(&loc->name, name, err) || absolute_path(&loc->cu_file, cu_name, &cu, err) ||
	    (decl && absolute_path(&loc->decl_file, decl, &cu, err))) {
		rp_srcloc_release(loc);
		return err->code;
	}
	if (decl && dwarf_decl_line(&sub, &loc->decl_line) != 0)
		loc->decl_line = 0;
	return 0;
}

void rp_srcloc_release(rp_srcloc *loc)
{
	free(loc->name);
	free(loc->cu_file);
	free(loc->decl_file);
	memset(loc, 0, sizeof(*loc));
}

/* -ffunction-sections as a whole word of the producer string ("-fno-function-sections" and a
 * later override both count: the last one GCC recorded wins). */
static int producer_function_sections(const char *producer)
{
	int own = -1;
	for (const char *p = producer; (p = strstr(p, "function-sections")) != NULL; p++) {
		if (p >= producer + 5 && strncmp(p - 5, "-fno-", 5) == 0)
			own = 0;
		else if (p >= producer + 2 && strncmp(p - 2, "-f", 2) == 0)
			own = 1;
	}
	return own;
}

/* The first function at or after addr (img->funcs is sorted by address). */
static size_t first_func_at(const rp_image *img, uint64_t addr)
{
	return RP_COUNT_BELOW(img->funcs, img->nfuncs, addr, addr);
}

static void mark_cu(unsigned char *own, const rp_image *img, Dwarf_Die *cu, unsigned char value)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(cu, off, &base, &start, &end)) > 0) {
		if (start <= 1)
			continue;   /* a function --gc-sections dropped: its range resolves to 0 */
		for (size_t i = first_func_at(img, start); i < img->nfuncs && img->funcs[i].addr < end; i++)
			own[i] = value;
	}
}

int rp_dwarf_func_sections(unsigned char *own, const rp_image *img, rp_dwarf *dw, rp_err *err)
{
	(void)err;
	memset(own, RP_FUNCSEC_NONE, img->nfuncs);
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dw->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(dw->dbg, off + hsize, &cu)) {
			Dwarf_Attribute attr;
			const char *producer = dwarf_formstring(dwarf_attr(&cu, DW_AT_producer, &attr));
			int fs = producer ? producer_function_sections(producer) : -1;
			/* a compiler that recorded its switches but not this one compiled without it; an
			 * assembler's unit ("GNU AS") or -gno-record-gcc-switches proves nothing */
			if (fs >= 0)
				mark_cu(own, img, &cu, fs ? RP_FUNCSEC_OWN : RP_FUNCSEC_SHARED);
			else if (producer && strncmp(producer, "GNU C", 5) == 0 && strstr(producer, " -"))
				mark_cu(own, img, &cu, RP_FUNCSEC_SHARED);
			else
				mark_cu(own, img, &cu, RP_FUNCSEC_UNKNOWN);
		}
		off = next;
	}
	return 0;
}
