for v in a b
do x
done