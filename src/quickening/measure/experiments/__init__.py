"""The published experiments, each a module with the same small interface.

Each module defines NAME, SUMMARY, add_arguments(parser), run(opts, record,
progress) -> record, render_text(record) -> str and figure(record, plt).
"""

EXPERIMENTS = {}


def _register():
    from quickening.measure.experiments import jit, polymorphism, specialize, warmup
    for mod in (specialize, polymorphism, warmup, jit):
        EXPERIMENTS[mod.NAME] = mod


try:
    _register()
except ImportError:  # during development a module may be missing
    pass
