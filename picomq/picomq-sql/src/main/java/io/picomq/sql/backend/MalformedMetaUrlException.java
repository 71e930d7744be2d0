package io.picomq.sql.backend;

/**
 * A {@code --meta-url} that names no backend we can open. The message quotes the URL with any
 * password removed, says what is wrong, and lists the accepted forms.
 */
public final class MalformedMetaUrlException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  static final String ACCEPTED_FORMS =
      "accepted forms: sqlite::memory:, sqlite:PATH, postgres://user:password@host:port/database";

  MalformedMetaUrlException(String redactedUrl, String problem) {
    super("malformed --meta-url '" + redactedUrl + "': " + problem + " (" + ACCEPTED_FORMS + ")");
  }
}
