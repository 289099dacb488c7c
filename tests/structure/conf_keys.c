/* SPDX-License-Identifier: BSD-3-Clause
 * Prints the config loader's key table (gw_config_key_info), one row a line,
 * tab-separated: section, key, required (0 or 1), default ("-" for none), the
 * row's one-line description. tests/structure/check_config_doc.py compares it
 * with docs/config.md.
 */
#include <stdio.h>

#include "gw_config.h"

int
main(void)
{
	struct gw_conf_key_info k;
	unsigned i;

	for (i = 0; gw_config_key_info(i, &k); i++)
		printf("%s\t%s\t%d\t%s\t%s\n", k.section, k.key, k.required ? 1 : 0,
		       k.def != NULL ? k.def : "-", k.doc);
	return i > 0 ? 0 : 1;
}
