/**
 * The node's HTTP front door: a {@link io.picomq.frontend.Frontend} is one listener speaking one
 * protocol (Pico or Durable Streams) over a {@link io.picomq.stream.StreamService}.
 */
package io.picomq.frontend;
