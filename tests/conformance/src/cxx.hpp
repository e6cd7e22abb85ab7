// cxx.hpp: the C++ variant of the conformance firmware: a class template, inline functions and
// a small class hierarchy. Every out-of-line instantiation or inline function used in both
// main.cpp and pipeline.cpp is emitted into a COMDAT group section (.text._ZN...) in both
// objects, of which the linker keeps one.
#ifndef CONFORMANCE_CXX_HPP
#define CONFORMANCE_CXX_HPP
#include <stdint.h>

inline uint32_t rotl(uint32_t x, unsigned r)
{
	return x << (r & 31u) | x >> ((32u - r) & 31u);
}

// Not inlined, so both objects carry the COMDAT copy.
__attribute__((noinline)) inline uint32_t mix_block(const uint32_t *p, unsigned n, uint32_t h)
{
	for (unsigned i = 0; i < n; i++)
		h = rotl(h ^ p[i], 11) * 0x9e3779b1u;
	return h;
}

template <typename T, unsigned N> class RingBuffer {
public:
	RingBuffer() : head_(0), count_(0) {}
	void push(T v)
	{
		buf_[head_] = v;
		head_ = (head_ + 1) % N;
		if (count_ < N)
			count_++;
	}
	__attribute__((noinline)) uint32_t digest(uint32_t h) const
	{
		for (unsigned i = 0; i < count_; i++)
			h = (h ^ static_cast<uint32_t>(buf_[(head_ + N - 1 - i) % N])) * 16777619u;
		return h;
	}
	unsigned size() const { return count_; }

private:
	T buf_[N];
	unsigned head_, count_;
};

class Stage {
public:
	virtual uint32_t apply(uint32_t x) const = 0;
};

// A table filled by a static constructor: runs from the reset path (__libc_init_array), after
// .data/.bss are set up.
class Mixer {
public:
	explicit Mixer(uint32_t seed);
	uint32_t operator()(uint32_t x) const { return table_[x & 255u] ^ (x >> 8); }

private:
	uint32_t table_[256];
};

extern const Mixer g_mixer;
extern RingBuffer<uint32_t, 64> g_ring;
uint32_t pipeline_run(uint32_t seed);

#endif
