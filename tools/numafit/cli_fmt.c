/* Numbers as the reports print them (cli_fmt.h): the CLI's text reports,
 * the plan report and its SVG and HTML. Only the C library, so the render
 * fuzz target links it alone. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>

#include "cli_fmt.h"

const char *cli_fmt_count(long long v, char *buf, size_t cap) {
    char digits[32], out[48];
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    size_t n, i, k = 0;

    n = (size_t)snprintf(digits, sizeof(digits), "%llu", u);
    if (v < 0)
        out[k++] = '-';
    for (i = 0; i < n; i++) {
        if (u >= 10000 && i && (n - i) % 3 == 0)
            out[k++] = ',';
        out[k++] = digits[i];
    }
    out[k] = '\0';
    snprintf(buf, cap, "%s", out);
    return buf;
}

const char *cli_fmt_gib(long long mib, bool exact_whole, char *buf, size_t cap) {
    unsigned long long u = mib < 0 ? 0ull - (unsigned long long)mib : (unsigned long long)mib;
    unsigned long long tenths = (u * 10 + 512) / 1024; /* no overflow: u < 2^63 */
    char num[48];

    if (u > 1ull << 58) /* u * 10 would overflow: whole GiB are precise enough */
        tenths = u / 1024 * 10;
    if (exact_whole && u % 1024 == 0) {
        cli_fmt_count((long long)(u / 1024), num, sizeof(num));
        snprintf(buf, cap, "%s%s", mib < 0 ? "-" : "", num);
    } else {
        cli_fmt_count((long long)(tenths / 10), num, sizeof(num));
        snprintf(buf, cap, "%s%s.%llu", mib < 0 ? "-" : "", num, tenths % 10);
    }
    return buf;
}

const char *cli_fmt_mib(long long mib, char *buf, size_t cap) {
    char num[48], gib[48];

    cli_fmt_count(mib, num, sizeof(num));
    if (mib < 10240)
        snprintf(buf, cap, "%s MiB", num);
    else
        snprintf(buf, cap, "%s MiB (%s GiB)", num, cli_fmt_gib(mib, true, gib, sizeof(gib)));
    return buf;
}

const char *cli_fmt_page_size(long long kb, bool short_form, char *buf, size_t cap) {
    static const char *const unit[2][3] = {{" KiB", " MiB", " GiB"}, {"K", "M", "G"}};
    int s = short_form ? 1 : 0;

    if (kb >= 1048576 && kb % 1048576 == 0)
        snprintf(buf, cap, "%lld%s", kb / 1048576, unit[s][2]);
    else if (kb >= 1024 && kb % 1024 == 0)
        snprintf(buf, cap, "%lld%s", kb / 1024, unit[s][1]);
    else
        snprintf(buf, cap, "%lld%s", kb, unit[s][0]);
    return buf;
}
