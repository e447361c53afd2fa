/* The library's XML parse (xml_read.h). */
#include "config.h"

#ifdef HAVE_LIBVIRT /* configure finds libxml2 together with libvirt */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#include "xml_read.h"

/* The one piece of global state: libxml2's own initialisation. */
static pthread_once_t xml_once = PTHREAD_ONCE_INIT;

static void xml_init(void) {
    xmlInitParser();
}

/* The parser context's handler (data: the context, its _private our
 * session) and the thread's (data: the session): errors are read back from
 * the context, a failed allocation is remembered. libxml2 stops there and
 * may then report a parse error or return a partial document. */
static void on_ctxt_error(void *data, xmlErrorPtr e) {
    xmlParserCtxtPtr ctxt = data;
    if (e && e->code == XML_ERR_NO_MEMORY && ctxt && ctxt->_private)
        ((struct numafit__xml *)ctxt->_private)->nomem = true;
}

static void on_thread_error(void *data, xmlErrorPtr e) {
    if (e && e->code == XML_ERR_NO_MEMORY && data)
        ((struct numafit__xml *)data)->nomem = true;
}

void numafit__xml_begin(struct numafit__xml *q) {
    pthread_once(&xml_once, xml_init);
    q->old_fn = xmlStructuredError;
    q->old_data = xmlStructuredErrorContext;
    q->nomem = false;
    xmlSetStructuredErrorFunc(q, on_thread_error);
}

void numafit__xml_end(struct numafit__xml *q) {
    xmlSetStructuredErrorFunc(q->old_data, q->old_fn);
}

int numafit__xml_parse(struct numafit__xml *q, const char *xml, size_t len, const char *url,
                       int options, xmlDocPtr *ret, char *msg, size_t msglen, int *line) {
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    xmlDocPtr doc = NULL;
    int r = 0;
    *ret = NULL;
    if (!ctxt)
        return -ENOMEM;
    ctxt->sax->serror = on_ctxt_error;
    ctxt->_private = q;
    /* never load an external DTD subset, whatever libxml2's process-wide
     * defaults (xmlLoadExtDtdDefaultValue) another library may have set */
    ctxt->sax->externalSubset = NULL;
    doc = xmlCtxtReadMemory(ctxt, xml, (int)len, url, NULL,
                            options | XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (q->nomem || ctxt->errNo == XML_ERR_NO_MEMORY) {
        r = -ENOMEM;
    } else if (!doc || !ctxt->wellFormed) {
        xmlErrorPtr e = xmlCtxtGetLastError(ctxt);
        snprintf(msg, msglen, "%s", e && e->message ? e->message : "malformed XML");
        msg[strcspn(msg, "\n")] = '\0';
        *line = e ? e->line : 0;
        /* a malformed document always leaves its error in the context;
         * libxml2 reports some failed allocations (e.g. of the input
         * buffer) only to the thread's handler, leaving none here */
        r = !e || e->code == XML_ERR_OK || e->code == XML_ERR_NO_MEMORY ? -ENOMEM : -EBADMSG;
    } else if (doc->intSubset || doc->extSubset) {
        r = -EPERM;
    }
    xmlFreeParserCtxt(ctxt);
    if (r < 0)
        xmlFreeDoc(doc);
    else
        *ret = doc;
    return r;
}

int numafit__xml_u64(const char *s, uint64_t max, bool plus, uint64_t *out) {
    uint64_t v = 0;
    size_t nd = 0;
    if (!s)
        return -EBADMSG;
    while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
        s++;
    if (plus && *s == '+')
        s++;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -ERANGE;
        v = v * 10 + (uint64_t)(*s - '0');
        nd++;
    }
    while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
        s++;
    if (*s || !nd)
        return -EBADMSG;
    if (v > max)
        return -ERANGE;
    *out = v;
    return 0;
}

bool numafit__xml_too_deep(const xmlNode *root, int max) {
    const xmlNode *n = root;
    int depth = 0;
    while (n) {
        if (n->children && n->type == XML_ELEMENT_NODE) {
            n = n->children;
            if (++depth > max)
                return true;
            continue;
        }
        while (n && !n->next && n != root) {
            n = n->parent;
            depth--;
        }
        if (!n || n == root)
            break;
        n = n->next;
    }
    return false;
}

char *numafit__xml_attr(struct numafit__xml *q, const xmlNode *n, const char *name) {
    char *v = (char *)xmlGetNoNsProp((xmlNode *)n, (const xmlChar *)name);
    if (!v)
        for (const xmlAttr *a = n->properties; a; a = a->next)
            if (!a->ns && !strcmp((const char *)a->name, name))
                q->nomem = true;
    return v;
}

char *numafit__xml_content(struct numafit__xml *q, const xmlNode *n) {
    char *v = (char *)xmlNodeGetContent((xmlNode *)n);
    if (!v)
        q->nomem = true;
    return v;
}

#endif
