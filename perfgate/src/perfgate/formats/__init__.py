"""The files perfgate reads and writes, one module per format and the only code that parses
or serializes them: asv's results, ``benchmarks.json`` and ``asv.conf.json``; perfgate's
sample, noise-floor, parity-result and report files. They return `perfgate.model` records.
"""
