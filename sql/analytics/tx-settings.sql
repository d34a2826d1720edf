-- Settings for the rest of an analytics transaction (rollup or read):
-- no JIT — the planner's estimates for joins of bucket ranges run orders of magnitude high,
-- and PostgreSQL would spend 10 to 1000 ms compiling statements that run in a few;
-- room to sort and hash a large site's hours in memory rather than on disk.
SET LOCAL jit = off;
SET LOCAL work_mem = '64MB'
