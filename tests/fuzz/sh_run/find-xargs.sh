mkdir -p t/a/b t/c; printf 'x\n' > t/a/f.c; printf 'yy\n' > t/a/b/g.h; touch t/c/e
find t -name '*.c' -o \( -type d -name b \) -prune -o -type f -print
find t -regex '.*\.\(c\|h\)' -printf '%p|%f|%h|%P|%d|%s|%m|%M|%y\n' , -iname 'E*'
find t -maxdepth 2 -mindepth 1 -size -2k -perm /u=w ! -empty -exec echo {} + -exec wc -c {} \;
find t -type f,d -newer t/c/e -mmin -5 -mtime 0 -execdir echo {} \; -quit
find t/c -depth -type f -delete; find -L t -xtype d -print0 | xargs -0 -n1 -t echo
printf 'a "b c"\n\\d e\n' | xargs -L1 -r echo; printf '1,2,3' | xargs -d, -I{} echo [{}]
printf 'x\0y\0' | xargs -0 -s 20 -x -P 2 echo; printf 'p END q\n' | xargs -E END -n 1
