/**
 * TLS for the listeners: the PEM certificate chain and private key an operator names ({@link
 * io.picomq.frontend.tls.TlsFiles}), read and checked into a Netty {@code SslContext} that offers
 * h2 and http/1.1 through ALPN ({@link io.picomq.frontend.tls.ServerTls}), and read again on demand
 * (SIGHUP) without disturbing the connections already open.
 */
package io.picomq.frontend.tls;
