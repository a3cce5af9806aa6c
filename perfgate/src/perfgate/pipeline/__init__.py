"""The stages of a perfgate run, one module each, in the order they run:

context -> parity -> measure (asking sampling what to run next) -> compare -> decide ->
render -> publish. `gate` and `calibrate` run them for a measuring run; `stored_results`
feeds the same compare/decide/render stages from stored asv results.
"""
