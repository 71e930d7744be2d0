/**
 * The stream service contract: everything the HTTP frontends (Pico protocol and Durable Streams)
 * need from the node, addressed by stream name. One interface, {@link
 * io.picomq.stream.StreamService}, with immutable requests and sealed outcomes, and the routing
 * step in front of it ({@link io.picomq.stream.StreamRouter}: which node serves a stream); no
 * implementation lives here. This package is the whole of the {@code picomq-stream-api} module, so
 * a frontend compiles against the contract and nothing else; {@code picomq-server} implements it.
 *
 * <p>Names are already validated by the frontend: a name is a path such as {@code /orders/42},
 * starting with {@code /}, without empty, {@code .} or {@code ..} segments. Positions are record
 * sequence numbers ({@code seq}): the first record of a stream is 0, every record takes the next
 * one, and {@code nextSeq} is the seq the next appended record will get (the tail).
 */
package io.picomq.stream;
