"""What a benchmark case reads, recorded when it is built and called, so that a change none
of whose files it read provably leaves its counts where they were (issue 50).

`recorder` runs inside the measured process (the files whose Python code ran, the files
opened, the Numba kernels called); `imports` closes that set over the static imports of the
project's own files; `environment` digests what is not a project file (interpreter,
installed distributions, valgrind, CPU, the child's variables); `selection` decides, from a
trusted base's footprints and the gate's own git diff, which cases are unchanged and why.
"""
