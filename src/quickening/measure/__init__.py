"""Honest measurements of interpreter configurations.

`quickening compare` runs two configurations interleaved (A B A B ...), each
run a fresh process keeping the best of several repeats, and claims a
difference only when the ranges over pairs do not overlap.  `quickening
experiment NAME` reproduces the published measurements about CPython's
specializing interpreter; every run writes a JSON record
(`quickening records`) and can draw a chart.
"""
