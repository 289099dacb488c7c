/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer harness for lib/core/gw_etherip.c: the input is a decrypted ESP
 * payload with next header 97 (EtherIP, RFC 3378, then an Ethernet frame).
 * gw_etherip_parse runs on an exact-size heap copy (a read past it is an
 * ASan report) twice with the same verdict, and its verdict and frame are
 * checked against the header bytes and a separate walk of the VLAN tags; an
 * accepted payload must come back byte for byte from gw_etherip_encap of the
 * frame it found.
 */
#include "fuzz_common.h"
#include "gw_etherip.h"

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The Ethernet header length with its tags that the payload must hold. */
static uint32_t
want_l2(const uint8_t *fr, uint32_t n, unsigned *tags)
{
	uint32_t l2 = GW_ETH_HDR_BYTES;

	*tags = 0;
	while (*tags < GW_ETH_MAX_VLAN_TAGS && n >= l2) {
		uint16_t t = be16(fr + l2 - 2);

		if (t != GW_ETHERTYPE_VLAN && t != GW_ETHERTYPE_QINQ)
			break;
		++*tags;
		l2 += GW_VLAN_TAG_BYTES;
	}
	return l2;
}

static void
check_accepted(const uint8_t *p, uint32_t len, const struct gw_etherip_frame *f)
{
	uint8_t *buf;
	uint32_t plen = 0;
	int off;

	if (f->off != GW_ETHERIP_HDR_BYTES || f->len != len - GW_ETHERIP_HDR_BYTES ||
	    f->l2_len != GW_ETH_HDR_BYTES + f->vlan_tags * GW_VLAN_TAG_BYTES ||
	    f->vlan_tags > GW_ETH_MAX_VLAN_TAGS || f->l2_len > f->len)
		FUZZ_FAIL("frame off %u len %u l2 %u tags %u of %u bytes", f->off, f->len,
			  f->l2_len, f->vlan_tags, len);
	/* the frame again behind a fresh header: the same bytes */
	buf = malloc(f->len + GW_ETHERIP_HDR_BYTES);
	if (buf == NULL)
		abort();
	memcpy(buf + GW_ETHERIP_HDR_BYTES, p + f->off, f->len);
	off = gw_etherip_encap(buf, GW_ETHERIP_HDR_BYTES, f->len, &plen);
	if (off != 0 || plen != len || memcmp(buf, p, len) != 0)
		FUZZ_FAIL("encap of the parsed frame differs (off %d len %u)", off, plen);
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gw_etherip_frame f, g;
	enum gw_drop r, r2, want;
	uint8_t *p;
	uint32_t len, l2;
	unsigned tags;

	if (size > UINT16_MAX)
		return 0;
	len = (uint32_t)size;
	p = fuzz_copy(data, size);
	memset(&f, 0, sizeof(f));
	memset(&g, 0, sizeof(g));
	r = gw_etherip_parse(p, len, &f);
	r2 = gw_etherip_parse(p, len, &g);
	if (r != r2 || (r == GW_DROP_NONE && memcmp(&f, &g, sizeof(f)) != 0))
		FUZZ_FAIL("two parses differ: %d %d", r, r2);
	if (len < GW_ETHERIP_HDR_BYTES)
		want = GW_DROP_L2_RUNT;
	else if (p[0] >> 4 != GW_ETHERIP_VERSION)
		want = GW_DROP_ETHERIP_VERSION;
	else if ((p[0] & 0x0f) != 0 || p[1] != 0)
		want = GW_DROP_ETHERIP_RESERVED;
	else {
		l2 = want_l2(p + GW_ETHERIP_HDR_BYTES, len - GW_ETHERIP_HDR_BYTES, &tags);
		want = len - GW_ETHERIP_HDR_BYTES < l2 ? GW_DROP_L2_RUNT : GW_DROP_NONE;
		if (want == GW_DROP_NONE && (f.l2_len != l2 || f.vlan_tags != tags))
			FUZZ_FAIL("l2 %u tags %u, want %u %u", f.l2_len, f.vlan_tags, l2, tags);
	}
	if (r != want)
		FUZZ_FAIL("verdict %s, want %s", gw_drop_name(r), gw_drop_name(want));
	if (r == GW_DROP_NONE)
		check_accepted(p, len, &f);
	free(p);
	return 0;
}
