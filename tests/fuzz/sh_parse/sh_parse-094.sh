a;
b