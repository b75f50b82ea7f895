"""The published experiments, each a module with the same small interface.

Each module defines NAME, SUMMARY, add_arguments(parser), run(opts, record,
progress) -> record, render_text(record) -> str and figure(record, plt).
"""

from quickening.measure.experiments import jit, polymorphism, specialize, warmup

EXPERIMENTS = {mod.NAME: mod for mod in (specialize, polymorphism, warmup, jit)}
