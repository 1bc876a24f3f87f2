mkdir -p d/e/f; printf 'TODO a\n' > d/a.c; printf 'TODO b\n' > d/e/b.h; printf 'x\n' > d/e/f/c.c
grep -r TODO d; grep -rn --include='*.c' TODO; grep -R -l --exclude='b*' --exclude-dir=f TODO d/
grep -rc -d skip TODO d; grep -r -f d/a.c d; grep -rLq zz d nosuch; grep -s -r TODO d/e/b.h d/e
