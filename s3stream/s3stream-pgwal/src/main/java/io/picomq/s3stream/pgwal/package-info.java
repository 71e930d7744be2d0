/**
 * The Postgres WAL: a node's write-ahead log kept in Postgres tables, so that an append costs one
 * commit rather than one object PUT per batch window ({@code PRODUCT.md} section 9; behaviour in
 * {@code s3stream/specification/wal-postgres.md}).
 *
 * <p>Public API: {@link io.picomq.s3stream.pgwal.PostgresWalUri} (the {@code --wal postgres://...}
 * URI) and {@link io.picomq.s3stream.pgwal.PostgresWals} (a connection pool, and the WALs of every
 * node of one cluster on it). Everything else is package-private: the WAL itself ({@code
 * PostgresWal}), its group commit ({@code BatchCommitter}), the SQL ({@code WalSchema}, {@code
 * NodeRows}, {@code SlotRows}), recovery ({@code RecoveryChain}, {@code RowRecoveryReader}) and the
 * start-up checks ({@code StartupChecks}).
 */
package io.picomq.s3stream.pgwal;
