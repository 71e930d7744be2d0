package io.picomq.frontend.http;

/**
 * What one request may carry. Past a limit the listener answers with a JSON error and the handler
 * never sees the request.
 *
 * @param maxBodyBytes request body cap; larger bodies get 413
 * @param maxHeaderBytes cap on the request's header block (names plus values); larger gets 431
 * @param maxRequestLineBytes cap on the HTTP/1.1 request line (method, target, version); longer
 *     gets 414
 */
public record HttpLimits(int maxBodyBytes, int maxHeaderBytes, int maxRequestLineBytes) {

  public static final HttpLimits DEFAULT = new HttpLimits(16 << 20, 16 << 10, 8 << 10);

  public HttpLimits {
    if (maxBodyBytes < 1 || maxHeaderBytes < 256 || maxRequestLineBytes < 64) {
      throw new IllegalArgumentException(
          "limits too small: body="
              + maxBodyBytes
              + " header="
              + maxHeaderBytes
              + " requestLine="
              + maxRequestLineBytes);
    }
  }
}
