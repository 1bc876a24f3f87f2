a &&
b