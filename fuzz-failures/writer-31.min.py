# fuzz: writer program, seed 31: stdout difference
# (run with PYTHONHASHSEED=0 natively and interpreted to compare by hand)
# output line 1
# native:      0 0 0 0 None 0
# interpreted: 0 0 0 0 Cell is empty 0
def _fz_report(e):
    ctx = e.__context__
    print(0, 0, 0, 0, ctx, 0)

def drive(coro, limit=0):
    sent = None
    got = coro.send(sent)

async def co1(k):
    try:
        del k
    except* 0 as e2:
        pass
    except* 0 as e4:
        n5 = (k for v6 in 0)
    finally:
        k
try:
    drive(co1(0))
except BaseException as _fz_e:
    _fz_report(_fz_e)
