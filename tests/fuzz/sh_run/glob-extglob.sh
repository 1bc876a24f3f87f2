shopt -s extglob; touch /p.txt /p.md /q.txt; echo /@(p|q).txt /!(p).* /+(p|q).@(txt|md) /?(p).md /*(q).txt
