/* The library's one way to parse XML with libxml2 (discover_caps.c,
 * pci_nodedev.c, doctor_domain_read.c): no network, no external DTD subset, no DOCTYPE, nothing
 * printed, libxml2's failed allocations seen. Internal. */
#ifndef NUMAFIT_XML_READ_H
#define NUMAFIT_XML_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libxml/parser.h>

/* A call's libxml2 session: between begin and end the thread's structured
 * error handler is ours (it only notes failed allocations in nomem, which
 * the caller's walk of the document also reads), and it is restored at
 * end. */
struct numafit__xml {
    xmlStructuredErrorFunc old_fn;
    void *old_data;
    bool nomem; /* libxml2 could not allocate */
};

void numafit__xml_begin(struct numafit__xml *q);
void numafit__xml_end(struct numafit__xml *q);

/*
 * Parse len bytes (url names them in libxml2's messages; options are
 * libxml2's beyond XML_PARSE_NONET, NOERROR and NOWARNING). Returns 0 with
 * *ret (xmlFreeDoc), -ENOMEM, -EBADMSG when the text is not well-formed
 * (msg: libxml2's message on one line, *line its line) or -EPERM for a
 * document with a DOCTYPE.
 */
int numafit__xml_parse(struct numafit__xml *q, const char *xml, size_t len, const char *url,
                       int options, xmlDocPtr *ret, char *msg, size_t msglen, int *line);

/* Whether the elements under root nest more than max levels deep (walked
 * without recursion). */
bool numafit__xml_too_deep(const xmlNode *root, int max);

/* The value of n's attribute name without a namespace (xmlFree it), NULL
 * when absent; NULL for an attribute that is there means libxml2 could not
 * copy it, and sets q->nomem. */
char *numafit__xml_attr(struct numafit__xml *q, const xmlNode *n, const char *name);

/* An unsigned decimal with optional white space around it (and a leading
 * '+' when plus), at most max, into *out: 0, -EBADMSG (not one; s NULL) or
 * -ERANGE. */
int numafit__xml_u64(const char *s, uint64_t max, bool plus, uint64_t *out);

/* n's text content (xmlFree it); NULL only when libxml2 could not copy it,
 * which sets q->nomem. */
char *numafit__xml_content(struct numafit__xml *q, const xmlNode *n);

#endif
