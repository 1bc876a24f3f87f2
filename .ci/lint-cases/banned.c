/* SPDX-License-Identifier: Apache-2.0 */
/* A fixture for .ci/lint_test, never compiled: each line with a "want"
 * comment must be reported for exactly the calls it names, no other. */
void
lint_fixture(void)
{
    strcpy(b, "x");                  // want: strcpy
    sprintf(b, "%d", 1);             // want: sprintf
    n = atoi("1") + atol("2");       // want: atoi atol
    system("ls"); popen("ls", "r");  // want: system popen
    x = gets(b); strtok(b, ","); vsprintf(b, f, ap); // want: gets strtok vsprintf
    p = malloc(1);                   // want: malloc
    p = calloc (1, 1);               // want: calloc
    p = realloc(p, 2);               // want: realloc
    free(p);                         // want: free
    p = strdup("x"); q = strndup("x", 1); // want: strdup strndup
    n = asprintf(&p, "x");           // want: asprintf
    free(p); // lint: allow raw-alloc: scandir mallocs it
    free(p); /* want: free */ // lint: allow raw-alloc:
    strcpy(b, "x"); /* want: strcpy */ // lint: allow raw-alloc: only allocation
    /* strcpy(b, "x") and free(p) in a comment */
    puts("strcpy(b) and free(p) in a string");
    box_free(p); snprintf(b, 8, "x"); my_system(1); s.free(p); a->free(p);
    strtok_r(b, ",", &p); p = box_strdup("x"); n = strtol(s, &e, 10);
    /* a comment
       spanning free(p) lines
       strcpy(b, "x") */ free(p);    // want: free
    c = '"'; free(p);                // want: free
    s = "a \" free(p)"; d = '\''; q = "/*"; sprintf(b, "x"); // want: sprintf
}
