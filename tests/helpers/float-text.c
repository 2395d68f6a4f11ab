/*
 * float-text COLUMN: print the SQL expression the consistency check
 * reads a FLOAT or DOUBLE column by (tabledef_float_text), so that
 * t0500 can run it on a real MariaDB and compare what it gives with
 * what a real TiDB wrote (tests/data/tidb-float-text.tsv).
 */
#include <stdio.h>

#include "checkers/tablediff.h"
#include "lib/buf.h"

int main(int argc, char **argv)
{
	struct buf x = BUF_INIT;

	if (argc != 2) {
		fprintf(stderr, "usage: float-text COLUMN\n");
		return 2;
	}
	tabledef_float_text(&x, argv[1]);
	puts(buf_str(&x));
	buf_release(&x);
	return 0;
}
