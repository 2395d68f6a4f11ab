#include <string.h>

#include "checkers/checker.h"

/* The only place a checker kind is added. */
const struct checker_type *const checker_types[] = {
	NULL,
};

const struct checker_type *checker_type_find(const char *name)
{
	for (int i = 0; checker_types[i]; i++)
		if (!strcmp(checker_types[i]->name, name))
			return checker_types[i];
	return NULL;
}
