/**
 * JMH benchmarks of the engine's hot paths: codecs, objects, the WAL, appends and cold reads. Build
 * with {@code mvn package -pl s3stream/s3stream-jmh -am} and run {@code target/benchmarks.jar}; the
 * figures live on the engine's docs page.
 */
package io.picomq.s3stream.jmh;
