package io.picomq.frontend.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import java.util.Objects;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS side of the listeners that share one certificate: the context new connections handshake
 * with, and {@link #reload} to read the files again.
 *
 * <p>The JDK's TLS provider: it does ALPN on every supported JDK and needs nothing in the jlink'd
 * runtime; netty-tcnative would add a native library per platform, and no measurement asks for it.
 *
 * <p>ALPN offers {@code h2} first, then {@code http/1.1}; a client that offers neither, or no ALPN
 * at all, gets HTTP/1.1.
 *
 * <p>Threading: {@link #newHandler} is called on event loops while {@link #reload} runs on any
 * thread; the context is swapped in one volatile write, so a connection handshakes with the old or
 * the new context, whole. Connections already open keep the context they started with.
 */
public final class ServerTls {
  private static final Logger LOG = LoggerFactory.getLogger(ServerTls.class);

  private final TlsFiles files;

  /** Any thread reads; load and reload() write, the context and its description in one. */
  private volatile Current current;

  /** A context and what it serves, swapped together. */
  private record Current(SslContext context, String description) {}

  private ServerTls(TlsFiles files, PemIdentity identity) {
    this.files = files;
    install(identity);
  }

  /**
   * Reads {@code files} and builds the first context.
   *
   * @throws IllegalArgumentException in one line naming the file and the problem: missing,
   *     unreadable, not PEM, a key that is not the certificate's, a wrong password
   */
  public static ServerTls load(TlsFiles files) {
    Objects.requireNonNull(files, "files");
    return new ServerTls(files, PemIdentity.load(files));
  }

  /** The files this context is read from. */
  public TlsFiles files() {
    return files;
  }

  /** The certificate in use: its subject and end of validity. */
  public String description() {
    return current.description();
  }

  /**
   * Reads the files again; new connections use the new certificate. A failure keeps the context in
   * use and logs one line; nothing is thrown.
   *
   * @return whether the new files were taken
   */
  public boolean reload() {
    try {
      install(PemIdentity.load(files));
      LOG.info("TLS certificate reloaded: {}", current.description());
      return true;
    } catch (IllegalArgumentException e) {
      LOG.warn("TLS reload failed, still serving the previous certificate: {}", e.getMessage());
      return false;
    }
  }

  /** A TLS handler for a new server-side connection, with the current context. */
  public SslHandler newHandler(ByteBufAllocator allocator) {
    return current.context().newHandler(allocator);
  }

  private void install(PemIdentity identity) {
    SslContext built;
    try {
      built =
          SslContextBuilder.forServer(
                  identity.key(),
                  identity.chain().toArray(java.security.cert.X509Certificate[]::new))
              .sslProvider(SslProvider.JDK)
              .ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE)
              .applicationProtocolConfig(
                  new ApplicationProtocolConfig(
                      ApplicationProtocolConfig.Protocol.ALPN,
                      ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                      ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                      ApplicationProtocolNames.HTTP_2,
                      ApplicationProtocolNames.HTTP_1_1))
              .build();
    } catch (SSLException | RuntimeException e) {
      throw new IllegalArgumentException(
          "TLS certificate "
              + files.certificateChain()
              + " and key "
              + files.privateKey()
              + ": cannot make a TLS context of them ("
              + e.getMessage()
              + ")",
          e);
    }
    current = new Current(built, identity.describe());
  }
}
