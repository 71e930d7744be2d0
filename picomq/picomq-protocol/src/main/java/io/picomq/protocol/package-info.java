/**
 * The Pico protocol's wire vocabulary, shared by the server's frontend and the Java client: header
 * names ({@link io.picomq.protocol.PicoHeaders}), media types ({@link
 * io.picomq.protocol.PicoMediaTypes}), the record envelope every record is stored in ({@link
 * io.picomq.protocol.Envelope}) and the binary batch codecs ({@link
 * io.picomq.protocol.AppendBatch}, {@link io.picomq.protocol.ReadBatch}).
 *
 * <p>No dependencies beyond the JDK, so the client SDK stays publishable on its own: encoded data
 * is a {@code byte[]} here, not a Netty buffer. Every decoder is strict (one valid encoding per
 * value) and answers damaged input with a typed {@link io.picomq.protocol.DecodeException}, never
 * with another exception. The formats are specified in this module's {@code README.md}.
 */
package io.picomq.protocol;
