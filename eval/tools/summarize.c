// SPDX-License-Identifier: GPL-2.0
/*
 * summarize: turn raw benchmark runs (CSV) into a table of means with 95%
 * confidence intervals and the change of each mode relative to a baseline
 * mode measured in the same batch.
 *
 *   summarize CSV VALUE-COLUMN BASELINE-MODE [X-COLUMN] > table.md
 *
 * The CSV has a header line with at least the columns "mode" and "warmup"
 * (rows with warmup=1 are left out) and VALUE-COLUMN.  With X-COLUMN the
 * statistics are grouped by (x, mode) and the baseline is the baseline mode
 * at the same x, or, for an x without one, the baseline rows whose x is
 * "*" (one baseline shared by every x, as eval/bench-tools has).  Besides the markdown table on stdout, a gnuplot data file
 * CSV.dat is written: x, mode index, mode, mean, ci95, change %, ci95 %.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXCOLS 32
#define MAXGROUPS 512
#define MAXVALS 256

struct group {
	char x[64];
	char mode[64];
	double v[MAXVALS];
	int n;
	double mean, sd, ci;
};

static struct group groups[MAXGROUPS];
static int ngroups;
static char modes[64][64];
static int nmodes;

/* Two-sided 95% Student t quantiles, df = 1..30; 1.96 beyond. */
static double t95(int df)
{
	static const double t[] = {
		12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
		2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101,
		2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052,
		2.048, 2.045, 2.042,
	};

	if (df < 1)
		return NAN;
	return df <= 30 ? t[df - 1] : 1.96;
}

static int split(char *line, char **f)
{
	int n = 0;
	char *p = line;

	line[strcspn(line, "\r\n")] = '\0';
	while (n < MAXCOLS) {
		f[n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

static int column(char **hdr, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(hdr[i], name))
			return i;
	fprintf(stderr, "summarize: no column '%s'\n", name);
	exit(1);
}

static struct group *group_of(const char *x, const char *mode)
{
	int i;

	for (i = 0; i < ngroups; i++)
		if (!strcmp(groups[i].x, x) && !strcmp(groups[i].mode, mode))
			return &groups[i];
	if (ngroups == MAXGROUPS) {
		fprintf(stderr, "summarize: too many groups\n");
		exit(1);
	}
	snprintf(groups[ngroups].x, sizeof(groups[0].x), "%s", x);
	snprintf(groups[ngroups].mode, sizeof(groups[0].mode), "%s", mode);
	for (i = 0; i < nmodes; i++)
		if (!strcmp(modes[i], mode))
			break;
	if (i == nmodes && nmodes < 64)
		snprintf(modes[nmodes++], sizeof(modes[0]), "%s", mode);
	return &groups[ngroups++];
}

static int mode_index(const char *mode)
{
	int i;

	for (i = 0; i < nmodes; i++)
		if (!strcmp(modes[i], mode))
			return i;
	return -1;
}

/* By x (numerically when numbers), then by mode order. */
static int cmp_group(const void *a, const void *b)
{
	const struct group *ga = a, *gb = b;
	double xa = atof(ga->x), xb = atof(gb->x);

	if (xa != xb)
		return xa < xb ? -1 : 1;
	if (strcmp(ga->x, gb->x))
		return strcmp(ga->x, gb->x);
	return mode_index(ga->mode) - mode_index(gb->mode);
}

int main(int argc, char **argv)
{
	char line[4096], hdrline[4096], *hdr[MAXCOLS], *f[MAXCOLS], datname[4096];
	int nh, cmode, cwarm, cval, cx = -1, i, j;
	const char *baseline;
	FILE *in, *dat;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: summarize CSV VALUE-COLUMN BASELINE-MODE [X-COLUMN]\n");
		return 2;
	}
	baseline = argv[3];
	in = fopen(argv[1], "r");
	if (!in || !fgets(hdrline, sizeof(hdrline), in)) {
		perror(argv[1]);
		return 1;
	}
	nh = split(hdrline, hdr);
	cmode = column(hdr, nh, "mode");
	cwarm = column(hdr, nh, "warmup");
	cval = column(hdr, nh, argv[2]);
	if (argc == 5)
		cx = column(hdr, nh, argv[4]);

	while (fgets(line, sizeof(line), in)) {
		struct group *g;

		if (split(line, f) < nh)
			continue;
		if (atoi(f[cwarm]))
			continue;
		g = group_of(cx >= 0 ? f[cx] : "-", f[cmode]);
		if (g->n < MAXVALS)
			g->v[g->n++] = strtod(f[cval], NULL);
	}
	fclose(in);

	for (i = 0; i < ngroups; i++) {
		struct group *g = &groups[i];
		double s = 0, ss = 0;

		for (j = 0; j < g->n; j++)
			s += g->v[j];
		g->mean = g->n ? s / g->n : NAN;
		for (j = 0; j < g->n; j++)
			ss += (g->v[j] - g->mean) * (g->v[j] - g->mean);
		g->sd = g->n > 1 ? sqrt(ss / (g->n - 1)) : NAN;
		g->ci = g->n > 1 ? t95(g->n - 1) * g->sd / sqrt(g->n) : NAN;
	}

	snprintf(datname, sizeof(datname), "%s.dat", argv[1]);
	dat = fopen(datname, "w");
	if (!dat) {
		perror(datname);
		return 1;
	}
	printf("| %s | mode | runs | mean %s | 95%% CI | change vs %s | 95%% CI |\n",
	       cx >= 0 ? argv[4] : "-", argv[2], baseline);
	printf("|---|---|---|---|---|---|---|\n");
	/* The baseline first, then the modes as they first appear. */
	for (i = 0; i < nmodes; i++) {
		if (!strcmp(modes[i], baseline) && i) {
			char tmp[64];

			memcpy(tmp, modes[i], sizeof(tmp));
			memmove(modes[1], modes[0], i * sizeof(modes[0]));
			memcpy(modes[0], tmp, sizeof(tmp));
		}
	}
	qsort(groups, ngroups, sizeof(groups[0]), cmp_group);
	for (i = 0; i < ngroups; i++) {
		struct group *g = &groups[i], *b = NULL;
		double pct = NAN, pci = NAN;

		for (j = 0; j < ngroups; j++)
			if (!strcmp(groups[j].x, g->x) &&
			    !strcmp(groups[j].mode, baseline))
				b = &groups[j];
		for (j = 0; !b && j < ngroups; j++)
			if (!strcmp(groups[j].x, "*") &&
			    !strcmp(groups[j].mode, baseline))
				b = &groups[j];
		if (b && b->mean) {
			pct = 100.0 * (g->mean - b->mean) / b->mean;
			pci = 100.0 * sqrt(g->ci * g->ci + b->ci * b->ci) / b->mean;
			if (g == b)
				pci = 100.0 * b->ci / b->mean;
		}
		printf("| %s | %s | %d | %.0f | ±%.0f | %+.3f%% | ±%.3f%% |\n",
		       g->x, g->mode, g->n, g->mean, g->ci, pct, pci);
		fprintf(dat, "%s %d %s %.3f %.3f %.4f %.4f\n", g->x,
			mode_index(g->mode), g->mode, g->mean, g->ci, pct, pci);
	}
	fclose(dat);
	return 0;
}
