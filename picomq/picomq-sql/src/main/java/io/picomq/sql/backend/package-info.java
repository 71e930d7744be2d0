/**
 * Where the metadata lives: parses {@code --meta-url} ({@code sqlite::memory:}, {@code
 * sqlite:PATH}, {@code postgres://...}), opens the matching connection source (one guarded
 * connection, or a pool), refuses a second node on a SQLite file, and creates the versioned schema
 * idempotently. Nothing here knows what the rows mean.
 */
package io.picomq.sql.backend;
