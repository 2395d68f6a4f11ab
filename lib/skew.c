/*
 * Live clock skew (lib/skew.h). The vDSO tichaos itself runs with is the
 * kernel's, the same image in every process of this machine: its
 * symbols are read here (getauxval(AT_SYSINFO_EHDR), its dynamic symbol
 * table, as the Go runtime finds them: runtime/vdso_elf64.go), and a
 * process's own is compared with it byte for byte before anything is
 * written, which also refuses a process whose clock is moved already.
 */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "buf.h"
#include "clock.h"
#include "log.h"
#include "proc.h"
#include "skew.h"
#include "trace.h"

/* The entries moved, in struct skew's order, and what they jump to. */
static const char *const entry_names[SKEW_ENTRIES] = {
	"__vdso_clock_gettime", "__vdso_gettimeofday", "__vdso_time",
};

static uint64_t code_offset(const void *sym)
{
	return (uint64_t)((const char *)sym - __start_tichaos_skew);
}

static uint64_t entry_target(const struct skew *s, size_t i)
{
	const void *fn[SKEW_ENTRIES] = {
		(const void *)tichaos_skew_clock_gettime,
		(const void *)tichaos_skew_gettimeofday,
		(const void *)tichaos_skew_time,
	};

	return s->map + code_offset(fn[i]);
}

/* Our vDSO: its image, and what its dynamic section says. */
struct vdso {
	const unsigned char *image;
	size_t len;		/* of its PT_LOAD */
	uint64_t vaddr;		/* the PT_LOAD's, what symbols count from */
	const Elf64_Sym *syms;
	size_t nsyms;
	const char *strs;
};

static const void *vdso_at(const struct vdso *v, uint64_t vaddr)
{
	return vaddr >= v->vaddr && vaddr - v->vaddr < v->len
	       ? v->image + (vaddr - v->vaddr) : NULL;
}

static int vdso_ours(struct vdso *v, struct err *e)
{
	const Elf64_Ehdr *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Phdr *ph;
	const Elf64_Dyn *dyn = NULL;
	const uint32_t *hash = NULL;

	memset(v, 0, sizeof(*v));
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return err_set(e, ERR_USAGE, "this machine gives processes no "
			       "64-bit vDSO: a live skew has nothing to move");
	v->image = (const unsigned char *)eh;
	ph = (const void *)(v->image + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && !v->len) {
			v->vaddr = ph[i].p_vaddr;
			v->len = ph[i].p_memsz;
		}
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = vdso_at(v, ph[i].p_vaddr);
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_SYMTAB)
			v->syms = vdso_at(v, dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_STRTAB)
			v->strs = vdso_at(v, dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_HASH)
			hash = vdso_at(v, dyn->d_un.d_ptr);
	}
	if (!v->syms || !v->strs || !hash)
		return err_set(e, ERR_USAGE, "the vDSO has no symbol table "
			       "tichaos can read (DT_SYMTAB, DT_STRTAB, "
			       "DT_HASH)");
	v->nsyms = hash[1];	/* nchain: one per symbol */
	return 0;
}

/* Function `name` of the vDSO: its offset in the image and size. */
static int vdso_sym(const struct vdso *v, const char *name, uint64_t *off,
		    uint64_t *size, struct err *e)
{
	for (size_t i = 0; i < v->nsyms; i++) {
		const Elf64_Sym *sym = &v->syms[i];

		if (ELF64_ST_TYPE(sym->st_info) != STT_FUNC ||
		    sym->st_shndx == SHN_UNDEF ||
		    strcmp(v->strs + sym->st_name, name))
			continue;
		if (sym->st_value < v->vaddr ||
		    sym->st_value - v->vaddr + sym->st_size > v->len)
			break;
		*off = sym->st_value - v->vaddr;
		*size = sym->st_size;
		if (*size < SKEW_PATCH_LEN)
			return err_set(e, ERR_USAGE, "the vDSO's %s is %llu "
				       "bytes, too short to be moved", name,
				       (unsigned long long)*size);
		return 0;
	}
	return err_set(e, ERR_USAGE, "the vDSO has no %s", name);
}

/* Where process `pid` has its vDSO ("[vdso]" in /proc/PID/maps). */
static int vdso_base(pid_t pid, uint64_t *base, struct err *e)
{
	char path[64];
	struct buf maps = BUF_INIT;
	const char *line;
	int rc = -1;

	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)pid);
	if (buf_read_file(&maps, path, e))
		return -1;
	line = strstr(buf_str(&maps), " [vdso]\n");
	if (!line)
		err_set(e, ERR_INFRA, "pid %ld has no vDSO", (long)pid);
	else {
		while (line > buf_str(&maps) && line[-1] != '\n')
			line--;
		*base = strtoull(line, NULL, 16);
		rc = 0;
	}
	buf_release(&maps);
	return rc;
}

/* The jump written at entry `i`. */
static void jump_of(const struct skew *s, size_t i,
		    unsigned char out[SKEW_PATCH_LEN])
{
	uint64_t to = entry_target(s, i);

	out[0] = 0x48;		/* movabs $to, %rax */
	out[1] = 0xb8;
	memcpy(out + 2, &to, 8);
	out[10] = 0xff;		/* jmp *%rax */
	out[11] = 0xe0;
}

/*
 * Fill s->entries, s->syscall and s->clock_gettime from the vDSO of the
 * traced process, after checking it is the same as ours.
 */
static int locate(const struct trace *t, struct skew *s, struct err *e)
{
	struct vdso v;
	unsigned char *theirs = NULL;
	uint64_t base, off = 0, size = 0;
	int rc = -1;

	if (vdso_ours(&v, e) || vdso_base(t->pid, &base, e))
		return -1;
	theirs = xmalloc(v.len);
	if (trace_read(t, base, theirs, v.len, e))
		goto out;
	if (memcmp(theirs, v.image, v.len)) {
		err_set(e, ERR_INFRA, "the vDSO of pid %ld is not as the kernel "
			"made it (its clock moved already, or a debugger's "
			"breakpoints in it): not moved", (long)t->pid);
		goto out;
	}
	for (size_t i = 0; i < SKEW_ENTRIES; i++) {
		if (vdso_sym(&v, entry_names[i], &off, &size, e))
			goto out;
		s->entries[i].addr = base + off;
		s->entries[i].size = size;
		memcpy(s->entries[i].orig, v.image + off, SKEW_PATCH_LEN);
	}
	s->clock_gettime = s->entries[0].addr;
	for (size_t i = 0; i + 1 < v.len && !s->syscall; i++)
		if (v.image[i] == 0x0f && v.image[i + 1] == 0x05)
			s->syscall = base + i;
	if (!s->syscall)
		err_set(e, ERR_USAGE, "the vDSO holds no syscall instruction "
			"to map code with");
	else
		rc = 0;
out:
	free(theirs);
	return rc;
}

static int call_in(struct trace *t, const struct skew *s, long nr,
		   long a0, long a1, long a2, long a3, long a4, long a5,
		   long *ret, struct err *e)
{
	const long args[6] = { a0, a1, a2, a3, a4, a5 };

	if (trace_syscall(t, s->syscall, nr, args, ret, e))
		return -1;
	if (*ret < 0 && *ret > -4096)
		return err_errno(e, (int)-*ret, "system call %ld in pid %ld "
				 "failed", nr, (long)t->pid);
	return 0;
}

/* The two pages mapped, the code copied, its variables set. */
static int map_code(struct trace *t, struct skew *s, int64_t offset_ns,
		    double rate, struct err *e)
{
	size_t len = (size_t)(__stop_tichaos_skew - __start_tichaos_skew);
	struct skew_vars *vars;
	char *code;
	long ret;
	int rc;

	if (len > s->page)
		return err_set(e, ERR_INFRA, "the skew's code is %zu bytes, "
			       "more than a page", len);
	if (call_in(t, s, SYS_mmap, 0, (long)(2 * s->page),
		    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0,
		    &ret, e))
		return -1;
	s->map = (uint64_t)ret;
	code = xmalloc(len);
	memcpy(code, __start_tichaos_skew, len);
	vars = (struct skew_vars *)(code + code_offset(&tichaos_skew_vars));
	vars->offset_ns = offset_ns;
	vars->rate_ppm = (int64_t)(rate * 1000000 + 0.5);	/* rate > 0 */
	vars->t0_ns = clock_wall_ms() * NS_PER_MS;
	rc = trace_write(t, s->map, code, len, e) ||
	     call_in(t, s, SYS_mprotect, (long)s->map, (long)s->page,
		     PROT_READ | PROT_EXEC, 0, 0, 0, &ret, e);
	free(code);
	return rc ? -1 : 0;
}

static int unmap_code(struct trace *t, struct skew *s, struct err *e)
{
	long ret;

	if (!s->map)
		return 0;
	if (call_in(t, s, SYS_munmap, (long)s->map, (long)(2 * s->page), 0, 0,
		    0, 0, &ret, e))
		return -1;
	s->map = 0;
	return 0;
}

/* Every thread out of the entries, and out of the code when `code`. */
static int step_out(struct trace *t, const struct skew *s, int code,
		    struct err *e)
{
	uint64_t lo[SKEW_ENTRIES + 1], hi[SKEW_ENTRIES + 1];
	size_t n = 0;

	for (size_t i = 0; i < SKEW_ENTRIES; i++, n++) {
		lo[n] = s->entries[i].addr;
		hi[n] = s->entries[i].addr + s->entries[i].size;
	}
	if (code) {
		lo[n] = s->map;
		hi[n++] = s->map + s->page;
	}
	return trace_step_out(t, lo, hi, n, e);
}

/* Its clock_gettime(CLOCK_REALTIME), called in it, into `r`. */
static int read_in(struct trace *t, const struct skew *s,
		   struct skew_reading *r, struct err *e)
{
	uint64_t stack = s->map + s->page;
	const long args[6] = { 0, (long)stack, 0, 0, 0, 0 };
	struct timespec ts;
	long ret;

	if (trace_call(t, s->clock_gettime, s->map + 2 * s->page - 64,
		       s->map + code_offset(tichaos_skew_trap), args, &ret,
		       &r->before_ns, &r->after_ns, e) ||
	    trace_read(t, stack, &ts, sizeof(ts), e))
		return -1;
	if (ret)
		return err_set(e, ERR_INFRA, "clock_gettime in pid %ld "
			       "returned %ld", (long)t->pid, ret);
	r->theirs_ns = (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
	return 0;
}

/* SKEW_DIR/<pid>'s path into `path` (made with `make`). */
static int record_path(const struct skew *s, int make, char *path,
		       size_t size, struct err *e)
{
	char dir[PATH_MAX];

	if (proc_state_dir(SKEW_DIR, make, dir, sizeof(dir), e))
		return -1;
	snprintf(path, size, "%s/%ld", dir, (long)s->pid);
	return 0;
}

/*
 * SKEW_DIR/<pid>: "<start> <runner> <runner start> <map> <page>
 * <syscall> <clock_gettime> <name>", then per entry "<addr> <size>
 * <orig, hex>".
 */
static int record(const struct skew *s, const char *name, struct err *e)
{
	char path[PATH_MAX + 16];
	struct buf text = BUF_INIT;
	int rc;

	if (record_path(s, 1, path, sizeof(path), e))
		return -1;
	buf_printf(&text, NULL, "%lld %ld %lld %llu %llu %llu %llu %s\n",
		   s->start, (long)getpid(), proc_start_time(getpid()),
		   (unsigned long long)s->map, (unsigned long long)s->page,
		   (unsigned long long)s->syscall,
		   (unsigned long long)s->clock_gettime, name);
	for (size_t i = 0; i < SKEW_ENTRIES; i++) {
		buf_printf(&text, NULL, "%llu %llu ",
			   (unsigned long long)s->entries[i].addr,
			   (unsigned long long)s->entries[i].size);
		for (size_t k = 0; k < SKEW_PATCH_LEN; k++)
			buf_printf(&text, NULL, "%02x", s->entries[i].orig[k]);
		buf_addch(&text, '\n', NULL);
	}
	rc = buf_write_file(&text, path, 0644, e);
	buf_release(&text);
	return rc;
}

static void forget(const struct skew *s)
{
	char path[PATH_MAX + 16];

	if (!record_path(s, 0, path, sizeof(path), NULL))
		unlink(path);
}

/* Write the original bytes back at the first `n` entries. */
static int restore(struct trace *t, const struct skew *s, size_t n,
		   struct err *e)
{
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		if (trace_write(t, s->entries[i].addr, s->entries[i].orig,
				SKEW_PATCH_LEN, e))
			rc = -1;
	return rc;
}

int skew_allowed(pid_t pid, struct err *e)
{
	struct trace t = TRACE_INIT;

	if (trace_attach(&t, pid, e))
		return -1;
	trace_detach(&t);
	return 0;
}

int skew_apply(struct skew *s, pid_t pid, const char *name,
	       int64_t offset_ns, double rate, struct skew_reading *r,
	       struct err *e)
{
	struct trace t = TRACE_INIT;
	unsigned char jump[SKEW_PATCH_LEN];
	size_t patched = 0;
	int recorded = 0, rc = -1;

	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->page = (uint64_t)sysconf(_SC_PAGESIZE);
	s->start = proc_start_time(pid);
	if (s->start < 0)
		return err_set(e, ERR_INFRA, "pid %ld is gone", (long)pid);
	if (trace_attach(&t, pid, e))
		return -1;
	if (locate(&t, s, e) || map_code(&t, s, offset_ns, rate, e) ||
	    record(s, name, e))
		goto out;
	recorded = 1;
	if (step_out(&t, s, 0, e))
		goto out;
	for (; patched < SKEW_ENTRIES; patched++) {
		jump_of(s, patched, jump);
		if (trace_write(&t, s->entries[patched].addr, jump,
				SKEW_PATCH_LEN, e))
			goto out;
	}
	rc = read_in(&t, s, r, e);
out:
	if (rc) {
		/* What was changed, changed back; the process as it was. */
		restore(&t, s, patched, NULL);
		unmap_code(&t, s, NULL);
		if (recorded)
			forget(s);
	}
	trace_detach(&t);
	return rc;
}

/*
 * Attach to the process of `s` if it is still the one: 1 when gone (a
 * zombie too: it runs nothing more, and cannot be traced).
 */
static int attach_again(struct trace *t, const struct skew *s,
			struct err *e)
{
	struct err why = ERR_INIT;

	if (proc_start_time(s->pid) != s->start || !proc_alive(s->pid))
		return 1;
	if (!trace_attach(t, s->pid, &why))
		return 0;
	if (proc_start_time(s->pid) != s->start || !proc_alive(s->pid))
		return 1;
	*e = why;
	return -1;
}

int skew_read(const struct skew *s, struct skew_reading *r, struct err *e)
{
	struct trace t = TRACE_INIT;
	int rc = attach_again(&t, s, e);

	if (rc > 0)
		return err_set(e, ERR_INFRA, "pid %ld is gone", (long)s->pid);
	if (rc)
		return -1;
	rc = read_in(&t, s, r, e);
	trace_detach(&t);
	return rc;
}

/* attach_again for an undo: a process gone has its record removed. */
static int attach_to_undo(struct trace *t, const struct skew *s,
			  struct err *e)
{
	int rc = attach_again(t, s, e);

	if (rc > 0)
		forget(s);
	return rc;
}

int skew_restore(struct skew *s, struct skew_reading *r, struct err *e)
{
	struct trace t = TRACE_INIT;
	unsigned char jump[SKEW_PATCH_LEN], now[SKEW_PATCH_LEN];
	int rc = attach_to_undo(&t, s, e);

	if (rc)
		return rc;
	for (size_t i = 0; i < SKEW_ENTRIES && !rc; i++) {
		jump_of(s, i, jump);
		if (trace_read(&t, s->entries[i].addr, now, sizeof(now), e))
			rc = -1;
		else if (memcmp(now, jump, sizeof(now)) &&
			 memcmp(now, s->entries[i].orig, sizeof(now)))
			rc = err_set(e, ERR_INFRA, "the vDSO of pid %ld was "
				     "changed by another than tichaos: left "
				     "as it is", (long)s->pid);
	}
	/* The code stays mapped: a thread in it goes on there, and back. */
	if (!rc)
		rc = step_out(&t, s, 0, e) || restore(&t, s, SKEW_ENTRIES, e) ||
		     (r && read_in(&t, s, r, e));
	trace_detach(&t);
	return rc ? -1 : 0;
}

int skew_release(struct skew *s, struct err *e)
{
	struct trace t = TRACE_INIT;
	int rc = attach_to_undo(&t, s, e);

	if (rc)
		return rc;
	rc = step_out(&t, s, 1, e) || unmap_code(&t, s, e);
	trace_detach(&t);
	if (!rc)
		forget(s);
	return rc ? -1 : 0;
}

int skew_undo(struct skew *s, struct skew_reading *r, struct err *e)
{
	int rc = skew_restore(s, r, e);

	return rc ? rc : skew_release(s, e);
}

/* The record at `path` into `s`, with its runner's pid and start. */
static int load(const char *path, struct skew *s, long *runner,
		long long *runner_start, char *name, size_t name_size)
{
	struct buf text = BUF_INIT;
	unsigned long long v[5];
	const char *p;
	int used, rc = -1;
	long long start;
	long pid;

	memset(s, 0, sizeof(*s));
	if (buf_read_file(&text, path, NULL))
		return -1;
	p = strrchr(path, '/');
	pid = strtol(p ? p + 1 : path, NULL, 10);
	if (sscanf(buf_str(&text), "%lld %ld %lld %llu %llu %llu %llu %n",
		   &start, runner, runner_start, &v[0], &v[1], &v[2], &v[3],
		   &used) != 7 || pid <= 0)
		goto out;
	s->pid = (pid_t)pid;
	s->start = start;
	s->map = v[0];
	s->page = v[1];
	s->syscall = v[2];
	s->clock_gettime = v[3];
	p = buf_str(&text) + used;
	snprintf(name, name_size, "%.*s", (int)strcspn(p, "\n"), p);
	for (size_t i = 0; i < SKEW_ENTRIES; i++) {
		p = strchr(p, '\n');
		if (!p || sscanf(p + 1, "%llu %llu %n", &v[0], &v[1],
				 &used) != 2)
			goto out;
		s->entries[i].addr = v[0];
		s->entries[i].size = v[1];
		p += 1 + used;
		for (size_t k = 0; k < SKEW_PATCH_LEN; k++) {
			unsigned int byte;

			if (sscanf(p + 2 * k, "%2x", &byte) != 1)
				goto out;
			s->entries[i].orig[k] = (unsigned char)byte;
		}
	}
	rc = 0;
out:
	buf_release(&text);
	return rc;
}

static int sweep_one(const char *path, void *arg)
{
	char name[128];
	struct err why = ERR_INIT;
	long long runner_start;
	struct skew s;
	long runner;

	(void)arg;
	if (load(path, &s, &runner, &runner_start, name, sizeof(name))) {
		log_warn("removing '%s': not a record of a skew", path);
		unlink(path);
		return 0;
	}
	if (!proc_runner_gone(runner, runner_start))
		return 0;
	switch (skew_undo(&s, NULL, &why)) {
	case 0:
		log_warn("%s: its clock put back, which an earlier run left "
			 "moved (pid %ld; its runner, pid %ld, is gone)", name,
			 (long)s.pid, runner);
		break;
	case 1:
		break;
	default:
		log_warn("%s: cannot put back the clock an earlier run left "
			 "moved (pid %ld): %s", name, (long)s.pid, why.msg);
	}
	return 0;
}

int skew_sweep(struct err *e)
{
	return proc_state_each(SKEW_DIR, sweep_one, NULL, e);
}
