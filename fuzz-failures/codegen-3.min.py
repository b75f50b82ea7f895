# fuzz: codegen program, seed 3: stdout difference
# (run with PYTHONHASHSEED=0 natively and interpreted to compare by hand)
# output line 1
# native:      0 0 0 0 None 0
# interpreted: 0 0 0 0 'name_0' 0
def _fz_report(e):
    ctx = e.__context__
    print(0, 0, 0, 0, ctx, 0)
try:
    del name_0, name_1, name_3, name_4, name_4, name_2
except BaseException as _fz_e:
    _fz_report(_fz_e)
