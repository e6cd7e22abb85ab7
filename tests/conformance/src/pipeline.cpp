// pipeline.cpp: stages behind virtual calls, over the ring buffer template shared with main.cpp.
#include "cxx.hpp"

extern "C" void __cxa_pure_virtual(void)
{
	for (;;)
		;
}

namespace {

class Scale : public Stage {
public:
	explicit Scale(uint32_t k) : k_(k) {}
	uint32_t apply(uint32_t x) const override { return x * k_ + 1u; }

private:
	uint32_t k_;
};

class Twist : public Stage {
public:
	uint32_t apply(uint32_t x) const override { return rotl(x, 7) ^ g_mixer(x); }
};

const Scale scale(2654435761u);
const Twist twist;
const Stage *const stages[] = { &scale, &twist, &scale };

} // namespace

uint32_t pipeline_run(uint32_t seed)
{
	uint32_t x = seed;
	for (int i = 0; i < 96; i++) {
		for (const Stage *s : stages)
			x = s->apply(x);
		g_ring.push(x);
	}
	uint32_t block[16];
	for (unsigned i = 0; i < 16; i++)
		block[i] = x + i;
	return g_ring.digest(mix_block(block, 16, x));
}
