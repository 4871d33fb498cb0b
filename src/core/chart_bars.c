/*
 * chart_bars.c — a bar panel: a horizontal bar per (label, value, note),
 * such as a final wait-event profile.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pgtempo/svg.h"

#include "chart_int.h"

void
chart_draw_bar_panel(const chart *c, int pi, const layout *L, strbuf *out)
{
	const panel *p = &c->panels[pi];
	const panel_layout *pl = &L->p[pi];
	double		label_w = 0,
				max = 0,
				bar_x,
				bar_w;
	size_t		label_chars;
	const char *unit = p->unit != NULL ? p->unit : "";

	if (p->title != NULL)
		svg_text_el(out, MARGIN, pl->title_y, NULL, "font-size=\"14\" font-weight=\"bold\" fill=\"#222\"",
					p->title, svg_fit_chars(CHART_WIDTH - 2 * MARGIN, 14));
	for (size_t i = 0; i < p->nbars; i++)
	{
		label_w = fmax(label_w, svg_text_width(p->bars[i].label, 12));
		if (isfinite(p->bars[i].value))
			max = fmax(max, p->bars[i].value);
	}
	label_w = fmin(fmax(label_w, 60), 340);
	label_chars = svg_fit_chars(label_w, 12);
	bar_x = MARGIN + label_w + 10;
	bar_w = CHART_WIDTH - MARGIN - bar_x - 210;

	if (p->nbars == 0)
	{
		svg_text_el(out, bar_x, pl->plot_y + 15, NULL, "font-size=\"12\" fill=\"#999\"",
					"no data", 0);
		return;
	}
	for (size_t i = 0; i < p->nbars; i++)
	{
		const bar  *b = &p->bars[i];
		double		cy = pl->plot_y + i * BAR_ROW + BAR_ROW / 2.0;
		double		w = max > 0 && isfinite(b->value) && b->value > 0 ? b->value / max * bar_w : 0;
		char		num[32];
		strbuf		val;

		strbuf_puts(out, "<g>");
		svg_text_el(out, MARGIN + label_w, cy + 4, "end", "class=\"bar-label\" font-size=\"12\" fill=\"#222\"",
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

