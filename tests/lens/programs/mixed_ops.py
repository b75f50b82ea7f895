"""BINARY_OP_EXTEND sites (3.14+): int + float and float * int."""
import time
def mix(a, b):
    return a + b
def mix2(a, b):
    return a * b
t = 0
for i in range(100000):
    t += mix(i, 0.5)
    t += mix2(2.5, i)
time.sleep(0.03)
print(t)
