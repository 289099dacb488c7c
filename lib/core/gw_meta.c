/* SPDX-License-Identifier: BSD-3-Clause */
#include "gw_meta.h"

int gw_meta_offset = -1;

int
gw_meta_register(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "hipgw_meta",
		.size = sizeof(struct gw_meta),
		.align = __alignof__(struct gw_meta),
	};
	if (gw_meta_offset >= 0)
		return 0;
	gw_meta_offset = rte_mbuf_dynfield_register(&desc);
	return gw_meta_offset < 0 ? -1 : 0;
}
