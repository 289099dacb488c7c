/* SPDX-License-Identifier: BSD-3-Clause
 * EtherIP (RFC 3378) header in front of an Ethernet frame, and its check
 * after ESP decryption (gw_etherip.h).
 */
#include <stddef.h>
#include "gw_etherip.h"

static uint16_t
be16_at(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

void
gw_etherip_hdr_put(uint8_t hdr[GW_ETHERIP_HDR_BYTES])
{
	const uint16_t h = GW_ETHERIP_VERSION << GW_ETHERIP_VERSION_SHIFT;

	hdr[0] = (uint8_t)(h >> 8);
	hdr[1] = (uint8_t)h;
}

int
gw_etherip_encap(uint8_t *buf, uint32_t headroom, uint32_t frame_len, uint32_t *payload_len)
{
	if (headroom < GW_ETHERIP_HDR_BYTES || frame_len < GW_ETH_HDR_BYTES)
		return -1;
	gw_etherip_hdr_put(buf + headroom - GW_ETHERIP_HDR_BYTES);
	*payload_len = frame_len + GW_ETHERIP_HDR_BYTES;
	return (int)(headroom - GW_ETHERIP_HDR_BYTES);
}

static int
is_vlan_tpid(uint16_t type)
{
	return type == GW_ETHERTYPE_VLAN || type == GW_ETHERTYPE_QINQ;
}

enum gw_drop
gw_etherip_parse(const uint8_t *p, uint32_t len, struct gw_etherip_frame *f)
{
	uint32_t l2 = GW_ETH_HDR_BYTES;
	uint8_t tags = 0;
	uint16_t h;

	if (len < GW_ETHERIP_HDR_BYTES)
		return GW_DROP_L2_RUNT;
	h = be16_at(p);
	if (h >> GW_ETHERIP_VERSION_SHIFT != GW_ETHERIP_VERSION)
		return GW_DROP_ETHERIP_VERSION;
	if ((h & GW_ETHERIP_RESERVED_MASK) != 0)
		return GW_DROP_ETHERIP_RESERVED;
	p += GW_ETHERIP_HDR_BYTES;
	len -= GW_ETHERIP_HDR_BYTES;
	/* each tag pushes the EtherType 4 bytes on; read it only once it is in */
	for (;;) {
		if (len < l2)
			return GW_DROP_L2_RUNT;
		if (tags == GW_ETH_MAX_VLAN_TAGS ||
		    !is_vlan_tpid(be16_at(p + l2 - GW_ETH_HDR_BYTES + GW_ETH_TYPE_OFF)))
			break;
		tags++;
		l2 += GW_VLAN_TAG_BYTES;
	}
	f->off = GW_ETHERIP_HDR_BYTES;
	f->len = len;
	f->l2_len = l2;
	f->vlan_tags = tags;
	return GW_DROP_NONE;
}
