// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the MRP interconnection state machines (MIM, MIC in RC
 * mode), driven by a fake clock and fake events, as tests/test_sm.c does
 * for the ring: every action is recorded with the time it was asked for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mrp_in_sm.h"
#include "mrp_util.h"
#include "tap.h"

static const uint8_t MAC_SELF[6] = { 0x02, 0, 0, 0, 0, 0x10 };
static const uint8_t MAC_MIM[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t MAC_MIC[6] = { 0x02, 0, 0, 0, 0, 0x20 };

#define IN_ID 7
#define MS 1000ull

struct rec {
	uint64_t t;
	struct mrp_in_action a;
};

struct env {
	struct mrp_in_sm sm;
	uint64_t now;
	struct rec log[1024];
	unsigned n;
	bool overflow;
};

static struct env E;

static void collect(struct mrp_in_actions *acts)
{
	unsigned i;

	if (acts->overflow)
		E.overflow = true;
	for (i = 0; i < acts->n && E.n < 1024; i++) {
		E.log[E.n].t = E.now;
		E.log[E.n++].a = acts->a[i];
	}
}

static int env_init(enum mrp_in_role role, unsigned profile)
{
	struct mrp_in_cfg cfg;

	memset(&E, 0, sizeof(E));
	E.now = 1000000;	/* arbitrary non-zero start */
	if (mrp_in_cfg_default(&cfg, role, profile))
		abort();
	cfg.in_id = IN_ID;
	memcpy(cfg.mac, MAC_SELF, 6);
	return mrp_in_sm_init(&E.sm, &cfg);
}

static void ev_start(bool up_i)
{
	struct mrp_in_actions a = { 0 };

	mrp_in_sm_start(&E.sm, E.now, true, true, up_i, &a);
	collect(&a);
}

static void ev_link(unsigned port, bool up)
{
	struct mrp_in_actions a = { 0 };

	mrp_in_sm_link(&E.sm, E.now, port, up, &a);
	collect(&a);
}

static void ev_in_open(bool open)
{
	struct mrp_in_actions a = { 0 };

	mrp_in_sm_in_open(&E.sm, E.now, open, &a);
	collect(&a);
}

static void ev_frame(unsigned port, const struct mrp_pdu *pdu)
{
	struct mrp_in_actions a = { 0 };

	mrp_in_sm_frame(&E.sm, E.now, port, pdu, &a);
	collect(&a);
}

/* Advance the fake clock, firing timers exactly at their deadlines. */
static void advance(uint64_t us)
{
	uint64_t end = E.now + us;

	for (;;) {
		uint64_t d = mrp_in_sm_next_deadline(&E.sm);
		struct mrp_in_actions a = { 0 };

		if (!d || d > end)
			break;
		if (d > E.now)
			E.now = d;
		mrp_in_sm_timer(&E.sm, E.now, &a);
		collect(&a);
	}
	E.now = end;
}

static unsigned mark(void)
{
	return E.n;
}

static unsigned count(unsigned from, enum mrp_in_act_type t)
{
	unsigned i, c = 0;

	for (i = from; i < E.n; i++)
		if (E.log[i].a.type == t)
			c++;
	return c;
}

static const struct rec *nth(unsigned from, enum mrp_in_act_type t,
			     unsigned k)
{
	unsigned i;

	for (i = from; i < E.n; i++)
		if (E.log[i].a.type == t && k-- == 0)
			return &E.log[i];
	return NULL;
}

/* I-port state last asked for since from, -1 if none */
static int iport_last(unsigned from)
{
	int st = -1;
	unsigned i;

	for (i = from; i < E.n; i++)
		if (E.log[i].a.type == MRP_IN_ACT_PORT_STATE) {
			CHECK_EQ(E.log[i].a.port, MRP_IN_PORT_I);
			st = (int)E.log[i].a.a;
		}
	return st;
}

/* IN_STATE last asked for since from, -1 if none */
static int in_state_last(unsigned from)
{
	const struct rec *r;
	int st = -1;
	unsigned k;

	for (k = 0; (r = nth(from, MRP_IN_ACT_STATE, k)); k++)
		st = (int)r->a.a;
	return st;
}

static struct mrp_pdu in_frame(enum mrp_tlv type, uint16_t in_id,
			       const uint8_t sa[6], uint16_t interval)
{
	struct mrp_pdu p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	p.has_common = true;
	p.in_id = in_id;
	memcpy(p.sa, sa, 6);
	p.interval = interval;
	return p;
}

/*
 * The InTopologyChange series from index m on: TOPNRmax + 1 frames
 * TOPchgT apart with intervals TOPNRmax..0 x TOPchgT, one flush with the
 * last frame.
 */
static void check_topo_series(unsigned m, uint64_t t0, uint64_t step_us,
			      unsigned max)
{
	const struct rec *r;
	unsigned k;

	CHECK_EQ(count(m, MRP_IN_ACT_SEND_TOPO), max + 1);
	for (k = 0; k <= max; k++) {
		r = nth(m, MRP_IN_ACT_SEND_TOPO, k);
		if (!r)
			break;
		CHECK(r->t == t0 + k * step_us, "frame %u at +%llu us", k,
		      (unsigned long long)(r->t - t0));
		CHECK(r->a.a == (max - k) * step_us / 1000,
		      "frame %u interval %u ms", k, r->a.a);
	}
	CHECK_EQ(count(m, MRP_IN_ACT_FLUSH), 1);
	r = nth(m, MRP_IN_ACT_FLUSH, 0);
	CHECK(r && r->t == t0 + max * step_us, "flush with the last frame");
}

static void profiles_table(void)
{
	const struct mrp_in_profile *p = mrp_in_profile_get(200);

	CHECK(p && p->topo_interval_us == 10 * MS && p->topo_max == 3 &&
	      p->test_interval_us == 20 * MS && p->test_max == 8 &&
	      p->link_interval_us == 20 * MS && p->link_max == 4, "200 ms");
	p = mrp_in_profile_get(500);
	CHECK(p && p->topo_interval_us == 20 * MS && p->topo_max == 3 &&
	      p->test_interval_us == 50 * MS && p->test_max == 8 &&
	      p->link_interval_us == 20 * MS && p->link_max == 4, "500 ms");
	CHECK(!mrp_in_profile_get(10) && !mrp_in_profile_get(30),
	      "no 10 or 30 ms interconnection profile");
}

static void lc_mode_rejected(void)
{
	struct mrp_in_cfg cfg;
	struct mrp_in_sm sm;
	struct mrp_in_actions a = { 0 };
	const char *err;

	CHECK_EQ(mrp_in_cfg_default(&cfg, MRP_IN_ROLE_MIM, 500), 0);
	CHECK(mrp_in_cfg_error(&cfg) == NULL, "RC default is fine");
	cfg.mode = MRP_IN_MODE_LC;
	err = mrp_in_cfg_error(&cfg);
	CHECK(err && strstr(err, "LC") && strstr(err, "not supported"),
	      "error: %s", err ? err : "(none)");
	CHECK_EQ(mrp_in_sm_init(&sm, &cfg), -1);
	/* an instance that was refused does nothing */
	mrp_in_sm_start(&sm, 1000, true, true, true, &a);
	mrp_in_sm_in_open(&sm, 2000, true, &a);
	CHECK_EQ(a.n, 0);
	CHECK_EQ(mrp_in_sm_next_deadline(&sm), 0);
	CHECK(strcmp(mrp_in_mode_name(MRP_IN_MODE_LC), "lc") == 0, "name");

	cfg.mode = (enum mrp_in_mode)5;
	CHECK(mrp_in_cfg_error(&cfg) != NULL, "unknown mode");
	CHECK_EQ(mrp_in_cfg_default(&cfg, MRP_IN_ROLE_MIC, 30), -1);
	CHECK_EQ(mrp_in_cfg_default(&cfg, MRP_IN_ROLE_DISABLED, 500), -1);
}

static void overrides(void)
{
	struct mrp_in_cfg cfg;
	const struct rec *r;
	unsigned m;

	CHECK_EQ(mrp_in_cfg_default(&cfg, MRP_IN_ROLE_MIM, 200), 0);
	mrp_in_cfg_interval(&cfg, 5 * MS);
	mrp_in_cfg_max_miss(&cfg, 3);
	CHECK(mrp_in_cfg_error(&cfg) == NULL, "valid");
	memset(&E, 0, sizeof(E));
	E.now = 1000000;
	CHECK_EQ(mrp_in_sm_init(&E.sm, &cfg), 0);
	m = mark();
	ev_start(true);
	r = nth(m, MRP_IN_ACT_START_TEST, 0);
	CHECK(r && r->a.a == 5 * MS && r->a.b == 3 &&
	      r->a.c == 10 * 1000 * MS, "START_IN_TEST %u %u %u",
	      r ? r->a.a : 0, r ? r->a.b : 0, r ? r->a.c : 0);

	mrp_in_cfg_max_miss(&cfg, 0);
	CHECK(mrp_in_cfg_error(&cfg) != NULL, "max-miss 0");
	mrp_in_cfg_max_miss(&cfg, 3);
	mrp_in_cfg_interval(&cfg, 0);
	CHECK(mrp_in_cfg_error(&cfg) != NULL, "interval 0");
}

/*
 * MIM start: role, I-port blocked (the bridge set it forwarding with the
 * role), interconnection open; with the I-port's link up, the test
 * starts and the interconnection counts as closed, the I-port blocked:
 * the bridge reports a loss of a closed interconnection only.
 */
static void mim_start_blocks_then_checks(void)
{
	const struct rec *r;

	CHECK_EQ(env_init(MRP_IN_ROLE_MIM, 500), 0);
	ev_start(false);
	CHECK_EQ(E.n, 3);
	CHECK(E.log[0].a.type == MRP_IN_ACT_ROLE &&
	      E.log[0].a.a == MRP_IN_ROLE_MIM, "role first");
	CHECK(E.log[1].a.type == MRP_IN_ACT_PORT_STATE &&
	      E.log[1].a.port == MRP_IN_PORT_I &&
	      E.log[1].a.a == MRP_PORT_BLOCKED, "I-port blocked");
	CHECK(E.log[2].a.type == MRP_IN_ACT_STATE &&
	      E.log[2].a.a == MRP_IN_OPEN, "interconnection open");
	CHECK_EQ(E.sm.mim_state, MIM_AC_STAT1);
	CHECK_EQ(count(0, MRP_IN_ACT_START_TEST), 0);

	ev_link(MRP_IN_PORT_I, true);
	r = nth(3, MRP_IN_ACT_START_TEST, 0);
	CHECK(r && r->a.a == 50 * MS && r->a.b == 8, "test at TSTdefaultT");
	CHECK_EQ(in_state_last(3), MRP_IN_CLOSED);
	CHECK_EQ(count(3, MRP_IN_ACT_PORT_STATE), 0);	/* blocked already */
	CHECK_EQ(count(3, MRP_IN_ACT_SEND_TOPO), 0);
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IC);
	CHECK(strcmp(mrp_in_sm_in_state_name(&E.sm), "closed") == 0, "name");
	CHECK_EQ(E.sm.st.transitions, 1);

	/* the same with the link up at start */
	env_init(MRP_IN_ROLE_MIM, 500);
	ev_start(true);
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IC);
	CHECK_EQ(iport_last(0), MRP_PORT_BLOCKED);
	CHECK_EQ(count(0, MRP_IN_ACT_PORT_STATE), 1);
	CHECK_EQ(in_state_last(0), MRP_IN_CLOSED);
	CHECK_EQ(count(0, MRP_IN_ACT_START_TEST), 1);
}

/* Loss reported: open, forward on the I-port, InTopologyChange series. */
static void mim_loss_opens(void)
{
	unsigned m;
	uint64_t t0;

	env_init(MRP_IN_ROLE_MIM, 500);
	ev_start(true);
	advance(1000 * MS);
	m = mark();
	t0 = E.now;
	ev_in_open(true);
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IO);
	CHECK_EQ(iport_last(m), MRP_PORT_FORWARDING);
	CHECK_EQ(in_state_last(m), MRP_IN_OPEN);
	CHECK_EQ(count(m, MRP_IN_ACT_SEND_TOPO), 1);
	CHECK_EQ(count(m, MRP_IN_ACT_START_TEST), 0);	/* test runs on */
	advance(500 * MS);
	/* 4 frames 20 ms apart: 60, 40, 20, 0 ms; flush at +60 ms */
	check_topo_series(m, t0, 20 * MS, 3);
	CHECK_EQ(E.sm.st.opens, 1);
	CHECK_EQ(E.sm.st.loss_rx, 1);
	CHECK_EQ(E.sm.st.topo_sent, 4);

	/* a second report of the same loss changes nothing */
	m = mark();
	ev_in_open(true);
	advance(100 * MS);
	CHECK_EQ(E.n - m, 0);
	CHECK_EQ(E.sm.st.opens, 1);

	/* the 200 ms profile: 10 ms apart */
	env_init(MRP_IN_ROLE_MIM, 200);
	ev_start(true);
	advance(160 * MS);	/* 8 x 20 ms */
	m = mark();
	t0 = E.now;
	ev_in_open(true);
	advance(100 * MS);
	check_topo_series(m, t0, 10 * MS, 3);
}

/* Regain: closed, I-port blocked again, InTopologyChange series. */
static void mim_regain_closes(void)
{
	unsigned m;
	uint64_t t0;

	env_init(MRP_IN_ROLE_MIM, 500);
	ev_start(true);
	advance(1000 * MS);
	ev_in_open(true);
	advance(1000 * MS);
	m = mark();
	t0 = E.now;
	ev_in_open(false);
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IC);
	CHECK_EQ(iport_last(m), MRP_PORT_BLOCKED);
	CHECK_EQ(in_state_last(m), MRP_IN_CLOSED);
	/* blocked before the frames that tell the MICs go out */
	CHECK(E.log[m].a.type == MRP_IN_ACT_PORT_STATE, "block first");
	advance(500 * MS);
	check_topo_series(m, t0, 20 * MS, 3);
	CHECK_EQ(E.sm.st.closes, 1);
	CHECK_EQ(E.sm.st.transitions, 3);	/* closed, open, closed */

	/* regain while closed: nothing */
	m = mark();
	ev_in_open(false);
	advance(100 * MS);
	CHECK_EQ(E.n - m, 0);
}

/* The bridge's InTest seen by the daemon means what a regain report does */
static void mim_own_in_test_closes(void)
{
	struct mrp_pdu own = in_frame(MRP_TLV_IN_TEST, IN_ID, MAC_SELF, 0);
	struct mrp_pdu other = in_frame(MRP_TLV_IN_TEST, IN_ID + 1, MAC_SELF,
					0);
	unsigned m;

	env_init(MRP_IN_ROLE_MIM, 500);
	ev_start(true);
	advance(1000 * MS);
	ev_in_open(true);
	advance(200 * MS);
	m = mark();
	ev_frame(0, &other);
	CHECK_EQ(E.n - m, 0);
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IO);
	ev_frame(MRP_IN_PORT_I, &own);
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IC);
	CHECK_EQ(iport_last(m), MRP_PORT_BLOCKED);
	CHECK_EQ(E.sm.st.test_rx, 1);
	CHECK_EQ(E.sm.st.other_id_rx, 1);
}

/* A MIC's InLinkDown while closed opens at once; InLinkUp announces. */
static void mim_link_frames(void)
{
	struct mrp_pdu down = in_frame(MRP_TLV_IN_LINK_DOWN, IN_ID, MAC_MIC,
				       80);
	struct mrp_pdu up = in_frame(MRP_TLV_IN_LINK_UP, IN_ID, MAC_MIC, 80);
	unsigned m;

	env_init(MRP_IN_ROLE_MIM, 500);
	ev_start(true);
	m = mark();
	ev_frame(0, &up);
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IC);
	CHECK_EQ(count(m, MRP_IN_ACT_SEND_TOPO), 1);
	CHECK_EQ(count(m, MRP_IN_ACT_PORT_STATE), 0);
	advance(500 * MS);

	m = mark();
	ev_frame(1, &down);
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IO);
	CHECK_EQ(iport_last(m), MRP_PORT_FORWARDING);
	CHECK_EQ(in_state_last(m), MRP_IN_OPEN);
	CHECK_EQ(count(m, MRP_IN_ACT_SEND_TOPO), 1);
	/* the series of every copy of the frame: held, not restarted */
	ev_frame(MRP_IN_PORT_I, &down);
	ev_frame(0, &up);
	CHECK_EQ(count(m, MRP_IN_ACT_SEND_TOPO), 1);
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IO);	/* the test decides */
	advance(500 * MS);
	CHECK_EQ(count(m, MRP_IN_ACT_SEND_TOPO), 4);
	CHECK_EQ(E.sm.st.link_rx, 4);

	/* not reacting: wait for the test */
	env_init(MRP_IN_ROLE_MIM, 500);
	E.sm.cfg.react_on_link_change = false;
	ev_start(true);
	m = mark();
	ev_frame(0, &down);
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IC);
	CHECK_EQ(E.n - m, 0);
}

/* The MIM's own I-port goes down: blocked, TC, AC_STAT1; up: back. */
static void mim_iport_down_up(void)
{
	unsigned m;

	env_init(MRP_IN_ROLE_MIM, 500);
	ev_start(true);
	advance(1000 * MS);
	ev_in_open(true);
	advance(200 * MS);
	m = mark();
	ev_link(MRP_IN_PORT_I, false);
	CHECK_EQ(E.sm.mim_state, MIM_AC_STAT1);
	CHECK_EQ(iport_last(m), MRP_PORT_BLOCKED);
	CHECK_EQ(in_state_last(m), -1);		/* open already */
	CHECK_EQ(count(m, MRP_IN_ACT_SEND_TOPO), 1);
	advance(200 * MS);
	/* reports while down change nothing */
	m = mark();
	ev_in_open(false);
	ev_in_open(true);
	CHECK_EQ(E.n - m, 0);
	ev_link(MRP_IN_PORT_I, true);
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IC);
	CHECK_EQ(count(m, MRP_IN_ACT_START_TEST), 1);	/* misses from 0 */
	CHECK_EQ(in_state_last(m), MRP_IN_CLOSED);
	CHECK_EQ(E.sm.st.link_changes, 3);	/* up at start, down, up */
	/* a ring port's link is the ring's business */
	m = mark();
	ev_link(0, false);
	ev_link(0, true);
	CHECK_EQ(E.n - m, 0);
	CHECK_EQ(E.sm.st.ring_link_changes, 2);
}

/*
 * A loss reported sooner than max-miss intervals after the MIM took the
 * interconnection for closed is an old flag (the bridge does not clear
 * it on IN_STATE closed): ignored until the bridge's repeat comes.
 */
static void mim_stale_loss_ignored(void)
{
	unsigned m;

	env_init(MRP_IN_ROLE_MIM, 500);
	ev_start(true);
	advance(1000 * MS);
	ev_in_open(true);
	advance(500 * MS);
	ev_link(MRP_IN_PORT_I, false);
	advance(500 * MS);
	m = mark();
	ev_link(MRP_IN_PORT_I, true);	/* closed, flags still set */
	advance(5 * MS);
	ev_in_open(true);		/* the carrier's notification */
	advance(390 * MS);
	ev_in_open(true);
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IC);
	CHECK_EQ(count(m, MRP_IN_ACT_SEND_TOPO), 0);
	CHECK_EQ(E.sm.st.stale_loss, 2);
	advance(5 * MS);		/* 8 x 50 ms since the restart */
	ev_in_open(true);		/* the bridge's repeat: real */
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IO);
	CHECK_EQ(iport_last(m), MRP_PORT_FORWARDING);

	/* the same after a close on a regain */
	advance(1000 * MS);
	ev_in_open(false);
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IC);
	advance(100 * MS);
	ev_in_open(true);
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IC);
	CHECK_EQ(E.sm.st.stale_loss, 3);
}

static void ev_adopt(bool fwd_i, enum mrp_in_state st, bool up_i)
{
	struct mrp_in_sm_kstate k = {
		.up = { true, true, up_i }, .fwd_i = fwd_i, .in_state = st,
	};
	struct mrp_in_actions a = { 0 };

	mrp_in_sm_adopt(&E.sm, E.now, &k, &a);
	collect(&a);
}

/*
 * A restarted mrpd takes a MIM of a closed interconnection over: no
 * role, no port state, no IN_STATE, no InTopologyChange; only the test
 * starts over.  A stale loss report after it is not acted on, the
 * bridge's repeat is.
 */
static void mim_adopt_closed(void)
{
	const struct rec *t;

	env_init(MRP_IN_ROLE_MIM, 200);
	ev_adopt(false, MRP_IN_CLOSED, true);
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IC);
	CHECK_EQ(E.n, 1);
	t = nth(0, MRP_IN_ACT_START_TEST, 0);
	CHECK(t && t->a.a == 20000 && t->a.b == 8, "the test restarts");
	advance(100 * MS);
	ev_in_open(true);		/* the flags of an old loss */
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IC);
	CHECK_EQ(E.sm.st.stale_loss, 1);
	CHECK_EQ(count(0, MRP_IN_ACT_SEND_TOPO), 0);
	advance(60 * MS);		/* 8 x 20 ms after the restart */
	ev_in_open(true);
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IO);
	CHECK_EQ(E.sm.st.opens, 1);
	CHECK_EQ(E.sm.st.transitions, 1);
}

/* An open interconnection stays open, and closes on its own InTest. */
static void mim_adopt_open(void)
{
	struct mrp_pdu own = in_frame(MRP_TLV_IN_TEST, IN_ID, MAC_SELF, 0);
	unsigned m;

	env_init(MRP_IN_ROLE_MIM, 200);
	ev_adopt(true, MRP_IN_OPEN, true);
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IO);
	CHECK_EQ(E.n, 1);
	CHECK_EQ(count(0, MRP_IN_ACT_START_TEST), 1);
	m = mark();
	ev_frame(0, &own);
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IC);
	CHECK_EQ(iport_last(m), MRP_PORT_BLOCKED);
	CHECK_EQ(in_state_last(m), MRP_IN_CLOSED);
	CHECK_EQ(count(m, MRP_IN_ACT_SEND_TOPO), 1);

	/* IN_STATE closed, the I-port forwarding: open, and said so */
	env_init(MRP_IN_ROLE_MIM, 200);
	ev_adopt(true, MRP_IN_CLOSED, true);
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IO);
	CHECK_EQ(in_state_last(0), MRP_IN_OPEN);
	CHECK_EQ(count(0, MRP_IN_ACT_PORT_STATE), 0);
	CHECK_EQ(count(0, MRP_IN_ACT_SEND_TOPO), 0);
}

/* What the I-port's link did while no daemon ran is the event. */
static void mim_adopt_link_changed(void)
{
	env_init(MRP_IN_ROLE_MIM, 200);
	ev_adopt(false, MRP_IN_CLOSED, false);	/* down since */
	CHECK_EQ(E.sm.mim_state, MIM_AC_STAT1);
	CHECK_EQ(in_state_last(0), MRP_IN_OPEN);
	CHECK_EQ(count(0, MRP_IN_ACT_SEND_TOPO), 1);
	CHECK_EQ(count(0, MRP_IN_ACT_ROLE), 0);

	env_init(MRP_IN_ROLE_MIM, 200);
	ev_adopt(false, MRP_IN_OPEN, true);	/* up since */
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IC);
	CHECK_EQ(in_state_last(0), MRP_IN_CLOSED);
	CHECK_EQ(count(0, MRP_IN_ACT_START_TEST), 1);
	CHECK_EQ(count(0, MRP_IN_ACT_SEND_TOPO), 0);
	CHECK_EQ(count(0, MRP_IN_ACT_PORT_STATE), 0);

	env_init(MRP_IN_ROLE_MIM, 200);
	ev_adopt(false, MRP_IN_OPEN, false);	/* down, and was */
	CHECK_EQ(E.sm.mim_state, MIM_AC_STAT1);
	CHECK_EQ(E.n, 0);
}

static void mic_adopt(void)
{
	struct mrp_pdu topo = in_frame(MRP_TLV_IN_TOPO, IN_ID, MAC_MIM, 0);
	const struct rec *l;

	env_init(MRP_IN_ROLE_MIC, 200);
	ev_adopt(true, MRP_IN_OPEN, true);
	CHECK_EQ(E.sm.mic_state, MIC_IP_IDLE);
	CHECK_EQ(E.n, 0);

	/* blocked, link up: waits for the MIM, asks again */
	env_init(MRP_IN_ROLE_MIC, 200);
	ev_adopt(false, MRP_IN_OPEN, true);
	CHECK_EQ(E.sm.mic_state, MIC_PT);
	CHECK_EQ(count(0, MRP_IN_ACT_SEND_LINK), 1);
	l = nth(0, MRP_IN_ACT_SEND_LINK, 0);
	CHECK(l && l->a.up, "InLinkUp");
	CHECK_EQ(count(0, MRP_IN_ACT_ROLE), 0);
	ev_frame(0, &topo);
	CHECK_EQ(E.sm.mic_state, MIC_IP_IDLE);
	CHECK_EQ(iport_last(0), MRP_PORT_FORWARDING);

	/* forwarding, link down since: blocks, InLinkDown */
	env_init(MRP_IN_ROLE_MIC, 200);
	ev_adopt(true, MRP_IN_OPEN, false);
	CHECK_EQ(E.sm.mic_state, MIC_AC_STAT1);
	CHECK_EQ(iport_last(0), MRP_PORT_BLOCKED);
	l = nth(0, MRP_IN_ACT_SEND_LINK, 0);
	CHECK(count(0, MRP_IN_ACT_SEND_LINK) == 1 && l && !l->a.up,
	      "InLinkDown");
}

/* START_IN_TEST is refreshed before its period ends */
static void mim_test_refresh(void)
{
	unsigned m;

	env_init(MRP_IN_ROLE_MIM, 500);
	ev_start(true);
	m = mark();
	advance(5000 * MS - 1);
	CHECK_EQ(count(m, MRP_IN_ACT_START_TEST), 0);
	advance(1);
	CHECK_EQ(count(m, MRP_IN_ACT_START_TEST), 1);
	advance(20000 * MS);
	CHECK_EQ(count(m, MRP_IN_ACT_START_TEST), 5);
}

/*
 * MIC I-port up: blocked, InLinkUp x (LNKNRmax + 1) LNKupT apart with
 * intervals 80..0 ms; no word from the MIM: forward after the series.
 */
static void mic_link_up_series(void)
{
	const struct rec *r;
	unsigned m, k;
	uint64_t t0;

	CHECK_EQ(env_init(MRP_IN_ROLE_MIC, 500), 0);
	ev_start(false);
	CHECK_EQ(E.n, 2);
	CHECK(E.log[0].a.type == MRP_IN_ACT_ROLE &&
	      E.log[0].a.a == MRP_IN_ROLE_MIC, "role");
	CHECK_EQ(iport_last(0), MRP_PORT_BLOCKED);
	CHECK_EQ(count(0, MRP_IN_ACT_STATE), 0);	/* MIM only */
	m = mark();
	t0 = E.now;
	ev_link(MRP_IN_PORT_I, true);
	CHECK_EQ(E.sm.mic_state, MIC_PT);
	CHECK_EQ(count(m, MRP_IN_ACT_PORT_STATE), 0);
	advance(79 * MS);
	CHECK_EQ(count(m, MRP_IN_ACT_SEND_LINK), 4);
	CHECK_EQ(count(m, MRP_IN_ACT_PORT_STATE), 0);
	advance(200 * MS);
	CHECK_EQ(count(m, MRP_IN_ACT_SEND_LINK), 5);
	for (k = 0; k < 5; k++) {
		r = nth(m, MRP_IN_ACT_SEND_LINK, k);
		if (!r)
			break;
		CHECK(r->a.up, "up");
		CHECK(r->t == t0 + k * 20 * MS, "frame %u at +%llu us", k,
		      (unsigned long long)(r->t - t0));
		CHECK(r->a.a == (4 - k) * 20, "frame %u interval %u", k,
		      r->a.a);
	}
	r = nth(m, MRP_IN_ACT_PORT_STATE, 0);
	CHECK(r && r->a.a == MRP_PORT_FORWARDING && r->t == t0 + 100 * MS,
	      "forward one LNKupT after the last frame");
	CHECK_EQ(E.sm.mic_state, MIC_IP_IDLE);
	CHECK_EQ(E.sm.st.link_sent, 5);
}

/* MIC I-port down: blocked at once, InLinkDown series. */
static void mic_link_down_series(void)
{
	struct mrp_pdu tc = in_frame(MRP_TLV_IN_TOPO, IN_ID, MAC_MIM, 60);
	unsigned m, k;
	uint64_t t0;

	env_init(MRP_IN_ROLE_MIC, 200);
	ev_start(true);
	advance(500 * MS);
	CHECK_EQ(E.sm.mic_state, MIC_IP_IDLE);
	m = mark();
	t0 = E.now;
	ev_link(MRP_IN_PORT_I, false);
	CHECK_EQ(E.sm.mic_state, MIC_AC_STAT1);
	CHECK_EQ(iport_last(m), MRP_PORT_BLOCKED);
	CHECK(E.log[m].a.type == MRP_IN_ACT_PORT_STATE, "block first");
	advance(500 * MS);
	CHECK_EQ(count(m, MRP_IN_ACT_SEND_LINK), 5);
	for (k = 0; k < 5; k++) {
		const struct rec *r = nth(m, MRP_IN_ACT_SEND_LINK, k);

		if (!r)
			break;
		CHECK(!r->a.up, "down");
		CHECK(r->t == t0 + k * 20 * MS, "frame %u at +%llu us", k,
		      (unsigned long long)(r->t - t0));
		CHECK(r->a.a == (4 - k) * 20, "frame %u interval %u", k,
		      r->a.a);
	}
	CHECK_EQ(count(m, MRP_IN_ACT_PORT_STATE), 1);
	CHECK_EQ(E.sm.mic_state, MIC_AC_STAT1);

	/* the MIM's InTopologyChange ends a down series early */
	env_init(MRP_IN_ROLE_MIC, 500);
	ev_start(true);
	advance(500 * MS);
	m = mark();
	ev_link(MRP_IN_PORT_I, false);
	advance(30 * MS);
	ev_frame(0, &tc);
	advance(500 * MS);
	CHECK_EQ(count(m, MRP_IN_ACT_SEND_LINK), 2);
	CHECK_EQ(E.sm.mic_state, MIC_AC_STAT1);
}

/* MIC: InTopologyChange ends the up series, forwards, flushes later. */
static void mic_topology_change(void)
{
	struct mrp_pdu tc = in_frame(MRP_TLV_IN_TOPO, IN_ID, MAC_MIM, 60);
	struct mrp_pdu tc0 = in_frame(MRP_TLV_IN_TOPO, IN_ID, MAC_MIM, 0);
	const struct rec *r;
	unsigned m;
	uint64_t t0;

	env_init(MRP_IN_ROLE_MIC, 500);
	ev_start(true);
	advance(25 * MS);
	m = mark();
	t0 = E.now;
	ev_frame(0, &tc);
	CHECK_EQ(E.sm.mic_state, MIC_IP_IDLE);
	CHECK_EQ(iport_last(m), MRP_PORT_FORWARDING);
	CHECK_EQ(count(m, MRP_IN_ACT_FLUSH), 0);
	advance(60 * MS - 1);
	CHECK_EQ(count(m, MRP_IN_ACT_FLUSH), 0);
	advance(1);
	r = nth(m, MRP_IN_ACT_FLUSH, 0);
	CHECK(r && r->t == t0 + 60 * MS, "flush after the frame's interval");
	advance(500 * MS);
	CHECK_EQ(count(m, MRP_IN_ACT_SEND_LINK), 0);	/* series over */
	CHECK_EQ(count(m, MRP_IN_ACT_FLUSH), 1);

	/* a series of frames: each re-arms, the last (0) flushes at once */
	m = mark();
	t0 = E.now;
	ev_frame(0, &tc);
	advance(20 * MS);
	ev_frame(1, &tc);
	advance(40 * MS);
	CHECK_EQ(count(m, MRP_IN_ACT_FLUSH), 0);
	ev_frame(0, &tc0);
	r = nth(m, MRP_IN_ACT_FLUSH, 0);
	CHECK(r && r->t == t0 + 60 * MS, "flush with the frame of 0");
	advance(200 * MS);
	CHECK_EQ(count(m, MRP_IN_ACT_FLUSH), 1);
	CHECK_EQ(count(m, MRP_IN_ACT_PORT_STATE), 0);
	CHECK_EQ(E.sm.st.topo_rx, 4);
}

/* Frames of another interconnection ID change nothing. */
static void other_in_id_ignored(void)
{
	struct mrp_pdu tc = in_frame(MRP_TLV_IN_TOPO, IN_ID + 1, MAC_MIM, 0);
	struct mrp_pdu down = in_frame(MRP_TLV_IN_LINK_DOWN, IN_ID + 1,
				       MAC_MIC, 80);
	struct mrp_pdu ring = in_frame(MRP_TLV_TOPO, IN_ID, MAC_MIM, 0);
	unsigned m;

	env_init(MRP_IN_ROLE_MIC, 500);
	ev_start(true);
	m = mark();
	ev_frame(0, &tc);
	ev_frame(MRP_IN_PORT_I, &tc);
	ev_frame(0, &ring);	/* a ring frame is not ours either */
	CHECK_EQ(E.sm.mic_state, MIC_PT);
	CHECK_EQ(count(m, MRP_IN_ACT_FLUSH), 0);
	CHECK_EQ(count(m, MRP_IN_ACT_PORT_STATE), 0);
	CHECK_EQ(E.sm.st.other_id_rx, 2);
	CHECK_EQ(E.sm.st.ignored_rx, 1);
	CHECK_EQ(E.sm.st.topo_rx, 0);

	env_init(MRP_IN_ROLE_MIM, 500);
	ev_start(true);
	m = mark();
	ev_frame(0, &down);
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IC);
	CHECK_EQ(E.n - m, 0);
	CHECK_EQ(E.sm.st.other_id_rx, 1);
	/* our own InLinkDown (another node's MAC is needed) */
	down.in_id = IN_ID;
	memcpy(down.sa, MAC_SELF, 6);
	ev_frame(0, &down);
	CHECK_EQ(E.sm.mim_state, MIM_CHK_IC);
}

/* Nothing before start; a MIC takes no continuity reports. */
static void not_started_is_inert(void)
{
	struct mrp_pdu tc = in_frame(MRP_TLV_IN_TOPO, IN_ID, MAC_MIM, 0);
	struct mrp_in_actions a = { 0 };

	env_init(MRP_IN_ROLE_MIM, 500);
	mrp_in_sm_link(&E.sm, E.now, MRP_IN_PORT_I, true, &a);
	mrp_in_sm_in_open(&E.sm, E.now, true, &a);
	mrp_in_sm_frame(&E.sm, E.now, 0, &tc, &a);
	mrp_in_sm_timer(&E.sm, E.now + 1000000, &a);
	CHECK_EQ(a.n, 0);
	env_init(MRP_IN_ROLE_MIC, 500);
	ev_start(true);
	a.n = 0;
	mrp_in_sm_in_open(&E.sm, E.now, true, &a);
	mrp_in_sm_link(&E.sm, E.now, 3, false, &a);
	CHECK_EQ(a.n, 0);
	CHECK_EQ(E.sm.st.loss_rx, 0);
	CHECK(!E.overflow, "no overflow");
	CHECK(strcmp(mrp_in_sm_state_name(&E.sm), "PT") == 0, "%s",
	      mrp_in_sm_state_name(&E.sm));
	CHECK(strcmp(mrp_in_act_name(MRP_IN_ACT_SEND_LINK), "?") != 0,
	      "names");
}

/* Parse a request line (modified); returns mrp_in_args_parse()'s value */
static int in_parse(char *line, struct mrp_in_args *a, char *err, size_t n)
{
	char *argv[40];
	int argc = mrp_split(line, argv, 40);

	err[0] = 0;
	return mrp_in_args_parse(argc, argv, a, err, n);
}

/* mrpctl's and mrpd's "add BRIDGE interconnection ...": round trip */
static void in_args_round_trip(void)
{
	char line[] = "add br0 interconnection 65535 ring 7 port p2 role mic "
		      "mode rc profile 500 interval 30000 max-miss 4 "
		      "period 2000000";
	char out[300], again[310], err[300], *argv[40];
	struct mrp_in_args a, b;
	struct mrp_in_cfg cfg;
	int argc;

	CHECK_EQ(in_parse(line, &a, err, sizeof(err)), 0);
	CHECK(!strcmp(a.br, "br0") && !strcmp(a.port, "p2") &&
	      a.id == 65535 && a.ring == 7 && a.role == MRP_IN_ROLE_MIC &&
	      a.mode == MRP_IN_MODE_RC && a.profile == 500 &&
	      a.interval == 30000 && a.max_miss == 4 && a.period == 2000000,
	      "fields: %s", err);
	CHECK(mrp_in_args_cfg(&a, &cfg) == NULL, "cfg");
	CHECK(cfg.in_id == 65535 && cfg.prof.test_interval_us == 30000 &&
	      cfg.prof.test_max == 4 && cfg.test_period_us == 2000000 &&
	      cfg.prof.ms == 500 && cfg.role == MRP_IN_ROLE_MIC, "cfg values");
	mrp_in_args_format(&a, out, sizeof(out));
	snprintf(again, sizeof(again), "add %s", out);
	argc = mrp_split(again, argv, 40);
	CHECK_EQ(mrp_in_args_parse(argc, argv, &b, err, sizeof(err)), 0);
	CHECK(!memcmp(&a, &b, sizeof(a)), "formatted and parsed back: %s",
	      out);

	/* defaults: RC, profile 200 and its test timing */
	{
		char d[] = "add br1 interconnection 0 ring 1 port i0 role mim";

		CHECK_EQ(in_parse(d, &a, err, sizeof(err)), 0);
		CHECK(a.mode == MRP_IN_MODE_RC && a.profile == 200 &&
		      !a.interval && !a.max_miss && !a.period && a.id == 0,
		      "defaults");
		CHECK(mrp_in_args_cfg(&a, &cfg) == NULL &&
		      cfg.prof.test_interval_us == 20000 &&
		      cfg.test_period_us == 10000000, "default cfg");
	}
}

/* Each refusal says what is wrong; LC mode with the state machine's words */
static void in_args_errors(void)
{
	static const struct {
		const char *line;
		int ret;
		const char *msg;
	} cases[] = {
		{ "add br0 interconnection 65536 ring 1 port p2 role mim",
		  -EINVAL, "bad interconnection ID '65536' (0-65535)" },
		{ "add br0 interconnection -1 ring 1 port p2 role mim",
		  -EINVAL, "bad interconnection ID '-1'" },
		{ "add br0 interconnection x ring 1 port p2 role mim",
		  -EINVAL, "bad interconnection ID 'x'" },
		{ "add br0 interconnection 1 ring 1 port p2 role mrm",
		  -EINVAL, "bad value 'mrm' for role" },
		{ "add br0 interconnection 1 ring 1 port p2 role mim mode xc",
		  -EINVAL, "bad value 'xc' for mode" },
		{ "add br0 interconnection 1 ring 1 port p2 role mim mode lc",
		  -EOPNOTSUPP, "interconnection mode LC (link check, "
		  "MRP_InLinkStatusPoll) is not supported" },
		{ "add br0 interconnection 1 ring 1 port p2 role mim "
		  "profile 10", -EINVAL, "bad value '10' for profile" },
		{ "add br0 interconnection 1 ring 1 port p2 role mim "
		  "interval 0", -EINVAL, "bad value '0' for interval" },
		{ "add br0 interconnection 1 ring 1 port p2 role mim "
		  "max-miss 256", -EINVAL, "bad value '256' for max-miss" },
		{ "add br0 interconnection 1 ring 1 port p2 role mim "
		  "interval 50000 period 20000", -EINVAL,
		  "interconnection test period shorter than its interval" },
		{ "add br0 interconnection 1 ring 1 role mim", -EINVAL,
		  "add interconnection needs ring, port and role" },
		{ "add br0 interconnection 1 ring 1 port p2 role mim colour "
		  "blue", -EINVAL, "unknown option 'colour'" },
		{ "add br0 interconnection 1 ring 1 port", -EINVAL,
		  "missing value for 'port'" },
		{ "add br0 interconnection", -EINVAL,
		  "usage: add BRIDGE interconnection ID ring RID port PORT" },
	};
	struct mrp_in_args a;
	char line[200], err[300];
	unsigned i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r;

		snprintf(line, sizeof(line), "%s", cases[i].line);
		r = in_parse(line, &a, err, sizeof(err));
		CHECK(r == cases[i].ret && strstr(err, cases[i].msg),
		      "%s: %d '%s'", cases[i].line, r, err);
	}
}

static void in_del_wait_args(void)
{
	char *argv[12], err[300], key[16], val[24];
	uint32_t id, num, ms;
	char l1[] = "del br0 interconnection 9";
	char l2[] = "del br0 interconnection 70000";
	char l3[] = "wait br0 interconnection 9 in closed timeout 500";
	char l4[] = "wait br0 interconnection 9 opens 2";
	char l5[] = "wait br0 interconnection 9 in half";
	char l6[] = "wait br0 interconnection 9 bogus 1";
	char l7[] = "wait br0 interconnection 9 flushes x";
	int argc;

	argc = mrp_split(l1, argv, 12);
	CHECK(mrp_is_in_request(argc, argv), "is in request");
	CHECK(mrp_in_del_args_parse(argc, argv, &id, err, sizeof(err)) == 0 &&
	      id == 9, "del");
	argc = mrp_split(l2, argv, 12);
	CHECK(mrp_in_del_args_parse(argc, argv, &id, err, sizeof(err)) ==
	      -EINVAL && strstr(err, "usage: del BRIDGE interconnection ID"),
	      "del 70000: %s", err);
	argc = mrp_split(l3, argv, 12);
	CHECK(mrp_in_wait_args_parse(argc, argv, &id, key, sizeof(key), val,
				     sizeof(val), &num, &ms, err,
				     sizeof(err)) == 0 &&
	      !strcmp(key, "in") && !strcmp(val, "closed") && ms == 500,
	      "wait in closed: %s", err);
	argc = mrp_split(l4, argv, 12);
	CHECK(mrp_in_wait_args_parse(argc, argv, &id, key, sizeof(key), val,
				     sizeof(val), &num, &ms, err,
				     sizeof(err)) == 0 && num == 2 &&
	      ms == MRPD_WAIT_DEFAULT_MS, "wait opens 2: %s", err);
	argc = mrp_split(l5, argv, 12);
	CHECK(mrp_in_wait_args_parse(argc, argv, &id, key, sizeof(key), val,
				     sizeof(val), &num, &ms, err,
				     sizeof(err)) == -EINVAL &&
	      strstr(err, "in open|closed"), "wait in half: %s", err);
	argc = mrp_split(l6, argv, 12);
	CHECK(mrp_in_wait_args_parse(argc, argv, &id, key, sizeof(key), val,
				     sizeof(val), &num, &ms, err,
				     sizeof(err)) == -EINVAL &&
	      strstr(err, "KEY is in open|closed"), "wait bogus: %s", err);
	argc = mrp_split(l7, argv, 12);
	CHECK(mrp_in_wait_args_parse(argc, argv, &id, key, sizeof(key), val,
				     sizeof(val), &num, &ms, err,
				     sizeof(err)) == -EINVAL &&
	      strstr(err, "flushes needs a number"), "wait x: %s", err);
	{
		char r[] = "del br0 ring 9";

		argc = mrp_split(r, argv, 12);
		CHECK(!mrp_is_in_request(argc, argv), "a ring request");
	}
}

/* Quirk 1: the three ports' IN_OPEN flags read together */
static void in_open_flags_together(void)
{
	int f[MRP_IN_PORTS] = { -1, -1, -1 };

	/* a loss: the bridge sets all three, one notification each */
	CHECK_EQ(mrp_in_open_flags(f, 0, true), -1);
	CHECK_EQ(mrp_in_open_flags(f, 1, true), -1);
	CHECK_EQ(mrp_in_open_flags(f, MRP_IN_PORT_I, true), 1);
	/* repeated every interval: passed on each time (the MIM decides) */
	CHECK_EQ(mrp_in_open_flags(f, 0, true), 1);
	/* an own InTest back through ring port 1: the regain, once */
	CHECK_EQ(mrp_in_open_flags(f, 1, false), 0);
	CHECK_EQ(mrp_in_open_flags(f, 1, false), -1);
	/* the other two stay set (closing does not clear them): no loss
	 * until the bridge sets port 1 again */
	CHECK_EQ(mrp_in_open_flags(f, 0, true), -1);
	CHECK_EQ(mrp_in_open_flags(f, MRP_IN_PORT_I, true), -1);
	CHECK_EQ(mrp_in_open_flags(f, 1, true), 1);
	/* a flag unknown until read is no regain */
	{
		int g[MRP_IN_PORTS] = { -1, 1, 1 };

		CHECK_EQ(mrp_in_open_flags(g, 0, false), -1);
		CHECK_EQ(mrp_in_open_flags(g, 3, true), -1);
		CHECK(g[0] == 0 && g[1] == 1 && g[2] == 1, "flags kept");
	}
}

int main(void)
{
	RUN(in_open_flags_together);
	RUN(in_args_round_trip);
	RUN(in_args_errors);
	RUN(in_del_wait_args);
	RUN(profiles_table);
	RUN(lc_mode_rejected);
	RUN(overrides);
	RUN(not_started_is_inert);
	RUN(mim_start_blocks_then_checks);
	RUN(mim_loss_opens);
	RUN(mim_regain_closes);
	RUN(mim_own_in_test_closes);
	RUN(mim_link_frames);
	RUN(mim_iport_down_up);
	RUN(mim_stale_loss_ignored);
	RUN(mim_test_refresh);
	RUN(mim_adopt_closed);
	RUN(mim_adopt_open);
	RUN(mim_adopt_link_changed);
	RUN(mic_adopt);
	RUN(mic_link_up_series);
	RUN(mic_link_down_series);
	RUN(mic_topology_change);
	RUN(other_in_id_ignored);
	return tap_done();
}
