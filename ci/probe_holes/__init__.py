"""Issue 37's fourteen holes, each reproduced again end to end against the installed perfgate.

Each item of issue 37 (an outside probe's findings: secrets, a hostile head, init and doctor)
is run as its shortest reproduction: the real ``perfgate`` command line, as a user or a
hostile pull request drives it, in throwaway git repositories under ``--work``; secrets
come from environment variables; GitHub is the tests' fake API on 127.0.0.1 (checked
against GitHub's OpenAPI description) where an item talks to it (1 files an issue, 3 posts a
comment, 4 gets 401, 12 an unreachable API). Items 5 to 8 run real gates on tiny suites
(5: a head whose code detaches ``setsid sh -c 'sleep 240 &'``, which also edits the suites
for 14d; 6: a head that skips work under valgrind, sim and wall clock; 7: two sim gates
whose suites differ in version; 8: a head that commits a link out of the repository).
Items 10 and 12f need root (``chattr +i``), 13 valgrind (docs/security.md).

Prints one table, ``item | what was done | expected | observed | ok``; a row that could not
be run says why (NOT RUN) and is not ok. Exit 0 only when every row is ok, 1 otherwise.

    .venv/bin/python ci/probe-holes.py [--work DIR] [--only 1,5,12]

``ci/probe-holes.py`` is the entry point (it puts ``ci/`` and the tests' helpers on
``sys.path``); its modules, each importing only those listed before it: ``harness`` (rows,
running commands, git, the fake GitHub), ``judging`` (leaks, clean errors), ``tiny_project``
(the tiny asv project and its gate), the items (``items_secrets`` 1-4, ``items_hostile`` 5, 8
and 14d, ``items_sim`` 6-7, ``items_init`` 9-11, ``items_errors`` 12-14), ``table`` and
``cli`` (the registry of items, the command line, ``main``).
"""
