"""One gate run over several identical runners: the cost-balanced partition (`partition`),
one shard's run (`shard`), the set of shards checked (`shard_set`) and merged (`merge`)."""
