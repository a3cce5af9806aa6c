"""The simulated instrument: CPU cost per call counted under valgrind's callgrind.

A benchmark process runs its cases once under ``valgrind --tool=callgrind`` with cache
simulation; only the timed calls are instrumented (client requests switch instrumentation on
and dump the counts per case), so start-up, imports, compiles and set-up are never counted.
The counts (instructions, L1 and last-level misses) are deterministic for the same binary,
inputs and environment, whatever else the machine does, so one measurement per side decides a
case where the wall clock needs many paired rounds. What needs several threads, memory
bandwidth, NUMA or frequency stays on the wall clock: valgrind serializes threads and
simulates caches, not DRAM.

Modules: ``client`` (the client requests, no compiler), ``cost`` (events and the published
cost model), ``callgrind`` (the command line and its dump files), ``target`` (which CPU a JIT
compiles for under valgrind), ``child`` (the measured process), ``harness`` (runs it natively,
then under valgrind), ``suite`` (an asv base class whose results are ordinary asv results).
"""
