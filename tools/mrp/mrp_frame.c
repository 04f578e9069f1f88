// SPDX-License-Identifier: GPL-2.0
/*
 * MRP PDU construction and bounds-checked parsing.
 */
#include <string.h>

#include "mrp_frame.h"

const uint8_t mrp_dmac_test[6] = { 0x01, 0x15, 0x4e, 0x00, 0x00, 0x01 };
const uint8_t mrp_dmac_control[6] = { 0x01, 0x15, 0x4e, 0x00, 0x00, 0x02 };
const uint8_t mrp_dmac_in_test[6] = { 0x01, 0x15, 0x4e, 0x00, 0x00, 0x03 };
const uint8_t mrp_dmac_in_control[6] = { 0x01, 0x15, 0x4e, 0x00, 0x00, 0x04 };
const uint8_t mrp_domain_default[MRP_UUID_LEN] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

const char *mrp_parse_strerror(enum mrp_parse_err e)
{
	switch (e) {
	case MRP_PARSE_OK: return "ok";
	case MRP_PARSE_SHORT: return "frame too short";
	case MRP_PARSE_ETHERTYPE: return "not an MRP EtherType";
	case MRP_PARSE_VERSION: return "unsupported MRP_Version";
	case MRP_PARSE_TLV_LEN: return "TLV length out of bounds";
	case MRP_PARSE_UNKNOWN: return "unknown TLV type";
	case MRP_PARSE_NO_COMMON: return "missing MRP_Common TLV";
	case MRP_PARSE_BAD_OPTION: return "malformed MRP_Option";
	}
	return "?";
}

const char *mrp_tlv_name(unsigned type)
{
	switch (type) {
	case MRP_TLV_END: return "End";
	case MRP_TLV_COMMON: return "Common";
	case MRP_TLV_TEST: return "Test";
	case MRP_TLV_TOPO: return "TopologyChange";
	case MRP_TLV_LINK_DOWN: return "LinkDown";
	case MRP_TLV_LINK_UP: return "LinkUp";
	case MRP_TLV_IN_TEST: return "InTest";
	case MRP_TLV_IN_TOPO: return "InTopologyChange";
	case MRP_TLV_IN_LINK_DOWN: return "InLinkDown";
	case MRP_TLV_IN_LINK_UP: return "InLinkUp";
	case MRP_TLV_IN_LINK_STATUS: return "InLinkStatusPoll";
	case MRP_TLV_OPTION: return "Option";
	}
	return "Unknown";
}

bool mrp_better(uint16_t p1, const uint8_t m1[6], uint16_t p2,
		const uint8_t m2[6])
{
	if (p1 != p2)
		return p1 < p2;
	return memcmp(m1, m2, 6) < 0;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/*
 * Parse the payload of an MRP_Option TLV: OUI, Ed1Type, Ed1ManufacturerData
 * (2 bytes, for Ed1Type 0x00 and 0x04 only, as Wireshark's pn_mrp
 * dissector reads it: INET's MRP model sends Ed1Type 0xFF and no data),
 * then an optional sub-TLV.
 *
 * The manager sub-TLVs (TestMgrNAck, TestPropagate) hold 16 bytes of
 * fields and 2 of padding.  Their length is 0x12 as the dissector
 * documents it; INET writes 0x10, and microchip-ung/mrp writes 0x12 in an
 * Option TLV whose length leaves room for the 16 bytes of fields only.
 * Take them all: the fields must lie inside the Option TLV, the padding
 * may lie past it, and *over tells how far (its value is not checked).
 */
static enum mrp_parse_err parse_option(const uint8_t *v, size_t l,
				       struct mrp_pdu *pdu, size_t *over)
{
	size_t sl, head;

	*over = 0;
	if (l < 3)
		return MRP_PARSE_BAD_OPTION;
	pdu->oui = (uint32_t)v[0] << 16 | (uint32_t)v[1] << 8 | v[2];
	if (l < 4)
		return MRP_PARSE_OK;	/* OUI only: nothing we know */
	pdu->ed1_type = v[3];
	head = v[3] == 0x00 || v[3] == 0x04 ? 6 : 4;
	if (l < head + 2)
		return MRP_PARSE_OK;	/* no sub-TLV */
	v += head;
	l -= head;
	pdu->sub_type = v[0];
	sl = v[1];
	v += 2;
	l -= 2;
	if (pdu->sub_type == MRP_SUB_TEST_MGR_NACK ||
	    pdu->sub_type == MRP_SUB_TEST_PROPAGATE) {
		if (sl < MRP_OPT_MGR_LEN || l < MRP_OPT_MGR_LEN ||
		    sl > l + MRP_OPT_MGR_SUB_LEN - MRP_OPT_MGR_LEN)
			return MRP_PARSE_BAD_OPTION;
		pdu->prio = get16(v);
		memcpy(pdu->sa, v + 2, 6);
		pdu->other_prio = get16(v + 8);
		memcpy(pdu->other_sa, v + 10, 6);
		if (sl > l)
			*over = sl - l;
	} else if (sl > l) {
		return MRP_PARSE_BAD_OPTION;
	}
	return MRP_PARSE_OK;
}

enum mrp_parse_err mrp_parse(const uint8_t *buf, size_t len,
			     struct mrp_pdu *pdu)
{
	size_t off, base, over = 0;
	unsigned n;
	enum mrp_parse_err err;

	memset(pdu, 0, sizeof(*pdu));
	if (!buf || len < MRP_ETH_HLEN + 2 + 2)
		return MRP_PARSE_SHORT;
	memcpy(pdu->dst, buf, 6);
	memcpy(pdu->src, buf + 6, 6);
	if (get16(buf + 12) != MRP_ETHERTYPE)
		return MRP_PARSE_ETHERTYPE;
	pdu->version = get16(buf + 14);
	if (pdu->version != MRP_VERSION_1)
		return MRP_PARSE_VERSION;

	base = off = MRP_ETH_HLEN + 2;
	for (n = 0; n < 16; n++) {
		const uint8_t *v;
		uint8_t t, l;

		if (off + 2 > len) {
			if (n == 0)
				return MRP_PARSE_SHORT;
			break;	/* tolerate a missing End TLV */
		}
		t = buf[off];
		l = buf[off + 1];
		if (off + 2 + l > len)
			return MRP_PARSE_TLV_LEN;
		v = buf + off + 2;

		if (n == 0) {
			pdu->type = t;
			switch (t) {
			case MRP_TLV_TEST:
				if (l < MRP_TEST_LEN)
					return MRP_PARSE_TLV_LEN;
				pdu->prio = get16(v);
				memcpy(pdu->sa, v + 2, 6);
				pdu->port_role = get16(v + 8);
				pdu->ring_state = get16(v + 10);
				pdu->transitions = get16(v + 12);
				pdu->timestamp = get32(v + 14);
				break;
			case MRP_TLV_TOPO:
				if (l < MRP_TOPO_LEN)
					return MRP_PARSE_TLV_LEN;
				pdu->prio = get16(v);
				memcpy(pdu->sa, v + 2, 6);
				pdu->interval = get16(v + 8);
				break;
			case MRP_TLV_LINK_DOWN:
			case MRP_TLV_LINK_UP:
				if (l < MRP_LINK_LEN)
					return MRP_PARSE_TLV_LEN;
				memcpy(pdu->sa, v, 6);
				pdu->port_role = get16(v + 6);
				pdu->interval = get16(v + 8);
				pdu->blocked = get16(v + 10);
				break;
			case MRP_TLV_OPTION:
				err = parse_option(v, l, pdu, &over);
				if (err)
					return err;
				break;
			case MRP_TLV_IN_TEST:
				if (l < MRP_IN_TEST_LEN)
					return MRP_PARSE_TLV_LEN;
				pdu->in_id = get16(v);
				memcpy(pdu->sa, v + 2, 6);
				pdu->port_role = get16(v + 8);
				pdu->in_state = get16(v + 10);
				pdu->transitions = get16(v + 12);
				pdu->timestamp = get32(v + 14);
				break;
			case MRP_TLV_IN_TOPO:
				if (l < MRP_IN_TOPO_LEN)
					return MRP_PARSE_TLV_LEN;
				memcpy(pdu->sa, v, 6);
				pdu->in_id = get16(v + 6);
				pdu->interval = get16(v + 8);
				break;
			case MRP_TLV_IN_LINK_DOWN:
			case MRP_TLV_IN_LINK_UP:
				if (l < MRP_IN_LINK_LEN)
					return MRP_PARSE_TLV_LEN;
				memcpy(pdu->sa, v, 6);
				pdu->port_role = get16(v + 6);
				pdu->in_id = get16(v + 8);
				pdu->interval = get16(v + 10);
				if (l >= MRP_IN_LINK_INFO_LEN)
					pdu->link_info = get16(v + 12);
				break;
			case MRP_TLV_IN_LINK_STATUS:
				break;	/* LC mode: recognised only */
			default:
				return MRP_PARSE_UNKNOWN;
			}
		} else if (t == MRP_TLV_END) {
			break;
		} else if (t == MRP_TLV_COMMON) {
			if (l < MRP_COMMON_LEN)
				return MRP_PARSE_TLV_LEN;
			pdu->has_common = true;
			pdu->seq = get16(v);
			memcpy(pdu->domain, v + 2, MRP_UUID_LEN);
		} else if (t == MRP_TLV_OPTION && pdu->type == MRP_TLV_TEST) {
			struct mrp_pdu o;

			memset(&o, 0, sizeof(o));
			if (parse_option(v, l, &o, &over) == MRP_PARSE_OK &&
			    o.sub_type == MRP_SUB_AUTO_MGR)
				pdu->auto_mgr = true;
		}
		off += 2 + (size_t)l + over;
		over = 0;
		/* 32-bit alignment padding (after MRP_LinkChange) */
		if ((off - base) % 4 == 2 && off + 2 <= len &&
		    buf[off] == 0 && buf[off + 1] == 0)
			off += 2;
	}

	if (pdu->type != MRP_TLV_END && !pdu->has_common &&
	    (pdu->type == MRP_TLV_TEST || pdu->type == MRP_TLV_TOPO ||
	     pdu->type == MRP_TLV_LINK_DOWN || pdu->type == MRP_TLV_LINK_UP ||
	     pdu->type == MRP_TLV_OPTION || pdu->type == MRP_TLV_IN_TEST ||
	     pdu->type == MRP_TLV_IN_TOPO ||
	     pdu->type == MRP_TLV_IN_LINK_DOWN ||
	     pdu->type == MRP_TLV_IN_LINK_UP))
		return MRP_PARSE_NO_COMMON;
	return MRP_PARSE_OK;
}

bool mrp_find_seq(const uint8_t *buf, size_t len, uint16_t *seq)
{
	size_t off = MRP_ETH_HLEN + 2;
	unsigned n;

	if (!buf)
		return false;
	for (n = 0; n < 16 && off + 2 <= len; n++) {
		uint8_t t = buf[off], l = buf[off + 1];

		if (t == MRP_TLV_COMMON) {
			if (l < 2 || off + 4 > len)
				return false;
			*seq = get16(buf + off + 2);
			return true;
		}
		if (t == MRP_TLV_END)
			break;
		off += 2 + (size_t)l;
		/* TLVs start 32-bit aligned in the frame: skip 2 padding
		 * bytes whatever their value, unless a Common TLV follows */
		if (off % 4 == 2 && off + 2 <= len &&
		    buf[off] != MRP_TLV_COMMON)
			off += 2;
	}
	return false;
}

/* ---- builders ---- */

struct wbuf {
	uint8_t *p;
	size_t cap, len;
	bool overflow;
};

static void put(struct wbuf *w, const void *d, size_t n)
{
	if (w->overflow || w->len + n > w->cap) {
		w->overflow = true;
		return;
	}
	if (d)
		memcpy(w->p + w->len, d, n);
	else
		memset(w->p + w->len, 0, n);
	w->len += n;
}

static void put8(struct wbuf *w, uint8_t v)
{
	put(w, &v, 1);
}

static void put16(struct wbuf *w, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	put(w, b, 2);
}

static void put32(struct wbuf *w, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16),
			 (uint8_t)(v >> 8), (uint8_t)v };

	put(w, b, 4);
}

static void put_head(struct wbuf *w, const uint8_t *dmac,
		     const struct mrp_tx *tx)
{
	put(w, dmac, 6);
	put(w, tx->src, 6);
	put16(w, MRP_ETHERTYPE);
	put16(w, MRP_VERSION_1);
}

static void put_tlv(struct wbuf *w, uint8_t type, uint8_t len)
{
	put8(w, type);
	put8(w, len);
}

static size_t put_tail(struct wbuf *w, const struct mrp_tx *tx)
{
	put_tlv(w, MRP_TLV_COMMON, MRP_COMMON_LEN);
	put16(w, tx->seq);
	put(w, tx->domain ? tx->domain : mrp_domain_default, MRP_UUID_LEN);
	put_tlv(w, MRP_TLV_END, 0);
	if (w->len < MRP_MIN_FRAME)
		put(w, NULL, MRP_MIN_FRAME - w->len);
	return w->overflow ? 0 : w->len;
}

size_t mrp_build_topo(uint8_t *buf, size_t cap, const struct mrp_tx *tx,
		      uint16_t interval_ms)
{
	struct wbuf w = { buf, cap, 0, false };

	put_head(&w, mrp_dmac_control, tx);
	put_tlv(&w, MRP_TLV_TOPO, MRP_TOPO_LEN);
	put16(&w, tx->prio);
	put(&w, tx->sa, 6);
	put16(&w, interval_ms);
	return put_tail(&w, tx);
}

size_t mrp_build_link(uint8_t *buf, size_t cap, const struct mrp_tx *tx,
		      bool up, uint16_t port_role, uint16_t interval_ms,
		      uint16_t blocked)
{
	struct wbuf w = { buf, cap, 0, false };

	put_head(&w, mrp_dmac_control, tx);
	put_tlv(&w, up ? MRP_TLV_LINK_UP : MRP_TLV_LINK_DOWN, MRP_LINK_LEN);
	put(&w, tx->sa, 6);
	put16(&w, port_role);
	put16(&w, interval_ms);
	put16(&w, blocked);
	put(&w, NULL, 2);	/* padding to 32 bit */
	return put_tail(&w, tx);
}

size_t mrp_build_test(uint8_t *buf, size_t cap, const struct mrp_tx *tx,
		      uint16_t port_role, uint16_t ring_state,
		      uint16_t transitions, uint32_t timestamp, bool auto_mgr)
{
	struct wbuf w = { buf, cap, 0, false };

	put_head(&w, mrp_dmac_test, tx);
	put_tlv(&w, MRP_TLV_TEST, MRP_TEST_LEN);
	put16(&w, tx->prio);
	put(&w, tx->sa, 6);
	put16(&w, port_role);
	put16(&w, ring_state);
	put16(&w, transitions);
	put32(&w, timestamp);
	put_tlv(&w, MRP_TLV_COMMON, MRP_COMMON_LEN);
	put16(&w, tx->seq);
	put(&w, tx->domain ? tx->domain : mrp_domain_default, MRP_UUID_LEN);
	if (auto_mgr) {
		/* OUI, Ed1Type, data, sub-TLV AUTO_MGR (empty), padding */
		put_tlv(&w, MRP_TLV_OPTION, 3 + 3 + 2 + 2);
		put8(&w, (uint8_t)(MRP_OUI_IEC >> 16));
		put8(&w, (uint8_t)(MRP_OUI_IEC >> 8));
		put8(&w, (uint8_t)MRP_OUI_IEC);
		put(&w, NULL, 3);
		put_tlv(&w, MRP_SUB_AUTO_MGR, 0);
		put(&w, NULL, 2);
	}
	put_tlv(&w, MRP_TLV_END, 0);
	if (w.len < MRP_MIN_FRAME)
		put(&w, NULL, MRP_MIN_FRAME - w.len);
	return w.overflow ? 0 : w.len;
}

size_t mrp_build_option(uint8_t *buf, size_t cap, const struct mrp_tx *tx,
			enum mrp_subtlv sub, uint16_t other_prio,
			const uint8_t other_sa[6])
{
	struct wbuf w = { buf, cap, 0, false };

	put_head(&w, mrp_dmac_test, tx);
	/* OUI(3) Ed1Type(1) Ed1ManufacturerData(2) SubTLV(2+16+pad 2) */
	put_tlv(&w, MRP_TLV_OPTION, 3 + 1 + 2 + 2 + MRP_OPT_MGR_SUB_LEN);
	put8(&w, (uint8_t)(MRP_OUI_IEC >> 16));
	put8(&w, (uint8_t)(MRP_OUI_IEC >> 8));
	put8(&w, (uint8_t)MRP_OUI_IEC);
	put8(&w, 0);		/* Ed1Type 0: manufacturer data follows */
	put16(&w, 0);
	put_tlv(&w, (uint8_t)sub, MRP_OPT_MGR_SUB_LEN);	/* with padding */
	put16(&w, tx->prio);
	put(&w, tx->sa, 6);
	put16(&w, other_prio);
	put(&w, other_sa, 6);
	put(&w, NULL, 2);	/* padding to 32 bit */
	return put_tail(&w, tx);
}

size_t mrp_build_in_test(uint8_t *buf, size_t cap, const struct mrp_tx *tx,
			 uint16_t in_id, uint16_t port_role, uint16_t in_state,
			 uint16_t transitions, uint32_t timestamp)
{
	struct wbuf w = { buf, cap, 0, false };

	put_head(&w, mrp_dmac_in_test, tx);
	put_tlv(&w, MRP_TLV_IN_TEST, MRP_IN_TEST_LEN);
	put16(&w, in_id);
	put(&w, tx->sa, 6);
	put16(&w, port_role);
	put16(&w, in_state);
	put16(&w, transitions);
	put32(&w, timestamp);
	return put_tail(&w, tx);
}

size_t mrp_build_in_topo(uint8_t *buf, size_t cap, const struct mrp_tx *tx,
			 uint16_t in_id, uint16_t interval_ms)
{
	struct wbuf w = { buf, cap, 0, false };

	put_head(&w, mrp_dmac_in_control, tx);
	put_tlv(&w, MRP_TLV_IN_TOPO, MRP_IN_TOPO_LEN);
	put(&w, tx->sa, 6);
	put16(&w, in_id);
	put16(&w, interval_ms);
	return put_tail(&w, tx);
}

size_t mrp_build_in_link(uint8_t *buf, size_t cap, const struct mrp_tx *tx,
			 bool up, uint16_t in_id, uint16_t port_role,
			 uint16_t interval_ms)
{
	struct wbuf w = { buf, cap, 0, false };

	put_head(&w, mrp_dmac_in_control, tx);
	put_tlv(&w, up ? MRP_TLV_IN_LINK_UP : MRP_TLV_IN_LINK_DOWN,
		MRP_IN_LINK_LEN);
	put(&w, tx->sa, 6);
	put16(&w, port_role);
	put16(&w, in_id);
	put16(&w, interval_ms);
	put(&w, NULL, 2);	/* padding to 32 bit */
	return put_tail(&w, tx);
}
