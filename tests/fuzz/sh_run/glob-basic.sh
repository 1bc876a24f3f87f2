mkdir -p /t/a /t/b; touch /t/a/x.c /t/a/y.h /t/b/z.c; echo /t/*/*.c /t/?/[xy].* /t/[!a]/*
