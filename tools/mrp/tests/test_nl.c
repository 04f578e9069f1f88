// SPDX-License-Identifier: GPL-2.0
/*
 * rtnetlink requests of mrp_nl.c, checked attribute by attribute with no
 * kernel: mrp_nl.c is built in here with its send replaced by a capture
 * of the message, which then fails with ECANCELED (nothing is sent).
 */
#include <errno.h>
#include <string.h>
#include <sys/types.h>

#define mnl_socket_sendto capture_send
#include "mrp_nl.c"
#undef mnl_socket_sendto

#include <linux/mrp_bridge.h>

#include "mrp_in_sm.h"

#include "tap.h"

static char sent[1024];
static size_t sent_len;

/* declared by libmnl.h as mnl_socket_sendto, renamed above */
ssize_t capture_send(const struct mnl_socket *nl, const void *req,
		     size_t len)
{
	(void)nl;
	sent_len = len < sizeof(sent) ? len : 0;
	if (sent_len)
		memcpy(sent, req, len);
	errno = ECANCELED;
	return -1;
}

/* A handle that is never read from: only the send is reached. */
static void fake_handle(struct mrp_nl *h)
{
	memset(h, 0, sizeof(*h));
	h->nl = (struct mnl_socket *)(void *)h;
}

/* The only attribute of type t in a nest, NULL if none or several. */
static const struct nlattr *nested(const struct nlattr *nest, uint16_t t)
{
	const struct nlattr *a, *found = NULL;
	int n = 0;

	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_get_type(a) == t) {
			found = a;
			n++;
		}
	}
	return n == 1 ? found : NULL;
}

static int nested_count(const struct nlattr *nest)
{
	const struct nlattr *a;
	int n = 0;

	mnl_attr_for_each_nested(a, nest)
		n++;
	return n;
}

/*
 * The captured message is an RTM_SETLINK to bridge br with
 * IFLA_AF_SPEC { IFLA_BRIDGE_FLAGS SELF, IFLA_BRIDGE_MRP { type {} } }:
 * returns that innermost nest, or NULL after saying why.
 */
static const struct nlattr *bridge_mrp_nest(int br, uint16_t type)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)sent;
	const struct ifinfomsg *ifm;
	const struct nlattr *a, *af = NULL, *flags, *mrp, *req;
	int n = 0;

	CHECK(sent_len && mnl_nlmsg_ok(nlh, (int)sent_len) &&
	      nlh->nlmsg_len == sent_len, "a whole message: %zu bytes",
	      sent_len);
	if (!sent_len)
		return NULL;
	CHECK_EQ(nlh->nlmsg_type, RTM_SETLINK);
	CHECK_EQ(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	ifm = mnl_nlmsg_get_payload(nlh);
	CHECK_EQ(ifm->ifi_family, AF_BRIDGE);
	CHECK_EQ(ifm->ifi_index, br);
	mnl_attr_for_each(a, nlh, sizeof(*ifm)) {
		n++;
		if (mnl_attr_get_type(a) == IFLA_AF_SPEC)
			af = a;
	}
	CHECK(af && n == 1, "IFLA_AF_SPEC only, %d attribute(s)", n);
	if (!af)
		return NULL;
	CHECK_EQ(nested_count(af), 2);
	flags = nested(af, IFLA_BRIDGE_FLAGS);
	CHECK(flags && mnl_attr_get_payload_len(flags) == 2 &&
	      mnl_attr_get_u16(flags) == BRIDGE_FLAGS_SELF,
	      "IFLA_BRIDGE_FLAGS = BRIDGE_FLAGS_SELF");
	mrp = nested(af, IFLA_BRIDGE_MRP);
	CHECK(mrp, "IFLA_BRIDGE_MRP");
	if (!mrp)
		return NULL;
	CHECK_EQ(nested_count(mrp), 1);
	req = nested(mrp, type);
	CHECK(req && (req->nla_type & NLA_F_NESTED), "request nest %u",
	      (unsigned)type);
	return req;
}

/* Attribute t of nest is a u32 (or u16 if len 2) holding v */
static void check_uint(const struct nlattr *nest, uint16_t t, size_t len,
		       uint32_t v)
{
	const struct nlattr *a = nested(nest, t);

	CHECK(a, "attribute %u present once", (unsigned)t);
	if (!a)
		return;
	CHECK(mnl_attr_get_payload_len(a) == len,
	      "attribute %u: %u bytes, want %zu", (unsigned)t,
	      (unsigned)mnl_attr_get_payload_len(a), len);
	if (mnl_attr_get_payload_len(a) != len)
		return;
	if (len == 2)
		CHECK(mnl_attr_get_u16(a) == v, "attribute %u: %u, want %u",
		      (unsigned)t, (unsigned)mnl_attr_get_u16(a), v);
	else
		CHECK(mnl_attr_get_u32(a) == v, "attribute %u: %u, want %u",
		      (unsigned)t, mnl_attr_get_u32(a), v);
}

static void check_in_role(int br, uint32_t ring_id, uint16_t in_id, int port,
			  uint32_t role)
{
	const struct nlattr *in = bridge_mrp_nest(br, IFLA_BRIDGE_MRP_IN_ROLE);

	if (!in)
		return;
	/* br_mrp_in_role_parse() needs all four */
	CHECK_EQ(nested_count(in), 4);
	check_uint(in, IFLA_BRIDGE_MRP_IN_ROLE_RING_ID, 4, ring_id);
	check_uint(in, IFLA_BRIDGE_MRP_IN_ROLE_IN_ID, 2, in_id);
	check_uint(in, IFLA_BRIDGE_MRP_IN_ROLE_ROLE, 4, role);
	check_uint(in, IFLA_BRIDGE_MRP_IN_ROLE_I_IFINDEX, 4, (uint32_t)port);
}

static void in_role_mim(void)
{
	struct mrp_nl h;

	fake_handle(&h);
	sent_len = 0;
	CHECK_EQ(mrp_nl_in_role(&h, 3, 0xdeadbeef, 0xbeef, 7,
				BR_MRP_IN_ROLE_MIM), -ECANCELED);
	check_in_role(3, 0xdeadbeef, 0xbeef, 7, BR_MRP_IN_ROLE_MIM);
}

static void in_role_mic(void)
{
	struct mrp_nl h;

	fake_handle(&h);
	sent_len = 0;
	CHECK_EQ(mrp_nl_in_role(&h, 12, 1, 65535, 40, BR_MRP_IN_ROLE_MIC),
		 -ECANCELED);
	check_in_role(12, 1, 65535, 40, BR_MRP_IN_ROLE_MIC);
}

/* Disabling still names the port: the kernel checks it. */
static void in_role_disabled(void)
{
	struct mrp_nl h;

	fake_handle(&h);
	sent_len = 0;
	CHECK_EQ(mrp_nl_in_role(&h, 3, 2, 0, 9, BR_MRP_IN_ROLE_DISABLED),
		 -ECANCELED);
	check_in_role(3, 2, 0, 9, BR_MRP_IN_ROLE_DISABLED);
}

/* The uapi values mrpctl's role words map to (IEC 62439-2 order) */
static void in_role_values(void)
{
	CHECK_EQ(BR_MRP_IN_ROLE_DISABLED, 0);
	CHECK_EQ(BR_MRP_IN_ROLE_MIC, 1);
	CHECK_EQ(BR_MRP_IN_ROLE_MIM, 2);
}

/* IN_STATE: in_id as a u32 (br_mrp_in_state_policy), state */
static void in_state(void)
{
	const struct nlattr *r;
	struct mrp_nl h;

	fake_handle(&h);
	sent_len = 0;
	CHECK_EQ(mrp_nl_in_state(&h, 4, 0xfffe, BR_MRP_IN_STATE_CLOSED),
		 -ECANCELED);
	r = bridge_mrp_nest(4, IFLA_BRIDGE_MRP_IN_STATE);
	if (!r)
		return;
	CHECK_EQ(nested_count(r), 2);
	check_uint(r, IFLA_BRIDGE_MRP_IN_STATE_IN_ID, 4, 0xfffe);
	check_uint(r, IFLA_BRIDGE_MRP_IN_STATE_STATE, 4,
		   BR_MRP_IN_STATE_CLOSED);
	sent_len = 0;
	CHECK_EQ(mrp_nl_in_state(&h, 4, 0, BR_MRP_IN_STATE_OPEN), -ECANCELED);
	r = bridge_mrp_nest(4, IFLA_BRIDGE_MRP_IN_STATE);
	if (r)
		check_uint(r, IFLA_BRIDGE_MRP_IN_STATE_STATE, 4,
			   BR_MRP_IN_STATE_OPEN);
}

/* START_IN_TEST: all four (br_mrp_start_in_test_parse needs them) */
static void start_in_test(void)
{
	const struct nlattr *r;
	struct mrp_nl h;

	fake_handle(&h);
	sent_len = 0;
	CHECK_EQ(mrp_nl_start_in_test(&h, 9, 65535, 20000, 8, 10000000),
		 -ECANCELED);
	r = bridge_mrp_nest(9, IFLA_BRIDGE_MRP_START_IN_TEST);
	if (!r)
		return;
	CHECK_EQ(nested_count(r), 4);
	check_uint(r, IFLA_BRIDGE_MRP_START_IN_TEST_IN_ID, 4, 65535);
	check_uint(r, IFLA_BRIDGE_MRP_START_IN_TEST_INTERVAL, 4, 20000);
	check_uint(r, IFLA_BRIDGE_MRP_START_IN_TEST_MAX_MISS, 4, 8);
	check_uint(r, IFLA_BRIDGE_MRP_START_IN_TEST_PERIOD, 4, 10000000);
}

/* The uapi values enum mrp_in_state passes on unchanged */
static void in_state_values(void)
{
	CHECK_EQ(BR_MRP_IN_STATE_OPEN, MRP_IN_OPEN);
	CHECK_EQ(BR_MRP_IN_STATE_CLOSED, MRP_IN_CLOSED);
	CHECK_EQ(BR_MRP_IN_ROLE_MIM, MRP_IN_ROLE_MIM);
	CHECK_EQ(BR_MRP_IN_ROLE_MIC, MRP_IN_ROLE_MIC);
}

/* The request in_role was modelled on, checked the same way */
static void ring_role(void)
{
	const struct nlattr *r;
	struct mrp_nl h;

	fake_handle(&h);
	sent_len = 0;
	CHECK_EQ(mrp_nl_ring_role(&h, 5, 77, BR_MRP_RING_ROLE_MRM),
		 -ECANCELED);
	r = bridge_mrp_nest(5, IFLA_BRIDGE_MRP_RING_ROLE);
	if (!r)
		return;
	CHECK_EQ(nested_count(r), 2);
	check_uint(r, IFLA_BRIDGE_MRP_RING_ROLE_RING_ID, 4, 77);
	check_uint(r, IFLA_BRIDGE_MRP_RING_ROLE_ROLE, 4,
		   BR_MRP_RING_ROLE_MRM);
}

int main(void)
{
	RUN(in_role_mim);
	RUN(in_role_mic);
	RUN(in_role_disabled);
	RUN(in_role_values);
	RUN(in_state);
	RUN(start_in_test);
	RUN(in_state_values);
	RUN(ring_role);
	return tap_done();
}
