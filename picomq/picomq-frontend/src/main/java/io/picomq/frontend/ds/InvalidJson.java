package io.picomq.frontend.ds;

/** A JSON-mode body that cannot be stored: malformed, or an append of an empty array. */
final class InvalidJson extends BadRequest {

  private static final long serialVersionUID = 1L;

  InvalidJson(String message) {
    super(message);
  }
}
