/* b.c: fixture: the other static 'helper', and the entry point. */
extern int a_entry(int x);
static int __attribute__((noinline)) helper(int x) { return x - 5; }
int b_entry(int x) { return helper(x) * 2; }
void _start(void) { volatile int r = a_entry(3); (void)r; for (;;) ; }
