"""Float arithmetic in a tight loop (a damped oscillator)."""


def workload():
    x, v, dt = 1.0, 0.0, 0.001
    k, c = 4.0, 0.1
    for _ in range(300_000):
        a = -k * x - c * v
        v = v + a * dt
        x = x + v * dt
    return round(x, 12), round(v, 12)
