/*
 * The topology loader (clusters/topology.c, lib/ynode.c): the input is a
 * topology file, as given with --cluster.
 *
 * A topology that loads is written back (topology_write, what `cluster
 * up` does) and must load back to the same text.
 */
#include <stdio.h>
#include <string.h>

#include "clusters/cluster.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "tests/fuzz/fuzz.h"

static void load(struct cluster *c, const char *path, struct err *e,
		 int *rc)
{
	memset(c, 0, sizeof(*c));
	c->type = cluster_type_find("static");
	if (!c->type)
		fuzz_fail("no static cluster kind");
	*rc = topology_read(c, path, e);
}

int fuzz_topology(const uint8_t *data, size_t size)
{
	struct cluster c, again;
	struct buf first = BUF_INIT, second = BUF_INIT;
	struct err e = ERR_INIT;
	char out[4300];
	int rc;

	load(&c, fuzz_file("topology.yaml", data, size), &e, &rc);
	if (rc) {
		cluster_close(&c);
		return 0;
	}
	snprintf(out, sizeof(out), "%s/written.yaml", fuzz_dir());
	if (topology_write(&c, out, &e) || buf_read_file(&first, out, &e))
		fuzz_fail("topology_write: %s", e.msg);
	load(&again, out, &e, &rc);
	if (rc)
		fuzz_fail("the written topology does not load: %s\n%s", e.msg,
			  buf_str(&first));
	if (topology_write(&again, out, &e) ||
	    buf_read_file(&second, out, &e))
		fuzz_fail("topology_write: %s", e.msg);
	if (strcmp(buf_str(&first), buf_str(&second)))
		fuzz_fail("the written topology loads back different:\n%s\n"
			  "---\n%s", buf_str(&first), buf_str(&second));
	cluster_close(&again);
	cluster_close(&c);
	buf_release(&first);
	buf_release(&second);
	return 0;
}

#ifdef LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_topology(data, size);
}
#endif
