/* Pictures of a fleet plan: what the reader (plan_render_read.c), the SVG
 * writer (plan_render_svg.c) and the HTML writer (plan_render_html.c)
 * share - the limits, the geometry, the colors and the plan in memory.
 * Internal to the renderer; plan_render.h is its interface. */
#ifndef NUMAFIT_PLAN_RENDER_MODEL_H
#define NUMAFIT_PLAN_RENDER_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* ------------------------------------------------------------------ limits */

#define MAX_STRATEGIES   8     /* strategies read from a plan */
#define MAX_HOSTS        64    /* hosts drawn per strategy */
#define MAX_CELLS        64    /* cells drawn per host */
#define MAX_CELL_THREADS 1024  /* threads drawn per cell */
#define MAX_THREADS      65536 /* threads drawn per picture */
#define MAX_LEGEND       128   /* instances listed under a host */
#define MAX_FLAVORS      64    /* flavors in the charts and the table */
#define MAX_PAGE_SIZES   6     /* page sizes shown per cell or chart */
#define MAX_WHY          8     /* flavors of why_not written */
#define MAX_REASONS      4     /* reasons written per flavor */
#define MAX_SUMMARY      64    /* hosts_summary rows in the HTML table */
#define NAME_HOST        60    /* code points of a host name shown */
#define NAME_FLAVOR      32    /* code points of a flavor name shown */

/* Counts above this are drawn as this (no overflow in the scaling). */
#define VALUE_MAX 1000000000000000LL

/* ------------------------------------------------------------------ geometry (px) */

#define FONT       "DejaVu Sans Mono,Menlo,Consolas,monospace"
#define TW         36 /* thread box */
#define TH         18
#define TG         2 /* gap between threads */
#define TPR        8 /* threads per row inside a core */
#define CP         3 /* core padding */
#define CG         4 /* gap between cores */
#define CELL_PAD   6
#define CELL_WRAP  560 /* cores wrap into rows this wide */
#define CELL_GAP   8
#define HOST_PAD   8
#define HOST_WRAP  1200 /* cells wrap into rows this wide */
#define HOST_GAP   14
#define MARGIN     12
#define LINE_H     15 /* an 11 px text line */
#define SWATCH     12
#define BAR_LABEL  14 /* characters of a chart row label */
#define BAR_W      420
#define BAR_H      16
#define BAR_ROW    22
#define FBAR_H     10 /* a flavor bar (alone or mixed) */
#define FBAR_W     300
#define LEGEND_MIN 600

/* ------------------------------------------------------------------ colors */

#define C_FREE      "#dcefcf" /* free dedicated CPU; free capacity in the chart */
#define C_SHARED    "#cfe0f5" /* shared pool */
#define C_USED      "#a6a6a6" /* pinned before the plan, owner unknown */
#define C_OFFLINE   "#ffffff"
#define C_CORE      "#f4f4f0"
#define C_CELL      "#fbfbf6"
#define C_HOST      "#ffffff"
#define C_BAR_USED  "#5d6d7e" /* chart: used by instances */
#define C_BAR_STRND "#f1c40f" /* chart: stranded */
#define C_BAR_HUGE  "#cdc6e4" /* chart: memory in huge pages */
#define C_ALONE     "#aab7c4" /* flavor chart: alone */
#define C_MIXED     "#34495e" /* flavor chart: mixed */
#define C_SAMPLE    "#7f7f9f" /* state legend: an instance */
#define C_TEXT      "#222222"
#define C_NOTE      "#8a4b00"

/* ------------------------------------------------------------------ the plan in memory */

enum tstate { T_SHARED, T_FREE, T_PINNED, T_EMULATOR, T_ISOLATED, T_USED, T_OFFLINE, T_NSTATES };

struct thr {
    long long cpu;
    int state;   /* enum tstate */
    int vcpu;    /* pinned: the guest vCPU, -1 if unknown */
    size_t inst; /* pinned, emulator, isolated: index in host->insts */
};

struct core {
    size_t first, n; /* threads first .. first + n - 1 of the cell */
    int x, y, w, h;  /* relative to the cell */
};

struct pg {
    long long size_kb, total, used, reserved;
};

struct cell {
    long long id, socket, mem, mem_used, shared, usage;
    long long pci, pci_free; /* PCI devices on the cell, and left free (-1: not in the plan) */
    bool has_socket;
    struct pg pages[MAX_PAGE_SIZES];
    size_t npages;
    struct core *cores;
    size_t ncores;
    struct thr *thr;
    size_t nthr;
    size_t hidden;  /* threads not drawn */
    int x, y, w, h; /* relative to the host */
};

struct inst {
    long long id;
    const char *flavor;
    const json_t *cells; /* for the vCPU of a pinned CPU; may be NULL */
    bool existing;
    bool pinned; /* owns threads: pinned, emulator or isolated */
    char color[8], pale[8];
    bool dark; /* white text on color */
};

struct inst_key {
    long long id;
    size_t i; /* in host->insts */
};

struct cap {
    long long free_pcpus, free_shared_vcpus, lost_siblings, orphan_threads;
    long long free_memory_mb, memory_without_cpus_mb, cpus_without_memory;
    bool has_shared, has_cwm;
    const json_t *free_pages, *pages_without_cpus; /* arrays of {size_kb, free} */
};

struct host {
    const char *name, *source;
    const json_t *mixed; /* object of counts or NULL */
    struct cap stranded;
    bool has_stranded;
    struct cell *cells;
    size_t ncells, hidden_cells;
    struct inst *insts;
    size_t ninsts;
    struct inst_key *by_id; /* insts sorted by id */
    size_t nthreads;
    int w, h, cells_w, cells_h;
};

struct res {
    const char *name;
    const json_t *alone, *mixed; /* objects of counts */
    long long mixed_total, hosts_used, capped_hosts;
    bool has_mixed_total, has_hosts_used;
    struct cap stranded;
    const json_t *why_not; /* validated or NULL */
    const json_t *summary; /* hosts_summary, validated or NULL */
    /* --target: placed of the plan's target_instances and, when reachable,
     * the hosts needed (has_target: the plan has a target) */
    long long target_placed, target_needed;
    bool has_target, target_reachable;
    struct host *hosts;
    size_t nhosts; /* drawn */
    size_t listed; /* in the JSON "hosts" array */
};

struct plan {
    const char *release, *mix;
    long long hosts, cells, pcpus, shared_cpus, memory_mb, instances_loaded;
    bool has_cells, has_shared_cpus, has_loaded;
    struct pg fpages[MAX_PAGE_SIZES];
    size_t nfpages;
    const char *flavors[MAX_FLAVORS];       /* chart order: "flavors", then others counted */
    const json_t *flavor_json[MAX_FLAVORS]; /* the "flavors" entry, or NULL */
    bool planned[MAX_FLAVORS];              /* false: no NUMA topology, not planned */
    double cpu_ratio, ram_ratio;            /* "limits", when has_ratios */
    bool has_ratios;
    size_t nflavors, hidden_flavors;
    long long target_instances; /* --target N, when has_target */
    bool has_target;
    struct res res[MAX_STRATEGIES];
    size_t nres, hidden_res;
};

/* State names, as the plan and the SVG classes spell them (enum tstate). */
extern const char *const plan_render_state_names[T_NSTATES];

/* A line of text: UTF-8, shortened with "…" when it would not fit. */
struct line {
    char s[400];
    size_t len;
    bool full;
};

/* ---- plan_render_read.c */
/* Read and check plan (every field drawn; the JSON path of the first bad one
 * in err); only the strategy named only (if not NULL) is read. Returns 0, or
 * -1 with a message in err (p is then to be freed too). */
int plan_render_read(const json_t *pj, const char *only, struct plan *p, char *err, size_t errlen);
void plan_render_free(struct plan *p);
/* The count of name in an object of counts (0 when absent). */
long long plan_render_count_of(const json_t *counts, const char *name);
/* The free pages of size_kb in an array of {size_kb, free} (0 when absent). */
long long plan_render_free_pages_of(const json_t *a, long long size_kb);

/* ---- plan_render_svg.c */
/* s XML-escaped (text and attribute values); characters XML 1.0 forbids
 * become U+FFFD. */
void plan_render_esc(FILE *o, const char *s);
/* The line saying what the fleet is. */
void plan_render_fleet_line(const struct plan *p, struct line *l);
/* The SVG of result s (standalone: an SVG file; otherwise inline in HTML).
 * pid prefixes the ids of the picture. */
void plan_render_picture(FILE *o, const struct plan *p, struct res *s, const char *pid,
                         bool standalone);
/* 0, or -1 with "write error" in err. */
int plan_render_finish(FILE *out, char *err, size_t errlen);

#endif
