/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtnetlink access to the bridge MRP API (libmnl).
 *
 * Message shapes (net/bridge/br_mrp_netlink.c, br_netlink.c,
 * net/core/rtnetlink.c rtnl_bridge_setlink):
 *   - ring-wide requests (INSTANCE, RING_ROLE, RING_STATE, START_TEST,
 *     IN_ROLE, IN_STATE, START_IN_TEST) go to the bridge itself: ifi_family AF_BRIDGE,
 *     ifi_index = bridge,
 *     IFLA_AF_SPEC { IFLA_BRIDGE_FLAGS = BRIDGE_FLAGS_SELF,
 *                    IFLA_BRIDGE_MRP { IFLA_BRIDGE_MRP_xxx { ... } } }
 *     RTM_SETLINK adds/sets, RTM_DELLINK deletes the instance;
 *   - port requests (PORT_STATE, PORT_ROLE) go to the port with no
 *     IFLA_BRIDGE_FLAGS, so the master (the bridge) handles them;
 *   - the FDB of a port is flushed with IFLA_PROTINFO { IFLA_BRPORT_FLUSH };
 *   - RTM_GETLINK dump, AF_BRIDGE, IFLA_EXT_MASK = RTEXT_FILTER_MRP returns
 *     IFLA_AF_SPEC { IFLA_BRIDGE_MRP { IFLA_BRIDGE_MRP_INFO {...}* } } for
 *     each bridge with MRP instances;
 *   - loss of continuity arrives as RTM_NEWLINK (AF_BRIDGE, port ifindex)
 *     on RTNLGRP_LINK with IFLA_PROTINFO { IFLA_BRPORT_MRP_RING_OPEN u8 }.
 */
#ifndef MRP_NL_H
#define MRP_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>

struct mnl_socket;
struct nlmsghdr;

struct mrp_nl {
	struct mnl_socket *nl;
	unsigned int portid;
	unsigned int seq;
	char ext_msg[256];	/* extack message of the last reply, or "" */
};

/* groups: 0 for a request socket, RTMGRP_LINK to listen */
int mrp_nl_open(struct mrp_nl *h, unsigned groups);
void mrp_nl_close(struct mrp_nl *h);
int mrp_nl_fd(const struct mrp_nl *h);

/*
 * Requests.  Return 0 or -errno; on error h->ext_msg holds the kernel's
 * extack message when it sent one.  prio < 0 means "kernel default".
 */
int mrp_nl_ring_add(struct mrp_nl *h, int br, uint32_t ring_id, int p, int s,
		    int prio);
int mrp_nl_ring_del(struct mrp_nl *h, int br, uint32_t ring_id, int p, int s);
int mrp_nl_ring_role(struct mrp_nl *h, int br, uint32_t ring_id,
		     uint32_t role);
int mrp_nl_ring_state(struct mrp_nl *h, int br, uint32_t ring_id,
		      uint32_t state);
int mrp_nl_start_test(struct mrp_nl *h, int br, uint32_t ring_id,
		      uint32_t interval, uint32_t max_miss, uint32_t period,
		      bool monitor);
/* role: BR_MRP_IN_ROLE_*; i_port is needed to disable the role too */
int mrp_nl_in_role(struct mrp_nl *h, int br, uint32_t ring_id, uint16_t in_id,
		   int i_port, uint32_t role);
/*
 * Interconnection state (BR_MRP_IN_STATE_OPEN/CLOSED) and the MIM's
 * MRP_InTest (br_mrp_in_state_parse(), br_mrp_start_in_test_parse()):
 * the kernel finds the instance by its interconnection ID alone, takes
 * that ID as a u32 here (a u16 in IN_ROLE), and has no attribute for
 * the interconnection mode: its InTest is RC mode.  interval must not
 * be 0 (the policy's minimum is 1).
 */
int mrp_nl_in_state(struct mrp_nl *h, int br, uint16_t in_id, uint32_t state);
int mrp_nl_start_in_test(struct mrp_nl *h, int br, uint16_t in_id,
			 uint32_t interval, uint32_t max_miss,
			 uint32_t period);
int mrp_nl_port_state(struct mrp_nl *h, int port, uint32_t state);
int mrp_nl_port_role(struct mrp_nl *h, int port, uint32_t role);
int mrp_nl_port_flush(struct mrp_nl *h, int port);

/* One MRP instance as reported by IFLA_BRIDGE_MRP_INFO */
struct mrp_nl_ring {
	int br_ifindex;
	uint32_t ring_id;
	int p_ifindex, s_ifindex, i_ifindex;
	uint16_t prio;
	uint32_t ring_state, ring_role;
	uint32_t test_interval, test_max_miss, test_monitor;
	uint32_t in_state, in_role, in_test_interval, in_test_max_miss;
};

typedef void (*mrp_nl_ring_cb)(const struct mrp_nl_ring *r, void *arg);
int mrp_nl_dump_rings(struct mrp_nl *h, mrp_nl_ring_cb cb, void *arg);

/* What an RTM_NEWLINK / RTM_DELLINK says about one interface */
struct mrp_nl_link {
	int type;		/* RTM_NEWLINK or RTM_DELLINK */
	int family;		/* AF_UNSPEC or AF_BRIDGE */
	int ifindex;
	unsigned flags;		/* ifi_flags */
	char name[IF_NAMESIZE];
	int master;		/* IFLA_MASTER, 0 if none */
	bool has_mac;
	uint8_t mac[6];
	bool is_bridge;		/* IFLA_LINKINFO kind "bridge" */
	bool has_ring_open;	/* IFLA_PROTINFO carried MRP_RING_OPEN */
	bool ring_open;
	bool has_in_open;
	bool in_open;
	bool has_br_state;	/* IFLA_PROTINFO carried IFLA_BRPORT_STATE */
	uint8_t br_state;	/* BR_STATE_*: the MRP port state shows as
				 * BR_STATE_FORWARDING or BR_STATE_BLOCKING */
};

/* Parse a link message; returns 0 if it is one, -1 otherwise. */
int mrp_nl_parse_link(const struct nlmsghdr *nlh, struct mrp_nl_link *l);

typedef void (*mrp_nl_link_cb)(const struct mrp_nl_link *l, void *arg);
/* Dump every link (AF_UNSPEC) or every bridge port (AF_BRIDGE). */
int mrp_nl_dump_links(struct mrp_nl *h, int family, mrp_nl_link_cb cb,
		      void *arg);

/*
 * Read what is pending on a listening socket and call cb for each link
 * message, at most MRP_NL_EVENT_BUDGET reads: what the callbacks do may
 * make the kernel send more, and a caller that polls its other sockets
 * only between calls would never get back to them.  The socket stays
 * readable while anything is left.  Returns 0, -ENOBUFS when events were
 * lost (caller should resynchronise with a dump) or another -errno.
 */
#define MRP_NL_EVENT_BUDGET 64
int mrp_nl_read_events(struct mrp_nl *h, mrp_nl_link_cb cb, void *arg);

/*
 * Bytes the kernel holds queued on a socket for us to read (its receive
 * memory, SO_MEMINFO), or -1.
 */
long mrp_nl_queued(const struct mrp_nl *h);

/* Human readable error: extack message if any, else strerror. */
const char *mrp_nl_strerror(const struct mrp_nl *h, int err);

#endif
