/* SPDX-License-Identifier: BSD-3-Clause
 * Ethernet / IPv4 / UDP around a DHCP message (RFC 2131 4.1, RFC 768, RFC 791).
 */
#include <string.h>

#include "dhcp_frame.h"
#include "dhcp_wire.h"

#define UDP_PSEUDO_LEN 12    /* bytes: source, destination, zero, protocol, length */

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/* RFC 1071 one's-complement sum of n bytes, big-endian words, unfolded */
static uint32_t
sum_bytes(uint32_t s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += get16(p + i);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t
fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* Sum of the UDP pseudo-header and the datagram (udp_len bytes at udp) */
static uint16_t
udp_sum(uint32_t src, uint32_t dst, const uint8_t *udp, size_t udp_len)
{
	uint8_t ph[UDP_PSEUDO_LEN];

	put32(ph, src);
	put32(ph + 4, dst);
	ph[8] = 0;
	ph[9] = GW_IPPROTO_UDP;
	put16(ph + 10, (uint16_t)udp_len);
	return fold(sum_bytes(sum_bytes(0, ph, sizeof(ph)), udp, udp_len));
}

size_t
dhcp_frame_build(uint8_t *buf, size_t cap, const uint8_t src_mac[DHCP_ETH_ADDR_LEN],
		 const uint8_t *dst_mac, uint32_t src_ip, uint32_t dst_ip,
		 const uint8_t *msg, size_t len)
{
	uint8_t *ip = buf + GW_ETH_HDR_BYTES, *udp = ip + GW_IPV4_HDR_LEN;
	uint16_t ck;

	if (buf == NULL || msg == NULL || len > DHCP_MSG_MAX_LEN || cap < DHCP_FRAME_HDR_LEN + len)
		return 0;
	if (dst_mac != NULL)
		memcpy(buf, dst_mac, DHCP_ETH_ADDR_LEN);
	else
		memset(buf, 0xff, DHCP_ETH_ADDR_LEN);
	memcpy(buf + DHCP_ETH_ADDR_LEN, src_mac, DHCP_ETH_ADDR_LEN);
	put16(buf + GW_ETH_TYPE_OFF, DHCP_ETHERTYPE_IPV4);
	memset(ip, 0, GW_IPV4_HDR_LEN);
	ip[0] = GW_IPV4_VER_IHL;
	put16(ip + 2, (uint16_t)(GW_IPV4_HDR_LEN + DHCP_UDP_HDR_LEN + len));
	ip[8] = GW_IP_DEFAULT_TTL;
	ip[9] = GW_IPPROTO_UDP;
	put32(ip + 12, src_ip);
	put32(ip + 16, dst_ip);
	put16(ip + 10, (uint16_t)~fold(sum_bytes(0, ip, GW_IPV4_HDR_LEN)));
	put16(udp, DHCP_PORT_CLIENT);
	put16(udp + 2, DHCP_PORT_SERVER);
	put16(udp + 4, (uint16_t)(DHCP_UDP_HDR_LEN + len));
	put16(udp + 6, 0);
	memcpy(udp + DHCP_UDP_HDR_LEN, msg, len);
	ck = (uint16_t)~udp_sum(src_ip, dst_ip, udp, DHCP_UDP_HDR_LEN + len);
	put16(udp + 6, ck == 0 ? 0xffff : ck);  /* RFC 768: 0 means "none" */
	return DHCP_FRAME_HDR_LEN + len;
}

int
dhcp_frame_parse(const uint8_t *frame, size_t len, struct dhcp_frame_in *in)
{
	const uint8_t *ip, *udp;
	size_t ihl, tot, ulen;

	if (frame == NULL || len < DHCP_FRAME_HDR_LEN ||
	    get16(frame + GW_ETH_TYPE_OFF) != DHCP_ETHERTYPE_IPV4)
		return -1;
	ip = frame + GW_ETH_HDR_BYTES;
	ihl = (size_t)(ip[0] & GW_IPV4_IHL_MASK) * 4;
	tot = get16(ip + 2);
	if ((ip[0] >> 4) != 4 || ihl < GW_IPV4_HDR_LEN || tot < ihl + DHCP_UDP_HDR_LEN ||
	    tot > len - GW_ETH_HDR_BYTES || ip[9] != GW_IPPROTO_UDP)
		return -1;
	if ((get16(ip + 6) & (GW_IPV4_MF | GW_IPV4_OFFSET_MASK)) != 0 ||
	    fold(sum_bytes(0, ip, ihl)) != 0xffff)
		return -1;
	udp = ip + ihl;
	ulen = get16(udp + 4);
	if (get16(udp) != DHCP_PORT_SERVER || get16(udp + 2) != DHCP_PORT_CLIENT ||
	    ulen < DHCP_UDP_HDR_LEN || ulen > tot - ihl)
		return -1;
	in->src_ip = get32(ip + 12);
	in->dst_ip = get32(ip + 16);
	if (get16(udp + 6) != 0 && udp_sum(in->src_ip, in->dst_ip, udp, ulen) != 0xffff)
		return -1;
	memcpy(in->src_mac, frame + DHCP_ETH_ADDR_LEN, DHCP_ETH_ADDR_LEN);
	in->msg = udp + DHCP_UDP_HDR_LEN;
	in->len = ulen - DHCP_UDP_HDR_LEN;
	return 0;
}
