/*
 * jsonflat_agree.h — the property that ties jsonread's flat scan to its
 * tree parser, for the unit tests (check_jsonread) and the fuzz target
 * (fuzz_jsonread): when the flat scan accepts a text, the tree parser
 * accepts it too and holds the same members with the same values.
 */
#ifndef PGTEMPO_TESTS_JSONFLAT_AGREE_H
#define PGTEMPO_TESTS_JSONFLAT_AGREE_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/jsonread.h"
#include "pgtempo/strbuf.h"

#define JSONFLAT_AGREE_MAX 64

/* Whether the scanned scalar f is the tree's value v. */
static bool
jsonflat_scalar_agrees(const jsonread_field *f, const jsonread_value *v, strbuf *sb)
{
	jsonread_value num;

	switch (f->t)
	{
		case 's':
			return v->type == JSONREAD_STRING && jsonread_unescape(sb, f->v, f->vlen) &&
				sb->len == v->n && memcmp(sb->data, v->u.str, v->n) == 0;
		case 'n':
			return jsonread_number(f->v, f->vlen, &num) && jsonread_equal(&num, v);
		case '0':
			return v->type == JSONREAD_NULL;
		case 'b':
			return v->type == JSONREAD_BOOL && v->b == (f->v[0] == 't');
	}
	return false;
}

/* Whether the scanned member f is the tree's member m. */
static bool
jsonflat_member_agrees(const jsonread_field *f, const jsonread_member *m, strbuf *sb)
{
	const char *p;
	jsonread_field item;
	uint32_t	k = 0;
	int			rc;

	if (!jsonread_unescape(sb, f->key, f->klen) || memcmp(sb->data, m->key, sb->len) != 0 ||
		m->key[sb->len] != '\0')
		return false;
	if (f->t != '[')
		return jsonflat_scalar_agrees(f, &m->value, sb);
	if (m->value.type != JSONREAD_ARRAY)
		return false;
	for (p = f->v + 1; (rc = jsonread_item(&p, f->v + f->vlen - 1, &item)) > 0; k++)
		if (k >= m->value.n || !jsonflat_scalar_agrees(&item, &m->value.u.items[k], sb))
			return false;
	return rc == 0 && k == m->value.n;
}

/* NULL when the two agree on text[0..len), else what they disagree on. */
static const char *
jsonflat_agree(const char *text, size_t len)
{
	jsonread_field f[JSONFLAT_AGREE_MAX];
	char	   *cause = NULL;
	jsonread_doc *doc = jsonread_parse(text, len, &cause);
	const jsonread_value *root;
	const char *bad = NULL;
	strbuf		sb;
	int			n;

	free(cause);
	cause = NULL;
	if (!jsonread_flat(text, len, f, JSONFLAT_AGREE_MAX, &n, &cause))
	{
		free(cause);
		jsonread_free(doc);
		return NULL;
	}
	if (doc == NULL)
		return "the flat scan accepted what the tree parser refused";
	root = jsonread_root(doc);
	strbuf_init(&sb);
	if (root->type != JSONREAD_OBJECT || root->n != (uint32_t) n)
		bad = "not the same members";
	for (int i = 0; bad == NULL && i < n; i++)
		if (!jsonflat_member_agrees(&f[i], &root->u.members[i], &sb))
			bad = "a member differs";
	strbuf_free(&sb);
	jsonread_free(doc);
	return bad;
}

#endif
