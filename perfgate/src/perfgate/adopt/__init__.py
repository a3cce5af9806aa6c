"""Adopting the gate in a project: ``perfgate init`` (read the project, propose a commented
policy and the workflow files, write them without overwriting anything) and ``perfgate
doctor`` (check a project and a runner, one line per problem with its fix)."""
