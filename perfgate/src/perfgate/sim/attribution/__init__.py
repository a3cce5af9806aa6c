"""Where a sim case's counts went: per-function costs of the measured calls, Numba kernels
named by their code addresses, the per-function diff of base and head, what changed in a
kernel's compiled code, and a differential flame graph.

The pieces, each one job (pure unless said otherwise):

- `elf`: the function symbols of an ELF object (Numba's compiled object code);
- `kernels`: the code ranges of compiled kernels and the naming of callgrind's unnamed
  ``0x...`` functions by them;
- `record`: run in the measured process (I/O, imports numba only where it is loaded): the
  code ranges of every compiled kernel, and their assembly and LLVM IR;
- `profile`: callgrind's out-file format (``fn=``/``cfn=``/``calls=`` records, name
  compression) to per-function and per-call costs;
- `table`: one case's functions table (the measured calls' weighted mean per call, kernels
  named, inclusive and exclusive costs of every event);
- `keep`: the tables, dumps and kernel maps kept beside a count (``PERFGATE_SIM_PROFILES``);
- `diff`: base vs head per function, largest first, and the sentence that says where;
- `code`: a kernel's machine code summarised (instructions, vector loops, NRT calls,
  branches) and the asm/IR diffs;
- `flame`: a differential flame graph as SVG text.
"""
