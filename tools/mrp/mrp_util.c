// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <linux/filter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mrp_sm.h"
#include "mrp_util.h"

bool mrp_parse_u32(const char *s, uint32_t max, uint32_t *out)
{
	unsigned long long v = 0;
	int base = 10;
	const char *p;

	if (!s || !*s)
		return false;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!*s)
			return false;
	}
	for (p = s; *p; p++) {
		int d;

		if (isdigit((unsigned char)*p))
			d = *p - '0';
		else if (base == 16 && isxdigit((unsigned char)*p))
			d = tolower((unsigned char)*p) - 'a' + 10;
		else
			return false;
		v = v * (unsigned)base + (unsigned)d;
		if (v > max)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

int mrp_parse_role(const char *s)
{
	if (!strcmp(s, "mrm"))
		return MRP_ROLE_MRM;
	if (!strcmp(s, "mrc"))
		return MRP_ROLE_MRC;
	if (!strcmp(s, "mra"))
		return MRP_ROLE_MRA;
	if (!strcmp(s, "disabled"))
		return MRP_ROLE_DISABLED;
	return -1;
}

int mrp_parse_port_state(const char *s)
{
	if (!strcmp(s, "forwarding"))
		return MRP_PORT_FORWARDING;
	if (!strcmp(s, "blocked") || !strcmp(s, "blocking"))
		return MRP_PORT_BLOCKED;
	if (!strcmp(s, "disabled"))
		return MRP_PORT_DISABLED;
	return -1;
}

int mrp_parse_port_role(const char *s)
{
	if (!strcmp(s, "primary"))
		return MRP_PORT_PRIMARY;
	if (!strcmp(s, "secondary"))
		return MRP_PORT_SECONDARY;
	return -1;
}

int mrp_parse_ring_state(const char *s)
{
	if (!strcmp(s, "open"))
		return MRP_RING_OPEN;
	if (!strcmp(s, "closed"))
		return MRP_RING_CLOSED;
	return -1;
}

void mrp_mac_str(const uint8_t mac[6], char buf[18])
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1],
		 mac[2], mac[3], mac[4], mac[5]);
}

void sb_init(struct sbuf *b)
{
	memset(b, 0, sizeof(*b));
}

void sb_free(struct sbuf *b)
{
	free(b->s);
	sb_init(b);
}

static bool sb_grow(struct sbuf *b, size_t need)
{
	size_t cap;
	char *n;

	if (b->oom)
		return false;
	if (b->len + need + 1 <= b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + need + 1)
		cap *= 2;
	n = realloc(b->s, cap);
	if (!n) {
		b->oom = true;
		return false;
	}
	b->s = n;
	b->cap = cap;
	return true;
}

void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !sb_grow(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void sb_json_str(struct sbuf *b, const char *s)
{
	sb_printf(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			sb_printf(b, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			sb_printf(b, "\\u%04x", c);
		else
			sb_printf(b, "%c", c);
	}
	sb_printf(b, "\"");
}

socklen_t mrp_ctl_addr(const char *name, struct sockaddr_un *sun)
{
	size_t n = strlen(name);

	if (n > sizeof(sun->sun_path) - 1)
		n = sizeof(sun->sun_path) - 1;
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	/* abstract namespace: leading NUL, not NUL terminated */
	memcpy(sun->sun_path + 1, name, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

int mrp_split(char *line, char **argv, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		if (n == max)
			return -1;
		argv[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = 0;
	}
	return n;
}

int mrp_filter_mrp(int fd)
{
	static struct sock_filter code[] = {
		{ 0x28, 0, 0, 0x0000000c },	/* ldh [12] */
		{ 0x15, 0, 1, 0x000088e3 },	/* jeq #0x88e3 */
		{ 0x06, 0, 0, 0x0000ffff },	/* ret #65535 */
		{ 0x06, 0, 0, 0x00000000 },	/* ret #0 */
	};
	struct sock_fprog prog = { sizeof(code) / sizeof(code[0]), code };

	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
		       sizeof(prog)) < 0)
		return -errno;
	return 0;
}
