#include "util/ini_lines.h"

#include "util/params.h"

#include <stdio.h>
#include <string.h>

static void problem(IniLines *r, const char *what)
{
    if (r->problem) r->problem(r->user, r->line, what);
}

char *ini_lines_read(char *str, int num, void *stream)
{
    IniLines *r = stream;
    if (num < 2 || !fgets(str, num, r->file)) return NULL;
    r->line++;
    const size_t len = strlen(str);
    /* A piece without its end of line, before the file's end: the rest of the line is read and
     * dropped, and the line is reported as one. */
    if (len > 0 && str[len - 1] != '\n' && !feof(r->file)) {
        int c;
        size_t more = 0;
        while ((c = fgetc(r->file)) != EOF && c != '\n') more++;
        if (more > 0 || c != '\n') {
            char what[96];
            snprintf(what, sizeof what, "the line is longer than %d characters", num - 1);
            problem(r, what);
            snprintf(str, (size_t)num, "\n");
            return str;
        }
    }
    /* Leading blanks go: inih would take an indented line for more of the value above it. */
    const size_t blanks = strspn(str, " \t");
    memmove(str, str + blanks, len - blanks + 1);
    const char *s = str;
    if (s[strspn(s, "\r\n")] == '\0' || s[0] == ';' || s[0] == '#') return str;
    if (s[0] == '[') {
        r->header_line = r->line;
        const char *close = strchr(s, ']');
        r->bad_header = !close;
        const size_t name = close ? (size_t)(close - s - 1) : strcspn(s + 1, "\r\n");
        snprintf(r->header, sizeof r->header, "%.*s", (int)(name < sizeof r->header ? name : sizeof r->header - 1), s + 1);
        if (r->bad_header) {
            char what[160], quoted[100];
            snprintf(what, sizeof what, "'[%s' opens a section without its closing ']'",
                     params_quote(r->header, quoted, sizeof quoted));
            problem(r, what);
            snprintf(str, (size_t)num, "\n");
        }
        return str;
    }
    if (!strpbrk(s, "=:")) {
        problem(r, "not a valid INI line: neither [section] nor key = value");
        snprintf(str, (size_t)num, "\n");
    }
    return str;
}
