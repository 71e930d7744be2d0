package io.picomq.frontend.ds;

/**
 * A request the protocol cannot accept, found before anything changed: the handler answers it 400
 * {@code bad_request} with this message.
 */
class BadRequest extends Exception {

  private static final long serialVersionUID = 1L;

  BadRequest(String message) {
    super(message, null, false, false);
  }
}
