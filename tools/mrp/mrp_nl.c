// SPDX-License-Identifier: GPL-2.0
/*
 * rtnetlink access to the bridge MRP API with libmnl.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/if_bridge.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>

#ifndef SO_MEMINFO
#define SO_MEMINFO 55	/* <asm-generic/socket.h>, Linux 4.12 */
#endif

#include "mrp_nl.h"

#define NL_BUFSZ 65536

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

int mrp_nl_open(struct mrp_nl *h, unsigned groups)
{
	int one = 1;

	memset(h, 0, sizeof(*h));
	h->nl = mnl_socket_open(NETLINK_ROUTE);
	if (!h->nl)
		return -errno;
	if (mnl_socket_bind(h->nl, groups, MNL_SOCKET_AUTOPID) < 0) {
		int err = -errno;

		mnl_socket_close(h->nl);
		h->nl = NULL;
		return err;
	}
	h->portid = mnl_socket_get_portid(h->nl);
	h->seq = (unsigned)time(NULL);
	/* Errors are reported; older kernels just ignore these. */
	mnl_socket_setsockopt(h->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(h->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	if (groups) {
		int sz = 4 << 20;

		if (setsockopt(mnl_socket_get_fd(h->nl), SOL_SOCKET,
			       SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
			setsockopt(mnl_socket_get_fd(h->nl), SOL_SOCKET,
				   SO_RCVBUF, &sz, sizeof(sz));
	}
	return 0;
}

void mrp_nl_close(struct mrp_nl *h)
{
	if (h->nl)
		mnl_socket_close(h->nl);
	h->nl = NULL;
}

int mrp_nl_fd(const struct mrp_nl *h)
{
	return h->nl ? mnl_socket_get_fd(h->nl) : -1;
}

const char *mrp_nl_strerror(const struct mrp_nl *h, int err)
{
	static char buf[400];

	if (err < 0)
		err = -err;
	if (h && h->ext_msg[0])
		snprintf(buf, sizeof(buf), "%s (%s)", h->ext_msg,
			 strerror(err));
	else
		snprintf(buf, sizeof(buf), "%s", strerror(err));
	return buf;
}

/* ---- extack ---- */

static int extack_attr_cb(const struct nlattr *attr, void *data)
{
	struct mrp_nl *h = data;

	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0) {
		snprintf(h->ext_msg, sizeof(h->ext_msg), "%s",
			 mnl_attr_get_str(attr));
	}
	return MNL_CB_OK;
}

/*
 * Returns the error carried by an NLMSG_ERROR message (0 for an ACK).  Its
 * extack message goes to h->ext_msg: the reason for an error, or a warning
 * that came with an ACK (e.g. a ring that runs in software after all).
 */
static int parse_error(struct mrp_nl *h, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e))
		return -EBADMSG;
	e = mnl_nlmsg_get_payload(nlh);
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		size_t off = sizeof(*e);

		/* an ACK never carries the request back */
		if (e->error && !(nlh->nlmsg_flags & NLM_F_CAPPED)) {
			if (e->msg.nlmsg_len < sizeof(struct nlmsghdr))
				return e->error;
			off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
		}
		off = MNL_ALIGN(off);
		if (off < mnl_nlmsg_get_payload_len(nlh))
			mnl_attr_parse(nlh, (unsigned)off, extack_attr_cb, h);
	}
	return e->error;
}

/* ---- request / response ---- */

typedef int (*msg_cb)(const struct nlmsghdr *nlh, void *arg);

/*
 * Send nlh and read until the ACK (or NLMSG_DONE for a dump), calling cb
 * for every other message of ours.
 */
static int nl_talk(struct mrp_nl *h, struct nlmsghdr *nlh, msg_cb cb,
		   void *arg)
{
	char *buf;
	unsigned seq;
	int ret = 0;
	bool done = false;

	if (!h->nl)
		return -EBADF;
	h->ext_msg[0] = 0;
	seq = ++h->seq;
	nlh->nlmsg_seq = seq;
	if (mnl_socket_sendto(h->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;

	buf = malloc(NL_BUFSZ);
	if (!buf)
		return -ENOMEM;
	while (!done) {
		ssize_t n = recv(mnl_socket_get_fd(h->nl), buf, NL_BUFSZ, 0);
		const struct nlmsghdr *m;
		int len;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		len = (int)n;
		for (m = (const struct nlmsghdr *)buf; mnl_nlmsg_ok(m, len);
		     m = mnl_nlmsg_next(m, &len)) {
			if (m->nlmsg_seq != seq || m->nlmsg_pid != h->portid)
				continue;
			if (m->nlmsg_type == NLMSG_ERROR) {
				ret = parse_error(h, m);
				done = true;
				break;
			}
			if (m->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (cb && ret == 0) {
				int r = cb(m, arg);

				if (r < 0)
					ret = r;
			}
			if (!(m->nlmsg_flags & NLM_F_MULTI) &&
			    !(nlh->nlmsg_flags & NLM_F_ACK)) {
				done = true;
				break;
			}
		}
	}
	free(buf);
	return ret;
}

/* Start an AF_BRIDGE request to ifindex; self: target the bridge itself. */
static struct nlmsghdr *br_req(char *buf, uint16_t type, int ifindex,
			       bool self, struct nlattr **af)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifm;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_BRIDGE;
	ifm->ifi_index = ifindex;
	*af = mnl_attr_nest_start(nlh, IFLA_AF_SPEC);
	if (self)
		mnl_attr_put_u16(nlh, IFLA_BRIDGE_FLAGS, BRIDGE_FLAGS_SELF);
	return nlh;
}

int mrp_nl_ring_add(struct mrp_nl *h, int br, uint32_t ring_id, int p, int s,
		    int prio)
{
	char buf[512];
	struct nlattr *af, *mrp, *in;
	struct nlmsghdr *nlh = br_req(buf, RTM_SETLINK, br, true, &af);

	mrp = mnl_attr_nest_start(nlh, IFLA_BRIDGE_MRP);
	in = mnl_attr_nest_start(nlh, IFLA_BRIDGE_MRP_INSTANCE);
	mnl_attr_put_u32(nlh, IFLA_BRIDGE_MRP_INSTANCE_RING_ID, ring_id);
	mnl_attr_put_u32(nlh, IFLA_BRIDGE_MRP_INSTANCE_P_IFINDEX, (uint32_t)p);
	mnl_attr_put_u32(nlh, IFLA_BRIDGE_MRP_INSTANCE_S_IFINDEX, (uint32_t)s);
	if (prio >= 0)
		mnl_attr_put_u16(nlh, IFLA_BRIDGE_MRP_INSTANCE_PRIO,
				 (uint16_t)prio);
	mnl_attr_nest_end(nlh, in);
	mnl_attr_nest_end(nlh, mrp);
	mnl_attr_nest_end(nlh, af);
	return nl_talk(h, nlh, NULL, NULL);
}

int mrp_nl_ring_del(struct mrp_nl *h, int br, uint32_t ring_id, int p, int s)
{
	char buf[512];
	struct nlattr *af, *mrp, *in;
	struct nlmsghdr *nlh = br_req(buf, RTM_DELLINK, br, true, &af);

	mrp = mnl_attr_nest_start(nlh, IFLA_BRIDGE_MRP);
	in = mnl_attr_nest_start(nlh, IFLA_BRIDGE_MRP_INSTANCE);
	mnl_attr_put_u32(nlh, IFLA_BRIDGE_MRP_INSTANCE_RING_ID, ring_id);
	/* required by the parser even for a delete */
	mnl_attr_put_u32(nlh, IFLA_BRIDGE_MRP_INSTANCE_P_IFINDEX, (uint32_t)p);
	mnl_attr_put_u32(nlh, IFLA_BRIDGE_MRP_INSTANCE_S_IFINDEX, (uint32_t)s);
	mnl_attr_nest_end(nlh, in);
	mnl_attr_nest_end(nlh, mrp);
	mnl_attr_nest_end(nlh, af);
	return nl_talk(h, nlh, NULL, NULL);
}

static int ring_u32_pair(struct mrp_nl *h, int br, uint16_t nest,
			 uint16_t a1, uint32_t v1, uint16_t a2, uint32_t v2)
{
	char buf[512];
	struct nlattr *af, *mrp, *in;
	struct nlmsghdr *nlh = br_req(buf, RTM_SETLINK, br, true, &af);

	mrp = mnl_attr_nest_start(nlh, IFLA_BRIDGE_MRP);
	in = mnl_attr_nest_start(nlh, nest);
	mnl_attr_put_u32(nlh, a1, v1);
	mnl_attr_put_u32(nlh, a2, v2);
	mnl_attr_nest_end(nlh, in);
	mnl_attr_nest_end(nlh, mrp);
	mnl_attr_nest_end(nlh, af);
	return nl_talk(h, nlh, NULL, NULL);
}

int mrp_nl_ring_role(struct mrp_nl *h, int br, uint32_t ring_id,
		     uint32_t role)
{
	return ring_u32_pair(h, br, IFLA_BRIDGE_MRP_RING_ROLE,
			     IFLA_BRIDGE_MRP_RING_ROLE_RING_ID, ring_id,
			     IFLA_BRIDGE_MRP_RING_ROLE_ROLE, role);
}

int mrp_nl_ring_state(struct mrp_nl *h, int br, uint32_t ring_id,
		      uint32_t state)
{
	return ring_u32_pair(h, br, IFLA_BRIDGE_MRP_RING_STATE,
			     IFLA_BRIDGE_MRP_RING_STATE_RING_ID, ring_id,
			     IFLA_BRIDGE_MRP_RING_STATE_STATE, state);
}

/*
 * Interconnection role of a ring (br_mrp_in_role_parse): the kernel
 * wants every attribute, and i_port a port of br even to disable it.
 */
int mrp_nl_in_role(struct mrp_nl *h, int br, uint32_t ring_id, uint16_t in_id,
		   int i_port, uint32_t role)
{
	char buf[512];
	struct nlattr *af, *mrp, *in;
	struct nlmsghdr *nlh = br_req(buf, RTM_SETLINK, br, true, &af);

	mrp = mnl_attr_nest_start(nlh, IFLA_BRIDGE_MRP);
	in = mnl_attr_nest_start(nlh, IFLA_BRIDGE_MRP_IN_ROLE);
	mnl_attr_put_u32(nlh, IFLA_BRIDGE_MRP_IN_ROLE_RING_ID, ring_id);
	mnl_attr_put_u16(nlh, IFLA_BRIDGE_MRP_IN_ROLE_IN_ID, in_id);
	mnl_attr_put_u32(nlh, IFLA_BRIDGE_MRP_IN_ROLE_ROLE, role);
	mnl_attr_put_u32(nlh, IFLA_BRIDGE_MRP_IN_ROLE_I_IFINDEX,
			 (uint32_t)i_port);
	mnl_attr_nest_end(nlh, in);
	mnl_attr_nest_end(nlh, mrp);
	mnl_attr_nest_end(nlh, af);
	return nl_talk(h, nlh, NULL, NULL);
}

int mrp_nl_start_test(struct mrp_nl *h, int br, uint32_t ring_id,
		      uint32_t interval, uint32_t max_miss, uint32_t period,
		      bool monitor)
{
	char buf[512];
	struct nlattr *af, *mrp, *in;
	struct nlmsghdr *nlh = br_req(buf, RTM_SETLINK, br, true, &af);

	mrp = mnl_attr_nest_start(nlh, IFLA_BRIDGE_MRP);
	in = mnl_attr_nest_start(nlh, IFLA_BRIDGE_MRP_START_TEST);
	mnl_attr_put_u32(nlh, IFLA_BRIDGE_MRP_START_TEST_RING_ID, ring_id);
	mnl_attr_put_u32(nlh, IFLA_BRIDGE_MRP_START_TEST_INTERVAL, interval);
	mnl_attr_put_u32(nlh, IFLA_BRIDGE_MRP_START_TEST_MAX_MISS, max_miss);
	mnl_attr_put_u32(nlh, IFLA_BRIDGE_MRP_START_TEST_PERIOD, period);
	mnl_attr_put_u32(nlh, IFLA_BRIDGE_MRP_START_TEST_MONITOR, monitor);
	mnl_attr_nest_end(nlh, in);
	mnl_attr_nest_end(nlh, mrp);
	mnl_attr_nest_end(nlh, af);
	return nl_talk(h, nlh, NULL, NULL);
}

int mrp_nl_in_state(struct mrp_nl *h, int br, uint16_t in_id, uint32_t state)
{
	return ring_u32_pair(h, br, IFLA_BRIDGE_MRP_IN_STATE,
			     IFLA_BRIDGE_MRP_IN_STATE_IN_ID, in_id,
			     IFLA_BRIDGE_MRP_IN_STATE_STATE, state);
}

int mrp_nl_start_in_test(struct mrp_nl *h, int br, uint16_t in_id,
			 uint32_t interval, uint32_t max_miss,
			 uint32_t period)
{
	char buf[512];
	struct nlattr *af, *mrp, *in;
	struct nlmsghdr *nlh = br_req(buf, RTM_SETLINK, br, true, &af);

	mrp = mnl_attr_nest_start(nlh, IFLA_BRIDGE_MRP);
	in = mnl_attr_nest_start(nlh, IFLA_BRIDGE_MRP_START_IN_TEST);
	mnl_attr_put_u32(nlh, IFLA_BRIDGE_MRP_START_IN_TEST_IN_ID, in_id);
	mnl_attr_put_u32(nlh, IFLA_BRIDGE_MRP_START_IN_TEST_INTERVAL,
			 interval);
	mnl_attr_put_u32(nlh, IFLA_BRIDGE_MRP_START_IN_TEST_MAX_MISS,
			 max_miss);
	mnl_attr_put_u32(nlh, IFLA_BRIDGE_MRP_START_IN_TEST_PERIOD, period);
	mnl_attr_nest_end(nlh, in);
	mnl_attr_nest_end(nlh, mrp);
	mnl_attr_nest_end(nlh, af);
	return nl_talk(h, nlh, NULL, NULL);
}

static int port_u32(struct mrp_nl *h, int port, uint16_t nest, uint16_t attr,
		    uint32_t v)
{
	char buf[512];
	struct nlattr *af, *mrp, *in;
	struct nlmsghdr *nlh = br_req(buf, RTM_SETLINK, port, false, &af);

	mrp = mnl_attr_nest_start(nlh, IFLA_BRIDGE_MRP);
	in = mnl_attr_nest_start(nlh, nest);
	mnl_attr_put_u32(nlh, attr, v);
	mnl_attr_nest_end(nlh, in);
	mnl_attr_nest_end(nlh, mrp);
	mnl_attr_nest_end(nlh, af);
	return nl_talk(h, nlh, NULL, NULL);
}

int mrp_nl_port_state(struct mrp_nl *h, int port, uint32_t state)
{
	return port_u32(h, port, IFLA_BRIDGE_MRP_PORT_STATE,
			IFLA_BRIDGE_MRP_PORT_STATE_STATE, state);
}

int mrp_nl_port_role(struct mrp_nl *h, int port, uint32_t role)
{
	return port_u32(h, port, IFLA_BRIDGE_MRP_PORT_ROLE,
			IFLA_BRIDGE_MRP_PORT_ROLE_ROLE, role);
}

int mrp_nl_port_flush(struct mrp_nl *h, int port)
{
	char buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifm;
	struct nlattr *pi;

	nlh->nlmsg_type = RTM_SETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_BRIDGE;
	ifm->ifi_index = port;
	pi = mnl_attr_nest_start(nlh, IFLA_PROTINFO);
	mnl_attr_put(nlh, IFLA_BRPORT_FLUSH, 0, NULL);
	mnl_attr_nest_end(nlh, pi);
	return nl_talk(h, nlh, NULL, NULL);
}

/* ---- dumps ---- */

struct ring_walk {
	struct mrp_nl_ring r;
	mrp_nl_ring_cb cb;
	void *arg;
};

static int mrp_info_cb(const struct nlattr *a, void *data)
{
	struct mrp_nl_ring *r = data;
	uint16_t t = mnl_attr_get_type(a);

	if (t == IFLA_BRIDGE_MRP_INFO_PRIO) {
		if (mnl_attr_validate(a, MNL_TYPE_U16) == 0)
			r->prio = mnl_attr_get_u16(a);
		return MNL_CB_OK;
	}
	if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
		return MNL_CB_OK;
	switch (t) {
	case IFLA_BRIDGE_MRP_INFO_RING_ID: r->ring_id = mnl_attr_get_u32(a); break;
	case IFLA_BRIDGE_MRP_INFO_P_IFINDEX: r->p_ifindex = (int)mnl_attr_get_u32(a); break;
	case IFLA_BRIDGE_MRP_INFO_S_IFINDEX: r->s_ifindex = (int)mnl_attr_get_u32(a); break;
	case IFLA_BRIDGE_MRP_INFO_I_IFINDEX: r->i_ifindex = (int)mnl_attr_get_u32(a); break;
	case IFLA_BRIDGE_MRP_INFO_RING_STATE: r->ring_state = mnl_attr_get_u32(a); break;
	case IFLA_BRIDGE_MRP_INFO_RING_ROLE: r->ring_role = mnl_attr_get_u32(a); break;
	case IFLA_BRIDGE_MRP_INFO_TEST_INTERVAL: r->test_interval = mnl_attr_get_u32(a); break;
	case IFLA_BRIDGE_MRP_INFO_TEST_MAX_MISS: r->test_max_miss = mnl_attr_get_u32(a); break;
	case IFLA_BRIDGE_MRP_INFO_TEST_MONITOR: r->test_monitor = mnl_attr_get_u32(a); break;
	case IFLA_BRIDGE_MRP_INFO_IN_STATE: r->in_state = mnl_attr_get_u32(a); break;
	case IFLA_BRIDGE_MRP_INFO_IN_ROLE: r->in_role = mnl_attr_get_u32(a); break;
	case IFLA_BRIDGE_MRP_INFO_IN_TEST_INTERVAL: r->in_test_interval = mnl_attr_get_u32(a); break;
	case IFLA_BRIDGE_MRP_INFO_IN_TEST_MAX_MISS: r->in_test_max_miss = mnl_attr_get_u32(a); break;
	default: break;
	}
	return MNL_CB_OK;
}

static int mrp_list_cb(const struct nlattr *a, void *data)
{
	struct ring_walk *w = data;
	int br = w->r.br_ifindex;

	if (mnl_attr_get_type(a) != IFLA_BRIDGE_MRP_INFO ||
	    mnl_attr_validate(a, MNL_TYPE_NESTED) < 0)
		return MNL_CB_OK;
	memset(&w->r, 0, sizeof(w->r));
	w->r.br_ifindex = br;
	mnl_attr_parse_nested(a, mrp_info_cb, &w->r);
	w->cb(&w->r, w->arg);
	return MNL_CB_OK;
}

static int afspec_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == IFLA_BRIDGE_MRP &&
	    mnl_attr_validate(a, MNL_TYPE_NESTED) == 0)
		mnl_attr_parse_nested(a, mrp_list_cb, data);
	return MNL_CB_OK;
}

static int ring_link_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == IFLA_AF_SPEC &&
	    mnl_attr_validate(a, MNL_TYPE_NESTED) == 0)
		mnl_attr_parse_nested(a, afspec_cb, data);
	return MNL_CB_OK;
}

static int ring_msg_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct ring_walk *w = arg;
	const struct ifinfomsg *ifm;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifm))
		return 0;
	ifm = mnl_nlmsg_get_payload(nlh);
	w->r.br_ifindex = ifm->ifi_index;
	mnl_attr_parse(nlh, sizeof(*ifm), ring_link_cb, w);
	return 0;
}

int mrp_nl_dump_rings(struct mrp_nl *h, mrp_nl_ring_cb cb, void *arg)
{
	char buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifm;
	struct ring_walk w;

	memset(&w, 0, sizeof(w));
	w.cb = cb;
	w.arg = arg;
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_BRIDGE;
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_MRP);
	return nl_talk(h, nlh, ring_msg_cb, &w);
}

/* ---- links ---- */

static int protinfo_cb(const struct nlattr *a, void *data)
{
	struct mrp_nl_link *l = data;

	switch (mnl_attr_get_type(a)) {
	case IFLA_BRPORT_MRP_RING_OPEN:
		if (mnl_attr_validate(a, MNL_TYPE_U8) == 0) {
			l->has_ring_open = true;
			l->ring_open = mnl_attr_get_u8(a);
		}
		break;
	case IFLA_BRPORT_MRP_IN_OPEN:
		if (mnl_attr_validate(a, MNL_TYPE_U8) == 0) {
			l->has_in_open = true;
			l->in_open = mnl_attr_get_u8(a);
		}
		break;
	case IFLA_BRPORT_STATE:
		if (mnl_attr_validate(a, MNL_TYPE_U8) == 0) {
			l->has_br_state = true;
			l->br_state = mnl_attr_get_u8(a);
		}
		break;
	default:
		break;
	}
	return MNL_CB_OK;
}

static int linkinfo_cb(const struct nlattr *a, void *data)
{
	struct mrp_nl_link *l = data;

	if (mnl_attr_get_type(a) == IFLA_INFO_KIND &&
	    mnl_attr_validate(a, MNL_TYPE_STRING) == 0 &&
	    mnl_attr_get_payload_len(a) >= 6 &&
	    !strncmp(mnl_attr_get_str(a), "bridge", 6) &&
	    (mnl_attr_get_payload_len(a) == 6 ||
	     mnl_attr_get_str(a)[6] == 0))
		l->is_bridge = true;
	return MNL_CB_OK;
}

static int link_attr_cb(const struct nlattr *a, void *data)
{
	struct mrp_nl_link *l = data;

	switch (mnl_attr_get_type(a)) {
	case IFLA_IFNAME:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			snprintf(l->name, sizeof(l->name), "%s",
				 mnl_attr_get_str(a));
		break;
	case IFLA_MASTER:
		if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			l->master = (int)mnl_attr_get_u32(a);
		break;
	case IFLA_ADDRESS:
		if (mnl_attr_get_payload_len(a) == 6) {
			l->has_mac = true;
			memcpy(l->mac, mnl_attr_get_payload(a), 6);
		}
		break;
	case IFLA_LINKINFO:
		if (mnl_attr_validate(a, MNL_TYPE_NESTED) == 0)
			mnl_attr_parse_nested(a, linkinfo_cb, l);
		break;
	case IFLA_PROTINFO:
		if (l->family == AF_BRIDGE &&
		    (a->nla_type & NLA_F_NESTED))
			mnl_attr_parse_nested(a, protinfo_cb, l);
		break;
	default:
		break;
	}
	return MNL_CB_OK;
}

int mrp_nl_parse_link(const struct nlmsghdr *nlh, struct mrp_nl_link *l)
{
	const struct ifinfomsg *ifm;

	memset(l, 0, sizeof(*l));
	if ((nlh->nlmsg_type != RTM_NEWLINK && nlh->nlmsg_type != RTM_DELLINK) ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifm))
		return -1;
	ifm = mnl_nlmsg_get_payload(nlh);
	l->type = nlh->nlmsg_type;
	l->family = ifm->ifi_family;
	l->ifindex = ifm->ifi_index;
	l->flags = ifm->ifi_flags;
	mnl_attr_parse(nlh, sizeof(*ifm), link_attr_cb, l);
	return 0;
}

struct link_walk {
	mrp_nl_link_cb cb;
	void *arg;
};

static int link_msg_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct link_walk *w = arg;
	struct mrp_nl_link l;

	if (mrp_nl_parse_link(nlh, &l) == 0)
		w->cb(&l, w->arg);
	return 0;
}

int mrp_nl_dump_links(struct mrp_nl *h, int family, mrp_nl_link_cb cb,
		      void *arg)
{
	char buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifm;
	struct link_walk w = { cb, arg };

	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = (unsigned char)family;
	return nl_talk(h, nlh, link_msg_cb, &w);
}

long mrp_nl_queued(const struct mrp_nl *h)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);

	if (getsockopt(mnl_socket_get_fd(h->nl), SOL_SOCKET, SO_MEMINFO,
		       mem, &len) < 0 ||
	    len < (SK_MEMINFO_RMEM_ALLOC + 1) * sizeof(mem[0]))
		return -1;
	return mem[SK_MEMINFO_RMEM_ALLOC];
}

int mrp_nl_read_events(struct mrp_nl *h, mrp_nl_link_cb cb, void *arg)
{
	char *buf = malloc(NL_BUFSZ);
	unsigned int budget;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	for (budget = 0; budget < MRP_NL_EVENT_BUDGET; budget++) {
		ssize_t n = recv(mnl_socket_get_fd(h->nl), buf, NL_BUFSZ,
				 MSG_DONTWAIT);
		const struct nlmsghdr *m;
		int len;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				ret = -errno;
			break;
		}
		if (n == 0)
			break;
		len = (int)n;
		for (m = (const struct nlmsghdr *)buf; mnl_nlmsg_ok(m, len);
		     m = mnl_nlmsg_next(m, &len)) {
			struct mrp_nl_link l;

			if (mrp_nl_parse_link(m, &l) == 0)
				cb(&l, arg);
		}
	}
	free(buf);
	return ret;
}
