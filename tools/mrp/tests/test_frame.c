// SPDX-License-Identifier: GPL-2.0
/*
 * Frame builder / parser tests.  Built with ASan: the parser must never
 * read outside the buffer it is given, whatever the bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "mrp_frame.h"
#include "tap.h"

static const uint8_t PORT_MAC[6] = { 0x02, 0, 0, 0, 0x01, 0x01 };
static const uint8_t BR_MAC[6] = { 0x02, 0, 0, 0, 0x01, 0x00 };
static const uint8_t OTHER[6] = { 0x02, 0, 0, 0, 0x02, 0x00 };

static struct mrp_tx tx(void)
{
	struct mrp_tx t;

	memset(&t, 0, sizeof(t));
	memcpy(t.src, PORT_MAC, 6);
	memcpy(t.sa, BR_MAC, 6);
	t.prio = 0x8000;
	t.seq = 0x1234;
	return t;
}

/* Parse a copy in a buffer of exactly len bytes (ASan catches overreads) */
static enum mrp_parse_err parse_exact(const uint8_t *b, size_t len,
				      struct mrp_pdu *p)
{
	uint8_t *c = malloc(len ? len : 1);
	enum mrp_parse_err e;

	memcpy(c, b, len);
	e = mrp_parse(c, len, p);
	free(c);
	return e;
}

static void topo_roundtrip(void)
{
	uint8_t b[MRP_MAX_FRAME];
	struct mrp_tx t = tx();
	struct mrp_pdu p;
	size_t n = mrp_build_topo(b, sizeof(b), &t, 30);

	CHECK_EQ(n, MRP_MIN_FRAME);
	CHECK(!memcmp(b, mrp_dmac_control, 6), "dmac");
	CHECK(!memcmp(b + 6, PORT_MAC, 6), "smac");
	CHECK(b[12] == 0x88 && b[13] == 0xe3, "ethertype");
	CHECK_EQ(parse_exact(b, n, &p), MRP_PARSE_OK);
	CHECK_EQ(p.type, MRP_TLV_TOPO);
	CHECK_EQ(p.prio, 0x8000);
	CHECK(!memcmp(p.sa, BR_MAC, 6), "sa");
	CHECK_EQ(p.interval, 30);
	CHECK(p.has_common && p.seq == 0x1234, "common");
	CHECK(!memcmp(p.domain, mrp_domain_default, 16), "domain");
	/* the buffer must be big enough */
	CHECK_EQ(mrp_build_topo(b, 40, &t, 30), 0);
}

static void link_roundtrip(void)
{
	uint8_t b[MRP_MAX_FRAME];
	struct mrp_tx t = tx();
	struct mrp_pdu p;
	size_t n;

	n = mrp_build_link(b, sizeof(b), &t, false, 1, 20, 1);
	CHECK_EQ(parse_exact(b, n, &p), MRP_PARSE_OK);
	CHECK_EQ(p.type, MRP_TLV_LINK_DOWN);
	CHECK_EQ(p.port_role, 1);
	CHECK_EQ(p.interval, 20);
	CHECK_EQ(p.blocked, 1);
	CHECK(p.has_common && p.seq == 0x1234, "common after padding");
	/* padding: Common TLV starts 4-byte aligned after MRP_Version */
	CHECK_EQ(b[14 + 2 + 2 + 12 + 2], MRP_TLV_COMMON);
	n = mrp_build_link(b, sizeof(b), &t, true, 0, 0, 0);
	CHECK_EQ(parse_exact(b, n, &p), MRP_PARSE_OK);
	CHECK_EQ(p.type, MRP_TLV_LINK_UP);
	CHECK_EQ(p.blocked, 0);
}

static void link_without_padding_accepted(void)
{
	uint8_t b[MRP_MAX_FRAME];
	struct mrp_tx t = tx();
	struct mrp_pdu p;
	size_t n = mrp_build_link(b, sizeof(b), &t, true, 1, 4, 1);

	/* drop the 2 padding bytes, as some implementations do */
	memmove(b + 30, b + 32, n - 32);
	CHECK_EQ(parse_exact(b, n - 2, &p), MRP_PARSE_OK);
	CHECK(p.has_common && p.seq == 0x1234, "common");
}

static void test_roundtrip(void)
{
	uint8_t b[MRP_MAX_FRAME];
	struct mrp_tx t = tx();
	struct mrp_pdu p;
	size_t n = mrp_build_test(b, sizeof(b), &t, 1, 1, 7, 0xdeadbeef, true);

	CHECK(!memcmp(b, mrp_dmac_test, 6), "dmac");
	CHECK_EQ(parse_exact(b, n, &p), MRP_PARSE_OK);
	CHECK_EQ(p.type, MRP_TLV_TEST);
	CHECK_EQ(p.port_role, 1);
	CHECK_EQ(p.ring_state, 1);
	CHECK_EQ(p.transitions, 7);
	CHECK_EQ(p.timestamp, 0xdeadbeef);
	CHECK(p.auto_mgr, "auto mgr option");
	n = mrp_build_test(b, sizeof(b), &t, 0, 0, 0, 0, false);
	CHECK_EQ(parse_exact(b, n, &p), MRP_PARSE_OK);
	CHECK(!p.auto_mgr, "no option");
}

/* Byte-for-byte what br_mrp_alloc_test_skb() sends for an MRA */
static void kernel_test_frame(void)
{
	uint8_t b[80] = {
		0x01, 0x15, 0x4e, 0x00, 0x00, 0x01,	/* dst */
		0x02, 0x00, 0x00, 0x00, 0x01, 0x01,	/* src */
		0x88, 0xe3, 0x00, 0x01,			/* type, version */
		0x02, 18, 0xa0, 0x00,			/* Test, prio */
		0x02, 0x00, 0x00, 0x00, 0x01, 0x00,	/* sa */
		0x00, 0x01, 0x00, 0x01, 0x00, 0x03,	/* role state trans */
		0x00, 0x00, 0x10, 0x00,			/* timestamp */
		0x01, 18, 0x00, 0x05,			/* Common, seq */
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x7f, 10, 0, 0, 0, 0, 0, 0, 0x03, 0x00, 0, 0, /* Option */
		0x00, 0x00,				/* End */
	};
	struct mrp_pdu p;

	CHECK_EQ(parse_exact(b, 72, &p), MRP_PARSE_OK);
	CHECK_EQ(p.prio, 0xa000);
	CHECK_EQ(p.transitions, 3);
	CHECK_EQ(p.seq, 5);
	CHECK(p.auto_mgr, "AUTO_MGR");
	CHECK_EQ(p.oui, 0);
}

static void in_test_roundtrip(void)
{
	uint8_t b[MRP_MAX_FRAME];
	struct mrp_tx t = tx();
	struct mrp_pdu p;
	size_t n = mrp_build_in_test(b, sizeof(b), &t, 0x0102, 2, 1, 9,
				     0xcafef00d);

	CHECK_EQ(n, MRP_MIN_FRAME);
	CHECK(!memcmp(b, mrp_dmac_in_test, 6), "dmac");
	CHECK(!memcmp(b + 6, PORT_MAC, 6), "smac");
	CHECK(b[16] == MRP_TLV_IN_TEST && b[17] == MRP_IN_TEST_LEN,
	      "TLV %#x len %u", b[16], b[17]);
	CHECK_EQ(parse_exact(b, n, &p), MRP_PARSE_OK);
	CHECK_EQ(p.type, MRP_TLV_IN_TEST);
	CHECK_EQ(p.in_id, 0x0102);
	CHECK(!memcmp(p.sa, BR_MAC, 6), "sa");
	CHECK_EQ(p.port_role, 2);
	CHECK_EQ(p.in_state, 1);
	CHECK_EQ(p.transitions, 9);
	CHECK_EQ(p.timestamp, 0xcafef00d);
	CHECK(p.has_common && p.seq == 0x1234, "common");
	/* Common TLV right after the 18 bytes: already 32-bit aligned */
	CHECK_EQ(b[16 + 2 + 18], MRP_TLV_COMMON);
	CHECK_EQ(mrp_build_in_test(b, 40, &t, 1, 0, 0, 0, 0), 0);
}

/* Byte-for-byte what br_mrp_alloc_in_test_skb() sends (port role inter) */
static void kernel_in_test_frame(void)
{
	uint8_t b[64] = {
		0x01, 0x15, 0x4e, 0x00, 0x00, 0x03,	/* dst */
		0x02, 0x00, 0x00, 0x00, 0x01, 0x01,	/* src */
		0x88, 0xe3, 0x00, 0x01,			/* type, version */
		0x06, 18, 0x00, 0x07,			/* InTest, in_id */
		0x02, 0x00, 0x00, 0x00, 0x01, 0x00,	/* sa */
		0x00, 0x02, 0x00, 0x01, 0x00, 0x04,	/* role state trans */
		0x00, 0x01, 0x02, 0x03,			/* timestamp */
		0x01, 18, 0x00, 0x09,			/* Common, seq */
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x00, 0x00,				/* End */
	};
	uint8_t o[MRP_MAX_FRAME];
	struct mrp_tx t = tx();
	struct mrp_pdu p;
	size_t n;

	CHECK_EQ(parse_exact(b, 60, &p), MRP_PARSE_OK);
	CHECK_EQ(p.type, MRP_TLV_IN_TEST);
	CHECK_EQ(p.in_id, 7);
	CHECK(!memcmp(p.sa, BR_MAC, 6), "sa");
	CHECK_EQ(p.port_role, 2);
	CHECK_EQ(p.in_state, 1);
	CHECK_EQ(p.transitions, 4);
	CHECK_EQ(p.timestamp, 0x00010203);
	CHECK_EQ(p.seq, 9);
	/* and ours is the same frame */
	t.seq = 9;
	n = mrp_build_in_test(o, sizeof(o), &t, 7, 2, 1, 4, 0x00010203);
	CHECK(n == 60 && !memcmp(o, b, 60), "builder differs from kernel");
}

static void in_topo_roundtrip(void)
{
	uint8_t b[MRP_MAX_FRAME];
	struct mrp_tx t = tx();
	struct mrp_pdu p;
	size_t n = mrp_build_in_topo(b, sizeof(b), &t, 0x0a0b, 60);

	CHECK_EQ(n, MRP_MIN_FRAME);
	CHECK(!memcmp(b, mrp_dmac_in_control, 6), "dmac");
	CHECK(b[16] == MRP_TLV_IN_TOPO && b[17] == MRP_IN_TOPO_LEN,
	      "TLV %#x len %u", b[16], b[17]);
	/* MRP_SA, then MRP_InID, then MRP_Interval */
	CHECK(!memcmp(b + 18, BR_MAC, 6), "sa first");
	CHECK(b[24] == 0x0a && b[25] == 0x0b, "in_id");
	CHECK(b[26] == 0 && b[27] == 60, "interval");
	CHECK_EQ(parse_exact(b, n, &p), MRP_PARSE_OK);
	CHECK_EQ(p.type, MRP_TLV_IN_TOPO);
	CHECK(!memcmp(p.sa, BR_MAC, 6), "sa");
	CHECK_EQ(p.in_id, 0x0a0b);
	CHECK_EQ(p.interval, 60);
	CHECK(p.has_common && p.seq == 0x1234, "common");
	CHECK_EQ(mrp_build_in_topo(b, 40, &t, 1, 0), 0);
}

static void in_link_roundtrip(void)
{
	uint8_t b[MRP_MAX_FRAME], c[MRP_MAX_FRAME];
	struct mrp_tx t = tx();
	struct mrp_pdu p;
	size_t n;

	n = mrp_build_in_link(b, sizeof(b), &t, false, 3, 2, 80);
	CHECK(!memcmp(b, mrp_dmac_in_control, 6), "dmac");
	CHECK(b[16] == MRP_TLV_IN_LINK_DOWN && b[17] == MRP_IN_LINK_LEN,
	      "TLV %#x len %u", b[16], b[17]);
	/* MRP_SA, MRP_PortRole, MRP_InID, MRP_Interval, padding */
	CHECK(!memcmp(b + 18, BR_MAC, 6), "sa");
	CHECK(b[24] == 0 && b[25] == 2 && b[26] == 0 && b[27] == 3 &&
	      b[28] == 0 && b[29] == 80 && b[30] == 0 && b[31] == 0,
	      "fields");
	CHECK_EQ(b[32], MRP_TLV_COMMON);
	CHECK_EQ(parse_exact(b, n, &p), MRP_PARSE_OK);
	CHECK_EQ(p.type, MRP_TLV_IN_LINK_DOWN);
	CHECK(!memcmp(p.sa, BR_MAC, 6), "sa");
	CHECK_EQ(p.port_role, 2);
	CHECK_EQ(p.in_id, 3);
	CHECK_EQ(p.interval, 80);
	CHECK_EQ(p.link_info, 0);
	CHECK(p.has_common && p.seq == 0x1234, "common after padding");
	n = mrp_build_in_link(b, sizeof(b), &t, true, 0xffff, 0, 0);
	CHECK_EQ(parse_exact(b, n, &p), MRP_PARSE_OK);
	CHECK_EQ(p.type, MRP_TLV_IN_LINK_UP);
	CHECK_EQ(p.in_id, 0xffff);
	CHECK_EQ(p.interval, 0);

	/* microchip-ung/mrp: no padding, Common right after Interval */
	n = mrp_build_in_link(b, sizeof(b), &t, true, 5, 1, 20);
	memcpy(c, b, 30);
	memcpy(c + 30, b + 32, n - 32);
	CHECK_EQ(parse_exact(c, n - 2, &p), MRP_PARSE_OK);
	CHECK(p.in_id == 5 && p.interval == 20 && p.has_common &&
	      p.seq == 0x1234, "unpadded: id %u interval %u", p.in_id,
	      p.interval);
	/* a TLV of 14 with MRP_LinkInfo (Wireshark's layout) */
	memcpy(c, b, n);
	c[17] = MRP_IN_LINK_INFO_LEN;
	c[30] = 0x04;
	c[31] = 0x01;
	CHECK_EQ(parse_exact(c, n, &p), MRP_PARSE_OK);
	CHECK(p.link_info == 0x0401 && p.has_common && p.seq == 0x1234,
	      "link info %#x", p.link_info);
}

/* In* TLVs too short for their fields, or without MRP_Common */
static void in_rejects(void)
{
	uint8_t b[MRP_MAX_FRAME], c[MRP_MAX_FRAME];
	struct mrp_tx t = tx();
	struct mrp_pdu p;
	size_t n;

	n = mrp_build_in_test(b, sizeof(b), &t, 1, 0, 0, 0, 0);
	memcpy(c, b, n);
	c[17] = MRP_IN_TEST_LEN - 2;
	CHECK_EQ(parse_exact(c, n, &p), MRP_PARSE_TLV_LEN);
	memcpy(c, b, n);
	c[16 + 2 + 18] = MRP_TLV_END;
	CHECK_EQ(parse_exact(c, n, &p), MRP_PARSE_NO_COMMON);
	n = mrp_build_in_topo(b, sizeof(b), &t, 1, 0);
	memcpy(c, b, n);
	c[17] = MRP_IN_TOPO_LEN - 1;
	CHECK_EQ(parse_exact(c, n, &p), MRP_PARSE_TLV_LEN);
	n = mrp_build_in_link(b, sizeof(b), &t, true, 1, 0, 0);
	memcpy(c, b, n);
	c[17] = MRP_IN_LINK_LEN - 2;
	CHECK_EQ(parse_exact(c, n, &p), MRP_PARSE_TLV_LEN);
	memcpy(c, b, n);
	c[32] = MRP_TLV_END;
	CHECK_EQ(parse_exact(c, n, &p), MRP_PARSE_NO_COMMON);
	/* InLinkStatusPoll (LC mode) is known, not decoded */
	memcpy(c, b, n);
	c[16] = MRP_TLV_IN_LINK_STATUS;
	c[17] = 10;
	CHECK_EQ(parse_exact(c, 16 + 2 + 10 + 2 + 18 + 2, &p), MRP_PARSE_OK);
	CHECK_EQ(p.type, MRP_TLV_IN_LINK_STATUS);
	CHECK_EQ(p.in_id, 0);
}

static void option_roundtrip(void)
{
	uint8_t b[MRP_MAX_FRAME];
	struct mrp_tx t = tx();
	struct mrp_pdu p;
	size_t n;

	t.prio = 0xa000;
	n = mrp_build_option(b, sizeof(b), &t, MRP_SUB_TEST_MGR_NACK, 0xb000,
			     OTHER);
	CHECK(!memcmp(b, mrp_dmac_test, 6), "dmac");
	CHECK_EQ(parse_exact(b, n, &p), MRP_PARSE_OK);
	CHECK_EQ(p.type, MRP_TLV_OPTION);
	CHECK_EQ(p.oui, MRP_OUI_IEC);
	CHECK_EQ(p.sub_type, MRP_SUB_TEST_MGR_NACK);
	CHECK_EQ(p.prio, 0xa000);
	CHECK(!memcmp(p.sa, BR_MAC, 6), "sa");
	CHECK_EQ(p.other_prio, 0xb000);
	CHECK(!memcmp(p.other_sa, OTHER, 6), "other sa");
	CHECK(p.has_common, "common");
	n = mrp_build_option(b, sizeof(b), &t, MRP_SUB_TEST_PROPAGATE, 0x9000,
			     OTHER);
	CHECK_EQ(parse_exact(b, n, &p), MRP_PARSE_OK);
	CHECK_EQ(p.sub_type, MRP_SUB_TEST_PROPAGATE);
}

static void rejects(void)
{
	uint8_t b[MRP_MAX_FRAME], c[MRP_MAX_FRAME];
	struct mrp_tx t = tx();
	struct mrp_pdu p;
	size_t n = mrp_build_topo(b, sizeof(b), &t, 1);

	CHECK_EQ(mrp_parse(NULL, 0, &p), MRP_PARSE_SHORT);
	CHECK_EQ(parse_exact(b, 17, &p), MRP_PARSE_SHORT);
	memcpy(c, b, n);
	c[13] = 0x00;
	CHECK_EQ(parse_exact(c, n, &p), MRP_PARSE_ETHERTYPE);
	memcpy(c, b, n);
	c[15] = 2;
	CHECK_EQ(parse_exact(c, n, &p), MRP_PARSE_VERSION);
	memcpy(c, b, n);
	c[17] = 200;
	CHECK_EQ(parse_exact(c, n, &p), MRP_PARSE_TLV_LEN);
	memcpy(c, b, n);
	c[17] = 4;		/* TopologyChange too short */
	CHECK_EQ(parse_exact(c, n, &p), MRP_PARSE_TLV_LEN);
	memcpy(c, b, n);
	c[16] = 0x42;
	CHECK_EQ(parse_exact(c, n, &p), MRP_PARSE_UNKNOWN);
	memcpy(c, b, n);
	c[28] = MRP_TLV_END;	/* Common TLV replaced by End */
	CHECK_EQ(parse_exact(c, n, &p), MRP_PARSE_NO_COMMON);
	/* truncated inside the Common TLV */
	CHECK_EQ(parse_exact(b, 40, &p), MRP_PARSE_TLV_LEN);
	/* Option whose sub-TLV is longer than the option */
	n = mrp_build_option(b, sizeof(b), &t, MRP_SUB_TEST_MGR_NACK, 0, OTHER);
	memcpy(c, b, n);
	c[16 + 2 + 6 + 1] = 60;
	CHECK_EQ(parse_exact(c, n, &p), MRP_PARSE_BAD_OPTION);
	memcpy(c, b, n);
	c[16 + 2 + 6 + 1] = 4;	/* NACK sub-TLV too short */
	CHECK_EQ(parse_exact(c, n, &p), MRP_PARSE_BAD_OPTION);
	CHECK(mrp_parse_strerror(MRP_PARSE_BAD_OPTION)[0], "strerror");
}

/* Offset just past frame b's MRP_Common TLV, and past its End TLV. */
static void common_and_end(const uint8_t *b, size_t len, size_t *common,
			   size_t *end)
{
	size_t off = MRP_ETH_HLEN + 2;

	*common = *end = 0;
	while (off + 2 <= len) {
		if (b[off] == MRP_TLV_END) {
			*end = off + 2;
			return;
		}
		if (b[off] == MRP_TLV_COMMON)
			*common = off + 2 + b[off + 1];
		off += 2 + (size_t)b[off + 1];
		if ((off - MRP_ETH_HLEN - 2) % 4 == 2)
			off += 2;	/* padding after MRP_LinkChange */
	}
}

/*
 * Every prefix of every frame type: rejected while MRP_Common is cut, taken
 * once the End TLV is in (the zero padding after it may be lost).  Then
 * 20000 random mutations of each: ASan watches the reads, and the sweep
 * must reach the parser's checks (frames taken and rejected for several
 * reasons), not bounce off the first one.
 */
static void every_prefix_and_mutation(void)
{
	uint8_t frames[9][MRP_MAX_FRAME];
	size_t len[9], common, end;
	struct mrp_tx t = tx();
	struct mrp_pdu p;
	unsigned f, i, seen[MRP_PARSE_BAD_OPTION + 1] = { 0 }, kinds = 0;
	unsigned early_ok = 0, late_bad = 0;
	uint32_t rnd = 12345;

	len[0] = mrp_build_topo(frames[0], MRP_MAX_FRAME, &t, 1);
	len[1] = mrp_build_link(frames[1], MRP_MAX_FRAME, &t, true, 1, 2, 1);
	len[2] = mrp_build_test(frames[2], MRP_MAX_FRAME, &t, 0, 1, 2, 3, 1);
	len[3] = mrp_build_option(frames[3], MRP_MAX_FRAME, &t,
				  MRP_SUB_TEST_MGR_NACK, 1, OTHER);
	len[4] = mrp_build_option(frames[4], MRP_MAX_FRAME, &t,
				  MRP_SUB_TEST_PROPAGATE, 1, OTHER);
	len[5] = mrp_build_in_test(frames[5], MRP_MAX_FRAME, &t, 1, 2, 1, 3, 4);
	len[6] = mrp_build_in_topo(frames[6], MRP_MAX_FRAME, &t, 1, 60);
	len[7] = mrp_build_in_link(frames[7], MRP_MAX_FRAME, &t, false, 1, 2,
				   80);
	len[8] = mrp_build_in_link(frames[8], MRP_MAX_FRAME, &t, true, 1, 0,
				   80);
	for (f = 0; f < 9; f++) {
		common_and_end(frames[f], len[f], &common, &end);
		CHECK(common && end > common && end <= len[f],
		      "frame %u: Common ends at %zu, End at %zu", f, common,
		      end);
		for (i = 0; i <= len[f]; i++) {
			enum mrp_parse_err e = parse_exact(frames[f], i, &p);

			if (i < common && e == MRP_PARSE_OK)
				early_ok++;
			if (i >= end && e != MRP_PARSE_OK)
				late_bad++;
		}
		for (i = 0; i < 20000; i++) {
			uint8_t c[MRP_MAX_FRAME];
			enum mrp_parse_err e;
			unsigned k, flips;

			memcpy(c, frames[f], len[f]);
			rnd = rnd * 1103515245u + 12345u;
			flips = 1 + (rnd >> 16) % 4;
			for (k = 0; k < flips; k++) {
				rnd = rnd * 1103515245u + 12345u;
				c[14 + (rnd >> 8) % (len[f] - 14)] =
					(uint8_t)(rnd >> 24);
			}
			rnd = rnd * 1103515245u + 12345u;
			e = parse_exact(c, 14 + (rnd >> 8) % (len[f] - 13),
					&p);
			CHECK((unsigned)e <= MRP_PARSE_BAD_OPTION, "%u", (unsigned)e);
			if ((unsigned)e <= MRP_PARSE_BAD_OPTION)
				seen[e]++;
		}
	}
	CHECK_EQ(early_ok, 0);
	CHECK_EQ(late_bad, 0);
	for (i = 0; i <= MRP_PARSE_BAD_OPTION; i++)
		kinds += seen[i] > 0;
	CHECK(seen[MRP_PARSE_OK] > 0 && kinds >= 5,
	      "mutations: %u taken, %u kinds of result", seen[MRP_PARSE_OK],
	      kinds);
	/* pure noise */
	for (i = 0; i < 20000; i++) {
		uint8_t c[MRP_MAX_FRAME] = { 0 };
		unsigned k, n;

		rnd = rnd * 1103515245u + 12345u;
		n = (rnd >> 8) % MRP_MAX_FRAME;
		for (k = 0; k < n; k++) {
			rnd = rnd * 1103515245u + 12345u;
			c[k] = (uint8_t)(rnd >> 24);
		}
		if (n > 14) {
			c[12] = 0x88;
			c[13] = 0xe3;
		}
		if (n > 16) {
			c[14] = 0;
			c[15] = 1;
		}
		parse_exact(c, n, &p);
	}
}

static bool find_exact(const uint8_t *b, size_t len, uint16_t *seq)
{
	uint8_t *c = malloc(len ? len : 1);
	bool found;

	memcpy(c, b, len);
	found = mrp_find_seq(c, len, seq);
	free(c);
	return found;
}

/* SequenceID of every frame type mrpd (or the kernel, for Test and
 * InTest) sends */
static void seq_every_type(void)
{
	uint8_t b[11][MRP_MAX_FRAME];
	size_t n[11];
	struct mrp_tx t = tx();
	struct mrp_pdu p;
	uint16_t seq;
	unsigned i;

	t.seq = 0x0a01;
	n[0] = mrp_build_test(b[0], MRP_MAX_FRAME, &t, 0, 1, 2, 3, false);
	t.seq++;
	n[1] = mrp_build_test(b[1], MRP_MAX_FRAME, &t, 0, 1, 2, 3, true);
	t.seq++;
	n[2] = mrp_build_topo(b[2], MRP_MAX_FRAME, &t, 20);
	t.seq++;
	n[3] = mrp_build_link(b[3], MRP_MAX_FRAME, &t, false, 1, 20, 1);
	t.seq++;
	n[4] = mrp_build_link(b[4], MRP_MAX_FRAME, &t, true, 1, 20, 1);
	t.seq++;
	n[5] = mrp_build_option(b[5], MRP_MAX_FRAME, &t,
				MRP_SUB_TEST_MGR_NACK, 1, OTHER);
	t.seq++;
	n[6] = mrp_build_option(b[6], MRP_MAX_FRAME, &t,
				MRP_SUB_TEST_PROPAGATE, 1, OTHER);
	t.seq++;
	n[7] = mrp_build_in_test(b[7], MRP_MAX_FRAME, &t, 1, 2, 1, 3, 4);
	t.seq++;
	n[8] = mrp_build_in_topo(b[8], MRP_MAX_FRAME, &t, 1, 60);
	t.seq++;
	n[9] = mrp_build_in_link(b[9], MRP_MAX_FRAME, &t, false, 1, 2, 80);
	t.seq++;
	n[10] = mrp_build_in_link(b[10], MRP_MAX_FRAME, &t, true, 1, 2, 80);
	for (i = 0; i < 11; i++) {
		CHECK_EQ(parse_exact(b[i], n[i], &p), MRP_PARSE_OK);
		CHECK(p.has_common, "frame %u: common", i);
		CHECK_EQ(p.seq, 0x0a01 + i);
		seq = 0;
		CHECK(find_exact(b[i], n[i], &seq), "frame %u: found", i);
		CHECK_EQ(seq, 0x0a01 + i);
	}
}

/* mrp_find_seq() on frames mrp_parse() rejects */
static void find_seq_lenient(void)
{
	uint8_t b[MRP_MAX_FRAME], c[MRP_MAX_FRAME];
	struct mrp_tx t = tx();
	struct mrp_pdu p;
	uint16_t seq = 0;
	size_t n = mrp_build_link(b, sizeof(b), &t, true, 1, 4, 1), i;

	/* non-zero padding after MRP_LinkChange */
	memcpy(c, b, n);
	c[30] = 0xab;
	c[31] = 0xcd;
	CHECK(parse_exact(c, n, &p) != MRP_PARSE_OK, "rejected");
	CHECK(find_exact(c, n, &seq) && seq == 0x1234, "seq %#x", seq);
	/* unsupported version */
	memcpy(c, b, n);
	c[15] = 2;
	seq = 0;
	CHECK_EQ(parse_exact(c, n, &p), MRP_PARSE_VERSION);
	CHECK(find_exact(c, n, &seq) && seq == 0x1234, "seq %#x", seq);
	/* no padding at all */
	memcpy(c, b, 30);
	memcpy(c + 30, b + 32, n - 32);
	seq = 0;
	CHECK(find_exact(c, n - 2, &seq) && seq == 0x1234, "seq %#x", seq);
	/* truncated before the SequenceID, or no Common TLV at all */
	CHECK(!find_exact(b, 35, &seq), "truncated");
	CHECK(find_exact(b, 36, &seq), "just enough");
	memcpy(c, b, n);
	c[32] = MRP_TLV_END;
	CHECK(!find_exact(c, n, &seq), "End before Common");
	CHECK(!mrp_find_seq(NULL, 0, &seq), "NULL");
	/* every prefix and random bytes: ASan checks the bounds */
	for (i = 0; i <= n; i++)
		find_exact(b, i, &seq);
	for (i = 0; i < 20000; i++) {
		unsigned k;

		for (k = 0; k < sizeof(c); k++)
			c[k] = (uint8_t)(rand() >> 7);
		c[16] = (uint8_t)(i % 4);
		find_exact(c, i % sizeof(c), &seq);
	}
}

static void better(void)
{
	CHECK(mrp_better(0x8000, OTHER, 0xa000, BR_MAC), "prio wins");
	CHECK(!mrp_better(0xa000, BR_MAC, 0x8000, OTHER), "prio loses");
	CHECK(mrp_better(0x8000, BR_MAC, 0x8000, OTHER), "lower MAC wins");
	CHECK(!mrp_better(0x8000, OTHER, 0x8000, OTHER), "equal is not better");
}

/*
 * TestMgrNAck as other implementations send it (byte-exact, from their
 * sources): the Option TLV, then MRP_Common (sequence 7, default domain).
 */
static size_t foreign_nack(uint8_t *b, const uint8_t *option, size_t olen)
{
	static const uint8_t head[] = {
		0x01, 0x15, 0x4e, 0x00, 0x00, 0x01,	/* MRP_Test address */
		0x02, 0x00, 0x00, 0x00, 0x00, 0xaa,
		0x88, 0xe3, 0x00, 0x01,
	};
	size_t n = 0;

	memset(b, 0, MRP_MAX_FRAME);
	memcpy(b, head, sizeof(head));
	n = sizeof(head);
	memcpy(b + n, option, olen);
	n += olen;
	b[n++] = MRP_TLV_COMMON;
	b[n++] = MRP_COMMON_LEN;
	b[n++] = 0x00;
	b[n++] = 0x07;
	memset(b + n, 0xff, MRP_UUID_LEN);
	n += MRP_UUID_LEN + 2;			/* End TLV */
	return n < MRP_MIN_FRAME ? MRP_MIN_FRAME : n;
}

static void check_nack(const uint8_t *b, size_t n, const char *who)
{
	static const uint8_t sa[6] = { 0x02, 0, 0, 0, 0, 0xaa };
	static const uint8_t osa[6] = { 0x02, 0, 0, 0, 0, 0xbb };
	struct mrp_pdu p;

	CHECK_EQ(parse_exact(b, n, &p), MRP_PARSE_OK);
	CHECK(p.type == MRP_TLV_OPTION && p.sub_type == MRP_SUB_TEST_MGR_NACK,
	      "%s: type %#x sub %#x", who, p.type, p.sub_type);
	CHECK(p.prio == 0xa000 && !memcmp(p.sa, sa, 6), "%s: manager", who);
	CHECK(p.other_prio == 0 && !memcmp(p.other_sa, osa, 6),
	      "%s: the manager told to step back", who);
	CHECK(p.has_common && p.seq == 7, "%s: MRP_Common after it", who);
}

static void foreign_options(void)
{
	/* microchip-ung/mrp, mrp_send_test_mgr_nack(): OUI 0, Ed1Type 0 and
	 * its data, sub-TLV length 0x12 with 2 padding bytes it does not
	 * clear, in an Option TLV of length 0x18 that leaves them out */
	static const uint8_t microchip[] = {
		0x7f, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x12,
		0xa0, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0xaa,
		0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0xbb, 0xab, 0xcd,
	};
	/* INET's MRP model, Mrp::testMgrNackReq(): IEC OUI, Ed1Type 0xff and
	 * no manufacturer data, sub-TLV length 0x10, no padding */
	static const uint8_t inet[] = {
		0x7f, 0x16, 0x00, 0x15, 0x4e, 0xff, 0x01, 0x10,
		0xa0, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0xaa,
		0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0xbb,
	};
	/* as Wireshark's pn_mrp dissector documents it (what we send), with
	 * Ed1Type 0x04, which also carries 2 bytes of manufacturer data */
	static const uint8_t ed1_4[] = {
		0x7f, 0x1a, 0x08, 0x00, 0x06, 0x04, 0x12, 0x34, 0x01, 0x12,
		0xa0, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0xaa,
		0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0xbb, 0x00, 0x00,
	};
	uint8_t b[MRP_MAX_FRAME], c[MRP_MAX_FRAME];
	struct mrp_tx t = tx();
	struct mrp_pdu p;
	size_t n;

	check_nack(b, foreign_nack(b, microchip, sizeof(microchip)),
		   "microchip");
	check_nack(b, foreign_nack(b, inet, sizeof(inet)), "INET");
	check_nack(b, foreign_nack(b, ed1_4, sizeof(ed1_4)), "Ed1Type 4");
	/* the fields must lie inside the Option TLV */
	memcpy(c, microchip, sizeof(microchip));
	c[1] = 0x16;
	n = foreign_nack(b, c, sizeof(microchip));
	CHECK_EQ(parse_exact(b, n, &p), MRP_PARSE_BAD_OPTION);
	/* a sub-TLV may claim its 2 padding bytes past the TLV, no more */
	memcpy(c, microchip, sizeof(microchip));
	c[9] = 0x13;
	n = foreign_nack(b, c, sizeof(microchip));
	CHECK_EQ(parse_exact(b, n, &p), MRP_PARSE_BAD_OPTION);
	/* ours: Option TLV 0x1a, sub-TLV 0x12 (fields and padding) */
	n = mrp_build_option(b, sizeof(b), &t, MRP_SUB_TEST_MGR_NACK, 1,
			     OTHER);
	CHECK(n && b[16] == MRP_TLV_OPTION && b[17] == 0x1a &&
	      b[24] == MRP_SUB_TEST_MGR_NACK && b[25] == 0x12,
	      "TLV length %#x, sub-TLV length %#x", b[17], b[25]);
}

int main(void)
{
	RUN(topo_roundtrip);
	RUN(link_roundtrip);
	RUN(link_without_padding_accepted);
	RUN(test_roundtrip);
	RUN(kernel_test_frame);
	RUN(option_roundtrip);
	RUN(in_test_roundtrip);
	RUN(kernel_in_test_frame);
	RUN(in_topo_roundtrip);
	RUN(in_link_roundtrip);
	RUN(in_rejects);
	RUN(foreign_options);
	RUN(rejects);
	RUN(every_prefix_and_mutation);
	RUN(seq_every_type);
	RUN(find_seq_lenient);
	RUN(better);
	return tap_done();
}
