/**
 * The Pico protocol, PicoMQ's native HTTP API (brief section 6): a stream is the request path;
 * {@code PUT} creates, {@code POST} appends (one record, a JSON or binary batch), closes or trims,
 * {@code GET} reads (JSON, binary batch or raw bodies; catch-up, long-poll or SSE), {@code HEAD}
 * describes, {@code DELETE} deletes, and {@code GET /} lists. {@link
 * io.picomq.frontend.pico.PicoHandler} maps requests onto the {@link
 * io.picomq.stream.StreamService} and its outcomes onto statuses, {@code Pico-*} headers and JSON
 * errors. The wire vocabulary (header names, batch codecs) is {@code io.picomq.protocol}'s.
 */
package io.picomq.frontend.pico;
