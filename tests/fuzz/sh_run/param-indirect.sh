x=y; y=z; echo ${!x}; ab1=1 ab2=2; echo ${!ab*} ${!ab@}
