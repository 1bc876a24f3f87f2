shopt -s extglob; v=aaaBBBccc; echo ${v^^[a-b]} ${v,,B} ${v##+(a)} ${v%%@(c|B)*}
