a ||

b