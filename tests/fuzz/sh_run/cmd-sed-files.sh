printf 'a=1\nb=2\n' > conf; printf 'R\n' > ins
sed -i.bak 's/^a=.*/a=9/;1r ins' conf; sed -n 'w out
R ins' conf; sed -z 's/\n/;/g' conf
sed -i'bk_*' -e '$a end' -e '1d' conf; sed 2q5 conf; sed -f nosuch conf
sed -n '/b/,+1{F;p}' conf conf.bak; sed 's/a/b' conf; sed --posix -u -l 5 -n l out
