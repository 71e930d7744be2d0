/**
 * The metadata plane's state machine: every change to cluster state is a {@code Command} with a
 * versioned binary encoding, applied by a pure, deterministic function to an immutable state.
 */
package io.picomq.meta;
