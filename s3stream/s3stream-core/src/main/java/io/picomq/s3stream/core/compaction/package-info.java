/**
 * Compaction on the stream's owner: decides which data blocks of this node's stream-set objects
 * move into stream objects of their own and which merge into one new stream-set object ({@link
 * io.picomq.s3stream.core.compaction.CompactionPlanner}), carries such a plan out and commits it
 * atomically ({@link io.picomq.s3stream.core.compaction.StreamSetObjectCompactor}), and merges a
 * stream's small stream objects into one ({@link
 * io.picomq.s3stream.core.compaction.StreamObjectCompactor}). Both rewrite the data a trim left
 * below a stream's start offset out of the objects they touch. {@link
 * io.picomq.s3stream.core.compaction.CompactionScheduler} runs both on the engine's timer.
 * Specification: {@code s3stream/specification/compaction.md}.
 */
package io.picomq.s3stream.core.compaction;
