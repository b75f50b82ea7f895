"""Running modules of CPython's own Lib/test natively and in the interpreter.

    worker   one run of one module in a fresh process (native or interpreted),
             recording every test's outcome as JSON
    runner   runs both workers for each module, compares per test id and
             formats the table `quickening cpython-tests` prints
"""
