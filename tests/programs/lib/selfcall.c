/* libselfcall.so: an exported function that calls another exported one of
 * the same library, through the library's own PLT (it may be interposed):
 * with --trace-lib selfcall both are traced code, and the inner call is no
 * "untraced library function" (tests/e2e/lib_calls.t). */
void sc_add(int *p, int v);
void sc_bump(int *p);

__attribute__((noinline)) void sc_add(int *p, int v)
{
	*p += v;
}

void sc_bump(int *p)
{
	sc_add(p, 1);
}
