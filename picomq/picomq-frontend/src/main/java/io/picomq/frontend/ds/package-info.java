/**
 * The Durable Streams protocol on its exact wire vocabulary ({@code Stream-*} and {@code
 * Producer-*} headers, opaque offsets, JSON mode, long-poll, SSE, closure, idempotent producers,
 * TTL/expiry, ETags, forks), translated onto the {@link io.picomq.stream.StreamService}. Streams
 * live under {@code /v1/stream/}: {@code /v1/stream/orders/42} is the stream {@code /orders/42},
 * the same stream the Pico protocol serves at {@code /orders/42}.
 *
 * <p>Laid out as {@code io.picomq.frontend.pico} is: {@link
 * io.picomq.frontend.ds.DurableStreamsHandler} routes, {@code Creates}, {@code Appends} and {@code
 * Reads} (with {@code SseSession}) each answer one kind of request, and {@code Answers} holds the
 * answers they share.
 */
package io.picomq.frontend.ds;
