/**
 * Benchmark mains for the metadata state machine, run by {@code scripts/bench-metadata-scale.sh}
 * and never by the test suite: they measure heap, snapshot and apply cost at a million streams.
 */
package io.picomq.meta.bench;
