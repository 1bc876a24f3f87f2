v="it's a \$x"; echo ${v@Q}; e='a\tb'; echo ${e@E}; u=hello; echo ${u@U} ${u@u} ${u^^} ${u^} ${u,,} ${u~~}
