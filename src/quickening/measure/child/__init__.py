"""Child-process scripts, run by path with the interpreter being measured."""
