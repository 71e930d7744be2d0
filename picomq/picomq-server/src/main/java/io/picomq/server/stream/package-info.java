/**
 * The stream service contract: everything the HTTP frontends (Pico protocol and Durable Streams)
 * need from the node, addressed by stream name. One interface, {@link
 * io.picomq.server.stream.StreamService}, with immutable requests and sealed outcomes; no
 * implementation lives here.
 *
 * <p>Names are already validated by the frontend: a name is a path such as {@code /orders/42},
 * starting with {@code /}, without empty, {@code .} or {@code ..} segments. Positions are record
 * sequence numbers ({@code seq}): the first record of a stream is 0, every record takes the next
 * one, and {@code nextSeq} is the seq the next appended record will get (the tail).
 */
package io.picomq.server.stream;
