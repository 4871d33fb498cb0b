/*
 * check_hash.c — unit tests of FNV-1a and the open-addressing hash table.
 */
#include "config.h"

#include "pgtempo/hash.h"

#include <stdio.h>
#include <string.h>

#include "unit.h"

/* Published FNV-1a 64-bit test vectors. */
static const struct
{
	const char *in;
	uint64_t	want;
}			fnv_cases[] = {
	{"", UINT64_C(0xcbf29ce484222325)},
	{"a", UINT64_C(0xaf63dc4c8601ec8c)},
	{"foobar", UINT64_C(0x85944171f73967e8)},
};

START_TEST(test_fnv1a_vectors)
{
	const char *in = fnv_cases[_i].in;

	ck_assert_uint_eq(hash_fnv1a(in, strlen(in)), fnv_cases[_i].want);
	ck_assert_uint_eq(hash_fnv1a_str(in), fnv_cases[_i].want);
	/* the same, in two pieces */
	ck_assert_uint_eq(hash_fnv1a_more(hash_fnv1a(in, strlen(in) / 2),
									  in + strlen(in) / 2, strlen(in) - strlen(in) / 2),
					  fnv_cases[_i].want);
}
END_TEST

/* An entry as the users keep them: a key and a count. */
typedef struct item
{
	char		name[16];
	int			count;
} item;

static bool
item_eq(const void *entry, const void *key)
{
	return strcmp(((const item *) entry)->name, key) == 0;
}

static uint64_t item_collide;	/* when non-zero, every key hashes to it */

static uint64_t
item_hash(const char *name)
{
	return item_collide != 0 ? item_collide : hash_fnv1a_str(name);
}

/* Count name once more. */
static item *
bump(hash_table *t, const char *name)
{
	bool		added;
	item	   *it = hash_table_insert(t, item_hash(name), name, item_eq, &added);

	if (added)
	{
		ck_assert_int_eq(it->count, 0);
		snprintf(it->name, sizeof(it->name), "%s", name);
	}
	it->count++;
	return it;
}

/* Many keys through several growths (first with FNV, then with every hash the same): each found with its count. */
static const uint64_t collide_cases[] = {0, 42, UINT64_MAX};

START_TEST(test_insert_find_grow)
{
	hash_table	t;
	char		name[16];
	size_t		pos = 0;
	int			walked = 0;
	int			nkeys = collide_cases[_i] == 0 ? 1000 : 100;

	item_collide = collide_cases[_i];
	hash_table_init(&t, sizeof(item), 2);
	for (int i = 0; i < nkeys; i++)
	{
		snprintf(name, sizeof(name), "k%d", i);
		for (int j = 0; j <= i % 3; j++)
			bump(&t, name);
	}
	ck_assert_uint_eq(t.n, (size_t) nkeys);
	ck_assert_uint_le(t.n * 4, t.cap * 3);
	for (int i = 0; i < nkeys; i++)
	{
		item	   *it;

		snprintf(name, sizeof(name), "k%d", i);
		it = hash_table_find(&t, item_hash(name), name, item_eq);
		ck_assert_ptr_nonnull(it);
		ck_assert_str_eq(it->name, name);
		ck_assert_int_eq(it->count, i % 3 + 1);
	}
	ck_assert_ptr_null(hash_table_find(&t, item_hash("nope"), "nope", item_eq));
	for (item *it; (it = hash_table_next(&t, &pos)) != NULL;)
		walked++;
	ck_assert_int_eq(walked, nkeys);
	ck_assert_ptr_null(hash_table_next(&t, &pos));
	hash_table_free(&t);
	item_collide = 0;
}
END_TEST

/* clear forgets the entries (zeroed again) and keeps the size; copy is independent. */
START_TEST(test_clear_copy)
{
	hash_table	t,
				c;
	size_t		cap;
	item	   *it;

	hash_table_init(&t, sizeof(item), 8);
	for (int i = 0; i < 20; i++)
	{
		char		name[16];

		snprintf(name, sizeof(name), "x%d", i);
		bump(&t, name);
	}
	hash_table_copy(&c, &t);
	cap = t.cap;
	hash_table_clear(&t);
	ck_assert_uint_eq(t.n, 0);
	ck_assert_uint_eq(t.cap, cap);
	ck_assert_ptr_null(hash_table_find(&t, item_hash("x3"), "x3", item_eq));
	it = bump(&t, "x3");
	ck_assert_int_eq(it->count, 1);

	ck_assert_uint_eq(c.n, 20);
	it = hash_table_find(&c, item_hash("x3"), "x3", item_eq);
	ck_assert_ptr_nonnull(it);
	ck_assert_int_eq(it->count, 1);
	it->count = 7;
	ck_assert_int_eq(((item *) hash_table_find(&t, item_hash("x3"), "x3", item_eq))->count, 1);
	hash_table_free(&c);
	hash_table_free(&t);
	ck_assert_ptr_null(t.hashes);
}
END_TEST

static Suite *
hash_suite(void)
{
	Suite	   *s = suite_create("hash");
	TCase	   *tc;

	tc = tcase_create("fnv1a");
	tcase_add_loop_test(tc, test_fnv1a_vectors, 0, sizeof(fnv_cases) / sizeof(fnv_cases[0]));
	suite_add_tcase(s, tc);

	tc = tcase_create("table");
	tcase_add_loop_test(tc, test_insert_find_grow, 0,
						sizeof(collide_cases) / sizeof(collide_cases[0]));
	tcase_add_test(tc, test_clear_copy);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(hash_suite());
}
