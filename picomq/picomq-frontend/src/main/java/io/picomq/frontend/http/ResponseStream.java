package io.picomq.frontend.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The body of a response that is written over time (Server-Sent Events). Chunked on HTTP/1.1, DATA
 * frames on HTTP/2. Any thread may call; writes go out in call order.
 */
public final class ResponseStream {

  private final Channel channel;
  private final Exchange exchange;
  private final AtomicBoolean ended = new AtomicBoolean();

  ResponseStream(Channel channel, Exchange exchange) {
    this.channel = channel;
    this.exchange = exchange;
  }

  /**
   * Sends bytes; the future completes once they are handed to the socket, so a writer that waits
   * for it never buffers more than one write ahead of a slow client. It fails if the connection is
   * gone.
   */
  public CompletableFuture<Void> write(byte[] bytes) {
    if (ended.get()) {
      return CompletableFuture.failedFuture(new IllegalStateException("the response has ended"));
    }
    return completion(channel.writeAndFlush(new DefaultHttpContent(Unpooled.wrappedBuffer(bytes))));
  }

  /** Ends the response. Idempotent. */
  public void end() {
    if (ended.compareAndSet(false, true)) {
      channel
          .writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT)
          .addListener(written -> exchange.finished(!written.isSuccess()));
    }
  }

  private static CompletableFuture<Void> completion(ChannelFuture write) {
    CompletableFuture<Void> written = new CompletableFuture<>();
    write.addListener(
        done -> {
          if (done.isSuccess()) {
            written.complete(null);
          } else {
            written.completeExceptionally(done.cause());
          }
        });
    return written;
  }
}
