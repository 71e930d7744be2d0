/**
 * Live reads as both protocols serve them, apart from their wire vocabulary: the options that pace
 * them ({@link io.picomq.frontend.live.LiveOptions}), the wait for a stream's tail to move without
 * holding a thread, the chain of steps of one Server-Sent Events response, and the cache that
 * encodes an event once for every reader. What a protocol says on the wire (header names, offsets
 * or seqs, the shape of its events) stays in {@code io.picomq.frontend.ds} and {@code
 * io.picomq.frontend.pico}.
 */
package io.picomq.frontend.live;
