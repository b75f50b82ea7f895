import sys
print("argv", sys.argv[1:])
try:
    sys.exit(3)
finally:
    print("finally runs")
