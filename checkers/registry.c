#include "checkers/checker.h"

extern const struct checker_type checker_bank;
extern const struct checker_type checker_consistency;
extern const struct checker_type checker_ids;
extern const struct checker_type checker_logscan;
extern const struct checker_type checker_progress;
extern const struct checker_type checker_syncpoint;

/* The only place a checker kind is added. */
const struct checker_type *const checker_types[] = {
	&checker_bank,
	&checker_consistency,
	&checker_ids,
	&checker_logscan,
	&checker_progress,
	&checker_syncpoint,
	NULL,
};

const struct kind *checker_kind(size_t i)
{
	for (size_t n = 0; checker_types[n]; n++)
		if (n == i)
			return &checker_types[n]->kind;
	return NULL;
}
