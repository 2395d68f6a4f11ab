/* faults/registry.c's fault_holds_all: each kind's way of holding. */

#include <string.h>

#include "core/held.h"
#include "faults/fault.h"
#include "tests/unit/tap.h"

int main(void)
{
	const struct fault_holds *const *h = fault_holds_all();
	size_t n = 0, kinds = 0, bad = 0, twice = 0;

	for (size_t i = 0; fault_types[i]; i++)
		if (fault_types[i]->holds) {
			kinds++;
			ok(fault_types[i]->heal != NULL, "%s holds and heals",
			   fault_types[i]->kind.name);
		}
	for (; h[n]; n++) {
		bad += !h[n]->name[0] || !h[n]->label || !h[n]->colour ||
		       h[n]->colour[0] != '#' ||
		       !strcmp(h[n]->name, FAULT_HOLDS_OTHER);
		for (size_t j = 0; j < n; j++)
			twice += !strcmp(h[j]->name, h[n]->name) ||
				 h[j]->rank == h[n]->rank;
	}
	ok(n == kinds && n > 0, "every kind's holds, listed (%zu of %zu)",
	   n, kinds);
	ok(!bad, "each has a name (not \"other\"), a label, a colour");
	ok(!twice, "no name or rank twice");
	is_str(h[0]->name, "down", "in the registry's order: kill first");
	ok(fault_holds_all() == h, "the same list every time");
	return done_testing();
}
