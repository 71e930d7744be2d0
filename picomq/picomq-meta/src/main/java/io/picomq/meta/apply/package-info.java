/**
 * Apply: the pure, deterministic function from (state, command) to (new state, result). It reads no
 * clock, no configuration and nothing about the node running it, so every node that applies the
 * same log reaches the same state. Each command either changes the state and returns {@code Ok},
 * changes nothing and returns {@code Redundant} (the work was already done: retrying is safe), or
 * changes nothing and returns {@code Rejected} with a reason.
 */
package io.picomq.meta.apply;
