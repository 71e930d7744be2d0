/**
 * JMH benchmarks of the engine's hot paths: codecs, objects, the WAL, appends and cold reads. Build
 * with {@code mvn package -pl s3stream/s3stream-jmh -am} and run {@code target/benchmarks.jar}, or
 * all of them with {@code scripts/bench-engine.sh}; the figures live on the engine's docs page. The
 * whole-run checks (a tail reader's GETs, cold replay after a crash) are {@code main}s.
 */
package io.picomq.s3stream.jmh;
