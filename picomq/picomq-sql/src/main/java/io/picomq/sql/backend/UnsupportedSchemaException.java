package io.picomq.sql.backend;

/** The database holds a schema version newer than this build understands. */
public final class UnsupportedSchemaException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  UnsupportedSchemaException(String database, int found, int supported) {
    super(
        database
            + " has metadata schema version "
            + found
            + " but this PicoMQ understands versions up to "
            + supported
            + "; upgrade PicoMQ before opening it");
  }
}
