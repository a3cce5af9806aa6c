"""asv driven as a child process: one run of one side (`side_run`), the suites it discovers
(`discover`) and the command lines themselves (`runner`)."""
