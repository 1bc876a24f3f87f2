a |
b