/**
 * The write-ahead log: a per-node, single-writer, epoch-fenced log of small objects that lets the
 * engine acknowledge appends before records are uploaded into data objects.
 *
 * <p>{@link io.picomq.s3stream.wal.WriteAheadLog} is the contract; {@link
 * io.picomq.s3stream.wal.ObjectWal} keeps the log in an object store and {@link
 * io.picomq.s3stream.wal.MemoryWal} in a {@link io.picomq.s3stream.wal.MemoryWalVolume}, for tests.
 * {@link io.picomq.s3stream.wal.ClusterWals} opens another node's WAL, for a takeover ({@link
 * io.picomq.s3stream.wal.ObjectClusterWals} for object WALs). The behaviour (batching, ordering,
 * trim, recovery, fencing) is specified in {@code s3stream/specification/wal.md}.
 */
package io.picomq.s3stream.wal;
