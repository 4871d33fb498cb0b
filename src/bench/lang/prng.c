/*
 * prng.c — pgbench-compatible random numbers.
 *
 * Every function here must return, for the same state and arguments, the
 * very number pgbench 15 returns: scripts seeded with --random-seed are
 * expected to replay identically under either program.  That rules out
 * "equivalent" rewrites of the floating-point formulas: operations are done
 * in the same order, on the same types, with the same libm calls, because
 * a single rounding difference changes a drawn value (and, through a
 * rejection loop, every value drawn after it).
 */
#include "config.h"

#include "prng.h"

#include <math.h>

#include "pgtempo/hash.h"

/*
 * A fused multiply-add rounds once where pgbench (built for baseline
 * x86-64, which has no FMA) rounds twice, so the compiler must not contract
 * a*b+c even when a -march with FMA is given.
 */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize ("fp-contract=off")
#endif

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* splitmix64's increment: the 64-bit golden ratio. */
#define SPLITMIX_GAMMA		UINT64_C(0x9E3779B97F4A7C15)

/* Stand-in state if seeding ever produced all zeros (Knuth's MMIX LCG constants). */
#define PRNG_NONZERO_S0		UINT64_C(0x5851F42D4C957F2D)
#define PRNG_NONZERO_S1		UINT64_C(0x14057B7EF767814F)

/* MurmurHash64A: multiplier, shift, and the length of one int64 key folded in. */
#define MURMUR_M			UINT64_C(0xC6A4A7935BD1E995)
#define MURMUR_R			47
#define MURMUR_SEED_LEN8	(UINT64_C(8) * MURMUR_M)

/* Number of mixing rounds permute() applies; fixed by pgbench. */
#define PERMUTE_ROUNDS		6

/* Rotate a 64-bit word left by k bits (0 < k < 64). */
static inline uint64_t
rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* Number of leading zero bits of a nonzero word. */
static inline int
clz64(uint64_t x)
{
#if defined(__GNUC__)
	return __builtin_clzll(x);
#else
	int			n = 0;

	while (!(x & (UINT64_C(1) << 63)))
	{
		x <<= 1;
		n++;
	}
	return n;
#endif
}

/* One splitmix64 output; advances *x.  Used only to spread a seed over 128 bits. */
static uint64_t
splitmix64_next(uint64_t *x)
{
	uint64_t	z;

	*x += SPLITMIX_GAMMA;
	z = *x;
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/*
 * Seed from 64 bits: two splitmix64 outputs fill the two state words.  The
 * all-zero state is a fixed point of xoroshiro, so it is replaced; splitmix64
 * is a bijection on distinct counters so this cannot actually happen, but
 * pgbench keeps the guard and so do we (same replacement).
 */
void
prng_seed(prng_state *st, uint64_t seed)
{
	uint64_t	x = seed;

	st->s0 = splitmix64_next(&x);
	st->s1 = splitmix64_next(&x);
	if (st->s0 == 0 && st->s1 == 0)
	{
		st->s0 = PRNG_NONZERO_S0;
		st->s1 = PRNG_NONZERO_S1;
	}
}

/* Give child a fresh state seeded by the parent's next output, as pgbench derives its sequences. */
void
prng_derive(prng_state *parent, prng_state *child)
{
	prng_seed(child, prng_u64(parent));
}

/* xoroshiro128** 1.0: the "**" scrambler on s0, then the linear state step. */
uint64_t
prng_u64(prng_state *st)
{
	uint64_t	a = st->s0;
	uint64_t	b = st->s1 ^ a;
	uint64_t	out = rotl64(a * 5, 7) * 9;

	st->s0 = rotl64(a, 24) ^ b ^ (b << 16);
	st->s1 = rotl64(b, 37);
	return out;
}

/*
 * Uniform in [min, max].  Outputs are shifted down to the bit length of
 * (max - min) and redrawn while too big: unbiased, and fewer than two draws
 * on average.  An empty or one-point range draws nothing and yields min;
 * callers replaying pgbench rely on that (it keeps the stream aligned).
 */
uint64_t
prng_u64_range(prng_state *st, uint64_t min, uint64_t max)
{
	uint64_t	span,
				off;
	int			shift;

	if (max <= min)
		return min;
	span = max - min;
	shift = clz64(span);
	do
		off = prng_u64(st) >> shift;
	while (off > span);
	return min + off;
}

/* Uniform in [0, 1): the top 52 bits scaled by 2^-52, like pg_prng_double. */
double
prng_double(prng_state *st)
{
	return ldexp((double) (prng_u64(st) >> 12), -52);
}

/*
 * Add an offset to a signed bound with two's-complement wrap-around: pgbench
 * is built with -fwrapv, so this is what it computes even in the corners
 * where rounding pushes an offset past the range.
 */
static inline int64_t
add_wrap(int64_t base, uint64_t off)
{
	return (int64_t) ((uint64_t) base + off);
}

/* Number of values in [min, max] as pgbench's int64 "max - min + 1". */
static inline int64_t
span_of(int64_t min, int64_t max)
{
	return (int64_t) ((uint64_t) max - (uint64_t) min + 1);
}

/* pgbench random(min, max): min plus a uniform offset; one draw unless min == max. */
int64_t
prng_uniform(prng_state *st, int64_t min, int64_t max)
{
	return add_wrap(min, prng_u64_range(st, 0, (uint64_t) max - (uint64_t) min));
}

/*
 * pgbench random_exponential: inverse-CDF sampling of an exponential
 * truncated at param, so that the density at max is exp(-param) times the
 * density at min.  One draw; the uniform is flipped to (0, 1] because the
 * formula takes its logarithm.
 */
int64_t
prng_exponential(prng_state *st, int64_t min, int64_t max, double param)
{
	double		cut = exp(-param);
	double		u = 1.0 - prng_double(st);
	double		x = -log(cut + (1.0 - cut) * u) / param;

	return add_wrap(min, (uint64_t) (int64_t) ((double) span_of(min, max) * x));
}

/*
 * pgbench random_gaussian: a normal deviate from the sine branch of the
 * basic Box-Muller transform (two draws per try), retried until it lies in
 * [-param, param), then mapped linearly onto [min, max].
 */
int64_t
prng_gaussian(prng_state *st, int64_t min, int64_t max, double param)
{
	double		z,
				x;

	do
	{
		double		u1 = 1.0 - prng_double(st);
		double		u2 = 1.0 - prng_double(st);
		double		radius = sqrt(-2.0 * log(u1));

		z = radius * sin(2.0 * M_PI * u2);
	} while (z < -param || z >= param);

	x = (z + param) / (param * 2.0);
	return add_wrap(min, (uint64_t) (int64_t) ((double) span_of(min, max) * x));
}

/*
 * A Zipf(s) rank in [1, n] by rejection (Devroye, Non-Uniform Random
 * Variate Generation, p. 550): propose floor(u^(-1/(s-1))), accept with the
 * ratio of the Zipf mass to the proposal's, and also reject ranks beyond n.
 * Two draws per try; near s = 1 most proposals overshoot n, so it loops long.
 */
static int64_t
zipf_rank(prng_state *st, int64_t n, double s)
{
	double		b = pow(2.0, s - 1.0);

	if (n <= 1)
		return 1;

	for (;;)
	{
		double		u = prng_double(st);
		double		v = prng_double(st);
		double		x = floor(pow(u, -1.0 / (s - 1.0)));
		double		t = pow(1.0 + 1.0 / x, s - 1.0);

		/* u == 0 gives x = inf and a NaN test: rejected, as in pgbench */
		if (v * x * (t - 1.0) / (b - 1.0) <= t / b && x <= (double) n)
			return (int64_t) x;
	}
}

/* pgbench random_zipfian: rank 1 maps to min. */
int64_t
prng_zipfian(prng_state *st, int64_t min, int64_t max, double s)
{
	return add_wrap(min, (uint64_t) (zipf_rank(st, span_of(min, max), s) - 1));
}

/*
 * The --rate schedule step: an exponential delay with the given mean (so
 * start times form a Poisson process), rounded to whole microseconds.
 */
int64_t
prng_poisson(prng_state *st, double center)
{
	double		u = 1.0 - prng_double(st);

	return (int64_t) (-log(u) * center + 0.5);
}

/* FNV-1a over the eight bytes of val, least significant first; seed is XORed into the basis. */
int64_t
prng_hash_fnv1a(int64_t val, int64_t seed)
{
	uint64_t	v = (uint64_t) val;
	unsigned char bytes[8];

	for (int i = 0; i < 8; i++)
		bytes[i] = (unsigned char) (v >> (8 * i));
	return (int64_t) hash_fnv1a_more(HASH_FNV1A_BASIS ^ (uint64_t) seed, bytes, sizeof(bytes));
}

/* MurmurHash64A of the single 8-byte key val. */
int64_t
prng_hash_murmur2(int64_t val, int64_t seed)
{
	uint64_t	h = (uint64_t) seed ^ MURMUR_SEED_LEN8;
	uint64_t	k = (uint64_t) val;

	k *= MURMUR_M;
	k ^= k >> MURMUR_R;
	k *= MURMUR_M;

	h ^= k;
	h *= MURMUR_M;

	h ^= h >> MURMUR_R;
	h *= MURMUR_M;
	h ^= h >> MURMUR_R;
	return (int64_t) h;
}

/*
 * One bijective scramble of a value known to be below 2^bits (mask =
 * 2^bits - 1): multiply by an odd number and XOR, both modulo 2^bits, then
 * rotate left by one within the bits so the poorly mixed low bit picks up
 * the top one.
 */
static inline uint64_t
scramble_low(uint64_t v, uint64_t mul, uint64_t xr, uint64_t mask, int bits)
{
	v = ((v * mul) ^ xr) & mask;
	return ((v << 1) & mask) | (v >> (bits - 1));
}

/*
 * pgbench permute(): a seeded bijection of [0, size).  The input is reduced
 * with an unsigned modulo (so a negative val wraps as its two's-complement
 * bit pattern), then each of six rounds scrambles the low 2^k values, the
 * high 2^k values (counted down from size - 1), where 2^k is the largest
 * power of two not above size, and finally adds a random offset modulo size.
 * Every round draws five numbers from a generator seeded with seed, whether
 * or not a half applies, so the permutation depends on seed and size only.
 */
int64_t
prng_permute(int64_t val, int64_t size, int64_t seed)
{
	prng_state	st;
	uint64_t	n,
				v,
				mask;
	int			bits;

	if (size < 2)
		return 0;

	prng_seed(&st, (uint64_t) seed);
	n = (uint64_t) size;
	v = (uint64_t) val % n;
	bits = 63 - clz64(n);
	mask = (UINT64_C(1) << bits) - 1;

	for (int round = 0; round < PERMUTE_ROUNDS; round++)
	{
		uint64_t	mul,
					xr,
					t;

		mul = (prng_u64(&st) & mask) | 1;
		xr = prng_u64(&st) & mask;
		if (v <= mask)
			v = scramble_low(v, mul, xr, mask, bits);

		mul = (prng_u64(&st) & mask) | 1;
		xr = prng_u64(&st) & mask;
		t = n - 1 - v;
		if (t <= mask)
			v = n - 1 - scramble_low(t, mul, xr, mask, bits);

		v = (v + prng_u64_range(&st, 0, n - 1)) % n;
	}
	return (int64_t) v;
}
