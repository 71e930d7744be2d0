/**
 * The cluster's metadata as an immutable value: nodes, streams, the object catalog with its
 * per-stream offset index, prepared object ids, the destruction queue, pending transfers and the
 * KV. Built on persistent maps, so a changed state shares almost all of its structure with the
 * state it came from and publishing a new view costs a few allocations, not a copy.
 */
package io.picomq.meta.state;
