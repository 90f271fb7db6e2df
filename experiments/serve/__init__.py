"""Play, watch and compare in the browser: ``python -m experiments.serve``.

(placeholder: the full documentation page is written below)
"""
