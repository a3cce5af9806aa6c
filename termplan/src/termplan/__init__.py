"""termplan: the benchmarked workloads.

Reward, termination and observation "hot slices" of two robot-learning tasks (G1 walk and
Motion tracking), each in three paths: a NumPy reference, a hand-written Numba kernel (the
baseline) and a kernel assembled from a declarative term plan. termplan knows nothing of
perfgate.
"""

__version__ = "0.1.0"
