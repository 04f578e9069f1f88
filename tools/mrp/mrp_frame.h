/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MRP (IEC 62439-2) PDU construction and parsing.
 *
 * Everything here works on plain byte buffers: no sockets, no clock.  The
 * parser never reads past the length it is given and reports why it
 * rejected a frame so that the daemon can count malformed frames.
 */
#ifndef MRP_FRAME_H
#define MRP_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MRP_ETHERTYPE		0x88E3
#define MRP_VERSION_1		1
#define MRP_ETH_HLEN		14
#define MRP_MIN_FRAME		60	/* without FCS */
#define MRP_MAX_FRAME		200
#define MRP_UUID_LEN		16

/* TLV types (first TLV after MRP_Version) */
enum mrp_tlv {
	MRP_TLV_END		= 0x00,
	MRP_TLV_COMMON		= 0x01,
	MRP_TLV_TEST		= 0x02,
	MRP_TLV_TOPO		= 0x03,
	MRP_TLV_LINK_DOWN	= 0x04,
	MRP_TLV_LINK_UP		= 0x05,
	MRP_TLV_IN_TEST		= 0x06,
	MRP_TLV_IN_TOPO		= 0x07,
	MRP_TLV_IN_LINK_DOWN	= 0x08,
	MRP_TLV_IN_LINK_UP	= 0x09,
	MRP_TLV_IN_LINK_STATUS	= 0x0a,
	MRP_TLV_OPTION		= 0x7f,
};

/* Sub-TLV types inside MRP_Option */
enum mrp_subtlv {
	MRP_SUB_NONE		= 0x00,
	MRP_SUB_TEST_MGR_NACK	= 0x01,
	MRP_SUB_TEST_PROPAGATE	= 0x02,
	MRP_SUB_AUTO_MGR	= 0x03,
};

/* TLV payload lengths as carried in MRP_TLVHeader.Length */
#define MRP_TEST_LEN		18
#define MRP_COMMON_LEN		18
#define MRP_TOPO_LEN		10
#define MRP_LINK_LEN		12
#define MRP_OPT_MGR_LEN		16	/* prio, sa, other prio, other sa */
#define MRP_OPT_MGR_SUB_LEN	18	/* the same and 2 bytes of padding */
#define MRP_IN_TEST_LEN		18	/* InID, SA, PortRole, InState,
					 * Transition, TimeStamp */
#define MRP_IN_TOPO_LEN		10	/* SA, InID, Interval */
#define MRP_IN_LINK_LEN		12	/* SA, PortRole, InID, Interval */
#define MRP_IN_LINK_INFO_LEN	14	/* the same and MRP_LinkInfo */

/* OUI used for the MRA manager options we send (layout as Wireshark's
 * pn_mrp dissector and the Linux bridge expect: OUI, Ed1Type,
 * Ed1ManufacturerData, sub-TLV). */
#define MRP_OUI_IEC		0x080006

extern const uint8_t mrp_dmac_test[6];
extern const uint8_t mrp_dmac_control[6];
extern const uint8_t mrp_dmac_in_test[6];
extern const uint8_t mrp_dmac_in_control[6];
extern const uint8_t mrp_domain_default[MRP_UUID_LEN];

/* Why a frame was rejected */
enum mrp_parse_err {
	MRP_PARSE_OK = 0,
	MRP_PARSE_SHORT,	/* shorter than Ethernet + version + TLV */
	MRP_PARSE_ETHERTYPE,	/* not 0x88E3 (VLAN tags are not accepted) */
	MRP_PARSE_VERSION,	/* MRP_Version != 1 */
	MRP_PARSE_TLV_LEN,	/* TLV length runs past the frame or is wrong */
	MRP_PARSE_UNKNOWN,	/* first TLV type unknown */
	MRP_PARSE_NO_COMMON,	/* Common TLV missing where required */
	MRP_PARSE_BAD_OPTION,	/* MRP_Option malformed */
};

const char *mrp_parse_strerror(enum mrp_parse_err e);
const char *mrp_tlv_name(unsigned type);

struct mrp_pdu {
	uint8_t dst[6];
	uint8_t src[6];
	uint16_t version;
	uint8_t type;		/* enum mrp_tlv of the first TLV */
	bool has_common;
	uint16_t seq;
	uint8_t domain[MRP_UUID_LEN];
	/* MRP_Test */
	uint16_t prio;
	uint8_t sa[6];
	uint16_t port_role;
	uint16_t ring_state;
	uint16_t transitions;
	uint32_t timestamp;
	bool auto_mgr;		/* Test frame carried an AUTO_MGR option */
	/* TopologyChange / LinkChange (and their In* kin) */
	uint16_t interval;	/* ms */
	uint16_t blocked;
	/* Interconnection frames: InTest, InTopologyChange, InLinkDown/Up */
	uint16_t in_id;
	uint16_t in_state;	/* InTest: 0 open, 1 closed */
	uint16_t link_info;	/* InLinkChange MRP_LinkInfo, 0 if absent */
	/* MRP_Option */
	uint32_t oui;
	uint8_t ed1_type;
	uint8_t sub_type;	/* enum mrp_subtlv; MRP_SUB_NONE if absent */
	uint16_t other_prio;
	uint8_t other_sa[6];
};

/* Parse an Ethernet frame (starting at the destination MAC). */
enum mrp_parse_err mrp_parse(const uint8_t *buf, size_t len,
			     struct mrp_pdu *pdu);

/*
 * Lenient walk for the MRP_Common SequenceID of a frame mrp_parse() may
 * have rejected: MRP_Version, TLV contents and padding values are not
 * checked.  Never reads past len.  True and *seq set when found.
 */
bool mrp_find_seq(const uint8_t *buf, size_t len, uint16_t *seq);

/* Common parameters of every frame we build. */
struct mrp_tx {
	uint8_t src[6];		/* Ethernet source: the port's MAC */
	uint8_t sa[6];		/* MRP_SA: the bridge's MAC */
	uint16_t prio;
	uint16_t seq;
	const uint8_t *domain;	/* 16 bytes, NULL for the default */
};

/*
 * Builders return the frame length (>= MRP_MIN_FRAME, zero padded) or 0
 * when cap is too small.
 */
size_t mrp_build_topo(uint8_t *buf, size_t cap, const struct mrp_tx *tx,
		      uint16_t interval_ms);
size_t mrp_build_link(uint8_t *buf, size_t cap, const struct mrp_tx *tx,
		      bool up, uint16_t port_role, uint16_t interval_ms,
		      uint16_t blocked);
size_t mrp_build_test(uint8_t *buf, size_t cap, const struct mrp_tx *tx,
		      uint16_t port_role, uint16_t ring_state,
		      uint16_t transitions, uint32_t timestamp, bool auto_mgr);
/* sub is MRP_SUB_TEST_MGR_NACK or MRP_SUB_TEST_PROPAGATE */
size_t mrp_build_option(uint8_t *buf, size_t cap, const struct mrp_tx *tx,
			enum mrp_subtlv sub, uint16_t other_prio,
			const uint8_t other_sa[6]);

/*
 * Interconnection frames (IEC 62439-2 Ed. 2, RC mode), to
 * mrp_dmac_in_test (InTest) or mrp_dmac_in_control (the others).
 * tx->prio is not used: these TLVs carry no priority.  port_role is
 * 0 primary, 1 secondary, 2 interconnection port.
 *
 * MRP_InTest is the layout the bridge sends (br_mrp_alloc_in_test_skb()).
 * MRP_InLinkDown/Up carry SA, PortRole, InID and Interval (12 bytes, as
 * microchip-ung/mrp sends them) and 2 bytes of padding to 32 bit; a
 * receiver that reads an MRP_LinkInfo after Interval (Wireshark's
 * pn_mrp) reads it as 0.  The parser takes both forms.
 */
size_t mrp_build_in_test(uint8_t *buf, size_t cap, const struct mrp_tx *tx,
			 uint16_t in_id, uint16_t port_role, uint16_t in_state,
			 uint16_t transitions, uint32_t timestamp);
size_t mrp_build_in_topo(uint8_t *buf, size_t cap, const struct mrp_tx *tx,
			 uint16_t in_id, uint16_t interval_ms);
size_t mrp_build_in_link(uint8_t *buf, size_t cap, const struct mrp_tx *tx,
			 bool up, uint16_t in_id, uint16_t port_role,
			 uint16_t interval_ms);

/* Lower prio wins, then lower MAC.  True when (p1,m1) is better. */
bool mrp_better(uint16_t p1, const uint8_t m1[6], uint16_t p2,
		const uint8_t m2[6]);

#endif
