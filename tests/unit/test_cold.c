/* timeout: 60 */
/* tracer/cold: which reads stay invisible, which writes void a run, and the
 * hot set's text form (docs/design.md, "Long read-only loops"). */
#include <stdlib.h>

#include "tracer/cold.h"
#include "tests/unit/tap.h"

int main(void)
{
	struct cts_cold *c = cts_cold_new();
	const uint64_t table = 0x4000c0, total = 0x400060;

	cts_cold_begin_run(c);
	tap_ok(cts_cold_read(c, 1, table, 4), "a read of an untouched line is cold");
	tap_ok(cts_cold_read(c, 2, table + 4, 4), "another thread's read of it too");
	tap_ok(cts_cold_read(c, 1, total, 8), "the reader of total reads it cold");
	tap_ok(!cts_cold_write(c, 1, total, 8), "its own write after that is no conflict");
	tap_ok(!cts_cold_read(c, 2, total, 8), "a line written in the run is read visibly");
	tap_ok(!cts_cold_write(c, 2, total, 8), "a second write: no cold reader left");
	tap_ok(cts_cold_read(c, 1, 0x40013c, 8), "a read across two lines is cold...");
	tap_ok(cts_cold_write(c, 2, 0x400140, 1), "...and a write to its second line conflicts");
	tap_ok(cts_cold_write(c, 1, table, 4), "a write to a line two threads read: conflict");
	tap_is_int(cts_cold_nhot(c), 0, "nothing hot before the commit");
	cts_cold_commit(c, false);
	tap_is_int(cts_cold_nhot(c), 2, "the two conflicting lines are hot");

	cts_cold_begin_run(c);
	tap_ok(!cts_cold_read(c, 1, table, 4), "a hot line is read visibly in the next run");
	tap_ok(cts_cold_read(c, 1, total, 8), "total's line is cold again in a new run");
	tap_ok(!cts_cold_write(c, 1, 0x400000, 1 << 20), "a huge write by the reader: no conflict");
	tap_ok(!cts_cold_read(c, 2, 0x480000, 4), "a line inside the huge write is read visibly");
	tap_ok(cts_cold_read(c, 2, 0x900000, 4), "a line outside it is cold");
	tap_ok(cts_cold_write(c, 1, 0x800000, 1 << 21), "a huge write over another's cold read: "
	       "conflict");

	char *s = cts_cold_format(c);
	tap_ok(s && strcmp(s, "0x4000c0,0x400140") == 0, "the hot set as text, ascending: %s",
	       s ? s : "(none)");
	struct cts_cold *d = cts_cold_new();
	tap_ok(cts_cold_parse(d, s) == 0 && cts_cold_nhot(d) == 2, "parsed back");
	char *t = cts_cold_format(d);
	tap_ok(strcmp(s, t) == 0, "the same text again");
	free(t);
	free(s);
	cts_cold_free(d);
	d = cts_cold_new();
	s = cts_cold_format(d);
	tap_ok(strcmp(s, "none") == 0 && cts_cold_parse(d, s) == 0, "no line: 'none', parsed");
	free(s);
	for (int i = 0; i < 16; i++) {
		cts_cold_begin_run(d);
		cts_cold_read(d, 1, 0x10000 + 64 * (uint64_t)i, 4);
		cts_cold_write(d, 2, 0x10000 + 64 * (uint64_t)i, 4);
		cts_cold_commit(d, false);
	}
	cts_cold_begin_run(d);
	s = cts_cold_format(d);
	tap_ok(!cts_cold_read(d, 1, 0x90000, 4) && strcmp(s, "all") == 0,
	       "after 16 void runs every line is hot: '%s'", s);
	free(s);
	cts_cold_free(d);
	d = cts_cold_new();
	tap_ok(cts_cold_parse(d, "all") == 0 && !cts_cold_read(d, 1, 0x90000, 4), "'all' parsed");
	cts_cold_free(d);
	d = cts_cold_new();
	tap_ok(cts_cold_parse(d, "0x4001") != 0, "not a line's start: malformed");
	tap_ok(cts_cold_parse(d, "0x4000,,") != 0, "an empty item: malformed");
	tap_ok(cts_cold_parse(d, "zz") != 0, "not a number: malformed");
	cts_cold_free(d);
	cts_cold_free(c);
	return tap_done();
}
