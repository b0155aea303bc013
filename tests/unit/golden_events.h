/* golden_events.h - the EVENT lines of TraceEvent's golden decodes (../shared/goldens), for the
 * C unit tests; tests/integration/goldens.py is the Python tests' reader of the same lines.
 *
 *   EVENT <ms>: <Provider/Event> PID=<n>; TID=<n>; PName=<s>; ProceNum=<n>; DataLen=<n>; Name=value; ...
 *
 * <ms> may carry thousands separators ("1,234.567"); values longer than 20 characters are cut
 * and end in "..." (the tests compare such values as prefixes). */
#ifndef ETL_TEST_GOLDEN_EVENTS_H
#define ETL_TEST_GOLDEN_EVENTS_H

#include <glib.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct golden_event {
    double ms;          /* time since the trace's first event */
    char *name;         /* "Windows Kernel/Process/Start" */
    long pid, tid, cpu, datalen;
    char *pname;        /* "" when the line names no process */
    GPtrArray *fields;  /* "Name=value" of the payload fields, in the golden's order */
} golden_event;

static void golden_event_free(gpointer p)
{
    golden_event *g = p;
    g_free(g->name);
    g_free(g->pname);
    g_ptr_array_free(g->fields, TRUE);
    g_free(g);
}

/* The EVENT lines whose event name starts with one of `prefixes` (a NULL-terminated list), in
 * file order; NULL when the file cannot be read.  Free with g_ptr_array_free(.., TRUE). */
static GPtrArray *golden_events_read(const char *path, const char *const *prefixes)
{
    char *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, NULL))
        return NULL;
    GPtrArray *out = g_ptr_array_new_with_free_func(golden_event_free);
    char **lines = g_strsplit(text, "\n", -1);
    for (char **l = lines; *l; l++) {
        if (strncmp(*l, "EVENT ", 6) != 0)
            continue;
        const char *colon = strchr(*l, ':'), *pid = strstr(*l, " PID=");
        if (!colon || !pid || pid < colon + 2)
            continue;
        char *name = g_strndup(colon + 2, (size_t)(pid - colon - 2));
        bool wanted = false;
        for (const char *const *p = prefixes; *p && !wanted; p++)
            wanted = g_str_has_prefix(name, *p);
        if (!wanted) {
            g_free(name);
            continue;
        }
        golden_event *g = g_new0(golden_event, 1);
        GString *num = g_string_new(NULL);
        for (const char *c = *l + 6; c < colon; c++)
            if (*c != ',')
                g_string_append_c(num, *c);
        g->ms = g_ascii_strtod(num->str, NULL);
        g_string_free(num, TRUE);
        g->name = name;
        g->fields = g_ptr_array_new_with_free_func(g_free);
        char **parts = g_strsplit(pid + 1, "; ", -1);
        for (char **q = parts; *q; q++) {
            char *eq = strchr(*q, '=');
            if (!eq || eq == *q)
                continue;
            *eq = 0;
            const char *v = eq + 1;
            if (strcmp(*q, "PID") == 0)
                g->pid = strtol(v, NULL, 10);
            else if (strcmp(*q, "TID") == 0)
                g->tid = strtol(v, NULL, 10);
            else if (strcmp(*q, "PName") == 0)
                g->pname = g_strdup(v);
            else if (strcmp(*q, "ProceNum") == 0)
                g->cpu = strtol(v, NULL, 10);
            else if (strcmp(*q, "DataLen") == 0)
                g->datalen = strtol(v, NULL, 10);
            else
                g_ptr_array_add(g->fields, g_strdup_printf("%s=%s", *q, v));
        }
        g_strfreev(parts);
        if (!g->pname)
            g->pname = g_strdup("");
        g_ptr_array_add(out, g);
    }
    g_strfreev(lines);
    g_free(text);
    return out;
}

/* The classic kernel and merge events' names in the goldens. */
static const char *const golden_kernel_prefixes[] = {"Windows Kernel/", "KernelTraceControl/", "MSNT_SystemTrace/",
                                                     NULL};

#endif /* ETL_TEST_GOLDEN_EVENTS_H */
