a	b
