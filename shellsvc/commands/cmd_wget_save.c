/* SPDX-License-Identifier: Apache-2.0 */
/* Where wget saves a document: -O's file or stdout, else the name the URL
 * gives (GNU Wget's rules), new beside any file already there. Every
 * file effect goes through the shell's kernel (admission), opened only
 * once there is a document to write. */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "cmd_wget.h"
#include "sh_bistate.h"
#include "sh_internal.h"
#include "sh_kernel.h"

#define WS_SUFFIX_MAX 9999 // name.1 … name.9999, then give up
#define WS_NAME_MAX 4096

char *
wget_url(const char *url)
{
    // "scheme://" anywhere before the first '/' names a scheme; Wget
    // reads everything else as an http:// URL without one.
    const char *sep = strstr(url, "://");
    const char *slash = strchr(url, '/');
    if (sep != NULL && (slash == NULL || sep < slash))
        return box_strdup(url);
    return box_asprintf("http://%s", url);
}

static int
ws_hex(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* seg (n bytes) %XX-decoded into b; a byte a file name may not hold
 * ('/', NUL, control) stays as it was written. */
static box_err
ws_decode(box_buf *b, const char *seg, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int h = seg[i] == '%' && i + 1 < n ? ws_hex(seg[i + 1]) : -1;
        int l = h >= 0 && i + 2 < n ? ws_hex(seg[i + 2]) : -1;
        int c = l >= 0 ? h * 16 + l : -1;
        if (c > 0x1f && c != '/' && c != 0x7f) {
            box_err rv = box_buf_putc(b, (char)c);
            if (rv != BOX_OK)
                return rv;
            i += 2;
            continue;
        }
        box_err rv = box_buf_putc(b, seg[i]);
        if (rv != BOX_OK)
            return rv;
    }
    return BOX_OK;
}

box_err
wget_local_name(const char *url, char **out)
{
    CURLU *u = curl_url();
    char *path = NULL, *query = NULL;
    box_buf b;
    box_buf_init(&b, WS_NAME_MAX);
    box_err rv = BOX_ENOMEM;
    *out = NULL;
    if (u == NULL)
        goto out;
    rv = BOX_EINVAL;
    if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_PATH, &path, 0) != CURLUE_OK)
        goto out;
    if (curl_url_get(u, CURLUPART_QUERY, &query, 0) != CURLUE_OK)
        query = NULL;
    const char *seg = strrchr(path, '/');
    seg = seg != NULL ? seg + 1 : path;
    size_t n = strlen(seg);
    if (n == 0 || strcmp(seg, ".") == 0 || strcmp(seg, "..") == 0)
        rv = box_buf_puts(&b, "index.html");
    else
        rv = ws_decode(&b, seg, n);
    if (rv == BOX_OK && query != NULL && query[0] != '\0')
        rv = box_buf_printf(&b, "?%s", query);
    if (rv == BOX_OK && b.b_len > 255)
        box_buf_truncate(&b, 255); // NAME_MAX: Wget cuts a long name too
    if (rv == BOX_OK && (*out = box_buf_take(&b)) == NULL)
        rv = BOX_ENOMEM;
out:
    curl_free(path);
    curl_free(query);
    if (u != NULL)
        curl_url_cleanup(u);
    box_buf_reset(&b);
    return rv;
}

/* url's file as -P places it. NULL when out of memory or the URL does
 * not parse (the floor refused it before). */
static char *
ws_path(const wget_run *wr, const char *url)
{
    char *name = NULL;
    if (wget_local_name(url, &name) != BOX_OK)
        return NULL;
    const char *p = wr->wr_prefix;
    if (p == NULL || p[0] == '\0' || strcmp(p, ".") == 0)
        return name;
    size_t pl = strlen(p);
    char *full = box_asprintf("%s%s%s", p, p[pl - 1] == '/' ? "" : "/", name);
    box_free(name);
    return full;
}

bool
wget_clobber_skip(wget_run *wr, const char *url)
{
    sh_ctx *cx = wr->wr_cx;
    char *path = ws_path(wr, url);
    sh_kernel_stat st;
    sh_kernel_result r = {0};
    // A probe: a name policy hides answers "absent", so the transfer
    // goes on and the write itself is decided.
    bool there =
        path != NULL &&
        sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, path, &st, &r) == 0;
    sh_kernel_result_clear(&r);
    if (there)
        wget_logf(wr, WGET_VERBOSE,
                  "File \xe2\x80\x98%s\xe2\x80\x99 already there; not "
                  "retrieving.\n\n",
                  path);
    box_free(path);
    return there;
}

/* -P DIR's directories, made through the kernel as Wget makes them: 0,
 * or the status after the message. */
static int
ws_mkdirs(wget_run *wr)
{
    sh_ctx *cx = wr->wr_cx;
    char *d = box_strdup(wr->wr_prefix);
    int st = 0;
    if (d == NULL)
        return sh_cmd_err(cx, "wget", 1, "out of memory");
    size_t n = strlen(d);
    for (size_t i = 1; i <= n && st == 0; i++) {
        if (d[i] != '/' && d[i] != '\0')
            continue;
        char c = d[i];
        d[i] = '\0';
        sh_kernel_result r = {0};
        if (sh_kernel_mkdir(sh_kern(cx), cx->cx_st->st_cwd, d,
                            sh_umask_apply(cx, 0777), &r) != 0 &&
            !(r.kr_outcome == SH_KR_OS_ERROR && r.kr_errno == EEXIST)) {
            st = sh_fs_fail(cx, "wget", d, &r);
            st = st == 125 ? 125 : 3;
        }
        sh_kernel_result_clear(&r);
        d[i] = c;
    }
    box_free(d);
    return st;
}

/* A new file for url: its name, or name.1, name.2 … (O_EXCL, each one
 * decided). *stream and *shown set, or the status after the message;
 * -nc: 0 with *stream NULL when the name is taken. */
static int
ws_open_new(wget_run *wr, const char *url, sh_stream **stream, char **shown)
{
    sh_ctx *cx = wr->wr_cx;
    char *path = ws_path(wr, url);
    int st = 0;
    *stream = NULL;
    *shown = NULL;
    if (path == NULL)
        return sh_cmd_err(cx, "wget", 1, "out of memory");
    if (wr->wr_prefix != NULL && (st = ws_mkdirs(wr)) != 0)
        goto out;
    for (unsigned k = 0; k <= WS_SUFFIX_MAX; k++) {
        char *name = k == 0 ? box_strdup(path) : box_asprintf("%s.%u", path, k);
        if (name == NULL) {
            st = sh_cmd_err(cx, "wget", 1, "out of memory");
            goto out;
        }
        sh_kernel_result r = {0};
        sh_kernel_file *f = NULL;
        if (sh_kernel_open(sh_kern(cx), cx->cx_st->st_cwd, name,
                           O_WRONLY | O_CREAT | O_EXCL,
                           sh_umask_apply(cx, 0666), &f, &r) == 0) {
            sh_kernel_result_clear(&r);
            if ((*stream = sh_stream_file(f)) == NULL) {
                box_free(name);
                st = sh_cmd_err(cx, "wget", 1, "out of memory");
                goto out;
            }
            *shown = name;
            goto out;
        }
        bool taken = r.kr_outcome == SH_KR_OS_ERROR && r.kr_errno == EEXIST;
        if (taken && wr->wr_no_clobber) {
            sh_kernel_result_clear(&r);
            wget_logf(wr, WGET_VERBOSE,
                      "File \xe2\x80\x98%s\xe2\x80\x99 already there; not "
                      "retrieving.\n\n",
                      name);
            box_free(name);
            goto out;
        }
        if (!taken) {
            st = sh_fs_fail(cx, "wget", name, &r);
            st = st == 125 ? 125 : 3;
            box_free(name);
            goto out;
        }
        sh_kernel_result_clear(&r);
        box_free(name);
    }
    st = sh_cmd_err(cx, "wget", 3, "%s: every name up to .%u is taken", path,
                    WS_SUFFIX_MAX);
out:
    box_free(path);
    return st;
}

/* Writes the body to s: 0, or 3 after Wget's message. */
static int
ws_write(wget_run *wr, sh_stream *s, const char *shown, const http_result *res)
{
    if (res->hs_body_len == 0 ||
        sh_stream_write(wr->wr_cx, s, res->hs_body, res->hs_body_len, true) ==
            SH_IO_OK)
        return 0;
    wget_logf(wr, WGET_TERSE,
              "Cannot write to \xe2\x80\x98%s\xe2\x80\x99 (%s).\n", shown,
              strerror(errno != 0 ? errno : EIO));
    return 3;
}

int
wget_save(wget_run *wr, const char *url, const http_result *res)
{
    sh_ctx *cx = wr->wr_cx;
    sh_stream *s = NULL;
    char *shown = NULL;
    int st = 0;
    if (wr->wr_output != NULL && strcmp(wr->wr_output, "-") == 0) {
        wget_log_saving(wr, NULL);
        if (res->hs_body_len > 0)
            (void)sh_write(cx, 1, res->hs_body, res->hs_body_len);
        wget_log_saved(wr, NULL, res);
        return 0;
    }
    if (wr->wr_output != NULL) {
        // -O FILE: one file for every URL's document, truncated once.
        if (wr->wr_out == NULL) {
            int ost = 0;
            wr->wr_out = sh_stream_open(cx, "wget", wr->wr_output, NULL,
                                        O_WRONLY | O_CREAT | O_TRUNC, &ost);
            if (wr->wr_out == NULL)
                return ost == 125 ? 125 : 3;
        }
        wget_log_saving(wr, wr->wr_output);
        st = ws_write(wr, wr->wr_out, wr->wr_output, res);
        if (st == 0)
            wget_log_saved(wr, wr->wr_output, res);
        return st;
    }
    if ((st = ws_open_new(wr, url, &s, &shown)) != 0 || s == NULL)
        return st;
    wget_log_saving(wr, shown);
    st = ws_write(wr, s, shown, res);
    sh_stream_unref(s);
    if (st == 0)
        wget_log_saved(wr, shown, res);
    box_free(shown);
    return st;
}
