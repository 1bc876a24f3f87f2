p=/usr/local/lib/libfoo.so.1; echo ${p#*/} ${p##*/} ${p%.*} ${p%%.*} ${p#[/u]} ${p%?}
