// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the MRP state machines, driven by a fake clock and fake
 * events.  No kernel, no sockets: every action the core asks for is
 * recorded with the (fake) time it was asked for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mrp_sm.h"
#include "mrp_util.h"
#include "tap.h"

static const uint8_t MAC_SELF[6] = { 0x02, 0, 0, 0, 0, 0x10 };
static const uint8_t MAC_LOW[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t MAC_HIGH[6] = { 0x02, 0, 0, 0, 0, 0x20 };

struct rec {
	uint64_t t;
	struct mrp_action a;
};

struct env {
	struct mrp_sm sm;
	uint64_t now;
	struct rec log[2048];
	unsigned n;
	bool overflow;
};

static struct env E;

static void collect(struct mrp_actions *acts)
{
	unsigned i;

	if (acts->overflow)
		E.overflow = true;
	for (i = 0; i < acts->n && E.n < 2048; i++) {
		E.log[E.n].t = E.now;
		E.log[E.n++].a = acts->a[i];
	}
}

static void env_init(enum mrp_ring_role role, unsigned profile)
{
	struct mrp_sm_cfg cfg;

	memset(&E, 0, sizeof(E));
	E.now = 1000000;	/* arbitrary non-zero start */
	if (mrp_sm_cfg_default(&cfg, role, profile))
		abort();
	memcpy(cfg.mac, MAC_SELF, 6);
	mrp_sm_init(&E.sm, &cfg);
}

static void ev_start(bool up0, bool up1)
{
	struct mrp_actions a = { 0 };

	mrp_sm_start(&E.sm, E.now, up0, up1, &a);
	collect(&a);
}

static void ev_link(unsigned port, bool up)
{
	struct mrp_actions a = { 0 };

	mrp_sm_link(&E.sm, E.now, port, up, &a);
	collect(&a);
}

static void ev_open(void)
{
	struct mrp_actions a = { 0 };

	mrp_sm_ring_open(&E.sm, E.now, &a);
	collect(&a);
}

static void ev_seen(void)
{
	struct mrp_actions a = { 0 };

	mrp_sm_test_seen(&E.sm, E.now, &a);
	collect(&a);
}

static void ev_frame(unsigned port, const struct mrp_pdu *pdu)
{
	struct mrp_actions a = { 0 };

	mrp_sm_frame(&E.sm, E.now, port, pdu, &a);
	collect(&a);
}

/* Advance the fake clock, firing timers exactly at their deadlines. */
static void advance(uint64_t us)
{
	uint64_t end = E.now + us;

	for (;;) {
		uint64_t d = mrp_sm_next_deadline(&E.sm);
		struct mrp_actions a = { 0 };

		if (!d || d > end)
			break;
		if (d > E.now)
			E.now = d;
		mrp_sm_timer(&E.sm, E.now, &a);
		collect(&a);
	}
	E.now = end;
}

static unsigned mark(void)
{
	return E.n;
}

/* Count actions of a type since index from */
static unsigned count(unsigned from, enum mrp_act_type t)
{
	unsigned i, c = 0;

	for (i = from; i < E.n; i++)
		if (E.log[i].a.type == t)
			c++;
	return c;
}

/* k-th (0-based) action of a type since from, NULL if none */
static const struct rec *nth(unsigned from, enum mrp_act_type t, unsigned k)
{
	unsigned i;

	for (i = from; i < E.n; i++)
		if (E.log[i].a.type == t && k-- == 0)
			return &E.log[i];
	return NULL;
}

/* last port state action for a port since from; -1 if none */
static int last_pstate(unsigned from, unsigned port)
{
	int st = -1;
	unsigned i;

	for (i = from; i < E.n; i++)
		if (E.log[i].a.type == MRP_ACT_PORT_STATE &&
		    E.log[i].a.port == port)
			st = (int)E.log[i].a.a;
	return st;
}

static struct mrp_pdu pdu_of(enum mrp_tlv type, uint16_t prio,
			     const uint8_t sa[6])
{
	struct mrp_pdu p;

	memset(&p, 0, sizeof(p));
	p.version = 1;
	p.type = type;
	p.has_common = true;
	memcpy(p.domain, mrp_domain_default, MRP_UUID_LEN);
	p.prio = prio;
	memcpy(p.sa, sa, 6);
	return p;
}

static struct mrp_pdu link_pdu(bool up, uint16_t blocked)
{
	struct mrp_pdu p = pdu_of(up ? MRP_TLV_LINK_UP : MRP_TLV_LINK_DOWN,
				  0, MAC_HIGH);

	p.blocked = blocked;
	return p;
}

static struct mrp_pdu topo_pdu(uint16_t interval_ms)
{
	struct mrp_pdu p = pdu_of(MRP_TLV_TOPO, 0x8000, MAC_LOW);

	p.interval = interval_ms;
	return p;
}

/*
 * A better manager's MRP_Test on port; a node that manages then gets its
 * MRP_TestMgrNAck, addressed to it: what makes an MRA give way.
 */
static void ev_yield(unsigned port, const struct mrp_pdu *better)
{
	bool mgr = E.sm.mrm_mode;

	ev_frame(port, better);
	if (mgr) {
		struct mrp_pdu n = pdu_of(MRP_TLV_OPTION, better->prio,
					  better->sa);

		n.sub_type = MRP_SUB_TEST_MGR_NACK;
		memcpy(n.other_sa, MAC_SELF, 6);
		n.other_prio = E.sm.cfg.prio;
		ev_frame(port, &n);
	}
}

/* Bring an MRM (profile 10) to CHK_RC with a proven-closed ring. */
static void mrm_closed(void)
{
	env_init(MRP_ROLE_MRM, 10);
	ev_start(true, true);
	/* NOTC timer: ring proved closed; past MRP_STALE_LINK_US too */
	advance(MRP_STALE_LINK_US);
}

/* ===================== MRM ===================== */

/* mrpd's config and state lines: parsed, formatted, parsed back. */
static void ring_args_round_trip(void)
{
	char line[] = "add br0 ring 7 primary p0 secondary p1 role mrc "
		      "profile 10 prio 0x9000 interval 2000 max-miss 4 period "
		      "20000 react 1 non-blocking 1 domain "
		      "0123abcd-4567-89ef-0011-2233445566FF";
	static const uint8_t dom[16] = {
		0x01, 0x23, 0xab, 0xcd, 0x45, 0x67, 0x89, 0xef,
		0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0xff,
	};
	struct mrp_ring_args a, b;
	char *argv[40], out[400], again[410], err[200];
	int argc;

	argc = mrp_split(line, argv, 40);
	CHECK_EQ(mrp_ring_args_parse(argc, argv, &a, 200, err, sizeof(err)),
		 0);
	CHECK(a.has_domain && !memcmp(a.domain, dom, 16), "domain");
	CHECK(a.nonblocking == 1 && a.react == 1 && a.prio == 0x9000 &&
	      a.profile == 10 && a.interval == 2000 && a.max_miss == 4 &&
	      a.period == 20000 && a.role == MRP_ROLE_MRC && a.id == 7,
	      "fields");
	mrp_ring_args_format(&a, out, sizeof(out));
	snprintf(again, sizeof(again), "add %s", out);
	argc = mrp_split(again, argv, 40);
	CHECK_EQ(mrp_ring_args_parse(argc, argv, &b, 200, err, sizeof(err)),
		 0);
	CHECK(!memcmp(&a, &b, sizeof(a)), "formatted and parsed back: %s",
	      out);
	{
		char bad[] = "add br0 ring 1 primary a secondary b role mrc "
			     "domain 0123abcd-4567-89ef-0011-2233445566F";
		char bad2[] = "add br0 ring 1 primary a secondary b role mrc "
			      "domain 0123abcd_4567-89ef-0011-2233445566FF";
		char bad3[] = "add br0 ring 1 primary a secondary b role mrc "
			      "non-blocking 2";

		argc = mrp_split(bad, argv, 40);
		CHECK(mrp_ring_args_parse(argc, argv, &b, 200, err,
					  sizeof(err)) == -EINVAL &&
		      strstr(err, "for domain"), "short uuid: %s", err);
		argc = mrp_split(bad2, argv, 40);
		CHECK(mrp_ring_args_parse(argc, argv, &b, 200, err,
					  sizeof(err)) == -EINVAL,
		      "uuid without its dashes");
		argc = mrp_split(bad3, argv, 40);
		CHECK(mrp_ring_args_parse(argc, argv, &b, 200, err,
					  sizeof(err)) == -EINVAL,
		      "non-blocking 2");
	}
}

static void mrm_start_blocks_then_closes(void)
{
	const struct rec *r;

	env_init(MRP_ROLE_MRM, 10);
	ev_start(true, true);
	CHECK(!E.overflow, "overflow");
	/* first: the role, both ports blocked, ring open */
	CHECK(E.n >= 4, "n=%u", E.n);
	CHECK(E.log[0].a.type == MRP_ACT_RING_ROLE &&
	      E.log[0].a.a == MRP_ROLE_MRM, "first action: ring role");
	CHECK(E.log[1].a.type == MRP_ACT_PORT_STATE && E.log[1].a.port == 0 &&
	      E.log[1].a.a == MRP_PORT_BLOCKED, "second action");
	CHECK(E.log[2].a.type == MRP_ACT_PORT_STATE && E.log[2].a.port == 1 &&
	      E.log[2].a.a == MRP_PORT_BLOCKED, "third action");
	CHECK_EQ(last_pstate(0, 0), MRP_PORT_FORWARDING);
	CHECK_EQ(last_pstate(0, 1), MRP_PORT_BLOCKED);
	r = nth(0, MRP_ACT_START_TEST, 0);
	CHECK(r && r->a.a == 1000 && r->a.b == 3 && r->a.d == 0,
	      "start test 1000us x3");
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	r = nth(0, MRP_ACT_RING_STATE, 1);
	CHECK(r && r->a.a == MRP_RING_CLOSED, "ring closed");
	/* the first closure blocks a port that forwarded before: TC */
	CHECK_EQ(count(0, MRP_ACT_SEND_TOPO), 1);
	CHECK(E.sm.no_tc, "no_tc after start");
	advance(10000);
	CHECK_EQ(count(0, MRP_ACT_SEND_TOPO), 4);
	CHECK_EQ(count(0, MRP_ACT_FLUSH), 1);
	/* later closures by link up do not announce */
	{
		unsigned m = mark();

		ev_link(1, false);
		ev_link(1, true);
		advance(10000);
		CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 0);
	}
}

static void mrm_ac_stat1_secondary_up_swaps(void)
{
	unsigned m;

	env_init(MRP_ROLE_MRM, 10);
	ev_start(false, false);
	CHECK_EQ(E.sm.mrm_state, MRM_AC_STAT1);
	m = mark();
	ev_link(1, true);
	CHECK_EQ(E.sm.prim, 1);
	/* never told to the kernel: it cannot swap port roles */
	CHECK_EQ(count(m, MRP_ACT_PORT_ROLE), 0);
	CHECK_EQ(last_pstate(m, 1), MRP_PORT_FORWARDING);
	CHECK_EQ(E.sm.mrm_state, MRM_PRM_UP);
	CHECK_EQ(count(m, MRP_ACT_START_TEST), 1);
}

static void mrm_prm_up_primary_down(void)
{
	unsigned m;

	env_init(MRP_ROLE_MRM, 10);
	ev_start(true, false);
	CHECK_EQ(E.sm.mrm_state, MRM_PRM_UP);
	m = mark();
	ev_link(0, false);
	CHECK_EQ(E.sm.mrm_state, MRM_AC_STAT1);
	CHECK_EQ(last_pstate(m, 0), MRP_PORT_BLOCKED);
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 0);
}

static void mrm_no_tc_until_proven_closed(void)
{
	unsigned m, tc;

	env_init(MRP_ROLE_MRM, 10);
	ev_start(true, true);
	CHECK(E.sm.no_tc, "no_tc");
	/* opening right away (ring was never closed): no TC.  The report
	 * waits MRP_CONFIRM_US for a regain (mrm_loss_report_after_close)
	 */
	env_init(MRP_ROLE_MRM, 10);
	ev_start(true, true);
	m = mark();
	advance(1000 + MRP_CONFIRM_US);
	tc = count(m, MRP_ACT_SEND_TOPO);	/* the closure's own series */
	env_init(MRP_ROLE_MRM, 10);
	ev_start(true, true);
	m = mark();
	E.now += 1000;
	ev_open();
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	advance(MRP_CONFIRM_US);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RO);
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), tc);
	CHECK_EQ(last_pstate(m, 1), MRP_PORT_FORWARDING);
	CHECK_EQ(E.sm.st.openings, 1);

	/* timer path: no loss within (max_miss + 2) intervals */
	env_init(MRP_ROLE_MRM, 10);
	ev_start(true, true);
	advance(4999);
	CHECK(E.sm.no_tc, "still no_tc before 5 intervals");
	advance(1);
	CHECK(!E.sm.no_tc, "no_tc cleared at 5 intervals");

	/* frame path: own test frame came back */
	env_init(MRP_ROLE_MRM, 10);
	ev_start(true, true);
	{
		struct mrp_pdu p = pdu_of(MRP_TLV_TEST, 0x8000, MAC_SELF);

		ev_frame(1, &p);
	}
	CHECK(!E.sm.no_tc, "own test frame clears no_tc");
}

static void mrm_ring_open_topology_change(void)
{
	unsigned m;
	uint64_t t0;
	const struct rec *r;

	mrm_closed();
	m = mark();
	t0 = E.now;
	ev_open();
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RO);
	CHECK_EQ(last_pstate(m, 1), MRP_PORT_FORWARDING);
	r = nth(m, MRP_ACT_RING_STATE, 0);
	CHECK(r && r->a.a == MRP_RING_OPEN, "ring state open");
	CHECK_EQ(E.sm.st.openings, 1);
	/* first TC immediately, interval = TOPNRmax * TOPchgT = 1.5 ms */
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 1);
	CHECK_EQ(count(m, MRP_ACT_FLUSH), 0);
	advance(10000);
	/* 4 frames: 0, 500, 1000, 1500 us; intervals 1, 1, 0, 0 ms */
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 4);
	{
		static const uint64_t dt[4] = { 0, 500, 1000, 1500 };
		static const uint32_t iv[4] = { 1, 1, 0, 0 };

		unsigned i;

		for (i = 0; i < 4; i++) {
			r = nth(m, MRP_ACT_SEND_TOPO, i);
			CHECK(r && r->t - t0 == dt[i], "TC %u at %llu", i,
			      r ? (unsigned long long)(r->t - t0) : 0ULL);
			CHECK(r && r->a.a == iv[i], "TC %u interval %u", i,
			      r ? r->a.a : 0);
		}
	}
	/* the MRM flushes its own FDB with the last TC, once */
	CHECK_EQ(count(m, MRP_ACT_FLUSH), 1);
	r = nth(m, MRP_ACT_FLUSH, 0);
	CHECK(r && r->t - t0 == 1500, "flush at +1500");
}

static void mrm_topology_change_profile_200(void)
{
	unsigned m;
	const struct rec *r;
	uint64_t t0;

	env_init(MRP_ROLE_MRM, 200);
	ev_start(true, true);
	advance(200000);
	m = mark();
	t0 = E.now;
	ev_open();
	advance(100000);
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 4);
	r = nth(m, MRP_ACT_SEND_TOPO, 0);
	CHECK(r && r->a.a == 30, "first interval 30 ms (%u)", r ? r->a.a : 0);
	r = nth(m, MRP_ACT_SEND_TOPO, 1);
	CHECK(r && r->a.a == 20 && r->t - t0 == 10000, "second 20 ms @10ms");
	r = nth(m, MRP_ACT_SEND_TOPO, 3);
	CHECK(r && r->a.a == 0 && r->t - t0 == 30000, "last 0 ms @30ms");
	r = nth(m, MRP_ACT_FLUSH, 0);
	CHECK(r && r->t - t0 == 30000, "flush at 30 ms");
	/* the kernel's test goes on at 20 ms: not started again */
	CHECK_EQ(E.sm.test_interval, 20000);
	CHECK_EQ(count(m, MRP_ACT_START_TEST), 0);
}

static void mrm_ring_closes_again(void)
{
	unsigned m;
	const struct rec *r;

	mrm_closed();
	ev_open();
	advance(10000);
	m = mark();
	ev_seen();
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	CHECK_EQ(last_pstate(m, 1), MRP_PORT_BLOCKED);
	r = nth(m, MRP_ACT_RING_STATE, 0);
	CHECK(r && r->a.a == MRP_RING_CLOSED, "closed");
	/* blocking the secondary is a topology change too */
	advance(10000);
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 4);
	CHECK_EQ(count(m, MRP_ACT_FLUSH), 1);
	/* repeated reports in CHK_RC do nothing */
	m = mark();
	ev_seen();
	CHECK_EQ(E.n - m, 0);
}

static void mrm_open_in_other_states_only_retests(void)
{
	unsigned m;

	mrm_closed();
	ev_open();
	advance(10000);
	m = mark();
	ev_open();	/* second report while open */
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RO);
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 0);
	CHECK_EQ(count(m, MRP_ACT_PORT_STATE), 0);
}

static void mrm_chk_rc_primary_down(void)
{
	unsigned m;

	mrm_closed();
	m = mark();
	ev_link(0, false);
	CHECK_EQ(E.sm.mrm_state, MRM_PRM_UP);
	CHECK_EQ(E.sm.prim, 1);
	CHECK_EQ(last_pstate(m, 0), MRP_PORT_BLOCKED);
	CHECK_EQ(last_pstate(m, 1), MRP_PORT_FORWARDING);
	CHECK_EQ(count(m, MRP_ACT_PORT_ROLE), 0);
	CHECK_EQ(E.sm.st.openings, 1);
	advance(10000);
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 4);
	CHECK_EQ(count(m, MRP_ACT_FLUSH), 1);
}

static void mrm_chk_rc_secondary_down(void)
{
	unsigned m;

	mrm_closed();
	m = mark();
	ev_link(1, false);
	CHECK_EQ(E.sm.mrm_state, MRM_PRM_UP);
	CHECK_EQ(E.sm.prim, 0);
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 0);
	CHECK_EQ(E.sm.st.openings, 1);
	/* and back up: closed again without TC */
	m = mark();
	ev_link(1, true);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 0);
	/* the kernel's test starts over, or it reports the misses it
	 * counted while the ring was open */
	CHECK_EQ(count(m, MRP_ACT_START_TEST), 1);
}

/* An own test frame still in flight when the secondary went down does
 * not close the ring: the client's LinkDown that follows must not count
 * a second transition.
 */
static void mrm_prm_up_stale_test(void)
{
	struct mrp_pdu p = pdu_of(MRP_TLV_TEST, 0x8000, MAC_SELF);
	unsigned m;

	mrm_closed();
	ev_link(1, false);
	CHECK_EQ(E.sm.mrm_state, MRM_PRM_UP);
	CHECK_EQ(E.sm.st.openings, 1);
	m = mark();
	ev_seen();
	ev_frame(0, &p);
	CHECK_EQ(E.sm.mrm_state, MRM_PRM_UP);
	CHECK_EQ(count(m, MRP_ACT_PORT_STATE), 0);
	p = link_pdu(false, 1);
	ev_frame(0, &p);
	CHECK_EQ(E.sm.st.openings, 1);
	/* the secondary comes back: closed */
	ev_link(1, true);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	CHECK_EQ(E.sm.st.openings, 1);
}

static void mrm_chk_ro_link_down(void)
{
	unsigned m;

	mrm_closed();
	ev_open();
	advance(10000);
	m = mark();
	ev_link(0, false);	/* primary down while open */
	CHECK_EQ(E.sm.mrm_state, MRM_PRM_UP);
	CHECK_EQ(E.sm.prim, 1);
	CHECK_EQ(last_pstate(m, 0), MRP_PORT_BLOCKED);
	advance(10000);
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 4);

	mrm_closed();
	ev_open();
	advance(10000);
	m = mark();
	ev_link(1, false);	/* secondary down while open */
	CHECK_EQ(E.sm.mrm_state, MRM_PRM_UP);
	CHECK_EQ(last_pstate(m, 1), MRP_PORT_BLOCKED);
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 0);
}

static void mrm_linkdown_frame_opens_ring(void)
{
	unsigned m;
	struct mrp_pdu p = link_pdu(false, 1);
	const struct rec *r;

	mrm_closed();
	advance(MRP_STALE_LINK_US);
	m = mark();
	ev_frame(0, &p);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RO);
	CHECK_EQ(last_pstate(m, 1), MRP_PORT_FORWARDING);
	r = nth(m, MRP_ACT_SEND_TOPO, 0);
	CHECK(r && r->a.a == 0, "TC with interval 0");
	CHECK_EQ(count(m, MRP_ACT_FLUSH), 1);	/* immediate */
	CHECK_EQ(E.sm.st.openings, 1);
	CHECK_EQ(E.sm.st.link_rx, 1);
}

/*
 * The test frames close the ring after a break; a client that heard of its
 * link late then sends LinkDown into the closed ring.  Within
 * MRP_STALE_LINK_US of the closure that does not open the ring a second
 * time for the same break; later it does.
 */
static void mrm_stale_linkdown_after_close(void)
{
	struct mrp_pdu p = link_pdu(false, 1);
	unsigned m;

	mrm_closed();
	advance(MRP_STALE_LINK_US);
	ev_open();
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RO);
	CHECK_EQ(E.sm.st.openings, 1);
	advance(20000);
	ev_seen();
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	advance(MRP_STALE_LINK_US - 1000);
	m = mark();
	ev_frame(0, &p);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	CHECK_EQ(count(m, MRP_ACT_PORT_STATE), 0);
	CHECK_EQ(E.sm.st.openings, 1);
	CHECK_EQ(E.sm.st.stale_link_rx, 1);
	advance(1000);
	ev_frame(0, &p);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RO);
	CHECK_EQ(last_pstate(m, 1), MRP_PORT_FORWARDING);
	CHECK_EQ(E.sm.st.openings, 2);
}

/*
 * A loss report just after the ring closed waits MRP_CONFIRM_US (or
 * max-miss test intervals if longer):
 * the regain that follows at once (a switch driver replaying a loss and
 * regain of the break just closed) drops it; with no regain it opens the
 * ring.
 */
static void mrm_loss_report_after_close(void)
{
	unsigned m;

	mrm_closed();
	ev_open();
	advance(20000);
	ev_seen();
	CHECK_EQ(E.sm.st.openings, 1);
	advance(30000);
	m = mark();
	ev_open();
	ev_seen();
	advance(10000);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	CHECK_EQ(count(m, MRP_ACT_PORT_STATE), 0);
	CHECK_EQ(E.sm.st.openings, 1);
	CHECK_EQ(E.sm.st.stale_loss, 1);

	/* a real new break: open after MRP_CONFIRM_US (> 3 x 1 ms) */
	ev_open();
	advance(MRP_CONFIRM_US - 1);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	advance(1);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RO);
	CHECK_EQ(last_pstate(m, 1), MRP_PORT_FORWARDING);
	CHECK_EQ(E.sm.st.openings, 2);

	/* long after a closure: at once */
	advance(20000);
	ev_seen();
	advance(MRP_STALE_LINK_US);
	ev_open();
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RO);
	CHECK_EQ(E.sm.st.openings, 3);
}

static void mrm_linkup_frame_closed_ring(void)
{
	unsigned m;
	struct mrp_pdu p = link_pdu(true, 1);

	mrm_closed();
	m = mark();
	ev_frame(0, &p);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 1);
	CHECK_EQ(count(m, MRP_ACT_FLUSH), 1);
}

static void mrm_chk_ro_link_frames(void)
{
	unsigned m;
	struct mrp_pdu up_b = link_pdu(true, 1), down = link_pdu(false, 1);
	struct mrp_pdu up_nb = link_pdu(true, 0);
	const struct rec *r;

	mrm_closed();
	ev_open();
	advance(10000);
	/* LinkUp from a client that keeps its port blocked: short test */
	m = mark();
	ev_frame(0, &up_b);
	r = nth(m, MRP_ACT_START_TEST, 0);
	CHECK(r && r->a.a == 500, "short test 500 us");
	CHECK(E.sm.add_test, "add_test");
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RO);
	/* a second one while the short test runs: nothing */
	m = mark();
	ev_frame(0, &up_b);
	CHECK_EQ(E.n - m, 0);
	/* add_test ends after the short interval */
	m = mark();
	advance(500);
	CHECK(!E.sm.add_test, "add_test cleared");
	CHECK(nth(m, MRP_ACT_START_TEST, 0) &&
	      nth(m, MRP_ACT_START_TEST, 0)->a.a == 1000,
	      "back to the default interval");
	/* LinkDown: short test again */
	m = mark();
	ev_frame(0, &down);
	CHECK(E.sm.add_test, "add_test on LinkDown");
	CHECK_EQ(count(m, MRP_ACT_START_TEST), 1);
	advance(600);
	/* LinkUp from a client that cannot block: close immediately */
	m = mark();
	ev_frame(0, &up_nb);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	CHECK_EQ(last_pstate(m, 1), MRP_PORT_BLOCKED);
	CHECK_EQ(count(m, MRP_ACT_FLUSH), 1);
}

static void mrm_prm_up_link_frames(void)
{
	unsigned m;
	struct mrp_pdu up_b = link_pdu(true, 1), up_nb = link_pdu(true, 0);
	struct mrp_pdu down_nb = link_pdu(false, 0);

	env_init(MRP_ROLE_MRM, 30);
	ev_start(true, false);
	CHECK_EQ(E.sm.mrm_state, MRM_PRM_UP);
	m = mark();
	ev_frame(0, &up_b);
	CHECK(E.sm.add_test, "add_test");
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 0);
	advance(3500);
	m = mark();
	ev_frame(0, &down_nb);
	CHECK_EQ(E.n - m, 0);
	ev_frame(0, &up_nb);
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 1);
	CHECK(nth(m, MRP_ACT_START_TEST, 0) &&
	      nth(m, MRP_ACT_START_TEST, 0)->a.a == 1000, "short 1 ms");
	CHECK_EQ(E.sm.mrm_state, MRM_PRM_UP);
}

static void mrm_react_off(void)
{
	unsigned m;
	struct mrp_pdu down = link_pdu(false, 1);

	mrm_closed();
	E.sm.cfg.react_on_link_change = false;
	m = mark();
	ev_frame(0, &down);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	CHECK(nth(m, MRP_ACT_START_TEST, 0) &&
	      nth(m, MRP_ACT_START_TEST, 0)->a.a == 500, "short test only");
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 0);
}

/* Another manager's TopologyChange flushes in its time; our own not. */
static void mrm_flushes_on_topology_change(void)
{
	unsigned m;
	struct mrp_pdu t = topo_pdu(5);
	struct mrp_pdu own = pdu_of(MRP_TLV_TOPO, 0x8000, MAC_SELF);

	mrm_closed();
	m = mark();
	ev_frame(0, &t);
	CHECK_EQ(E.n - m, 0);
	advance(4000);
	CHECK_EQ(count(m, MRP_ACT_FLUSH), 0);
	advance(1000);
	CHECK_EQ(count(m, MRP_ACT_FLUSH), 1);
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 0);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	m = mark();
	own.interval = 0;
	ev_frame(1, &own);
	advance(10000);
	CHECK_EQ(E.n - m, 0);
	CHECK_EQ(E.sm.st.ignored_rx, 1);
}

/* A request while a series runs does not start it over. */
static void mrm_topology_change_series_runs_on(void)
{
	const struct rec *r;
	unsigned m;

	mrm_closed();
	m = mark();
	ev_open();		/* TC series: 3 frames 500 us apart, then 0 */
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 1);
	advance(600);
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 2);
	ev_link(0, false);	/* primary down in CHK_RO: swap, TC */
	CHECK_EQ(E.sm.mrm_state, MRM_PRM_UP);
	CHECK_EQ(E.sm.st.topo_held, 1);
	advance(1000);
	/* 1 + 3 frames and one flush, 1.5 ms after the first */
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 4);
	CHECK_EQ(count(m, MRP_ACT_FLUSH), 1);
	r = nth(m, MRP_ACT_FLUSH, 0);
	CHECK(r && r->t == E.log[m].t + 1500, "flush at %llu",
	      r ? (unsigned long long)(r->t - E.log[m].t) : 0ULL);
}

/* Every change of the ring state counts as MRP_Transition does. */
static void mrm_transitions_count_every_change(void)
{
	mrm_closed();
	CHECK_EQ(E.sm.st.transitions, 1);	/* open -> closed at start */
	CHECK_EQ(E.sm.st.openings, 0);
	ev_open();
	CHECK_EQ(E.sm.st.transitions, 2);
	CHECK_EQ(E.sm.st.openings, 1);
	advance(200000);
	ev_seen();
	CHECK_EQ(E.sm.st.transitions, 3);
	CHECK_EQ(E.sm.st.openings, 1);
}

static void mrm_test_refresh(void)
{
	unsigned m;
	const struct rec *r;

	mrm_closed();
	m = mark();
	advance(5000000);	/* half the 10 s period */
	r = nth(m, MRP_ACT_START_TEST, 0);
	CHECK(r && r->a.a == 1000 && r->a.c == 10000000 && r->a.d == 0,
	      "START_TEST refreshed");
	advance(5000000);
	CHECK_EQ(count(m, MRP_ACT_START_TEST), 2);
}

/* ===================== MRC ===================== */

static void mrc_start_link_up_series(void)
{
	const struct rec *r;
	unsigned m, i;
	uint64_t t0;

	env_init(MRP_ROLE_MRC, 10);
	ev_start(true, false);
	CHECK(nth(0, MRP_ACT_RING_ROLE, 0)->a.a == MRP_ROLE_MRC, "role");
	/* a client's blocked ports pass MRP frames: the role comes first */
	CHECK(E.log[0].a.type == MRP_ACT_RING_ROLE, "role before blocking");
	CHECK_EQ(count(0, MRP_ACT_START_TEST), 0);
	CHECK_EQ(count(0, MRP_ACT_RING_STATE), 0);
	CHECK_EQ(E.sm.mrc_state, MRC_DE_IDLE);
	CHECK_EQ(last_pstate(0, 0), MRP_PORT_FORWARDING);
	CHECK_EQ(last_pstate(0, 1), MRP_PORT_BLOCKED);
	m = mark();
	t0 = E.now;
	ev_link(1, true);
	CHECK_EQ(E.sm.mrc_state, MRC_PT);
	advance(4999);
	CHECK_EQ(last_pstate(m, 1), -1);	/* still blocked */
	advance(1);
	/* LNKNRmax + 1 = 5 LinkUp frames 1 ms apart, intervals 4..0 ms */
	CHECK_EQ(count(m, MRP_ACT_SEND_LINK), 5);
	for (i = 0; i < 5; i++) {
		r = nth(m, MRP_ACT_SEND_LINK, i);
		CHECK(r && r->a.up && r->a.port == 0 &&
		      r->t - t0 == i * 1000 && r->a.a == 4 - i &&
		      r->a.c == 1, "LinkUp %u", i);
	}
	/* then the port forwards by itself */
	CHECK_EQ(last_pstate(m, 1), MRP_PORT_FORWARDING);
	r = nth(m, MRP_ACT_PORT_STATE, 0);
	CHECK(r && r->t - t0 == 5000, "forwarding at 5 ms");
	CHECK_EQ(E.sm.mrc_state, MRC_PT_IDLE);
}

static void mrc_topology_change_in_pt(void)
{
	unsigned m;
	struct mrp_pdu t = topo_pdu(1);
	const struct rec *r;
	uint64_t t0;

	env_init(MRP_ROLE_MRC, 10);
	ev_start(true, true);
	CHECK_EQ(E.sm.mrc_state, MRC_PT);
	advance(1500);
	m = mark();
	t0 = E.now;
	ev_frame(1, &t);
	CHECK_EQ(E.sm.mrc_state, MRC_PT_IDLE);
	CHECK_EQ(last_pstate(m, 1), MRP_PORT_FORWARDING);
	CHECK_EQ(count(m, MRP_ACT_FLUSH), 0);
	advance(10000);
	CHECK_EQ(count(m, MRP_ACT_SEND_LINK), 0);	/* series stopped */
	CHECK_EQ(count(m, MRP_ACT_FLUSH), 1);
	r = nth(m, MRP_ACT_FLUSH, 0);
	CHECK(r && r->t - t0 == 1000, "flush after 1 ms");
}

static void mrc_flush_timing(void)
{
	unsigned m;
	struct mrp_pdu t3 = topo_pdu(3), t0 = topo_pdu(0);

	env_init(MRP_ROLE_MRC, 200);
	ev_start(true, false);
	CHECK_EQ(E.sm.mrc_state, MRC_DE_IDLE);
	m = mark();
	ev_frame(0, &t3);
	advance(2999);
	CHECK_EQ(count(m, MRP_ACT_FLUSH), 0);
	advance(1);
	CHECK_EQ(count(m, MRP_ACT_FLUSH), 1);
	/* a repeated TC re-arms the timer from its own interval */
	m = mark();
	ev_frame(0, &t3);
	advance(1000);
	ev_frame(0, &t3);
	advance(2999);
	CHECK_EQ(count(m, MRP_ACT_FLUSH), 0);
	advance(1);
	CHECK_EQ(count(m, MRP_ACT_FLUSH), 1);
	/* interval 0: flush now */
	m = mark();
	ev_frame(0, &t0);
	CHECK_EQ(count(m, MRP_ACT_FLUSH), 1);
	/* a TC in AC_STAT1 is ignored */
	env_init(MRP_ROLE_MRC, 200);
	ev_start(false, false);
	m = mark();
	ev_frame(0, &t0);
	CHECK_EQ(count(m, MRP_ACT_FLUSH), 0);
}

/* A client that cannot block forwards at link-up and says so. */
static void mrc_non_blocking(void)
{
	const struct rec *r;
	unsigned m;

	env_init(MRP_ROLE_MRC, 10);
	E.sm.cfg.blocked = 0;
	ev_start(true, false);
	CHECK_EQ(E.sm.mrc_state, MRC_DE_IDLE);
	m = mark();
	ev_link(1, true);
	CHECK_EQ(E.sm.mrc_state, MRC_PT);
	CHECK_EQ(last_pstate(m, 1), MRP_PORT_FORWARDING);
	r = nth(m, MRP_ACT_SEND_LINK, 0);
	CHECK(r && r->a.up && r->a.c == 0, "LinkUp with MRP_Blocked 0");
	/* it leaves by the primary, and says so (MRP_PortRole) */
	CHECK(r && r->a.port == E.sm.prim && r->a.b == MRP_PORT_PRIMARY,
	      "MRP_PortRole of the sending port");
	/* the manager's TopologyChange ends the series */
	{
		struct mrp_pdu t = topo_pdu(0);

		ev_frame(0, &t);
		CHECK_EQ(E.sm.mrc_state, MRC_PT_IDLE);
	}
	/* and a blocking one (the default) keeps its secondary blocked */
	env_init(MRP_ROLE_MRC, 10);
	ev_start(true, false);
	m = mark();
	ev_link(1, true);
	CHECK_EQ(last_pstate(m, 1), -1);
	r = nth(m, MRP_ACT_SEND_LINK, 0);
	CHECK(r && r->a.c == 1, "LinkUp with MRP_Blocked 1");
}

static void mrc_secondary_down(void)
{
	unsigned m, i;
	uint64_t t0;

	env_init(MRP_ROLE_MRC, 200);
	ev_start(true, true);
	advance(200000);
	CHECK_EQ(E.sm.mrc_state, MRC_PT_IDLE);
	m = mark();
	t0 = E.now;
	ev_link(1, false);
	CHECK_EQ(E.sm.mrc_state, MRC_DE);
	CHECK_EQ(last_pstate(m, 1), MRP_PORT_BLOCKED);
	advance(200000);
	CHECK_EQ(count(m, MRP_ACT_SEND_LINK), 5);
	for (i = 0; i < 5; i++) {
		const struct rec *r = nth(m, MRP_ACT_SEND_LINK, i);

		CHECK(r && !r->a.up && r->a.port == 0 &&
		      r->t - t0 == i * 20000 && r->a.a == (4 - i) * 20,
		      "LinkDown %u", i);
	}
	CHECK_EQ(E.sm.mrc_state, MRC_DE_IDLE);
}

static void mrc_primary_down_swaps(void)
{
	unsigned m;
	const struct rec *r;

	env_init(MRP_ROLE_MRC, 10);
	ev_start(true, true);
	advance(10000);
	CHECK_EQ(E.sm.mrc_state, MRC_PT_IDLE);
	m = mark();
	ev_link(0, false);
	CHECK_EQ(E.sm.prim, 1);
	CHECK_EQ(E.sm.mrc_state, MRC_DE);
	CHECK_EQ(last_pstate(m, 0), MRP_PORT_BLOCKED);
	CHECK_EQ(count(m, MRP_ACT_PORT_ROLE), 0);
	r = nth(m, MRP_ACT_SEND_LINK, 0);
	CHECK(r && !r->a.up && r->a.port == 1, "LinkDown on new primary");
	/* the lost port comes back: LinkUp series, then forwarding */
	advance(10000);
	m = mark();
	ev_link(0, true);
	CHECK_EQ(E.sm.mrc_state, MRC_PT);
	r = nth(m, MRP_ACT_SEND_LINK, 0);
	CHECK(r && r->a.up && r->a.port == 1, "LinkUp on primary");
	advance(10000);
	CHECK_EQ(E.sm.mrc_state, MRC_PT_IDLE);
	CHECK_EQ(last_pstate(m, 0), MRP_PORT_FORWARDING);
}

static void mrc_pt_down_again(void)
{
	unsigned m;

	env_init(MRP_ROLE_MRC, 10);
	ev_start(true, true);
	CHECK_EQ(E.sm.mrc_state, MRC_PT);
	advance(1500);
	m = mark();
	ev_link(1, false);	/* flap during the LinkUp series */
	CHECK_EQ(E.sm.mrc_state, MRC_DE);
	CHECK(nth(m, MRP_ACT_SEND_LINK, 0) &&
	      !nth(m, MRP_ACT_SEND_LINK, 0)->a.up, "LinkDown");
	advance(10000);
	CHECK_EQ(count(m, MRP_ACT_SEND_LINK), 5);	/* no LinkUp left */
	CHECK_EQ(E.sm.mrc_state, MRC_DE_IDLE);

	/* primary down during PT */
	env_init(MRP_ROLE_MRC, 10);
	ev_start(true, true);
	m = mark();
	ev_link(0, false);
	CHECK_EQ(E.sm.prim, 1);
	CHECK_EQ(E.sm.mrc_state, MRC_DE);
	CHECK_EQ(last_pstate(m, 1), MRP_PORT_FORWARDING);
	CHECK_EQ(last_pstate(m, 0), MRP_PORT_BLOCKED);
}

static void mrc_de_transitions(void)
{
	unsigned m;
	struct mrp_pdu t = topo_pdu(0);

	/* DE + TC -> DE_IDLE, series stopped */
	env_init(MRP_ROLE_MRC, 10);
	ev_start(true, true);
	advance(10000);
	ev_link(1, false);
	CHECK_EQ(E.sm.mrc_state, MRC_DE);
	m = mark();
	ev_frame(0, &t);
	CHECK_EQ(E.sm.mrc_state, MRC_DE_IDLE);
	advance(10000);
	CHECK_EQ(count(m, MRP_ACT_SEND_LINK), 0);
	CHECK_EQ(count(m, MRP_ACT_FLUSH), 1);

	/* DE + primary down -> AC_STAT1 */
	env_init(MRP_ROLE_MRC, 10);
	ev_start(true, true);
	advance(10000);
	ev_link(1, false);
	m = mark();
	ev_link(0, false);
	CHECK_EQ(E.sm.mrc_state, MRC_AC_STAT1);
	CHECK_EQ(last_pstate(m, 0), MRP_PORT_BLOCKED);
	advance(10000);
	CHECK_EQ(count(m, MRP_ACT_SEND_LINK), 0);

	/* DE_IDLE + primary down -> AC_STAT1 */
	env_init(MRP_ROLE_MRC, 10);
	ev_start(true, false);
	m = mark();
	ev_link(0, false);
	CHECK_EQ(E.sm.mrc_state, MRC_AC_STAT1);
	CHECK_EQ(last_pstate(m, 0), MRP_PORT_BLOCKED);
}

static void mrc_ignores_manager_frames(void)
{
	unsigned m;
	struct mrp_pdu l = link_pdu(false, 1);
	struct mrp_pdu tst = pdu_of(MRP_TLV_TEST, 0x8000, MAC_LOW);

	env_init(MRP_ROLE_MRC, 10);
	ev_start(true, true);
	m = mark();
	ev_frame(0, &l);
	ev_frame(0, &tst);
	CHECK_EQ(E.n - m, 0);
	CHECK(E.sm.have_mgr && !memcmp(E.sm.mgr_mac, MAC_LOW, 6) &&
	      E.sm.mgr_prio == 0x8000, "manager identity from test frames");
	CHECK(!E.sm.mrm_mode, "client");
}

static void duplicate_link_events_ignored(void)
{
	unsigned m;

	env_init(MRP_ROLE_MRC, 10);
	ev_start(true, true);
	m = mark();
	ev_link(0, true);
	ev_link(1, true);
	CHECK_EQ(E.n - m, 0);
}

/* ===================== MRA ===================== */

static void mra_starts_as_manager(void)
{
	const struct rec *r;

	env_init(MRP_ROLE_MRA, 10);
	CHECK_EQ(E.sm.cfg.prio, 0xA000);
	ev_start(true, true);
	r = nth(0, MRP_ACT_RING_ROLE, 0);
	CHECK(r && r->a.a == MRP_ROLE_MRA, "kernel role MRA");
	CHECK(E.sm.mrm_mode, "acting as MRM");
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	r = nth(0, MRP_ACT_START_TEST, 0);
	CHECK(r && r->a.d == 0, "sending tests");
	CHECK(E.sm.have_mgr && !memcmp(E.sm.mgr_mac, MAC_SELF, 6), "self");
}

static void mra_nacks_worse_manager(void)
{
	unsigned m, i;
	const struct rec *r;
	struct mrp_pdu worse = pdu_of(MRP_TLV_TEST, 0xB000, MAC_LOW);
	struct mrp_pdu tie = pdu_of(MRP_TLV_TEST, 0xA000, MAC_HIGH);

	env_init(MRP_ROLE_MRA, 10);
	ev_start(true, true);
	advance(20000);
	m = mark();
	ev_frame(0, &worse);
	CHECK(E.sm.mrm_mode, "still manager");
	r = nth(m, MRP_ACT_SEND_OPTION, 0);
	CHECK(r && r->a.a == MRP_SUB_TEST_MGR_NACK && r->a.prio == 0xB000 &&
	      !memcmp(r->a.mac, MAC_LOW, 6), "NACK names the worse manager");
	/* same priority, higher MAC: worse too */
	m = mark();
	ev_frame(1, &tie);
	CHECK(E.sm.mrm_mode, "still manager (tie on prio, MAC decides)");
	CHECK_EQ(count(m, MRP_ACT_SEND_OPTION), 1);
	/* a backlog of their test frames: one NACK each per 100 ms */
	m = mark();
	for (i = 0; i < 50; i++) {
		ev_frame(i & 1, i & 2 ? &worse : &tie);
		advance(1000);
	}
	CHECK_EQ(count(m, MRP_ACT_SEND_OPTION), 0);
	CHECK_EQ(E.sm.st.nack_held, 50);
	advance(MRP_NACK_HOLD_US);
	ev_frame(0, &worse);
	ev_frame(1, &tie);
	CHECK_EQ(count(m, MRP_ACT_SEND_OPTION), 2);
	CHECK(E.sm.mrm_mode, "still manager");
}

static void mra_yields_to_better_manager(void)
{
	unsigned m;
	const struct rec *r;
	struct mrp_pdu better = pdu_of(MRP_TLV_TEST, 0xA000, MAC_LOW);

	env_init(MRP_ROLE_MRA, 10);
	ev_start(true, true);
	advance(20000);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	/* its test frames alone: wait for its word */
	m = mark();
	ev_frame(0, &better);
	ev_frame(1, &better);
	CHECK(E.sm.mrm_mode, "still manager on a better test alone");
	CHECK_EQ(count(m, MRP_ACT_PORT_STATE), 0);
	CHECK_EQ(E.sm.st.better_test_rx, 2);
	CHECK_EQ(E.sm.st.yields, 0);
	m = mark();
	ev_yield(0, &better);	/* same prio, lower MAC: and its NACK */
	CHECK(!E.sm.mrm_mode, "client now");
	CHECK_EQ(E.sm.mrc_state, MRC_PT_IDLE);
	CHECK_EQ(last_pstate(m, 1), MRP_PORT_FORWARDING);
	r = nth(m, MRP_ACT_SEND_OPTION, 0);
	CHECK(r && r->a.a == MRP_SUB_TEST_PROPAGATE &&
	      !memcmp(r->a.mac, MAC_LOW, 6), "propagate the new manager");
	r = nth(m, MRP_ACT_START_TEST, 0);
	CHECK(r && r->a.d == 1 && r->a.a == 1000 && r->a.b == 3,
	      "monitor test frames");
	CHECK_EQ(E.sm.st.yields, 1);
	CHECK(!memcmp(E.sm.mgr_mac, MAC_LOW, 6), "manager identity");
	/* as client it follows TopologyChange */
	{
		struct mrp_pdu t = topo_pdu(0);

		m = mark();
		ev_frame(0, &t);
		CHECK_EQ(count(m, MRP_ACT_FLUSH), 1);
	}
}

static void mra_yields_on_nack(void)
{
	unsigned m;
	struct mrp_pdu nack = pdu_of(MRP_TLV_OPTION, 0x9000, MAC_HIGH);
	struct mrp_pdu other = pdu_of(MRP_TLV_OPTION, 0x9000, MAC_HIGH);

	env_init(MRP_ROLE_MRA, 10);
	ev_start(true, false);
	CHECK_EQ(E.sm.mrm_state, MRM_PRM_UP);
	/* a NACK meant for someone else */
	other.sub_type = MRP_SUB_TEST_MGR_NACK;
	memcpy(other.other_sa, MAC_LOW, 6);
	m = mark();
	ev_frame(0, &other);
	CHECK(E.sm.mrm_mode, "not for us");
	CHECK_EQ(E.n - m, 0);
	/* one for us */
	nack.sub_type = MRP_SUB_TEST_MGR_NACK;
	memcpy(nack.other_sa, MAC_SELF, 6);
	nack.other_prio = 0xA000;
	ev_frame(0, &nack);
	CHECK(!E.sm.mrm_mode, "yielded");
	CHECK_EQ(E.sm.mrc_state, MRC_DE_IDLE);
	CHECK(E.sm.mgr_prio == 0x9000 && !memcmp(E.sm.mgr_mac, MAC_HIGH, 6),
	      "manager from NACK");
}

static void mra_takes_over_when_tests_stop(void)
{
	unsigned m;
	const struct rec *r;
	struct mrp_pdu better = pdu_of(MRP_TLV_TEST, 0x8000, MAC_LOW);

	env_init(MRP_ROLE_MRA, 10);
	ev_start(true, true);
	advance(20000);
	ev_yield(0, &better);
	CHECK(!E.sm.mrm_mode, "client");
	advance(10000);
	m = mark();
	ev_open();	/* kernel monitor: better manager's tests stopped */
	CHECK(E.sm.mrm_mode, "manager again");
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RO);
	r = nth(m, MRP_ACT_START_TEST, 0);
	CHECK(r && r->a.d == 0 && r->a.a == 500, "short tests as MRM");
	r = nth(m, MRP_ACT_RING_STATE, 0);
	CHECK(r && r->a.a == MRP_RING_OPEN, "ring open");
	CHECK_EQ(E.sm.st.takeovers, 1);
	CHECK(!memcmp(E.sm.mgr_mac, MAC_SELF, 6), "self is manager");
	/* own tests come back: ring closed, secondary blocked */
	m = mark();
	ev_seen();
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	CHECK_EQ(last_pstate(m, 1), MRP_PORT_BLOCKED);
	/* the old manager comes back: we give way again */
	m = mark();
	ev_yield(1, &better);
	CHECK(!E.sm.mrm_mode, "client again");
	CHECK_EQ(last_pstate(m, 1), MRP_PORT_FORWARDING);
}

static void mra_takeover_state_mapping(void)
{
	struct mrp_pdu better = pdu_of(MRP_TLV_TEST, 0x8000, MAC_LOW);

	/* yield from PRM_UP (secondary down) -> DE_IDLE -> PRM_UP */
	env_init(MRP_ROLE_MRA, 10);
	ev_start(true, false);
	ev_yield(0, &better);
	CHECK_EQ(E.sm.mrc_state, MRC_DE_IDLE);
	ev_open();
	CHECK_EQ(E.sm.mrm_state, MRM_PRM_UP);

	/* client in PT (LinkUp series running) -> CHK_RC, series stopped */
	env_init(MRP_ROLE_MRA, 10);
	ev_start(true, false);
	ev_yield(0, &better);
	ev_link(1, true);
	CHECK_EQ(E.sm.mrc_state, MRC_PT);
	ev_open();
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	CHECK_EQ(E.sm.deadline[MRP_T_LINK], 0);
}

static void mra_manager_announces_yield(void)
{
	unsigned m;
	struct mrp_pdu prop = pdu_of(MRP_TLV_OPTION, 0xA000, MAC_HIGH);

	env_init(MRP_ROLE_MRA, 10);
	ev_start(true, true);
	advance(20000);
	prop.sub_type = MRP_SUB_TEST_PROPAGATE;
	prop.other_prio = 0xA000;
	memcpy(prop.other_sa, MAC_LOW, 6);	/* yielded to someone else */
	m = mark();
	ev_frame(0, &prop);
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 0);
	memcpy(prop.other_sa, MAC_SELF, 6);	/* yielded to us */
	ev_frame(0, &prop);
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 1);
	CHECK(E.sm.mrm_mode, "still manager");
}

static void mra_client_ignores_own_and_worse_tests(void)
{
	unsigned m;
	struct mrp_pdu better = pdu_of(MRP_TLV_TEST, 0x8000, MAC_LOW);
	struct mrp_pdu worse = pdu_of(MRP_TLV_TEST, 0xF000, MAC_HIGH);

	env_init(MRP_ROLE_MRA, 10);
	ev_start(true, true);
	ev_yield(0, &better);
	m = mark();
	ev_frame(0, &worse);	/* the kernel's miss counter decides */
	CHECK_EQ(E.n - m, 0);
	CHECK(!E.sm.mrm_mode, "still client");
}

static void pure_roles_ignore_mra_frames(void)
{
	unsigned m;
	struct mrp_pdu better = pdu_of(MRP_TLV_TEST, 0x0000, MAC_LOW);
	struct mrp_pdu nack = pdu_of(MRP_TLV_OPTION, 0x0000, MAC_LOW);

	mrm_closed();
	nack.sub_type = MRP_SUB_TEST_MGR_NACK;
	memcpy(nack.other_sa, MAC_SELF, 6);
	m = mark();
	ev_yield(0, &better);
	ev_frame(0, &nack);
	CHECK_EQ(E.n - m, 0);
	CHECK(E.sm.mrm_mode, "a configured MRM stays MRM");
}

static void profiles_table(void)
{
	const struct mrp_profile *p;

	p = mrp_profile_get(10);
	CHECK(p && p->topo_interval_us == 500 && p->topo_max == 3 &&
	      p->test_short_us == 500 && p->test_interval_us == 1000 &&
	      p->test_max == 3 && p->link_interval_us == 1000 &&
	      p->link_max == 4, "10 ms");
	p = mrp_profile_get(30);
	CHECK(p && p->topo_interval_us == 500 && p->test_short_us == 1000 &&
	      p->test_interval_us == 3500 && p->test_max == 3 &&
	      p->link_interval_us == 1000, "30 ms");
	p = mrp_profile_get(200);
	CHECK(p && p->topo_interval_us == 10000 && p->test_short_us == 10000 &&
	      p->test_interval_us == 20000 && p->test_max == 3 &&
	      p->link_interval_us == 20000, "200 ms");
	p = mrp_profile_get(500);
	CHECK(p && p->topo_interval_us == 20000 && p->test_short_us == 30000 &&
	      p->test_interval_us == 50000 && p->test_max == 5 &&
	      p->link_interval_us == 20000 && p->link_max == 4, "500 ms");
	CHECK(!mrp_profile_get(100), "no 100 ms profile");
}

static void overrides(void)
{
	struct mrp_sm_cfg cfg;
	const struct rec *r;

	env_init(MRP_ROLE_MRM, 500);
	cfg = E.sm.cfg;
	cfg.prof.test_interval_us = 7000;
	cfg.prof.test_max = 9;
	cfg.prio = 0x1234;
	mrp_sm_init(&E.sm, &cfg);
	ev_start(true, true);
	r = nth(0, MRP_ACT_START_TEST, 0);
	CHECK(r && r->a.a == 7000 && r->a.b == 9, "overridden test");
	CHECK_EQ(E.sm.mgr_prio, 0x1234);
	CHECK(mrp_sm_cfg_default(&cfg, MRP_ROLE_MRM, 200) == 0, "profile 200");
	mrp_sm_cfg_interval(&cfg, 1000);
	CHECK(cfg.prof.test_interval_us == 1000 &&
	      cfg.prof.test_short_us == 1000, "TSTshortT capped at interval");
	mrp_sm_cfg_interval(&cfg, 50000);
	CHECK(cfg.prof.test_interval_us == 50000 &&
	      cfg.prof.test_short_us == 1000, "TSTshortT kept below interval");
	CHECK(mrp_sm_cfg_default(&cfg, MRP_ROLE_MRM, 11) < 0, "bad profile");
	CHECK(mrp_sm_cfg_default(&cfg, MRP_ROLE_DISABLED, 10) < 0, "bad role");
}

static void not_started_is_inert(void)
{
	struct mrp_pdu t = topo_pdu(0);

	env_init(MRP_ROLE_MRM, 10);
	ev_link(0, true);
	ev_open();
	ev_seen();
	ev_frame(0, &t);
	advance(1000000);
	CHECK_EQ(E.n, 0);
	ev_start(false, false);
	ev_link(7, true);	/* bad port index */
	CHECK_EQ(E.sm.mrm_state, MRM_AC_STAT1);
}

static void util_parsing(void)
{
	uint32_t v;
	char line[] = "  add br0\tring 1  ";
	char *argv[4];

	CHECK(mrp_parse_u32("42", 100, &v) && v == 42, "42");
	CHECK(mrp_parse_u32("0x10", 100, &v) && v == 16, "hex");
	CHECK(!mrp_parse_u32("101", 100, &v), "max");
	CHECK(!mrp_parse_u32("", 100, &v), "empty");
	CHECK(!mrp_parse_u32("1a", 100, &v), "junk");
	CHECK(!mrp_parse_u32("-1", 100, &v), "negative");
	CHECK(!mrp_parse_u32("0x", 100, &v), "0x");
	CHECK(!mrp_parse_u32("99999999999999999999999", UINT32_MAX, &v),
	      "overflow");
	CHECK_EQ(mrp_split(line, argv, 4), 4);
	CHECK(!strcmp(argv[0], "add") && !strcmp(argv[1], "br0") &&
	      !strcmp(argv[3], "1"), "split");
	CHECK_EQ(mrp_parse_role("mra"), MRP_ROLE_MRA);
	CHECK_EQ(mrp_parse_role("MRA"), -1);
	CHECK_EQ(mrp_parse_port_state("blocked"), MRP_PORT_BLOCKED);
	CHECK_EQ(mrp_parse_ring_state("closed"), MRP_RING_CLOSED);
	{
		struct sbuf b;

		sb_init(&b);
		sb_json_str(&b, "a\"b\\\n");
		CHECK(b.s && !strcmp(b.s, "\"a\\\"b\\\\\\u000a\""), "json %s",
		      b.s ? b.s : "(null)");
		sb_free(&b);
	}
}

/* ===================== ring-open notifications ===================== */

static int fake_flag_now = -1;	/* the kernel's flag, -1: nothing queued */
static unsigned flag_now_calls;

static int flag_now(void *arg)
{
	(void)arg;
	flag_now_calls++;
	return fake_flag_now;
}

static enum mrp_loc_verdict notify(struct mrp_loc *p, bool flag,
				   int kernel_now)
{
	fake_flag_now = kernel_now;
	return mrp_loc_notify(p, flag, flag_now, NULL);
}

static void loc_changes_only(void)
{
	struct mrp_loc p = { 0 };

	mrm_closed();
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	flag_now_calls = 0;
	CHECK_EQ(notify(&p, 0, -1), MRP_LOC_NONE);
	CHECK_EQ(flag_now_calls, 0);
	CHECK_EQ(notify(&p, 1, -1), MRP_LOC_OPEN);
	CHECK_EQ(p.flag, 1);
	advance(100000);
	CHECK_EQ(notify(&p, 1, -1), MRP_LOC_NONE);
	CHECK_EQ(notify(&p, 0, 0), MRP_LOC_CLOSED);
	CHECK_EQ(p.flag, 0);
}

static void loc_own_flush_echo(void)
{
	struct mrp_loc p = { .flag = 1, .self_notify = 1 };

	env_init(MRP_ROLE_MRC, 10);
	ev_start(true, true);
	CHECK_EQ(notify(&p, 1, -1), MRP_LOC_OWN_FLUSH);
	CHECK_EQ(p.self_notify, 0);
	CHECK_EQ(notify(&p, 1, -1), MRP_LOC_NONE);
	/* an echo never hides a change */
	p.self_notify = 1;
	CHECK_EQ(notify(&p, 0, -1), MRP_LOC_CLOSED);
	CHECK_EQ(p.self_notify, 1);
}

/*
 * A manager that fell behind: the flag went 1, 0, 1, 0 while a cable was
 * cut (the bridge's software test), or a driver reported a ring that
 * opened and closed again.  The flag as it is now decides; the queued
 * notification that says the same is no change.
 */
static void loc_old_news_manager(void)
{
	struct mrp_loc p = { 0 };

	mrm_closed();
	CHECK_EQ(notify(&p, 1, 1), MRP_LOC_OPEN);
	ev_open();
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RO);
	/* closed and lost again before we read it: the loss is news */
	CHECK_EQ(notify(&p, 0, 1), MRP_LOC_OPEN_SINCE);
	CHECK_EQ(p.flag, 1);
	CHECK_EQ(notify(&p, 1, -1), MRP_LOC_NONE);
	/* closed for good, read behind a stale open */
	CHECK_EQ(notify(&p, 0, 0), MRP_LOC_CLOSED);
	ev_seen();
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	CHECK_EQ(notify(&p, 1, 0), MRP_LOC_OLD_NEWS);
	CHECK_EQ(p.flag, 0);
	CHECK_EQ(notify(&p, 0, -1), MRP_LOC_NONE);
}

/*
 * An MRA that yielded with its flags still 1 from its time as manager.
 * The driver clears them as the monitor test starts and reports the
 * monitor's loss once: "closed" then "open", both queued.  The closed
 * report is old news, but the loss behind it is not: the MRA must take
 * over (a ring of 14 once kept a node waiting as client of itself).
 */
static void loc_monitor_loss_behind_old_news(void)
{
	struct mrp_pdu better = pdu_of(MRP_TLV_TEST, 0x8000, MAC_LOW);
	struct mrp_loc p = { .flag = 1 }, q = { .flag = 1 };

	env_init(MRP_ROLE_MRA, 10);
	ev_start(true, true);
	advance(20000);
	ev_yield(0, &better);
	CHECK(!E.sm.mrm_mode && E.sm.test_monitor, "monitoring");
	advance(10000);
	CHECK_EQ(notify(&p, 0, 1), MRP_LOC_OPEN_SINCE);
	CHECK_EQ(p.flag, 1);
	CHECK_EQ(notify(&q, 0, 1), MRP_LOC_OPEN_SINCE);
	ev_open();
	CHECK(E.sm.mrm_mode, "took over");
	CHECK_EQ(notify(&p, 1, -1), MRP_LOC_NONE);
	CHECK_EQ(notify(&q, 1, -1), MRP_LOC_NONE);
	/* a monitor's loss that healed before we read it stays old news */
	env_init(MRP_ROLE_MRA, 10);
	ev_start(true, true);
	advance(20000);
	ev_yield(0, &better);
	p.flag = 0;
	CHECK_EQ(notify(&p, 1, 0), MRP_LOC_OLD_NEWS);
	CHECK_EQ(notify(&p, 0, -1), MRP_LOC_NONE);
	CHECK(!E.sm.mrm_mode, "still client");
}

/*
 * Monitor mode: the bridge clears the flags as the monitor begins and then
 * repeats its report every interval while the manager is silent.  The
 * first report is the loss; the repeats, and any other notification that
 * still says 1, are no change, however they are spaced.
 */
static void loc_monitor_repeat(void)
{
	struct mrp_pdu better = pdu_of(MRP_TLV_TEST, 0x8000, MAC_LOW);
	struct mrp_loc p = { .flag = 1 };

	env_init(MRP_ROLE_MRA, 10);
	ev_start(true, true);
	advance(20000);
	ev_yield(0, &better);
	CHECK_EQ(notify(&p, 0, -1), MRP_LOC_CLOSED);
	CHECK_EQ(notify(&p, 1, -1), MRP_LOC_OPEN);
	advance(E.sm.test_interval);
	CHECK_EQ(notify(&p, 1, -1), MRP_LOC_NONE);
	advance(E.sm.test_interval / 2);
	CHECK_EQ(notify(&p, 1, -1), MRP_LOC_NONE);
	advance(10 * (uint64_t)E.sm.test_interval);
	CHECK_EQ(notify(&p, 1, -1), MRP_LOC_NONE);
}

/*
 * A closed ring's manager.  Flags still 1 from while the ring was open
 * are cleared by the bridge as the ring closes, so the next loss is a
 * change; a report of 1 without that clear in between (a stock bridge) is
 * no change, and never opens the ring on its own, however many come and
 * however close together, on one port or both.
 */
static void loc_manager_closed(void)
{
	struct mrp_loc p = { .flag = 1 }, q = { .flag = 1 };
	unsigned k;

	mrm_closed();
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	for (k = 0; k < 4; k++) {
		CHECK_EQ(notify(&p, 1, -1), MRP_LOC_NONE);
		CHECK_EQ(notify(&q, 1, -1), MRP_LOC_NONE);
		advance(k & 1 ? E.sm.test_interval : 100);
	}
	/* the clear, read in order: nothing to do in CHK_RC */
	CHECK_EQ(notify(&p, 0, -1), MRP_LOC_CLOSED);
	CHECK_EQ(notify(&q, 0, -1), MRP_LOC_CLOSED);
	/* the next loss */
	CHECK_EQ(notify(&p, 1, -1), MRP_LOC_OPEN);
	CHECK_EQ(notify(&q, 1, -1), MRP_LOC_OPEN);
	/* a loss from before the close, read behind the clear: old news */
	p.flag = 0;
	CHECK_EQ(notify(&p, 1, 0), MRP_LOC_OLD_NEWS);
	CHECK_EQ(p.flag, 0);
	/* the clear, read behind which a new loss waits: the loss is news */
	p.flag = 1;
	CHECK_EQ(notify(&p, 0, 1), MRP_LOC_OPEN_SINCE);
	CHECK_EQ(p.flag, 1);
	CHECK_EQ(notify(&p, 1, -1), MRP_LOC_NONE);
	CHECK_EQ(mrp_loc_verdict_name(MRP_LOC_OPEN_SINCE)[0], 'o');
	CHECK_EQ(mrp_loc_verdict_name((enum mrp_loc_verdict)99)[0], '?');
}


/* ===================== adopting the kernel's state ===================== */

static void ev_adopt(bool up0, bool up1, bool fwd0, bool fwd1, bool closed,
		     bool monitor, bool lost0, bool lost1)
{
	struct mrp_sm_kstate k = {
		.up = { up0, up1 }, .fwd = { fwd0, fwd1 },
		.ring_state = closed ? MRP_RING_CLOSED : MRP_RING_OPEN,
		.monitor = monitor, .lost = { lost0, lost1 },
	};
	struct mrp_actions a = { 0 };

	mrp_sm_adopt(&E.sm, E.now, &k, &a);
	collect(&a);
}

/* Nothing but the test's refresh: no port touched, no role, no TC. */
static void adopt_quiet(unsigned m)
{
	CHECK_EQ(count(m, MRP_ACT_PORT_STATE), 0);
	CHECK_EQ(count(m, MRP_ACT_RING_ROLE), 0);
	CHECK_EQ(count(m, MRP_ACT_RING_STATE), 0);
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 0);
	CHECK_EQ(count(m, MRP_ACT_SEND_LINK), 0);
	CHECK_EQ(count(m, MRP_ACT_FLUSH), 0);
	advance(1000000);
	CHECK_EQ(count(m, MRP_ACT_PORT_STATE), 0);
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 0);
	CHECK_EQ(count(m, MRP_ACT_SEND_LINK), 0);
	CHECK_EQ(count(m, MRP_ACT_FLUSH), 0);
}

static void adopt_mrm_closed(void)
{
	const struct rec *r;

	/* secondary (port 0 after a swap) blocked, ring closed */
	env_init(MRP_ROLE_MRM, 10);
	ev_adopt(true, true, false, true, true, false, false, false);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	CHECK_EQ(E.sm.prim, 1);
	r = nth(0, MRP_ACT_START_TEST, 0);
	CHECK(r && r->a.a == 1000 && r->a.b == 3 && !r->a.d,
	      "test starts over at 1000us x3");
	adopt_quiet(0);
	/* and it runs: a loss opens the ring with a TC */
	ev_open();
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RO);
	CHECK_EQ(last_pstate(0, 0), MRP_PORT_FORWARDING);
	CHECK(count(0, MRP_ACT_SEND_TOPO) >= 1, "TC on the loss");
}

static void adopt_mrm_open(void)
{
	env_init(MRP_ROLE_MRM, 10);
	ev_adopt(true, true, true, true, false, false, true, false);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RO);
	adopt_quiet(0);
	ev_seen();
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	CHECK_EQ(last_pstate(0, 1), MRP_PORT_BLOCKED);
}

static void adopt_mrm_prm_up(void)
{
	env_init(MRP_ROLE_MRM, 10);
	ev_adopt(false, true, false, true, false, false, false, false);
	CHECK_EQ(E.sm.mrm_state, MRM_PRM_UP);
	CHECK_EQ(E.sm.prim, 1);
	adopt_quiet(0);
	/* the secondary's link coming up closes the ring */
	ev_link(0, true);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	/* it was blocked and stays so */
	CHECK_EQ(last_pstate(0, 0), -1);
	CHECK_EQ(E.sm.pstate[0], MRP_PORT_BLOCKED);
}

/* What changed while nobody read the kernel acts as its event. */
static void adopt_mrm_missed_events(void)
{
	unsigned m;

	/* closed, but a loss was reported since: open now */
	env_init(MRP_ROLE_MRM, 10);
	ev_adopt(true, true, true, false, true, false, false, true);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RO);
	CHECK_EQ(last_pstate(0, 1), MRP_PORT_FORWARDING);
	CHECK(count(0, MRP_ACT_SEND_TOPO) >= 1, "TC on the loss");

	/* open, and the test frames came back since: close now */
	env_init(MRP_ROLE_MRM, 10);
	ev_adopt(true, true, true, true, false, false, false, false);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	CHECK_EQ(last_pstate(0, 1), MRP_PORT_BLOCKED);

	/* the secondary's link came up: close now */
	env_init(MRP_ROLE_MRM, 10);
	ev_adopt(true, true, true, false, false, false, false, false);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	CHECK_EQ(count(0, MRP_ACT_PORT_STATE), 0);
	m = nth(0, MRP_ACT_RING_STATE, 0) ? 1 : 0;
	CHECK(m && nth(0, MRP_ACT_RING_STATE, 0)->a.a == MRP_RING_CLOSED,
	      "ring state closed told to the kernel");

	/* a port forwarding on a link that is down is blocked */
	env_init(MRP_ROLE_MRM, 10);
	ev_adopt(true, false, true, true, false, false, true, true);
	CHECK_EQ(E.sm.mrm_state, MRM_PRM_UP);
	CHECK_EQ(count(0, MRP_ACT_PORT_STATE), 1);
	CHECK_EQ(last_pstate(0, 1), MRP_PORT_BLOCKED);

	/* nothing forwards and both links are up: as at start, with a TC */
	env_init(MRP_ROLE_MRM, 10);
	ev_adopt(true, true, false, false, false, false, false, false);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	CHECK_EQ(last_pstate(0, 0), MRP_PORT_FORWARDING);
	CHECK_EQ(count(0, MRP_ACT_SEND_TOPO), 1);
}

static void adopt_mrc(void)
{
	env_init(MRP_ROLE_MRC, 10);
	ev_adopt(true, true, true, true, false, false, false, false);
	CHECK_EQ(E.sm.mrc_state, MRC_PT_IDLE);
	CHECK_EQ(count(0, MRP_ACT_START_TEST), 0);
	adopt_quiet(0);
	/* and it runs: a TC flushes */
	{
		struct mrp_pdu t = topo_pdu(0);

		ev_frame(0, &t);
		CHECK_EQ(count(0, MRP_ACT_FLUSH), 1);
	}

	env_init(MRP_ROLE_MRC, 10);
	ev_adopt(true, false, true, false, false, false, false, false);
	CHECK_EQ(E.sm.mrc_state, MRC_DE_IDLE);
	adopt_quiet(0);

	/* the secondary came up while nobody watched: LinkUp series */
	env_init(MRP_ROLE_MRC, 10);
	ev_adopt(true, true, false, true, false, false, false, false);
	CHECK_EQ(E.sm.prim, 1);
	CHECK_EQ(E.sm.mrc_state, MRC_PT);
	CHECK_EQ(count(0, MRP_ACT_SEND_LINK), 1);
	CHECK_EQ(count(0, MRP_ACT_PORT_STATE), 0);
}

static void adopt_mra(void)
{
	const struct rec *r;

	/* monitoring: a client that watches the manager */
	env_init(MRP_ROLE_MRA, 10);
	ev_adopt(true, true, true, true, false, true, false, false);
	CHECK(!E.sm.mrm_mode, "monitor adopted as client");
	CHECK_EQ(E.sm.mrc_state, MRC_PT_IDLE);
	r = nth(0, MRP_ACT_START_TEST, 0);
	CHECK(r && r->a.d == 1, "monitor test");
	adopt_quiet(0);

	/* monitoring, the manager's loss reported meanwhile: take over */
	env_init(MRP_ROLE_MRA, 10);
	ev_adopt(true, true, true, true, false, true, true, true);
	CHECK(E.sm.mrm_mode, "took over");
	CHECK_EQ(E.sm.st.takeovers, 1);

	/* managing a closed ring */
	env_init(MRP_ROLE_MRA, 10);
	ev_adopt(true, true, true, false, true, false, false, false);
	CHECK(E.sm.mrm_mode, "manager adopted as manager");
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	adopt_quiet(0);
}

/* New timing in place: the test starts over at the new interval. */
static void retime_in_place(void)
{
	struct mrp_sm_cfg cfg;
	const struct rec *r;
	unsigned m;

	mrm_closed();
	mrp_sm_cfg_default(&cfg, MRP_ROLE_MRM, 200);
	cfg.prof.test_max = 5;
	m = mark();
	{
		struct mrp_actions a = { 0 };

		mrp_sm_retime(&E.sm, E.now, &cfg, &a);
		collect(&a);
	}
	r = nth(m, MRP_ACT_START_TEST, 0);
	CHECK(r && r->a.a == 20000 && r->a.b == 5, "test at 20 ms x 5");
	CHECK_EQ(count(m, MRP_ACT_PORT_STATE), 0);
	CHECK_EQ(count(m, MRP_ACT_SEND_TOPO), 0);
	CHECK_EQ(E.sm.mrm_state, MRM_CHK_RC);
	CHECK_EQ(E.sm.cfg.prof.ms, 200);
	/* a monitor's test too */
	env_init(MRP_ROLE_MRA, 10);
	ev_adopt(true, true, true, true, false, true, false, false);
	m = mark();
	{
		struct mrp_actions a = { 0 };

		mrp_sm_cfg_default(&cfg, MRP_ROLE_MRA, 30);
		mrp_sm_retime(&E.sm, E.now, &cfg, &a);
		collect(&a);
	}
	r = nth(m, MRP_ACT_START_TEST, 0);
	CHECK(r && r->a.a == 3500 && r->a.d == 1, "monitor at 3.5 ms");
}

int main(void)
{
	RUN(profiles_table);
	RUN(overrides);
	RUN(not_started_is_inert);
	RUN(util_parsing);
	RUN(ring_args_round_trip);
	RUN(mrm_start_blocks_then_closes);
	RUN(mrm_ac_stat1_secondary_up_swaps);
	RUN(mrm_prm_up_primary_down);
	RUN(mrm_no_tc_until_proven_closed);
	RUN(mrm_ring_open_topology_change);
	RUN(mrm_topology_change_profile_200);
	RUN(mrm_ring_closes_again);
	RUN(mrm_open_in_other_states_only_retests);
	RUN(mrm_chk_rc_primary_down);
	RUN(mrm_chk_rc_secondary_down);
	RUN(mrm_prm_up_stale_test);
	RUN(mrm_chk_ro_link_down);
	RUN(mrm_linkdown_frame_opens_ring);
	RUN(mrm_linkup_frame_closed_ring);
	RUN(mrm_stale_linkdown_after_close);
	RUN(mrm_loss_report_after_close);
	RUN(mrm_chk_ro_link_frames);
	RUN(mrm_prm_up_link_frames);
	RUN(mrm_react_off);
	RUN(mrm_flushes_on_topology_change);
	RUN(mrm_topology_change_series_runs_on);
	RUN(mrm_transitions_count_every_change);
	RUN(mrm_test_refresh);
	RUN(mrc_start_link_up_series);
	RUN(mrc_topology_change_in_pt);
	RUN(mrc_flush_timing);
	RUN(mrc_non_blocking);
	RUN(mrc_secondary_down);
	RUN(mrc_primary_down_swaps);
	RUN(mrc_pt_down_again);
	RUN(mrc_de_transitions);
	RUN(mrc_ignores_manager_frames);
	RUN(duplicate_link_events_ignored);
	RUN(mra_starts_as_manager);
	RUN(mra_nacks_worse_manager);
	RUN(mra_yields_to_better_manager);
	RUN(mra_yields_on_nack);
	RUN(mra_takes_over_when_tests_stop);
	RUN(mra_takeover_state_mapping);
	RUN(mra_manager_announces_yield);
	RUN(mra_client_ignores_own_and_worse_tests);
	RUN(pure_roles_ignore_mra_frames);
	RUN(loc_changes_only);
	RUN(loc_own_flush_echo);
	RUN(loc_old_news_manager);
	RUN(loc_monitor_loss_behind_old_news);
	RUN(loc_monitor_repeat);
	RUN(loc_manager_closed);
	RUN(adopt_mrm_closed);
	RUN(adopt_mrm_open);
	RUN(adopt_mrm_prm_up);
	RUN(adopt_mrm_missed_events);
	RUN(adopt_mrc);
	RUN(adopt_mra);
	RUN(retime_in_place);
	return tap_done();
}
