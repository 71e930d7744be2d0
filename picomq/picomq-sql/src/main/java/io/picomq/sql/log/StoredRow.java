package io.picomq.sql.log;

/** A row as read from the log or snapshot table: its index and raw payload. */
record StoredRow(long index, byte[] payload) {}
