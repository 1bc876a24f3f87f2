if x
then
  y
elif z
then w
fi