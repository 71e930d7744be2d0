package io.picomq.client;

/** The wire protocol a PicoMQ listener speaks; a client speaks exactly one. */
public enum Protocol {
  /** The native Pico protocol: streams at {@code BASE/{stream}}, {@code Pico-*} headers. */
  PICO,
  /**
   * The open Durable Streams protocol: streams at {@code BASE/v1/stream/{stream}}, {@code Stream-*}
   * and {@code Producer-*} headers, opaque offsets (translated to seqs by this client).
   */
  DURABLE_STREAMS
}
