// SPDX-License-Identifier: GPL-2.0
/*
 * Write the frames mrpd builds into a pcap file, for an independent
 * decode with tshark's pn_mrp dissector (tests/tshark.sh).
 */
#include <stdio.h>
#include <string.h>

#include "mrp_frame.h"

static void put_u32(FILE *f, uint32_t v)
{
	fwrite(&v, 4, 1, f);	/* host order: the magic tells readers */
}

static void put_u16(FILE *f, uint16_t v)
{
	fwrite(&v, 2, 1, f);
}

static void record(FILE *f, const uint8_t *b, size_t n, unsigned i)
{
	put_u32(f, 1700000000u + i);
	put_u32(f, 0);
	put_u32(f, (uint32_t)n);
	put_u32(f, (uint32_t)n);
	fwrite(b, 1, n, f);
}

int main(int argc, char **argv)
{
	static const uint8_t port[6] = { 0x02, 0, 0, 0, 0x01, 0x01 };
	static const uint8_t br[6] = { 0x02, 0, 0, 0, 0x01, 0x00 };
	static const uint8_t other[6] = { 0x02, 0, 0, 0, 0x02, 0x00 };
	uint8_t b[MRP_MAX_FRAME];
	struct mrp_tx tx;
	FILE *f;
	size_t n;
	unsigned i = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: mkframes FILE.pcap\n");
		return 2;
	}
	f = fopen(argv[1], "wb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	put_u32(f, 0xa1b2c3d4);
	put_u16(f, 2);
	put_u16(f, 4);
	put_u32(f, 0);
	put_u32(f, 0);
	put_u32(f, 65535);
	put_u32(f, 1);		/* LINKTYPE_ETHERNET */

	memset(&tx, 0, sizeof(tx));
	memcpy(tx.src, port, 6);
	memcpy(tx.sa, br, 6);
	tx.prio = 0x8000;

	tx.seq = 0x0101;
	n = mrp_build_topo(b, sizeof(b), &tx, 30);
	record(f, b, n, i++);
	tx.seq = 0x0102;
	n = mrp_build_link(b, sizeof(b), &tx, false, 1, 4, 1);
	record(f, b, n, i++);
	tx.seq = 0x0103;
	n = mrp_build_link(b, sizeof(b), &tx, true, 1, 3, 1);
	record(f, b, n, i++);
	tx.prio = 0xa000;
	tx.seq = 0x0104;
	n = mrp_build_option(b, sizeof(b), &tx, MRP_SUB_TEST_MGR_NACK, 0xb000,
			     other);
	record(f, b, n, i++);
	tx.seq = 0x0105;
	n = mrp_build_option(b, sizeof(b), &tx, MRP_SUB_TEST_PROPAGATE,
			     0x9000, other);
	record(f, b, n, i++);
	tx.seq = 0x0106;
	n = mrp_build_test(b, sizeof(b), &tx, 1, 1, 7, 0x1000, false);
	record(f, b, n, i++);
	/* Interconnection frames: InID 10, the I-port's role (2) */
	tx.seq = 0x0107;
	n = mrp_build_in_test(b, sizeof(b), &tx, 10, 2, 1, 5, 0x2000);
	record(f, b, n, i++);
	tx.seq = 0x0108;
	n = mrp_build_in_topo(b, sizeof(b), &tx, 10, 20);
	record(f, b, n, i++);
	tx.seq = 0x0109;
	n = mrp_build_in_link(b, sizeof(b), &tx, false, 10, 2, 20);
	record(f, b, n, i++);
	tx.seq = 0x010a;
	n = mrp_build_in_link(b, sizeof(b), &tx, true, 10, 2, 20);
	record(f, b, n, i++);
	return fclose(f) ? 1 : 0;
}
