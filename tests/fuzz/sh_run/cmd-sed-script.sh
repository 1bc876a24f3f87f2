printf 'one\ntwo\nthree\nfour\n' > f
sed -n '2,3p;$=' f; sed 's/\(o\)\(.\)/\2\1/g;y/abc/ABC/' f
sed -E '/t(w|h)/{s/(.)$/\U\1/;a after
}' f; sed '1!G;h;$!d' f; sed -n '0,/o/{l;=}' f
sed -e ':a' -e 'N;$!ba' -e 's/\n/,/g' f; sed '$!N;P;D' f
sed '2i\
in\
two
3c changed' f; sed -s -n '1~2p' f f; sed 's/x*/-/2g;T;s/^/>/' f
