/**
 * Node flags the front door runs with: `radar up` starts it so, and so does `bench:relay`;
 * whoever runs `radar serve` another way passes them themselves (README, model relay
 * "Benchmark").
 *
 * `--max-semi-space-size=4` (MiB) caps V8's young generation, which otherwise grows to
 * 2 × 16 MiB while the modules load and stays resident: a third of an idle front door's memory,
 * and as much again under load. What the relay allocates per chunk and per call dies young,
 * so scavenges of a 4 MiB semi-space find little alive: CPU per call and per stream were no
 * worse than with V8's default in the same runs (bench:relay). 2 MiB saved 2 MB more and, in
 * the one run measured, cost ~25% more CPU per call.
 */
export const FRONT_DOOR_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4'];
