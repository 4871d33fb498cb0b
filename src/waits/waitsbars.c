/*
 * waitsbars.c — the bar panel of pgtempo-waits --chart, drawn as a custom
 * panel of the core chart.
 */
#include "config.h"

#include "waitsbars.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/svg.h"
#include "pgtempo/xalloc.h"

#define WBARS_ROW 22			/* px per bar */

typedef struct wbar
{
	char	   *label;
	double		value;
	char	   *note;
	int			colour;
} wbar;

struct wbars
{
	char	   *unit;
	wbar	   *bars;
	size_t		nbars;
	size_t		barcap;
	int			nauto;			/* colours handed out by CHART_AUTO */
};

/* One row per bar; an empty panel keeps one for its "no data". */
static double
wbars_height(const void *arg)
{
	const wbars *p = arg;

	return (double) (p->nbars ? p->nbars : 1) * WBARS_ROW;
}

/* Each bar: its label, a grey track with the bar in it, the value and the note. */
static void
wbars_draw(const void *arg, const chart_frame *f, strbuf *out)
{
	const wbars *p = arg;
	double		label_w = 0,
				max = 0,
				bar_x,
				bar_w;
	size_t		label_chars;
	const char *unit = p->unit != NULL ? p->unit : "";

	for (size_t i = 0; i < p->nbars; i++)
	{
		label_w = fmax(label_w, svg_text_width(p->bars[i].label, 12));
		if (isfinite(p->bars[i].value))
			max = fmax(max, p->bars[i].value);
	}
	label_w = fmin(fmax(label_w, 60), 340);
	label_chars = svg_fit_chars(label_w, 12);
	bar_x = f->x0 + label_w + 10;
	bar_w = f->x1 - bar_x - 210;

	if (p->nbars == 0)
	{
		svg_text_el(out, bar_x, f->y + 15, NULL, "font-size=\"12\" fill=\"#999\"",
					"no data", 0);
		return;
	}
	for (size_t i = 0; i < p->nbars; i++)
	{
		const wbar *b = &p->bars[i];
		double		cy = f->y + i * WBARS_ROW + WBARS_ROW / 2.0;
		double		w = max > 0 && isfinite(b->value) && b->value > 0 ? b->value / max * bar_w : 0;
		char		num[32];
		strbuf		val;

		strbuf_puts(out, "<g>");
		svg_text_el(out, f->x0 + label_w, cy + 4, "end", "class=\"bar-label\" font-size=\"12\" fill=\"#222\"",
					b->label, label_chars);
		strbuf_puts(out, "<rect");
		svg_attr_num(out, "x", bar_x);
		svg_attr_num(out, "y", cy - 8);
		svg_attr_num(out, "width", bar_w);
		strbuf_puts(out, " height=\"16\" fill=\"#f1f1f1\"/>");
		if (w > 0)
		{
			strbuf_puts(out, "<rect class=\"bar\"");
			svg_attr_num(out, "x", bar_x);
			svg_attr_num(out, "y", cy - 8);
			svg_attr_num(out, "width", fmax(w, 1));
			strbuf_puts(out, " height=\"16\"");
			chart_colour_attr(out, "fill", b->colour);
			strbuf_puts(out, "><title>");
			svg_text(out, b->label, 0);
			strbuf_puts(out, "</title></rect>");
		}
		strbuf_init(&val);
		if (isfinite(b->value))
		{
			if (strcmp(unit, "%") == 0 && b->value > 0 && b->value < 0.05)
				strbuf_puts(&val, "<0.1%");
			else if (strcmp(unit, "%") == 0 && fabs(b->value) < 1000)
			{
				/* shares read best with one decimal: 30.2%, 1.0% */
				svg_fixed(num, sizeof(num), b->value, 1, false);
				strbuf_printf(&val, "%s%%", num);
			}
			else
			{
				svg_format_number(b->value, num, sizeof(num));
				strbuf_printf(&val, "%s%s%s", num, *unit == '\0' ? "" : " ", unit);
			}
		}
		else
			strbuf_puts(&val, "-");
		strbuf_puts(out, "<text");
		svg_attr_num(out, "x", bar_x + bar_w + 8);
		svg_attr_num(out, "y", cy + 4);
		strbuf_puts(out, " font-size=\"12\" fill=\"#222\">");
		svg_text(out, val.data, 0);
		if (b->note != NULL && *b->note != '\0')
		{
			strbuf_puts(out, "<tspan fill=\"#777\" dx=\"8\">");
			svg_text(out, b->note, svg_fit_chars(200 - svg_text_width(val.data, 12), 12));
			strbuf_puts(out, "</tspan>");
		}
		strbuf_puts(out, "</text></g>\n");
		strbuf_free(&val);
	}
}


/* By chart_free: the panel's bars and itself. */
static void
wbars_free(void *arg)
{
	wbars	   *p = arg;

	for (size_t i = 0; i < p->nbars; i++)
	{
		free(p->bars[i].label);
		free(p->bars[i].note);
	}
	free(p->bars);
	free(p->unit);
	free(p);
}

static const chart_custom wbars_panel = {
	.height = wbars_height,
	.draw = wbars_draw,
	.free_arg = wbars_free,
};

wbars *
wbars_add_panel(chart *c, const char *title, const char *unit)
{
	wbars	   *p = xcalloc(1, sizeof(*p));

	p->unit = unit != NULL ? xstrdup(unit) : NULL;
	chart_add_custom_panel(c, title, &wbars_panel, p);
	return p;
}

void
wbars_add(wbars *p, const char *label, double value, const char *note, int colour)
{
	wbar	   *b;

	if (p->nbars == p->barcap)
	{
		p->barcap = p->barcap ? 2 * p->barcap : 16;
		p->bars = xrealloc(p->bars, p->barcap * sizeof(wbar));
	}
	b = &p->bars[p->nbars++];
	b->label = xstrdup(label != NULL ? label : "");
	b->value = isfinite(value) ? fmax(-CHART_VALUE_MAX, fmin(CHART_VALUE_MAX, value)) : NAN;
	b->note = note != NULL ? xstrdup(note) : NULL;
	b->colour = chart_colour_pick(colour, &p->nauto);
}
