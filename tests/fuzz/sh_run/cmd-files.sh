mkdir -p -m 750 -v d/e && echo hi > d/a && cp -rv d c && cp -a d/a c/b
cp -n -t c d/a; cp -T d/a x; cp --preserve=mode,timestamps d/a y; cp -r d d/sub
mv -v x z; mv -n z c; mv -t d y; mv -T c w; mv d/a /tmp/a; mv /tmp/a a
ln -s a l; ln -sfv a l; ln -srn w/e r; ln -st w ../a; ln a hard
chmod -R u+rwX,go-w,a=r+X w; chmod -v 0644 a; chmod -cf =r,u+w a; chmod -w,+x a; chmod --reference=a l
readlink l; readlink -f w/../l; readlink -em nope/x; readlink -nz l l
realpath --relative-to=w -s l a; realpath --relative-base=. -eqz w nope
t=$(mktemp -d -p . --suffix=.d XXXXXX) && f=$(mktemp -u -t f.XXX) && rmdir -pv --ignore-fail-on-non-empty "$t"
rm -rfv --preserve-root w l r; rm -d -- -x; rmdir -p d/e; rm -i a; mktemp x
