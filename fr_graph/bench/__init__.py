"""LifecycleBench-style benchmark: a seeded persona generator, a runner and a report."""
