/**
 * The engine's meters, all named {@code s3stream.*} and registered with the Micrometer registry the
 * host injects (a {@code SimpleMeterRegistry} when it gives none). The full list, with what each
 * meter counts, is in {@code s3stream/specification/pipeline.md}.
 */
package io.picomq.s3stream.core.metrics;
