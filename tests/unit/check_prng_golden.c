/*
 * check_prng_golden.c — scripts of random and hash functions replayed
 * against what pgbench 15 printed for them, bit for bit.
 *
 * Golden values were captured from the real pgbench 15.20 (Debian
 * 15.20-0+deb12u1) against a throwaway server.  For each golden run below,
 * a script with one line per call,
 *
 *     \set v0 debug(random(1, 100))
 *     \set v1 debug(:default_seed)
 *     \set v2 debug(hash_fnv1a(42, :default_seed))
 *     ...
 *
 * (random_exponential / random_gaussian / random_zipfian / hash_murmur2 /
 * permute likewise; a "_D" call below uses :default_seed as its seed) was
 * run as
 *
 *     pgbench -h /tmp/pgd -U pgtempo-test -n -c 1 -t NTX -f SCRIPT \
 *         --random-seed=SEED postgres
 *
 * and the "debug(script=0,command=N): int V" lines on stderr were taken in
 * order: NTX transactions of the whole script.  With one client the
 * functions draw from client 0's cs_func_rs, the first state derived from
 * the base sequence (see prng.h for the whole seeding order).
 */
#include "config.h"

#include "check_prng.h"

#include <inttypes.h>

/* The script functions one golden run can call. */
typedef enum call_kind
{
	CALL_RANDOM,
	CALL_EXPONENTIAL,
	CALL_GAUSSIAN,
	CALL_ZIPFIAN,
	CALL_FNV1A,
	CALL_MURMUR2,
	CALL_PERMUTE,
	CALL_DEFAULT_SEED
} call_kind;

/* One script line: a (min, max) or (val, size) pair, a distribution parameter, a hash seed. */
typedef struct call
{
	call_kind	kind;
	int64_t		a,
				b;
	double		param;
	int64_t		seed;
	bool		use_default_seed;	/* seed is :default_seed */
} call;

#define RANDOM(lo, hi)			{CALL_RANDOM, (lo), (hi), 0.0, 0, false}
#define EXPONENTIAL(lo, hi, p)	{CALL_EXPONENTIAL, (lo), (hi), (p), 0, false}
#define GAUSSIAN(lo, hi, p)		{CALL_GAUSSIAN, (lo), (hi), (p), 0, false}
#define ZIPFIAN(lo, hi, s)		{CALL_ZIPFIAN, (lo), (hi), (s), 0, false}
#define FNV1A(v, s)				{CALL_FNV1A, (v), 0, 0.0, (s), false}
#define FNV1A_D(v)				{CALL_FNV1A, (v), 0, 0.0, 0, true}
#define MURMUR2(v, s)			{CALL_MURMUR2, (v), 0, 0.0, (s), false}
#define MURMUR2_D(v)			{CALL_MURMUR2, (v), 0, 0.0, 0, true}
#define PERMUTE(v, n, s)		{CALL_PERMUTE, (v), (n), 0.0, (s), false}
#define PERMUTE_D(v, n)			{CALL_PERMUTE, (v), (n), 0.0, 0, true}
#define DEFAULT_SEED()			{CALL_DEFAULT_SEED, 0, 0, 0.0, 0, false}

/* A script run for ntx transactions under --random-seed=seed, and what pgbench printed. */
typedef struct golden_run
{
	const char *name;
	uint64_t	seed;
	int			ntx;
	const call *script;
	size_t		ncalls;
	const int64_t *want;
	size_t		nwant;
} golden_run;

#define RUN(script, seed, ntx, want) \
	{#script, (seed), (ntx), script_##script, lengthof(script_##script), (want), lengthof(want)}

/* ---------------------------------------------------------------- captured from pgbench 15 */

static const call script_uniform[] = {
	RANDOM(1, 100),
	RANDOM(0, 0),
	RANDOM(-5, 5),
	RANDOM(1, 2),
	RANDOM(1, 3),
	RANDOM(-1000000, 1000000),
	RANDOM(0, INT64_C(4294967295)),
	RANDOM(0, INT64_C(4294967296)),
	RANDOM(1, INT64_C(1000000000000)),
	RANDOM(INT64_C(-4611686018427387904), INT64_C(4611686018427387902)),
	RANDOM(INT64_MIN, -2),
	RANDOM(1, INT64_MAX),
	RANDOM(INT64_MAX, INT64_MAX),
};

static const int64_t want_uniform_0[] = {
	30, 0, 3,
	2, 3, -504389,
	INT64_C(2445662388), 279894849, INT64_C(364822441998),
	INT64_C(-1276129895752470549), INT64_C(-8617735536274406158), INT64_C(3397675863030359967),
	INT64_MAX, 46, 0,
	-4, 1, 3,
	-668544, INT64_C(3370635115), 159866104,
	INT64_C(877017018095), INT64_C(652651841622942034), INT64_C(-798027416724082581),
	INT64_C(4457840519199577950), INT64_MAX, 83,
	0, 1, 2,
	3, -302685, 755309893,
	INT64_C(3192523731), INT64_C(501301880013), INT64_C(1809505888128342852),
	INT64_C(-8138091557229434394), INT64_C(229655595728794151), INT64_MAX,
};

static const int64_t want_uniform_1[] = {
	82, 0, -5,
	2, 3, 389382,
	177445965, 1575217313, INT64_C(50070473903),
	INT64_C(-1939815023200926071), INT64_C(-7473799322223600407), INT64_C(1211190774284591893),
	INT64_MAX, 46, 0,
	1, 1, 2,
	327531, 1132538988, INT64_C(3774640926),
	INT64_C(750311368743), INT64_C(4130926268404625194), INT64_C(-8558785425545087615),
	INT64_C(5263637859364925173), INT64_MAX, 45,
	0, 3, 2,
	3, 631751, 471580573,
	291778003, INT64_C(862382211728), INT64_C(4059249693203428160),
	INT64_C(-1541781678054652755), INT64_C(4585039611757686548), INT64_MAX,
};

static const int64_t want_uniform_42[] = {
	82, 0, 5,
	1, 2, 382239,
	1201884639, INT64_C(2489139089), INT64_C(3789606175),
	INT64_C(4399779761052855921), INT64_C(-2679518687156537951), INT64_C(911553062875543716),
	INT64_MAX, 77, 0,
	5, 1, 2,
	496004, INT64_C(3364146037), 1732764125,
	INT64_C(541760316556), INT64_C(492857048501532283), INT64_C(-5272229660468934057),
	INT64_C(7904154841218536753), INT64_MAX, 20,
	0, 5, 2,
	2, 321196, 795596540,
	INT64_C(3897901728), INT64_C(990675399245), INT64_C(2171100712311471210),
	INT64_C(-5470780350066954067), INT64_C(587004490439226161), INT64_MAX,
};

static const int64_t want_uniform_12345[] = {
	56, 0, 2,
	1, 1, -989369,
	INT64_C(3576171387), INT64_C(4193996151), INT64_C(322404088437),
	INT64_C(1725691556680181396), INT64_C(-6807456186129055734), INT64_C(2404345936747677753),
	INT64_MAX, 68, 0,
	5, 1, 3,
	-57298, 756688560, 515166351,
	INT64_C(664869481520), INT64_C(3064073499830073101), INT64_C(-1748885424072977333),
	INT64_C(3294447806683025937), INT64_MAX, 86,
	0, -1, 1,
	1, 214901, INT64_C(3392404036),
	INT64_C(4174916547), INT64_C(930756919106), INT64_C(-3111247051219707487),
	INT64_C(-3989381953357014321), INT64_C(6388093126663212914), INT64_MAX,
};

static const int64_t want_uniform_9223372036854775813[] = {
	90, 0, -2,
	2, 2, 673299,
	1401906730, INT64_C(3088643966), INT64_C(761836802776),
	INT64_C(-2537748866878100729), INT64_C(-7769826288270808780), INT64_C(3781931375695466950),
	INT64_MAX, 47, 0,
	-2, 1, 2,
	-736410, INT64_C(3985702056), INT64_C(3623254702),
	INT64_C(769927579426), INT64_C(1895919375578968335), INT64_C(-9027500922227363811),
	INT64_C(3243895758742436201), INT64_MAX, 83,
	0, 2, 1,
	2, -100964, INT64_C(3998385434),
	1967166391, INT64_C(798423362745), INT64_C(1672957987774568602),
	INT64_C(-9102608960801401726), INT64_C(6560821511942853499), INT64_MAX,
};

static const int64_t want_uniform_18446744073709551615[] = {
	88, 0, 2,
	2, 3, 144544,
	INT64_C(3995988405), 1986745057, INT64_C(535912127041),
	INT64_C(-1618826703062389492), INT64_C(-3926557762438256937), INT64_C(8892172270725965703),
	INT64_MAX, 55, 0,
	5, 1, 2,
	-13209, 1422844805, 753591149,
	INT64_C(111088433871), INT64_C(-2971510604952477292), INT64_C(-5935404711553895296),
	INT64_C(2235778585751014844), INT64_MAX, 58,
	0, 3, 1,
	1, -399123, 1793591844,
	2095753296, INT64_C(454697576954), INT64_C(2033913469660668778),
	INT64_C(-475816044589806907), INT64_C(6674839897071914533), INT64_MAX,
};

static const call script_exponential[] = {
	EXPONENTIAL(1, 1000, 3.5),
	EXPONENTIAL(1, 1000, 0.0001),
	EXPONENTIAL(1, 1000, 1),
	EXPONENTIAL(1, 1000, 20),
	EXPONENTIAL(1, 1000, 700),
	EXPONENTIAL(1, 1000, 800),
	EXPONENTIAL(5, 5, 2),
	EXPONENTIAL(-100, 100, 0.5),
	EXPONENTIAL(1, INT64_MAX, 3),
	EXPONENTIAL(INT64_MIN, -2, 1.5),
};

static const int64_t want_exponential_0[] = {
	72, 517, 877,
	102, 2, 1,
	5, -95, INT64_C(1164456539869524481),
	INT64_C(-7195322489885568768), 19, 369,
	254, 5, 1,
	2, 5, 48,
	INT64_C(54856063174874697), INT64_C(-3279210567363017728), 231,
	914, 365, 141,
	2, 2, 5,
	34, INT64_C(5880224920972026881), INT64_C(-5377493588585469952),
};

static const int64_t want_exponential_42[] = {
	275, 816, 514,
	4, 1, 2,
	5, -52, INT64_C(10085461999706365),
	INT64_C(-473178689447203840), 333, 99,
	474, 59, 1,
	1, 5, 48,
	INT64_C(5768844178468704257), INT64_C(-8175321138259786240), 186,
	554, 316, 98,
	1, 2, 5,
	-36, INT64_C(2806584495200473601), INT64_C(-8267978153132017024),
};

static const int64_t want_exponential_12345[] = {
	156, 481, 267,
	1, 1, 3,
	5, -15, INT64_C(1004110271477722113),
	INT64_C(-4531055323410018304), 84, 261,
	409, 51, 1,
	2, 5, -72,
	INT64_C(180395619152109793), INT64_C(-5322233105781748224), 471,
	811, 256, 156,
	3, 2, 5,
	-34, INT64_C(94043433999817921), INT64_C(-5546780796168790528),
};

static const int64_t want_exponential_9223372036854775813[] = {
	325, 783, 129,
	79, 1, 2,
	5, 67, INT64_C(1285244582631990785),
	INT64_C(-4471476152948525056), 71, 158,
	301, 23, 1,
	1, 5, 79,
	INT64_C(5947579072837462017), INT64_C(-7758735350423522560), 38,
	928, 971, 28,
	2, 2, 5,
	-41, INT64_C(2938815643214175233), INT64_C(-4341115306783520768),
};

static const call script_gaussian[] = {
	GAUSSIAN(1, 1000, 2.5),
	GAUSSIAN(1, 1000, 2),
	GAUSSIAN(1, 1000, 2.0001),
	GAUSSIAN(1, 1000, 5),
	GAUSSIAN(1, 1000, 100),
	GAUSSIAN(1, 1000, 1000000),
	GAUSSIAN(7, 7, 3),
	GAUSSIAN(INT64_MIN, -2, 2.5),
	GAUSSIAN(1, INT64_MAX, 4),
};

static const int64_t want_gaussian_0[] = {
	516, 918, 197,
	474, 497, 500,
	7, INT64_C(-2848418556763662336), INT64_C(5271871516046575617),
	538, 669, 606,
	637, 505, 501,
	7, INT64_C(-4300079240248722432), INT64_C(6123201772203654145),
	448, 240, 534,
	439, 503, 500,
	7, INT64_C(-3736165142623098880), INT64_C(3971726875625031681),
};

static const int64_t want_gaussian_42[] = {
	761, 373, 676,
	422, 501, 500,
	7, INT64_C(-5429072316514956800), INT64_C(6394554728893011969),
	98, 596, 707,
	542, 496, 500,
	7, INT64_C(-4471492833063280640), INT64_C(6544863869287367681),
	629, 275, 426,
	429, 505, 501,
	7, INT64_C(-6024591476263123968), INT64_C(2963522475054649857),
};

static const int64_t want_gaussian_12345[] = {
	475, 487, 522,
	491, 504, 500,
	7, INT64_C(-3116225957281647616), INT64_C(3485025780989294593),
	544, 939, 566,
	658, 498, 501,
	7, INT64_C(-7658898470395140096), INT64_C(6008321314716437505),
	708, 148, 155,
	437, 512, 500,
	7, INT64_C(-4535915099078727680), INT64_C(2078763206666897921),
};

static const int64_t want_gaussian_9223372036854775813[] = {
	804, 657, 755,
	566, 505, 500,
	7, INT64_C(-5684877816228765696), INT64_C(6037487922383457281),
	75, 557, 165,
	650, 500, 501,
	7, INT64_C(-5542211682897921536), INT64_C(1969182362237760513),
	793, 540, 434,
	368, 499, 500,
	7, INT64_C(-6901919635687656960), INT64_C(4003885285008953857),
};

static const call script_zipfian[] = {
	ZIPFIAN(1, 1000, 1.2),
	ZIPFIAN(1, 1000, 1.001),
	ZIPFIAN(1, 1000, 1.01),
	ZIPFIAN(1, 1000, 1.5),
	ZIPFIAN(1, 1000, 2),
	ZIPFIAN(1, 1000, 10),
	ZIPFIAN(1, 1000, 900),
	ZIPFIAN(1, 1000, 1000),
	ZIPFIAN(3, 3, 1.5),
	ZIPFIAN(1, 2, 1.3),
	ZIPFIAN(-50, 50, 1.1),
	ZIPFIAN(1, INT64_MAX, 1.05),
	ZIPFIAN(INT64_MIN, -2, 2.5),
};

static const int64_t want_zipfian_0[] = {
	1, 1, 11,
	9, 1, 1,
	1, 1, 3,
	1, -49, 738,
	INT64_MIN, 197, 141,
	53, 8, 1,
	1, 1, 1,
	3, 1, 32,
	161543, INT64_MIN, 578,
	435, 3, 634,
	1, 1, 1,
	1, 3, 2,
	-45, 14045597, INT64_MIN,
};

static const int64_t want_zipfian_42[] = {
	9, 294, 2,
	84, 1, 1,
	1, 1, 3,
	2, -39, 5729,
	INT64_MIN, 1, 21,
	6, 1, 12,
	1, 1, 1,
	3, 1, -33,
	1, INT64_MIN, 287,
	1, 550, 1,
	2, 1, 1,
	1, 3, 1,
	-34, INT64_C(4678561099093516), INT64_MIN,
};

static const int64_t want_zipfian_12345[] = {
	66, 4, 1,
	1, 1, 1,
	1, 1, 3,
	2, 9, 1,
	INT64_C(-9223372036854775806), 7, 195,
	33, 1, 1,
	1, 1, 1,
	3, 1, -50,
	772122, INT64_MIN, 2,
	4, 979, 5,
	6, 1, 1,
	1, 3, 1,
	-47, 53, INT64_MIN,
};

static const int64_t want_zipfian_9223372036854775813[] = {
	86, 101, 7,
	1, 1, 1,
	1, 1, 3,
	1, -38, 1,
	INT64_MIN, 2, 104,
	3, 70, 2,
	1, 1, 1,
	3, 1, -50,
	9213, INT64_MIN, 49,
	118, 41, 1,
	2, 1, 1,
	1, 3, 1,
	-42, INT64_C(2735274161863322), INT64_MIN,
};

static const call script_hash[] = {
	FNV1A(0, 0),
	FNV1A(1, 0),
	FNV1A(-1, 0),
	FNV1A(INT64_MIN, 0),
	FNV1A(INT64_MAX, -1),
	FNV1A(12345, INT64_MIN),
	FNV1A(255, 256),
	FNV1A(256, 7),
	FNV1A(42, 7),
	FNV1A(-42, -7),
	FNV1A(1000000007, INT64_C(1234567890123)),
	FNV1A(INT64_C(4294967296), INT64_C(-4294967296)),
	MURMUR2(0, 0),
	MURMUR2(1, 0),
	MURMUR2(-1, 0),
	MURMUR2(INT64_MIN, 0),
	MURMUR2(INT64_MAX, -1),
	MURMUR2(12345, INT64_MIN),
	MURMUR2(255, 256),
	MURMUR2(256, 7),
	MURMUR2(42, 7),
	MURMUR2(-42, -7),
	MURMUR2(1000000007, INT64_C(1234567890123)),
	MURMUR2(INT64_C(4294967296), INT64_C(-4294967296)),
};

static const int64_t want_hash_42[] = {
	INT64_C(-6284781860667377211), INT64_C(-8517097267634966620), INT64_C(-8289690350564177859),
	INT64_C(-6284922598155788219), INT64_C(9116682525541297170), INT64_C(7430571623803898956),
	INT64_C(-7687740719850618342), INT64_C(1236834726000471613), INT64_C(2765047632110736392),
	INT64_C(2945412177850604557), INT64_C(5439296671485123792), INT64_C(7270427458579758388),
	INT64_C(8217090173679840641), INT64_C(-8089716718896805586), INT64_C(4219408603045787357),
	INT64_C(9158703207903963431), INT64_C(-7449049946749928351), INT64_C(6995891946224465757),
	INT64_C(100777154510913449), INT64_C(-4124641670140641508), INT64_C(1340367696533541376),
	INT64_C(-5516878794946009494), INT64_C(-6688170202553814972), INT64_C(6182793605275548623),
};

static const call script_permute[] = {
	PERMUTE(0, 1, 5),
	PERMUTE(123, 1, -5),
	PERMUTE(0, 2, 5),
	PERMUTE(1, 2, 5),
	PERMUTE(0, 2, 6),
	PERMUTE(1, 2, 6),
	PERMUTE(0, 3, 0),
	PERMUTE(1, 3, 0),
	PERMUTE(2, 3, 0),
	PERMUTE(5, 4, 1),
	PERMUTE(4, 5, 1),
	PERMUTE(6, 7, -1),
	PERMUTE(7, 8, 3),
	PERMUTE(3, 1000, 5),
	PERMUTE(999, 1000, 5),
	PERMUTE(1000, 1000, 5),
	PERMUTE(-1, 1000, 5),
	PERMUTE(-7, 1000, 5),
	PERMUTE(-1000, 1000, 5),
	PERMUTE(INT64_MIN, 1000, 5),
	PERMUTE(INT64_MAX, 1000, INT64_MIN),
	PERMUTE(0, 1000, INT64_MAX),
	PERMUTE(500, 1001, -1),
	PERMUTE(1023, 1024, 11),
	PERMUTE(1024, 1025, 11),
	PERMUTE(2147483647, INT64_C(2147483648), 42),
	PERMUTE(123456789, INT64_C(4294967295), 42),
	PERMUTE(123456789, INT64_C(4611686018427387904), 42),
	PERMUTE(123456789, INT64_C(4611686018427387905), 42),
	PERMUTE(-123456789, INT64_MAX, 42),
	PERMUTE(INT64_C(9223372036854775806), INT64_MAX, -42),
	PERMUTE(17, INT64_C(4611686018427387904), -3),
};

static const int64_t want_permute_42[] = {
	0, 0, 0,
	1, 1, 0,
	2, 1, 0,
	1, 0, 6,
	4, 781, 934,
	234, 268, 147,
	632, 494, 412,
	520, 620, 507,
	142, 1046283540, 729340731,
	INT64_C(3737614916456026305), INT64_C(2439666441085503975), INT64_C(4379849376691054908),
	INT64_C(8390473173594727261), INT64_C(1885197236152922897),
};

static const call script_mixed[] = {
	RANDOM(1, 100),
	DEFAULT_SEED(),
	FNV1A_D(42),
	EXPONENTIAL(1, 1000, 3.5),
	MURMUR2_D(-1),
	GAUSSIAN(1, 1000, 2.5),
	PERMUTE_D(7, 1000),
	ZIPFIAN(1, 1000, 1.2),
	RANDOM(-5, 5),
};

static const int64_t want_mixed_0[] = {
	30, INT64_C(7868822567099391496), INT64_C(-2849817025037458457),
	199, INT64_C(8023506715031468446), 835,
	716, 25, 4,
	5, INT64_C(7868822567099391496), INT64_C(-2849817025037458457),
	111, INT64_C(8023506715031468446), 425,
	716, 147, -4,
	48, INT64_C(7868822567099391496), INT64_C(-2849817025037458457),
	364, INT64_C(8023506715031468446), 615,
	716, 1, 0,
};

static const int64_t want_mixed_1[] = {
	82, INT64_C(-4077769369618924625), INT64_C(6758219713062923424),
	4, INT64_C(-2534676727100739420), 759,
	897, 1, -1,
	25, INT64_C(-4077769369618924625), INT64_C(6758219713062923424),
	39, INT64_C(-2534676727100739420), 735,
	897, 173, 2,
	39, INT64_C(-4077769369618924625), INT64_C(6758219713062923424),
	272, INT64_C(-2534676727100739420), 638,
	897, 11, 5,
};

static const int64_t want_mixed_42[] = {
	82, INT64_C(4306334408478191133), INT64_C(-1362870239169141934),
	448, INT64_C(2289023557307317682), 398,
	942, 582, -5,
	91, INT64_C(4306334408478191133), INT64_C(-1362870239169141934),
	29, INT64_C(2289023557307317682), 749,
	942, 373, -2,
	64, INT64_C(4306334408478191133), INT64_C(-1362870239169141934),
	220, INT64_C(2289023557307317682), 666,
	942, 14, 5,
};

static const int64_t want_mixed_12345[] = {
	56, INT64_C(8784320640503919345), INT64_C(-5066662690041905730),
	180, INT64_C(82134564941602689), 489,
	747, 17, -1,
	88, INT64_C(8784320640503919345), INT64_C(-5066662690041905730),
	84, INT64_C(82134564941602689), 530,
	747, 9, 2,
	23, INT64_C(8784320640503919345), INT64_C(-5066662690041905730),
	18, INT64_C(82134564941602689), 737,
	747, 2, 5,
};

static const int64_t want_mixed_9223372036854775813[] = {
	90, INT64_C(5243292301133979843), INT64_C(-6403496191207606964),
	407, INT64_C(-5945385407423853628), 626,
	402, 86, -2,
	47, INT64_C(5243292301133979843), INT64_C(-6403496191207606964),
	723, INT64_C(-5945385407423853628), 761,
	402, 661, 1,
	90, INT64_C(5243292301133979843), INT64_C(-6403496191207606964),
	330, INT64_C(-5945385407423853628), 467,
	402, 32, 2,
};

static const int64_t want_mixed_18446744073709551615[] = {
	88, INT64_C(5218942343062937440), INT64_C(6975843487217983567),
	357, INT64_C(1877029338764319435), 697,
	580, 7, 3,
	96, INT64_C(5218942343062937440), INT64_C(6975843487217983567),
	73, INT64_C(1877029338764319435), 294,
	580, 71, 0,
	48, INT64_C(5218942343062937440), INT64_C(6975843487217983567),
	175, INT64_C(1877029338764319435), 407,
	580, 173, 2,
};

static const golden_run golden_runs[] = {
	RUN(uniform, UINT64_C(0), 3, want_uniform_0),
	RUN(uniform, UINT64_C(1), 3, want_uniform_1),
	RUN(uniform, UINT64_C(42), 3, want_uniform_42),
	RUN(uniform, UINT64_C(12345), 3, want_uniform_12345),
	RUN(uniform, UINT64_C(9223372036854775813), 3, want_uniform_9223372036854775813),
	RUN(uniform, UINT64_C(18446744073709551615), 3, want_uniform_18446744073709551615),
	RUN(exponential, UINT64_C(0), 3, want_exponential_0),
	RUN(exponential, UINT64_C(42), 3, want_exponential_42),
	RUN(exponential, UINT64_C(12345), 3, want_exponential_12345),
	RUN(exponential, UINT64_C(9223372036854775813), 3, want_exponential_9223372036854775813),
	RUN(gaussian, UINT64_C(0), 3, want_gaussian_0),
	RUN(gaussian, UINT64_C(42), 3, want_gaussian_42),
	RUN(gaussian, UINT64_C(12345), 3, want_gaussian_12345),
	RUN(gaussian, UINT64_C(9223372036854775813), 3, want_gaussian_9223372036854775813),
	RUN(zipfian, UINT64_C(0), 3, want_zipfian_0),
	RUN(zipfian, UINT64_C(42), 3, want_zipfian_42),
	RUN(zipfian, UINT64_C(12345), 3, want_zipfian_12345),
	RUN(zipfian, UINT64_C(9223372036854775813), 3, want_zipfian_9223372036854775813),
	RUN(hash, UINT64_C(42), 1, want_hash_42),
	RUN(permute, UINT64_C(42), 1, want_permute_42),
	RUN(mixed, UINT64_C(0), 3, want_mixed_0),
	RUN(mixed, UINT64_C(1), 3, want_mixed_1),
	RUN(mixed, UINT64_C(42), 3, want_mixed_42),
	RUN(mixed, UINT64_C(12345), 3, want_mixed_12345),
	RUN(mixed, UINT64_C(9223372036854775813), 3, want_mixed_9223372036854775813),
	RUN(mixed, UINT64_C(18446744073709551615), 3, want_mixed_18446744073709551615),
};

/* ---------------------------------------------------------------- replaying a run */

/* Evaluate one script line the way pgbench's expression evaluator would. */
static int64_t
eval_call(const call *c, prng_state *rs, int64_t default_seed)
{
	int64_t		seed = c->use_default_seed ? default_seed : c->seed;

	switch (c->kind)
	{
		case CALL_RANDOM:
			return prng_uniform(rs, c->a, c->b);
		case CALL_EXPONENTIAL:
			return prng_exponential(rs, c->a, c->b, c->param);
		case CALL_GAUSSIAN:
			return prng_gaussian(rs, c->a, c->b, c->param);
		case CALL_ZIPFIAN:
			return prng_zipfian(rs, c->a, c->b, c->param);
		case CALL_FNV1A:
			return prng_hash_fnv1a(c->a, seed);
		case CALL_MURMUR2:
			return prng_hash_murmur2(c->a, seed);
		case CALL_PERMUTE:
			return prng_permute(c->a, c->b, seed);
		case CALL_DEFAULT_SEED:
			return default_seed;
	}
	ck_abort_msg("unknown call kind %d", (int) c->kind);
	return 0;
}

/*
 * Seed as pgbench does for one client: the client's state is the first
 * derivation from the base sequence, :default_seed the next base output.
 */
static void
seed_one_client(uint64_t seed, prng_state *client, int64_t *default_seed)
{
	prng_state	base;

	prng_seed(&base, seed);
	prng_derive(&base, client);
	*default_seed = (int64_t) prng_u64(&base);
}

START_TEST(golden_pgbench_runs)
{
	size_t		total = 0;

	for (size_t r = 0; r < lengthof(golden_runs); r++)
	{
		const golden_run *run = &golden_runs[r];
		prng_state	rs;
		int64_t		dseed;
		size_t		k = 0;

		ck_assert_uint_eq(run->nwant, run->ncalls * (size_t) run->ntx);
		seed_one_client(run->seed, &rs, &dseed);
		for (int tx = 0; tx < run->ntx; tx++)
			for (size_t i = 0; i < run->ncalls; i++, k++)
			{
				int64_t		got = eval_call(&run->script[i], &rs, dseed);

				ck_assert_msg(got == run->want[k],
							  "%s seed %" PRIu64 ": transaction %d, call %zu: got %" PRId64
							  ", pgbench printed %" PRId64,
							  run->name, run->seed, tx + 1, i + 1, got, run->want[k]);
			}
		total += k;
	}
	/* guard against the tables being truncated by an edit */
	ck_assert_uint_eq(total, 836);
}
END_TEST

/* Add the golden-run test to tc (the "pgbench" test case, where it comes first). */
void
check_prng_add_golden(TCase *tc)
{
	tcase_add_test(tc, golden_pgbench_runs);
}
