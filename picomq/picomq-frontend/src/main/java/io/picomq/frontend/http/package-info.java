/**
 * HTTP serving on Netty, shared by both protocols: one listener speaking HTTP/1.1 and HTTP/2 on the
 * same port (in cleartext: prior knowledge and {@code Upgrade: h2c}; over TLS: chosen by ALPN),
 * request limits answered with JSON errors (413, 431, 414, 400), what browsers may do (the {@code
 * Host} check against DNS rebinding, CORS and the refusal of foreign pages' writes), stream-name
 * validation, handlers run on virtual threads (never on an event loop), and graceful shutdown with
 * a drain period.
 */
package io.picomq.frontend.http;
