/* a.c: fixture for the image model tests: a static 'helper' (its twin is in b.c), a function
 * that GCC clones (constprop), a cold split part, and calls between them. */
extern int b_entry(int x);
static int __attribute__((noinline)) helper(int x) { return x * 3 + 1; }
int __attribute__((noinline)) scale(int x, int k) { int s = 0; for (int i = 0; i < x; i++) s += i * k + (s >> 3); return s; }
int __attribute__((noinline)) cold_split(int x)
{
	if (__builtin_expect(x == 12345, 0)) {
		volatile int v = 0;
		for (int i = 0; i < 100; i++) v += i * x;
		__builtin_trap();
	}
	return x + 1;
}
int a_entry(int x) { return helper(x) + scale(x, 7) + scale(x + 1, 7) + cold_split(x) + b_entry(x); }
