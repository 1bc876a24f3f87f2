[[ foo.c == *.c && ! foo == f?x ]] && echo y; [[ a < b || 2 -gt 10 ]] && echo z; [[ "*" == \* ]]; echo $?
