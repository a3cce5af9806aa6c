"""The simulated thread-scaling instrument: per-thread counts under callgrind (`threaded`,
`thread_child`, `worker_dump`), the model that projects E(T) from them (`model`), its asv face
(`suite`) and its rows in the gate (`compare`)."""
